//! `switchboard chat --compare PROVIDER/MODEL,PROVIDER/MODEL[,…]`: one message answered by two
//! to four models at once. The answers run side by side and are printed one after the other
//! when all have ended, each under a line with its model, output tokens, time to first token
//! and total time. Tool calls run when `--yes` allows them; otherwise each is denied (several
//! models cannot share one terminal prompt). The first model's answer is the one the
//! conversation then shows; the others are branches.

use std::io::Write;
use std::time::{Duration, Instant};

use switchboard_engine::Engine;
use switchboard_engine::agent::{ApprovalAnswer, ChatEvent, CompareModel, TurnEnd};
use tokio::sync::mpsc;

use super::CliError;

/// What one model did, as the terminal shows it.
#[derive(Default)]
struct Lane {
    label: String,
    text: String,
    error: Option<String>,
    output_tokens: u64,
    first_token: Option<Duration>,
    total: Duration,
    calls: Vec<String>,
    end: Option<TurnEnd>,
}

/// Parses `provider/model` pairs (the provider by name or id; a model may hold more slashes).
pub(super) async fn models(
    engine: &Engine,
    list: &[String],
) -> Result<Vec<(String, CompareModel)>, CliError> {
    let mut out = Vec::new();
    for item in list {
        let Some((provider, model)) = item.split_once('/') else {
            return Err(CliError::Usage(format!(
                "--compare takes PROVIDER/MODEL pairs; {item:?} has no \"/\""
            )));
        };
        let id = super::chat::provider_id(engine, provider.trim()).await?;
        out.push((
            item.clone(),
            CompareModel {
                provider_id: id,
                model: model.trim().to_owned(),
            },
        ));
    }
    Ok(out)
}

/// Runs the compare in conversation `conversation` and prints the answers.
pub(super) async fn run(
    engine: &Engine,
    conversation: &str,
    prompt: &str,
    models: Vec<(String, CompareModel)>,
    yes: bool,
) -> Result<(), CliError> {
    let start = Instant::now();
    let (tagged_tx, mut tagged) = mpsc::unbounded_channel::<(usize, ChatEvent)>();
    let mut senders = Vec::new();
    for i in 0..models.len() {
        let (tx, mut rx) = mpsc::unbounded_channel::<ChatEvent>();
        senders.push(tx);
        let out = tagged_tx.clone();
        tokio::spawn(async move {
            while let Some(e) = rx.recv().await {
                let _ = out.send((i, e));
            }
        });
    }
    drop(tagged_tx);
    let (labels, wanted): (Vec<String>, Vec<CompareModel>) = models.into_iter().unzip();
    let turn = {
        let (engine, id, prompt) = (engine.clone(), conversation.to_owned(), prompt.to_owned());
        tokio::spawn(async move { engine.agent().compare(&id, &prompt, &wanted, senders).await })
    };
    let mut lanes: Vec<Lane> = labels
        .into_iter()
        .map(|label| Lane {
            label,
            ..Default::default()
        })
        .collect();
    loop {
        let next = tokio::select! {
            e = tagged.recv() => e,
            _ = tokio::signal::ctrl_c() => {
                engine.agent().stop_turn(conversation);
                continue;
            }
        };
        let Some((i, event)) = next else { break };
        if let ChatEvent::ApprovalNeeded { approval_id, .. } = &event {
            let answer = if yes {
                ApprovalAnswer::AllowOnce
            } else {
                ApprovalAnswer::Deny
            };
            engine.agent().answer_approval(approval_id, answer);
        }
        lanes[i].take(event, start.elapsed());
    }
    turn.await.map_err(|e| CliError::Runtime(e.to_string()))??;
    let mut out = std::io::stdout().lock();
    for lane in &lanes {
        lane.print(&mut out, yes)?;
    }
    writeln!(
        out,
        "(conversation {conversation}; the first answer is the one shown)"
    )?;
    if lanes.iter().all(|l| l.end == Some(TurnEnd::Error)) {
        return Err(CliError::Usage("every compared model failed".into()));
    }
    Ok(())
}

impl Lane {
    fn take(&mut self, event: ChatEvent, at: Duration) {
        match event {
            ChatEvent::TextDelta { text, .. } => {
                self.first_token.get_or_insert(at);
                self.text.push_str(&text);
            }
            ChatEvent::ReasoningDelta { .. } => {
                self.first_token.get_or_insert(at);
            }
            ChatEvent::ToolCallProposed { call, .. } => {
                self.calls.push(format!("{}.{}", call.server, call.tool))
            }
            ChatEvent::Usage { usage, .. } => self.output_tokens += usage.output_tokens,
            ChatEvent::Error { message, .. } => self.error = Some(message),
            ChatEvent::Finished { reason, .. } => {
                self.end = Some(reason);
                self.total = at;
            }
            _ => {}
        }
    }

    fn print(&self, out: &mut impl Write, yes: bool) -> std::io::Result<()> {
        let first = self.first_token.map_or_else(
            || "no token".to_owned(),
            |d| format!("first token {:.2} s", d.as_secs_f64()),
        );
        writeln!(
            out,
            "── {} · {} output tokens · {first} · {:.2} s ──",
            self.label,
            self.output_tokens,
            self.total.as_secs_f64()
        )?;
        if !self.calls.is_empty() {
            let how = if yes {
                "ran"
            } else {
                "denied (use --yes to run them)"
            };
            writeln!(out, "[tools {how}: {}]", self.calls.join(", "))?;
        }
        if !self.text.is_empty() {
            writeln!(out, "{}", self.text.trim_end())?;
        }
        if let Some(error) = &self.error {
            writeln!(out, "error: {error}")?;
        }
        writeln!(out)
    }
}
