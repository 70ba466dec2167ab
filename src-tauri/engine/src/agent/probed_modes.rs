//! Auto tool mode decided by the tool-use probe (`providers/probe.rs`) when the model was
//! probed: a model the probe saw call tools natively goes native (whatever was learned before),
//! one that called only in prompt mode or in its text goes to prompt mode at once (no native
//! request first); `none` and `unknown` leave it to what auto mode learned
//! (`learned_modes`). The built-in model is left alone: its provider chooses native or prompt
//! from its template, and holds the call to a grammar only on the native route.

use std::collections::HashSet;

use crate::store::{ProviderRecord, Store, StoreError, ToolSupport};
use crate::vocab::ProviderKind;

/// The models of `record` auto mode sends to prompt mode, for a turn on `model`: what was
/// learned, with `model` put in or left out by its probe.
pub(crate) async fn prompt_only(
    store: &Store,
    record: &ProviderRecord,
    model: &str,
) -> Result<HashSet<String>, StoreError> {
    let (learned, probe) = tokio::join!(
        super::learned_modes::load(store, &record.id),
        store.model_probe(&record.id, model)
    );
    let mut learned = learned?;
    decide(&mut learned, record.kind, model, probe?.map(|p| p.support));
    Ok(learned)
}

/// Puts `model` in `prompt_only` or takes it out, as its probe found.
pub(crate) fn decide(
    prompt_only: &mut HashSet<String>,
    kind: ProviderKind,
    model: &str,
    probed: Option<ToolSupport>,
) {
    if kind == ProviderKind::Local {
        return;
    }
    match probed {
        Some(ToolSupport::Native) => {
            prompt_only.remove(model);
        }
        Some(ToolSupport::Prompt) => {
            prompt_only.insert(model.to_owned());
        }
        Some(ToolSupport::None | ToolSupport::Unknown) | None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(models: &[&str]) -> HashSet<String> {
        models.iter().map(|m| (*m).to_owned()).collect()
    }

    #[test]
    fn a_probe_decides_auto_mode_and_without_one_what_was_learned_stays() {
        let learned = set(&["refused"]);
        let after = |kind, model, probed| {
            let mut s = learned.clone();
            decide(&mut s, kind, model, probed);
            s
        };
        let openai = ProviderKind::Openai;
        assert_eq!(
            after(openai, "m", Some(ToolSupport::Prompt)),
            set(&["refused", "m"])
        );
        assert_eq!(
            after(openai, "refused", Some(ToolSupport::Native)),
            set(&[])
        );
        for unsure in [None, Some(ToolSupport::None), Some(ToolSupport::Unknown)] {
            assert_eq!(after(openai, "m", unsure), learned);
        }
        assert_eq!(
            after(ProviderKind::Local, "m", Some(ToolSupport::Prompt)),
            learned
        );
    }
}
