//! From a registry entry to a server configuration: the install form an entry asks for
//! ([`install_options`]: each package or remote this app can run, with the fields of its
//! variables and arguments), and the plan made from the user's values ([`build`]): the exact
//! command pinned to the entry's version (`npx -y name@version`, `uvx name==version`,
//! `docker run -i --rm image:tag`) or the remote URL with its headers. Nothing here runs or
//! saves anything; the host checks the runtime and installs ([`crate::mcp::host`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::checks;
pub(crate) use super::shown::plan_of;
use super::{Argument, Input, KeyValueInput, Package, RegistryEntry, RemoteTransport};
use crate::mcp::install::digest;
use crate::vocab::error::InstallError;
use crate::vocab::server::ServerSource;
use crate::vocab::server::{SECRET_MASK, ServerConfig, Transport};

/// One value the install form asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FormField {
    /// The key its value is given under (the variable, header or argument name).
    pub key: String,
    /// `env`, `header` or `argument`.
    pub target: String,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
    /// It must be given (or have a default).
    pub required: bool,
    /// A secret: typed masked, kept in the keychain.
    pub secret: bool,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub default: Option<String>,
    /// The only values allowed, when not empty.
    pub choices: Vec<String>,
    /// `string`, `number`, `boolean` or `filepath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub format: Option<String>,
    /// A hint for an empty field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub placeholder: Option<String>,
}

/// One way to run an entry: a package or a remote, with its form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstallOption {
    /// `package:N` or `remote:N`.
    pub id: String,
    /// e.g. `npm @modelcontextprotocol/server-everything 2026.8.31` or `sse https://…`.
    pub label: String,
    /// The program it runs with (`npx`, `uvx`, `docker`); none for a remote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub runtime: Option<String>,
    /// Why it cannot be installed here, when it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub unsupported: Option<String>,
    /// The values it asks for.
    pub fields: Vec<FormField>,
}

/// What the user asks to install.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstallRequest {
    /// Which option (`package:N`, `remote:N`); none: the first that can be installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub option: Option<String>,
    /// The configured server's name; none: from the entry's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub server_name: Option<String>,
    /// Values by field key.
    #[serde(default)]
    pub values: BTreeMap<String, String>,
}

/// Whether the program a server runs with is there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeCheck {
    /// The program, e.g. `npx`.
    pub program: String,
    /// Where it was found on the PATH; none: missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub found: Option<String>,
    /// What to install when it is missing.
    pub hint: String,
}

/// What an install will save and run, shown before anything is saved: the entry's own values
/// as they are, the values the user typed masked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstallPlan {
    /// The configured server's name.
    pub server_name: String,
    /// The command line (the entry's env values shown, typed ones masked) or the URL and
    /// transport.
    pub command_line: String,
    /// The program run (stdio), e.g. `npx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub command: Option<String>,
    /// Its arguments, exactly.
    pub args: Vec<String>,
    /// The environment variables it gets, by name.
    pub env_names: Vec<String>,
    /// The environment variables it gets with their values: the entry's own (fixed or default)
    /// as they are, the ones the user typed masked.
    pub env: BTreeMap<String, String>,
    /// The remote URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
    /// The headers sent, by name.
    pub header_names: Vec<String>,
    /// The headers sent with their values: the entry's own as they are, typed ones masked.
    pub headers: BTreeMap<String, String>,
    /// The program it needs and whether it is there (stdio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub runtime: Option<RuntimeCheck>,
    /// The configuration that will be saved (the entry's values shown, typed ones masked).
    pub config: ServerConfig,
    /// The digest of what is shown ([`crate::mcp::install::digest`]): install takes it back
    /// and refuses when what it would save has another.
    pub digest: String,
}

