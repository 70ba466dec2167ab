//! Waiting for the user's approval of a tool call: each question gets an id, is announced as
//! an `approval_needed` event, and is answered through [`Approvals::answer`] (the UI's buttons,
//! the CLI's prompt). A stopped turn stops waiting.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

use crate::vocab::ApprovalAnswer;

/// The questions waiting for an answer.
#[derive(Clone, Debug, Default)]
pub struct Approvals {
    pending: Arc<Mutex<HashMap<String, oneshot::Sender<ApprovalAnswer>>>>,
}

impl Approvals {
    /// Registers a question; the receiver resolves when it is answered.
    pub fn ask(&self) -> (String, oneshot::Receiver<ApprovalAnswer>) {
        let id = uuid::Uuid::now_v7().to_string();
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id.clone(), tx);
        (id, rx)
    }

    /// Answers question `id`; false when no such question waits (answered, or its turn ended).
    pub fn answer(&self, id: &str, answer: ApprovalAnswer) -> bool {
        match self.lock().remove(id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Drops question `id` (its turn stopped waiting).
    pub fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    /// How many questions wait.
    pub fn waiting(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<ApprovalAnswer>>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
