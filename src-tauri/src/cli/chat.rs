//! `switchboard chat`: one turn in a conversation from the terminal. The answer streams to
//! stdout; tool calls and results are printed as they happen; approvals are asked on a
//! terminal (`--yes` allows every call; a non-interactive run denies and says so); `--json`
//! prints the turn's events as JSON lines instead. Ctrl-C stops the turn (history stays valid).
//! `--attach FILE` sends images, PDFs and text files with the message.

use std::io::{IsTerminal, Write};

use clap::Args;
use switchboard_engine::Engine;
use switchboard_engine::agent::{ApprovalAnswer, CallView, ChatEvent, ChatSettings, TurnEnd};
use switchboard_engine::provider::{ReasoningEffort, Thinking};
use switchboard_engine::store::{Conversation, ConversationPatch};
use tokio::sync::mpsc;

use super::CliError;

/// `switchboard chat` arguments.
#[derive(Debug, Args)]
pub struct ChatArgs {
    /// Continue this conversation (its id).
    #[arg(long, conflicts_with = "new")]
    pub conversation: Option<String>,
    /// Start a new conversation (the default).
    #[arg(long)]
    pub new: bool,
    /// Start the new conversation from this assistant (its name or id): its system prompt,
    /// provider, model and settings (default: the default assistant, if one is set).
    #[arg(long, conflicts_with = "conversation", value_name = "NAME")]
    pub assistant: Option<String>,
    /// Start the new conversation in this project (its name or id): its instructions apply,
    /// and with no `--assistant` it starts from the project's assistant and servers.
    #[arg(long, conflicts_with = "conversation", value_name = "NAME")]
    pub project: Option<String>,
    /// The provider (name or id) to use.
    #[arg(long)]
    pub provider: Option<String>,
    /// The model id to use.
    #[arg(long)]
    pub model: Option<String>,
    /// The MCP servers whose tools the model may use, comma-separated (default: all enabled).
    #[arg(long, value_delimiter = ',')]
    pub servers: Option<Vec<String>>,
    /// Let the model search these knowledge bases (their names, comma-separated); with
    /// --servers, they are added to those servers.
    #[arg(long, value_delimiter = ',', value_name = "NAME")]
    pub knowledge: Vec<String>,
    /// How long to wait for the servers to start before the turn goes on without those still
    /// starting (default: the `chat.server_wait_seconds` setting, else 3).
    #[arg(long, value_name = "SECONDS")]
    pub server_wait: Option<f64>,
    /// The system prompt.
    #[arg(long)]
    pub system: Option<String>,
    /// The most tokens one answer may have (kept for the conversation).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// Sampling temperature, 0 to 2 (kept for the conversation).
    #[arg(long, value_name = "T", value_parser = temperature)]
    pub temperature: Option<f64>,
    /// Nucleus sampling, 0 to 1 (kept for the conversation).
    #[arg(long, value_name = "P", value_parser = top_p)]
    pub top_p: Option<f64>,
    /// Reasoning: on (alone), a level, or off (kept for the conversation).
    #[arg(long, value_name = "LEVEL", num_args = 0..=1, default_missing_value = "on")]
    pub think: Option<Think>,
    /// Allow every tool call without asking.
    #[arg(long)]
    pub yes: bool,
    /// Ask two to four models at once, side by side: PROVIDER/MODEL pairs, comma-separated
    /// (the first answer is the one the conversation shows; the others are branches).
    #[arg(long, value_delimiter = ',', value_name = "P/M,P/M", conflicts_with_all = ["json", "attach"])]
    pub compare: Vec<String>,
    /// Print the turn's events as JSON lines.
    #[arg(long)]
    pub json: bool,
    /// Attach a file to the message: an image, a PDF, or a text or code file (repeatable).
    #[arg(long, value_name = "FILE")]
    pub attach: Vec<std::path::PathBuf>,
    /// The message.
    pub prompt: String,
}

/// What `--think` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Think {
    /// Reasoning on, at the model's own level.
    On,
    /// Reasoning on, a little.
    Low,
    /// Reasoning on, the usual amount.
    Medium,
    /// Reasoning on, as much as the model will.
    High,
    /// Reasoning off where the model has the switch.
    Off,
}

impl Think {
    /// The conversation setting it stands for.
    fn thinking(self) -> Thinking {
        let effort = match self {
            Self::Low => Some(ReasoningEffort::Low),
            Self::Medium => Some(ReasoningEffort::Medium),
            Self::High => Some(ReasoningEffort::High),
            Self::On | Self::Off => None,
        };
        Thinking {
            enabled: self != Self::Off,
            effort,
            budget_tokens: None,
        }
    }
}

