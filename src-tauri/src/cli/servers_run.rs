//! `switchboard servers start|tools|call|logs NAME`: start one configured server, use it,
//! stop it. The server is always stopped before returning, failure or not, and the engine's
//! shutdown (run by the caller) stops anything left, so no child process outlives the command.
//! A terminal command cannot answer a server's requests to the user (sampling, elicitation):
//! each is refused at once, with a note on stderr, instead of waiting for an answer.

use std::io::Write;

use switchboard_engine::Engine;
use switchboard_engine::mcp::SupervisorEvent;
use switchboard_engine::mcp::{InteractionAnswer, InteractionEvent, ServerState};
use switchboard_engine::vocab::mcp::{ResourceBody, ResultPart, ToolResult};
use tokio_util::sync::CancellationToken;

use super::CliError;

/// Starts `name`, prints one line saying it is ready (name, version, protocol, tools), stops it.
pub(super) async fn start(
    engine: &Engine,
    out: &mut impl Write,
    name: &str,
) -> Result<(), CliError> {
    let server = started(engine, name).await?;
    let state = engine.mcp().server_state(&server);
    engine.mcp().stop_server(&server).await;
    if let Some(ServerState::Ready { info, tools }) = state {
        writeln!(
            out,
            "{server} is ready: {} {} (protocol {}), {tools} tools",
            info.name, info.version, info.protocol_version
        )?;
    }
    Ok(())
}

/// Prints `name`'s tools, one line each: the name and the first line of its description.
pub(super) async fn tools(
    engine: &Engine,
    out: &mut impl Write,
    name: &str,
) -> Result<(), CliError> {
    let server = started(engine, name).await?;
    let tools = engine.mcp().server_tools(&server);
    engine.mcp().stop_server(&server).await;
    for tool in tools? {
        let description = tool.description.unwrap_or_default();
        let first = description.lines().next().unwrap_or_default().trim();
        writeln!(out, "{}  {first}", tool.name)?;
    }
    Ok(())
}

/// Calls `tool` of `name` with `json` and prints the result; a tool error is a failure.
pub(super) async fn call(
    engine: &Engine,
    out: &mut impl Write,
    name: &str,
    tool: &str,
    json: &str,
) -> Result<(), CliError> {
    let args: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| CliError::Usage(format!("the arguments are not valid JSON: {e}")))?;
    let server = started(engine, name).await?;
    let requests = engine.mcp().interactions().subscribe();
    let refusing = tokio::spawn(refuse_interactions(engine.clone(), requests));
    let result = engine
        .mcp()
        .call_tool(&server, tool, args, CancellationToken::new())
        .await;
    refusing.abort();
    engine.mcp().stop_server(&server).await;
    let result = result?;
    print_result(out, &result)?;
    if result.is_error {
        return Err(CliError::Usage(format!(
            "the tool `{tool}` reported an error"
        )));
    }
    Ok(())
}

/// Prints the stderr lines (and MCP log messages) `name` wrote while starting.
pub(super) async fn logs(
    engine: &Engine,
    out: &mut impl Write,
    name: &str,
) -> Result<(), CliError> {
    let server = started(engine, name).await?;
    // Read before stopping: what a server writes while it is being stopped (e.g. a broken
    // pipe on a write in flight) is not what it wrote while starting.
    let logs = engine.mcp().server_logs(&server).unwrap_or_default();
    engine.mcp().stop_server(&server).await;
    for line in logs.stderr.iter().chain(&logs.messages) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Refuses every request a server makes of the user (sampling: deny; elicitation: cancel),
/// saying so on stderr.
async fn refuse_interactions(
    engine: Engine,
    mut events: tokio::sync::broadcast::Receiver<InteractionEvent>,
) {
    while let Ok(event) = events.recv().await {
        let (id, server, what, answer) = match event {
            InteractionEvent::SamplingRequested { id, server, .. } => {
                (id, server, "a model's answer", InteractionAnswer::Deny)
            }
            InteractionEvent::ElicitationRequested { id, server, .. }
            | InteractionEvent::ElicitationUrl { id, server, .. } => {
                (id, server, "input from you", InteractionAnswer::Cancel)
            }
            InteractionEvent::ClientCallRequested { id, server, .. } => (
                id,
                server,
                "approval of another app's call",
                InteractionAnswer::Deny,
            ),
            InteractionEvent::Closed { .. } => continue,
        };
        eprintln!("{server} asked for {what}; a terminal command cannot answer, so it was refused");
        let _ = engine.mcp().answer_interaction(&id, answer);
    }
}

/// Starts the server named (or with the id) `name`; returns its name. A remote server that
/// demands OAuth gets its authorize URL printed on stderr, to open in a browser.
async fn started(engine: &Engine, name: &str) -> Result<String, CliError> {
    let record = engine.store().find_server(name).await?;
    let mut events = engine.mcp().subscribe();
    let printer = tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            if let SupervisorEvent::AuthorizationNeeded { server, url } = event {
                eprintln!(
                    "switchboard: to authorize `{server}`, open this URL in a browser:\n{url}"
                );
            }
        }
    });
    let result = engine.mcp().start_server(&record.config.name).await;
    printer.abort();
    result?;
    Ok(record.config.name)
}

/// Text as is, binary parts as a one-line summary, structured content as pretty JSON.
fn print_result(out: &mut impl Write, result: &ToolResult) -> Result<(), CliError> {
    for part in &result.content {
        match part {
            ResultPart::Text { text } => writeln!(out, "{text}")?,
            ResultPart::Image { mime, data } => {
                writeln!(out, "[image {mime}, {} bytes]", bytes(data))?
            }
            ResultPart::Audio { mime, data } => {
                writeln!(out, "[audio {mime}, {} bytes]", bytes(data))?
            }
            ResultPart::ResourceLink(r) => writeln!(out, "[resource link {}]", r.uri)?,
            ResultPart::Resource(r) => match &r.body {
                ResourceBody::Text(text) => writeln!(out, "[resource {}]\n{text}", r.uri)?,
                ResourceBody::Blob(blob) => {
                    writeln!(out, "[resource {}, {} bytes]", r.uri, bytes(blob))?;
                }
            },
        }
    }
    if let Some(structured) = &result.structured {
        let pretty = serde_json::to_string_pretty(structured).unwrap_or_default();
        writeln!(out, "{pretty}")?;
    }
    Ok(())
}

/// The decoded size of base64 `data` (padding accounted for).
fn bytes(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}
