//! `switchboard mcp-conformance-client URL` (hidden): the client the official MCP conformance
//! suite drives (`tests/conformance/run.sh`). The suite starts a scenario server, then runs
//! this command with the server's URL and the scenario's name in `MCP_CONFORMANCE_SCENARIO`
//! (and, for some scenarios, JSON in `MCP_CONFORMANCE_CONTEXT`). Every scenario gets the same
//! treatment a user's remote server would: connect through the engine's MCP client (OAuth
//! when the server demands it, approved headlessly since the suite's authorization servers
//! approve at once), list the tools, call each one with arguments made from its schema (or
//! exactly the calls the context's `toolCalls` names; in the schema-preservation scenario the
//! echo tool gets back the schema we kept).
//! Tokens go to an in-memory keychain, never the user's.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use switchboard_engine::mcp::secret_account;
use switchboard_engine::mcp::{ElicitationReply, ElicitationRequest};
use switchboard_engine::mcp::{Headless, HostCapabilities, HostHandler, McpClient, OAuth};
use switchboard_engine::secrets::{KeyringSecrets, SecretStore};
use switchboard_engine::vocab::mcp::ServerNotification;
use switchboard_engine::vocab::server::{
    JwtAlgorithm, OAuthClient, OAuthGrant, ServerSpec, Transport,
};
use tokio_util::sync::CancellationToken;

use super::CliError;

/// The variable naming the scenario.
const SCENARIO_ENV: &str = "MCP_CONFORMANCE_SCENARIO";
/// The variable holding the scenario's context (JSON), e.g. a pre-registered client.
const CONTEXT_ENV: &str = "MCP_CONFORMANCE_CONTEXT";
/// Start-up and call limits: the suite's own timeout is 30 s per scenario.
const LIMIT: Duration = Duration::from_secs(20);

/// Runs the scenario named in the environment against `url`.
pub(super) async fn run(out: &mut impl Write, url: &str) -> Result<(), CliError> {
    let scenario = std::env::var(SCENARIO_ENV).unwrap_or_default();
    let context = context()?;
    writeln!(out, "scenario {scenario:?} against {url}")?;
    let mut spec = ServerSpec::new(
        "conformance",
        Transport::Http {
            url: url.to_owned(),
            headers: Default::default(),
        },
    );
    (spec.startup_timeout, spec.call_timeout) = (LIMIT, LIMIT);
    let secrets: Arc<dyn SecretStore> = Arc::new(
        KeyringSecrets::mock()
            .map_err(|e| CliError::Usage(format!("no in-memory keychain: {e}")))?,
    );
    spec.oauth = oauth_client(&scenario, &context, secrets.as_ref(), &spec.name)?;
    let oauth = oauth(secrets);
    let client = McpClient::connect_with_oauth(&spec, DefaultsHost, Some(&oauth))
        .await
        .map_err(engine)?;
    let info = client.server_info();
    writeln!(
        out,
        "connected to {} ({})",
        info.name, info.protocol_version
    )?;
    let result = match scripted_calls(&context) {
        Some(calls) => call_each(out, &client, calls).await,
        None => exercise(out, &client, &scenario).await,
    };
    client.shutdown().await;
    result
}

/// The conformance client's host: it advertises form elicitation and accepts every form with
/// the defaults its schema declares (what a user who presses "submit" on a pre-filled form
/// sends), which the SEP-1034 scenario checks.
struct DefaultsHost;

impl HostHandler for DefaultsHost {
    fn notify(&self, _notification: ServerNotification) {}

    fn capabilities(&self) -> HostCapabilities {
        HostCapabilities {
            elicitation_form: true,
            ..HostCapabilities::default()
        }
    }

    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'static, ElicitationReply> {
        let reply = match request {
            ElicitationRequest::Form {
                requested_schema, ..
            } => ElicitationReply::Accept(Some(defaults(&requested_schema))),
            ElicitationRequest::Url { .. } => ElicitationReply::Decline,
        };
        Box::pin(std::future::ready(reply))
    }
}

/// An object of every property's `default` in a flat form schema.
fn defaults(schema: &Value) -> Value {
    let props = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let filled: Map<String, Value> = props
        .into_iter()
        .filter_map(|(name, p)| p.get("default").cloned().map(|d| (name, d)))
        .collect();
    Value::Object(filled)
}

/// The scenario whose echo tool takes back the input schema we parsed for another tool.
const SCHEMA_ECHO_SCENARIO: &str = "json-schema-2020-12-preservation";
/// That echo tool, and the tool whose schema it takes.
const SCHEMA_ECHO: (&str, &str) = ("json_schema_echo", "json_schema_2020_12_tool");

/// Lists the tools and calls each one; a failed call is a failure, a tool's error result is not.
/// In the schema-preservation scenario, the echo tool is given the other tool's input schema
/// exactly as our client parsed and kept it (what the model would be shown).
async fn exercise(
    out: &mut impl Write,
    client: &McpClient,
    scenario: &str,
) -> Result<(), CliError> {
    let tools = client.list_tools().await.map_err(engine)?;
    writeln!(out, "{} tools", tools.len())?;
    let observed = (tools.iter())
        .find(|t| t.name == SCHEMA_ECHO.1)
        .map(|t| Value::Object(t.input_schema.clone()));
    for tool in &tools {
        let mut args = sample_arguments(&tool.input_schema);
        if scenario == SCHEMA_ECHO_SCENARIO && tool.name == SCHEMA_ECHO.0 {
            args.insert("schema".to_owned(), observed.clone().unwrap_or_default());
        }
        let result = client
            .call_tool(&tool.name, args, LIMIT, CancellationToken::new())
            .await
            .map_err(engine)?;
        writeln!(out, "called {}: is_error={}", tool.name, result.is_error)?;
    }
    Ok(())
}