/// A number within `range`, for `--temperature` and `--top-p`.
fn number_in(s: &str, range: std::ops::RangeInclusive<f64>) -> Result<f64, String> {
    let n: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number"))?;
    if range.contains(&n) {
        Ok(n)
    } else {
        Err(format!(
            "{n} is outside {} to {}",
            range.start(),
            range.end()
        ))
    }
}

fn temperature(s: &str) -> Result<f64, String> {
    number_in(s, 0.0..=2.0)
}

fn top_p(s: &str) -> Result<f64, String> {
    number_in(s, 0.0..=1.0)
}

/// Runs one turn and prints it.
pub(super) async fn run(engine: &Engine, args: &ChatArgs) -> Result<(), CliError> {
    let compare = if args.compare.is_empty() {
        None
    } else {
        Some(super::compare::models(engine, &args.compare).await?)
    };
    let conv = conversation(engine, args).await?;
    if let Some(models) = compare {
        start_servers(engine, &conv, args.server_wait).await;
        return super::compare::run(engine, &conv.id, &args.prompt, models, args.yes).await;
    }
    let mut files = Vec::new();
    for path in &args.attach {
        files.push(engine.agent().attach_path(path).await?.part);
    }
    start_servers(engine, &conv, args.server_wait).await;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let turn = {
        let engine = engine.clone();
        let (id, prompt) = (conv.id.clone(), args.prompt.clone());
        tokio::spawn(async move {
            (engine.agent())
                .send_with_files(&id, &prompt, Vec::new(), files, tx)
                .await
        })
    };
    let mut printer = Printer::new(args.json);
    let mut error: Option<String> = None;
    loop {
        let event = tokio::select! {
            e = rx.recv() => e,
            _ = tokio::signal::ctrl_c() => {
                engine.agent().stop_turn(&conv.id);
                continue;
            }
        };
        let Some(event) = event else { break };
        if let ChatEvent::Error { message, .. } = &event {
            error = Some(message.clone());
        }
        if let ChatEvent::ApprovalNeeded { approval_id, call } = &event {
            printer.event(&event)?;
            let answer = approve(args.yes, call, &mut printer).await?;
            engine.agent().answer_approval(approval_id, answer);
            continue;
        }
        printer.event(&event)?;
    }
    let end = turn.await.map_err(|e| CliError::Runtime(e.to_string()))??;
    printer.done(end, &conv.id)?;
    match (end, error) {
        (TurnEnd::Error, Some(message)) => Err(CliError::Usage(message)),
        (TurnEnd::Error, None) => Err(CliError::Usage("the turn failed".into())),
        _ => Ok(()),
    }
}

/// The provider named `name`; `local`, when no provider has that name, is the built-in model
/// (added now if it was not yet).
pub(super) async fn provider_id(engine: &Engine, name: &str) -> Result<String, CliError> {
    match engine.store().find_provider(name).await {
        #[cfg(feature = "local")]
        Err(_) if name == "local" => Ok(engine
            .providers()
            .ensure_local_provider()
            .await?
            .provider
            .id),
        found => Ok(found?.id),
    }
}

/// The conversation to talk in, created or updated per the arguments.
async fn conversation(engine: &Engine, args: &ChatArgs) -> Result<Conversation, CliError> {
    let store = engine.store();
    let provider_id = match &args.provider {
        Some(p) => Some(provider_id(engine, p).await?),
        None => None,
    };
    let conv = match &args.conversation {
        Some(id) => store.get_conversation(id).await?,
        None => {
            engine
                .agent()
                .new_conversation_in(args.assistant.as_deref(), args.project.as_deref())
                .await?
        }
    };
    let mut settings = ChatSettings::of(&conv);
    if args.servers.is_some() {
        settings.servers.clone_from(&args.servers);
    }
    for name in &args.knowledge {
        let base =
            (engine.knowledge().get(name).await).map_err(switchboard_engine::EngineError::from)?;
        let server = switchboard_engine::knowledge_server_name(&base.name);
        if let Some(servers) = settings.servers.as_mut().filter(|s| !s.contains(&server)) {
            servers.push(server);
        }
    }
    if args.max_tokens.is_some() {
        settings.max_output_tokens = args.max_tokens;
    }
    if args.temperature.is_some() {
        settings.temperature = args.temperature;
    }
    if args.top_p.is_some() {
        settings.top_p = args.top_p;
    }
    if let Some(think) = args.think {
        settings.thinking = Some(think.thinking());
    }
    let patch = ConversationPatch {
        provider_id,
        model: args.model.clone(),
        system_prompt: args.system.clone(),
        settings: serde_json::to_value(settings).ok(),
    };
    Ok(store.update_conversation(&conv.id, patch).await?)
}