/// What updating an installed registry server changes, shown before it is applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UpdatePlan {
    /// The configured server's name.
    pub server: String,
    /// The registry entry's name.
    pub entry: String,
    /// The version installed.
    pub from_version: String,
    /// The registry's latest version.
    pub to_version: String,
    /// The command line (or URL) now.
    pub old_command_line: String,
    /// The command line (or URL) after the update.
    pub new_command_line: String,
    /// The env or header names now.
    pub old_names: Vec<String>,
    /// The env or header names after the update.
    pub new_names: Vec<String>,
    /// Required values the new version asks for that are not given yet.
    pub missing: Vec<String>,
    /// The env or header values after the update: the new version's own as they are, the
    /// values kept from the installed server masked.
    pub new_values: BTreeMap<String, String>,
    /// The digest of the update shown: applying it takes it back and refuses when the
    /// registry's answer changed since.
    pub digest: String,
}

/// The install options of `entry`: its packages, then its remotes.
pub fn install_options(entry: &RegistryEntry) -> Vec<InstallOption> {
    let packages = entry
        .packages
        .iter()
        .enumerate()
        .map(|(i, p)| package_option(i, p));
    let remotes = entry
        .remotes
        .iter()
        .enumerate()
        .map(|(i, r)| remote_option(i, r));
    packages.chain(remotes).collect()
}

fn package_option(i: usize, p: &Package) -> InstallOption {
    let version = p.version.as_deref().unwrap_or("");
    let mut fields = Vec::new();
    for (n, a) in p
        .runtime_arguments
        .iter()
        .chain(&p.package_arguments)
        .enumerate()
    {
        argument_fields(n, a, &mut fields);
    }
    for kv in &p.environment_variables {
        key_value_fields(kv, "env", &mut fields);
    }
    InstallOption {
        id: format!("package:{i}"),
        label: format!("{} {} {version}", p.registry_type, p.identifier)
            .trim()
            .to_owned(),
        runtime: runtime_of(p).map(str::to_owned),
        unsupported: unsupported(p),
        fields,
    }
}

/// The `{name}` placeholders of a URL template.
fn url_variables(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = url;
    while let Some((_, after)) = rest.split_once('{') {
        let Some((name, tail)) = after.split_once('}') else {
            break;
        };
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_owned());
        }
        rest = tail;
    }
    out
}

fn remote_option(i: usize, r: &RemoteTransport) -> InstallOption {
    let required = Input {
        is_required: true,
        ..Input::default()
    };
    let mut fields: Vec<FormField> = (url_variables(&r.url).iter())
        .map(|v| field(v, "url", &required))
        .collect();
    for kv in &r.headers {
        key_value_fields(kv, "header", &mut fields);
    }
    let unsupported = (!matches!(r.kind.as_str(), "streamable-http" | "sse"))
        .then(|| format!("the remote transport {:?} is not supported", r.kind))
        .or_else(|| checks::remote_problem(r));
    InstallOption {
        id: format!("remote:{i}"),
        label: format!("{} {}", r.kind, r.url),
        runtime: None,
        unsupported,
        fields,
    }
}

/// The program a package runs with: its type's runner ([`checks::RUNNERS`]; a package whose
/// `runtimeHint` names another is unsupported), else its hint, shown but never run.
fn runtime_of(p: &Package) -> Option<&str> {
    checks::runner_of(&p.registry_type).or(p.runtime_hint.as_deref())
}

fn unsupported(p: &Package) -> Option<String> {
    let kind = p.transport.as_ref().map_or("stdio", |t| t.kind.as_str());
    if kind != "stdio" {
        return Some(format!(
            "a package serving {kind} itself is not supported; use a remote or stdio package"
        ));
    }
    match (p.registry_type.as_str(), p.version.as_deref()) {
        ("npm" | "pypi" | "oci", Some(_)) => checks::package_problem(p),
        ("npm" | "pypi" | "oci", None) => Some("the package names no version to pin".into()),
        ("mcpb", _) => Some("download the .mcpb file and install it as a bundle".into()),
        (other, _) => Some(format!("{other} packages are not supported")),
    }
}