/// The calls a scenario's context names (`toolCalls`: `[{name, arguments}]`), if it does.
fn scripted_calls(context: &Map<String, Value>) -> Option<Vec<(String, Map<String, Value>)>> {
    let calls = context.get("toolCalls")?.as_array()?;
    let call = |c: &Value| {
        let name = c.get("name")?.as_str()?.to_owned();
        let args = c.get("arguments").and_then(Value::as_object).cloned();
        Some((name, args.unwrap_or_default()))
    };
    Some(calls.iter().filter_map(call).collect())
}

/// Lists the tools (as a client does first), then makes exactly the scripted calls, in order.
async fn call_each(
    out: &mut impl Write,
    client: &McpClient,
    calls: Vec<(String, Map<String, Value>)>,
) -> Result<(), CliError> {
    let tools = client.list_tools().await.map_err(engine)?;
    writeln!(out, "{} tools; {} scripted calls", tools.len(), calls.len())?;
    for (name, args) in calls {
        let result = client
            .call_tool(&name, args, LIMIT, CancellationToken::new())
            .await
            .map_err(engine)?;
        writeln!(out, "called {name}: is_error={}", result.is_error)?;
    }
    Ok(())
}

/// OAuth with the (in-memory) keychain and headless approval.
fn oauth(secrets: Arc<dyn SecretStore>) -> OAuth {
    let headless = Headless::new(|url| eprintln!("authorize at: {url}"));
    OAuth::new(secrets, Arc::new(headless)).with_wait(LIMIT)
}

/// The suite's client metadata document: the URL its authorization servers expect as the
/// client id when they support Client ID Metadata Documents.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The server's OAuth client settings, as a user would configure them from what the scenario's
/// context gives: a pre-registered client (its secret into the keychain), or client
/// credentials for a machine-to-machine scenario (a secret, or a private key that signs
/// assertions); always our client metadata document, used where it is supported.
fn oauth_client(
    scenario: &str,
    context: &Map<String, Value>,
    secrets: &dyn SecretStore,
    server: &str,
) -> Result<OAuthClient, CliError> {
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let machine = scenario.starts_with("auth/client-credentials");
    let key = text("private_key_pem");
    let signing_algorithm = match text("signing_algorithm") {
        Some(name) => Some(
            serde_json::from_value::<JwtAlgorithm>(Value::String(name.clone()))
                .map_err(|_| CliError::Usage(format!("unsupported signing algorithm {name}")))?,
        ),
        None => None,
    };
    if let Some(secret) = key.or_else(|| text("client_secret")) {
        secrets
            .set(&secret_account(server), &secret.into())
            .map_err(|e| CliError::Usage(format!("in-memory keychain: {e}")))?;
    }
    Ok(OAuthClient {
        client_id: text("client_id"),
        client_metadata_url: Some(CLIENT_METADATA_URL.to_owned()),
        grant: if machine {
            OAuthGrant::ClientCredentials
        } else {
            OAuthGrant::AuthorizationCode
        },
        scopes: Vec::new(),
        signing_algorithm,
    })
}

/// The scenario's context, or an empty one.
fn context() -> Result<Map<String, Value>, CliError> {
    let Ok(raw) = std::env::var(CONTEXT_ENV) else {
        return Ok(Map::new());
    };
    serde_json::from_str(&raw)
        .map_err(|e| CliError::Usage(format!("{CONTEXT_ENV} is not a JSON object: {e}")))
}

/// Arguments for a tool from its input schema: a plain value of each property's type.
pub(super) fn sample_arguments(schema: &Map<String, Value>) -> Map<String, Value> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Map::new();
    };
    properties
        .iter()
        .map(|(name, property)| (name.clone(), sample_value(property)))
        .collect()
}

/// A value of `property`'s type: its default, its first enum value, or a plain one.
fn sample_value(property: &Value) -> Value {
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    if let Some(first) = property.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    match property.get("type").and_then(Value::as_str) {
        Some("number" | "integer") => Value::from(1),
        Some("boolean") => Value::Bool(true),
        Some("array") => Value::Array(Vec::new()),
        Some("object") => Value::Object(Map::new()),
        _ => Value::String("test".to_owned()),
    }
}

/// An MCP failure as the CLI's error.
fn engine(error: switchboard_engine::vocab::mcp::McpError) -> CliError {
    CliError::Usage(format!("MCP: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_arguments_give_each_property_a_value_of_its_type() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "a": {"type": "number"}, "n": {"type": "integer", "default": 30},
            "s": {"type": "string"}, "e": {"type": "string", "enum": ["x", "y"]},
            "b": {"type": "boolean"}, "l": {"type": "array"}
        }});
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        let expected =
            serde_json::json!({"a": 1, "n": 30, "s": "test", "e": "x", "b": true, "l": []});
        assert_eq!(Value::Object(sample_arguments(&schema)), expected);
    }
}