/// Starts the servers the conversation uses (all enabled ones when it names none) together;
/// the turn goes on after a short wait with those that are ready, and says which were left out.
async fn start_servers(engine: &Engine, conv: &Conversation, wait: Option<f64>) {
    let wait = match wait.filter(|s| s.is_finite() && *s >= 0.0) {
        Some(s) => std::time::Duration::from_secs_f64(s),
        None => engine.mcp().server_wait().await,
    };
    let names = ChatSettings::of(conv).servers;
    match engine.mcp().start_for_turn(names.as_deref(), wait).await {
        Ok(report) => {
            for (name, reason) in report.failed {
                eprintln!("warning: server {name} did not start: {reason}");
            }
            for name in report.starting {
                eprintln!(
                    "warning: server {name} is still starting after {:.1} s; this turn goes on \
                     without its tools (--server-wait SECONDS waits longer)",
                    wait.as_secs_f64()
                );
            }
        }
        Err(e) => eprintln!("warning: cannot read the server list: {e}"),
    }
}

/// The answer to an approval question: `--yes`, the user's on a terminal, else deny.
async fn approve(
    yes: bool,
    call: &CallView,
    printer: &mut Printer,
) -> Result<ApprovalAnswer, CliError> {
    if yes {
        return Ok(ApprovalAnswer::AllowOnce);
    }
    if !std::io::stdin().is_terminal() {
        printer.note(&format!(
            "denied {}.{}: not asked on a non-interactive run (pass --yes to allow tools)",
            call.server, call.tool
        ))?;
        return Ok(ApprovalAnswer::Deny);
    }
    let question = format!(
        "Allow {}.{} {}? [y]es once, [a]lways, [c]hat, [N]o: ",
        call.server, call.tool, call.arguments
    );
    let line = tokio::task::spawn_blocking(move || {
        eprint!("{question}");
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await
    .map_err(|e| CliError::Runtime(e.to_string()))??;
    Ok(match line.trim().to_lowercase().as_str() {
        "y" | "yes" => ApprovalAnswer::AllowOnce,
        "a" | "always" => ApprovalAnswer::AllowAlways,
        "c" | "chat" => ApprovalAnswer::AllowForChat,
        _ => ApprovalAnswer::Deny,
    })
}

/// Prints events: JSON lines, or text for people.
struct Printer {
    json: bool,
    at_line_start: bool,
}

impl Printer {
    fn new(json: bool) -> Self {
        Self {
            json,
            at_line_start: true,
        }
    }

    fn event(&mut self, event: &ChatEvent) -> Result<(), CliError> {
        let mut out = std::io::stdout().lock();
        if self.json {
            serde_json::to_writer(&mut out, event).map_err(std::io::Error::from)?;
            writeln!(out)?;
            return Ok(out.flush()?);
        }
        match event {
            ChatEvent::TextDelta { text, .. } => {
                write!(out, "{text}")?;
                self.at_line_start = text.ends_with('\n');
            }
            ChatEvent::ToolCallProposed { call, .. } => {
                self.line(
                    &mut out,
                    &format!("→ {}.{} {}", call.server, call.tool, call.arguments),
                )?;
            }
            ChatEvent::ToolResult {
                content, is_error, ..
            } => {
                let text = switchboard_engine::agent::history::result_text(content);
                let mark = if *is_error { "✗" } else { "←" };
                self.line(&mut out, &format!("{mark} {}", clip(&text, 400)))?;
            }
            _ => {}
        }
        Ok(out.flush()?)
    }

    /// A line of its own on stdout.
    fn line(&mut self, out: &mut impl Write, text: &str) -> std::io::Result<()> {
        if !self.at_line_start {
            writeln!(out)?;
        }
        writeln!(out, "{text}")?;
        self.at_line_start = true;
        Ok(())
    }

    /// A remark for the user (stderr; JSON mode keeps stdout pure).
    fn note(&mut self, text: &str) -> Result<(), CliError> {
        eprintln!("{text}");
        Ok(())
    }

    fn done(&mut self, end: TurnEnd, conversation: &str) -> Result<(), CliError> {
        if self.json {
            return Ok(());
        }
        let mut out = std::io::stdout().lock();
        if !self.at_line_start {
            writeln!(out)?;
        }
        let why = match end {
            TurnEnd::Done | TurnEnd::Error => None,
            TurnEnd::MaxSteps => Some("stopped: the step limit was reached"),
            TurnEnd::Cancelled => Some("stopped by the user"),
            TurnEnd::LoopBroken => Some("stopped: the same tool call kept failing"),
        };
        if let Some(why) = why {
            eprintln!("[{why}]");
        }
        eprintln!("[conversation {conversation}]");
        Ok(())
    }
}

/// At most `max` characters of `text`, with an ellipsis when cut.
fn clip(text: &str, max: usize) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    one_line.chars().take(max).collect::<String>() + "…"
}