/// What to install for `program`.
pub(crate) fn runtime_hint(program: &str) -> String {
    match program {
        "npx" | "node" | "npm" => "install Node.js (which brings npx): https://nodejs.org".into(),
        "uvx" | "uv" => "install uv (which brings uvx): https://docs.astral.sh/uv/".into(),
        "docker" => "install Docker: https://docs.docker.com/get-docker/".into(),
        "python" | "python3" => "install Python 3: https://www.python.org/downloads/".into(),
        "dnx" => "install the .NET 10 SDK: https://dotnet.microsoft.com/download".into(),
        other => format!("install {other} and make sure it is on the PATH"),
    }
}

fn field(key: &str, target: &str, input: &Input) -> FormField {
    FormField {
        key: key.to_owned(),
        target: target.to_owned(),
        description: input.description.clone(),
        required: input.is_required,
        secret: input.is_secret,
        default: input.default.clone(),
        choices: input.choices.clone(),
        format: input.format.clone(),
        placeholder: input.placeholder.clone(),
    }
}

/// A fixed value asks for its `{variables}`; an open one for itself.
fn input_fields(key: &str, target: &str, input: &Input, out: &mut Vec<FormField>) {
    match &input.value {
        Some(_) => (input.variables.iter()).for_each(|(k, v)| out.push(field(k, target, v))),
        None => out.push(field(key, target, input)),
    }
}

fn key_value_fields(kv: &KeyValueInput, target: &str, out: &mut Vec<FormField>) {
    input_fields(&kv.name, target, &kv.input, out);
}

/// An argument's key: a named one's flag without dashes, a positional one's hint.
fn argument_key(n: usize, a: &Argument) -> String {
    match (&a.name, &a.value_hint) {
        (Some(name), _) => name.trim_start_matches('-').to_owned(),
        (None, Some(hint)) => hint.clone(),
        (None, None) => format!("arg{n}"),
    }
}

fn argument_fields(n: usize, a: &Argument, out: &mut Vec<FormField>) {
    input_fields(&argument_key(n, a), "argument", &a.input, out);
}

/// Resolves inputs against the user's values, collecting what is missing or wrong, and the
/// env and header values as shown (the entry's own as they are, typed ones masked).
struct Resolver<'a> {
    values: &'a BTreeMap<String, String>,
    used: Vec<String>,
    problems: Vec<String>,
    shown: BTreeMap<String, String>,
}

impl Resolver<'_> {
    /// The value of the input under `key` and how it is shown: given (shown masked), else
    /// fixed (its variables filled), else its default (both the entry's, shown as they are);
    /// none when optional and not given.
    fn resolve(&mut self, key: &str, input: &Input) -> Option<(String, String)> {
        if let Some(fixed) = &input.value {
            let (mut text, mut shown) = (fixed.clone(), fixed.clone());
            for (var, spec) in &input.variables {
                let (value, seen) = self.resolve(var, spec).unwrap_or_default();
                text = text.replace(&format!("{{{var}}}"), &value);
                shown = shown.replace(&format!("{{{var}}}"), &seen);
            }
            return Some((text, shown));
        }
        let given = self.values.get(key).filter(|v| !v.is_empty());
        if given.is_some() {
            self.used.push(key.to_owned());
        }
        let value = given.cloned().or_else(|| input.default.clone());
        match &value {
            None if input.is_required => self.problems.push(format!("{key} is required")),
            Some(v) if !input.choices.is_empty() && !input.choices.contains(v) => {
                let choices = input.choices.join(", ");
                self.problems
                    .push(format!("{key} must be one of: {choices} (not {v:?})"));
            }
            _ => {}
        }
        let shown = match given {
            Some(_) => SECRET_MASK.to_owned(),
            None => value.clone()?,
        };
        Some((value?, shown))
    }

    fn arguments(&mut self, args: &[Argument], out: &mut Vec<String>) {
        for (n, a) in args.iter().enumerate() {
            let key = argument_key(n, a);
            let Some((value, _)) = self.resolve(&key, &a.input) else {
                continue;
            };
            if let Some(why) = checks::text_problem(&value, true) {
                self.problems.push(format!("the value of {key} {why}"));
            }
            if a.kind == "named" {
                out.extend(a.name.clone());
            }
            out.push(value);
        }
    }

    fn pairs(&mut self, kvs: &[KeyValueInput]) -> BTreeMap<String, String> {
        let mut map = BTreeMap::new();
        for kv in kvs {
            if let Some((v, shown)) = self.resolve(&kv.name, &kv.input) {
                map.insert(kv.name.clone(), v);
                self.shown.insert(kv.name.clone(), shown);
            }
        }
        map
    }
}

/// The configured server's default name: the entry name's last part, in the characters a
/// server name allows.
pub(crate) fn default_server_name(entry: &str) -> String {
    let last = entry.rsplit('/').next().unwrap_or(entry);
    let clean = |c: char| {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '-'
        }
    };
    let name: String = last.chars().map(clean).take(64).collect();
    if name.is_empty() {
        "server".into()
    } else {
        name
    }
}

/// The plan and the configuration (with its real values) for installing `entry` from
/// `registry` as `request` asks. Checks the values, not the runtime.
pub(crate) fn build(
    entry: &RegistryEntry,
    registry: &str,
    request: &InstallRequest,
) -> Result<(InstallPlan, ServerConfig), InstallError> {
    let options = install_options(entry);
    let option = match &request.option {
        Some(id) => options.iter().find(|o| &o.id == id).ok_or_else(|| {
            InstallError::Plan(format!("{} has no install option {id:?}", entry.name))
        })?,
        None => (options.iter().find(|o| o.unsupported.is_none())).ok_or_else(|| {
            let why: Vec<_> = options
                .iter()
                .filter_map(|o| o.unsupported.clone())
                .collect();
            InstallError::Plan(format!(
                "{} cannot be installed here: {}",
                entry.name,
                if why.is_empty() {
                    "it lists no package or remote".into()
                } else {
                    why.join("; ")
                }
            ))
        })?,
    };
    if let Some(why) = &option.unsupported {
        return Err(InstallError::Plan(format!("{}: {why}", option.label)));
    }
    let mut r = Resolver {
        values: &request.values,
        used: Vec::new(),
        problems: Vec::new(),
        shown: BTreeMap::new(),
    };
    let transport = match option.id.split_once(':') {
        Some(("package", i)) => package_transport(&entry.packages[index(i)], &mut r),
        _ => remote_transport(
            &entry.remotes[option.id.split_once(':').map_or(0, |(_, i)| index(i))],
            &mut r,
        ),
    };
    let unknown: Vec<_> = (request.values.keys())
        .filter(|k| !option.fields.iter().any(|f| &f.key == *k))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        let known: Vec<_> = option.fields.iter().map(|f| f.key.as_str()).collect();
        r.problems.push(format!(
            "{} asks for no value named {}; it asks for: {}",
            entry.name,
            unknown.join(", "),
            if known.is_empty() {
                "nothing".into()
            } else {
                known.join(", ")
            }
        ));
    }
    if !r.problems.is_empty() {
        return Err(InstallError::Plan(r.problems.join("; ")));
    }
    let name = (request.server_name.clone()).unwrap_or_else(|| default_server_name(&entry.name));
    let mut config = ServerConfig::new(name, transport);
    // A secret argument's value is kept with the env values (the keychain), not in the
    // arguments the database stores.
    let secret_args: Vec<(String, String)> = (option.fields.iter())
        .filter(|f| f.secret && f.target == "argument")
        .filter_map(|f| Some((f.key.clone(), request.values.get(&f.key)?.clone())))
        .collect();
    crate::mcp::host::secret_args::seal_secret_args(&mut config, &secret_args);
    let inputs = (option.fields.iter())
        .filter(|f| f.target == "argument" && !f.secret)
        .filter_map(|f| Some((f.key.clone(), request.values.get(&f.key)?.clone())))
        .collect();
    config.source = Some(ServerSource::Registry {
        registry: registry.to_owned(),
        name: entry.name.clone(),
        version: entry.version.clone(),
        option: option.id.clone(),
        inputs,
    });
    // Refused here, before any plan is shown, by the checks every saved server passes.
    config
        .validate()
        .map_err(|e| InstallError::Plan(e.errors.join("; ")))?;
    let runtime = option.runtime.clone().map(|program| RuntimeCheck {
        hint: runtime_hint(&program),
        program,
        found: None,
    });
    let mut shown = plan_of(&config, &r.shown, runtime);
    // Defence in depth: no secret value is shown even if one reached the arguments.
    let secret_args = (option.fields.iter())
        .filter(|f| f.secret && f.target == "argument")
        .filter_map(|f| request.values.get(&f.key).filter(|v| !v.is_empty()));
    for value in secret_args {
        let in_config = match &mut shown.config.transport {
            Transport::Stdio { args, .. } => args.as_mut_slice(),
            _ => &mut [],
        };
        for arg in shown.args.iter_mut().chain(in_config) {
            *arg = arg.replace(value.as_str(), crate::vocab::server::SECRET_MASK);
        }
        shown.command_line = shown
            .command_line
            .replace(value.as_str(), crate::vocab::server::SECRET_MASK);
    }
    shown.digest = digest::of_json(&shown.config);
    Ok((shown, config))
}

fn index(i: &str) -> usize {
    i.parse().unwrap_or(0)
}

fn package_transport(p: &Package, r: &mut Resolver<'_>) -> Transport {
    let version = p.version.clone().unwrap_or_default();
    let mut args = Vec::new();
    // Resolved in the form's order, so problems are reported in it.
    let mut runtime_args = Vec::new();
    r.arguments(&p.runtime_arguments, &mut runtime_args);
    let mut package_args = Vec::new();
    r.arguments(&p.package_arguments, &mut package_args);
    let env = r.pairs(&p.environment_variables);
    let command = runtime_of(p).unwrap_or("npx").to_owned();
    match p.registry_type.as_str() {
        "npm" => {
            args.extend(runtime_args.iter().cloned());
            if !runtime_args.iter().any(|a| a == "-y" || a == "--yes") {
                args.push("-y".into());
            }
            args.push(format!("{}@{version}", p.identifier));
        }
        "pypi" => {
            args.extend(runtime_args);
            args.push(format!("{}=={version}", p.identifier));
        }
        _ => {
            args.extend(["run", "-i", "--rm"].map(String::from));
            args.extend(runtime_args);
            for name in env.keys() {
                args.extend(["-e".to_owned(), name.clone()]);
            }
            let tagged = p
                .identifier
                .rsplit('/')
                .next()
                .is_some_and(|last| last.contains(':'));
            args.push(match tagged {
                true => p.identifier.clone(),
                false => format!("{}:{version}", p.identifier),
            });
        }
    }
    args.extend(package_args);
    Transport::Stdio {
        command,
        args,
        env,
        cwd: None,
    }
}

fn remote_transport(remote: &RemoteTransport, r: &mut Resolver<'_>) -> Transport {
    let headers = r.pairs(&remote.headers);
    let mut url = remote.url.clone();
    let required = Input {
        is_required: true,
        ..Input::default()
    };
    for var in url_variables(&remote.url) {
        let (value, _) = r.resolve(&var, &required).unwrap_or_default();
        url = url.replace(&format!("{{{var}}}"), &value);
    }
    match remote.kind.as_str() {
        "sse" => Transport::Sse { url, headers },
        _ => Transport::Http { url, headers },
    }
}
