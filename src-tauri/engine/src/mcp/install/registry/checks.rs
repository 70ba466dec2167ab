//! What a registry entry may ask for, checked before a plan is made (issue 31, points 2 and
//! 7): its runner is the one the registry format names for its package type ([`RUNNERS`],
//! from the registry's `server.json` schema: `npx`, `uvx`, `docker`, `dnx`); its identifier and
//! version are a package name and a version, never something the runner reads as an option;
//! no argument value starts with `-`; no runtime argument makes the runner load or run
//! something besides the pinned package ([`LOADING_FLAGS`], e.g. `--node-options`), and each
//! is a flag taking a value ([`VALUE_FLAGS`]; a positional one would be read as the package or
//! image to run, `npx -y evil @a/ok@1.0.0`); env names
//! are plain identifiers and header names HTTP tokens. The host's `validate()` checks every
//! configuration again when it is saved.

use super::{Argument, Input, KeyValueInput, Package, RemoteTransport};

/// The runner of each package type this app can run: the registry schema's `runtimeHint`
/// values (`npx` for npm, `uvx` for PyPI, `docker` for OCI images, `dnx` for NuGet).
pub(crate) const RUNNERS: [(&str, &str); 4] = [
    ("npm", "npx"),
    ("pypi", "uvx"),
    ("oci", "docker"),
    ("nuget", "dnx"),
];

/// Runtime-argument flags that make a runner load, require, import or run something besides
/// the pinned package (a preload script, another package, a shell command, another
/// interpreter, a privileged container), by runner.
pub(crate) const LOADING_FLAGS: [(&str, &[&str]); 3] = [
    (
        "npx",
        &[
            "--node-options",
            "--node-arg",
            "-n",
            "--call",
            "-c",
            "--package",
            "-p",
            "--shell",
            "--script-shell",
            "--userconfig",
            "--globalconfig",
            "--prefix",
            "--require",
            "-r",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
    ),
    (
        "uvx",
        &[
            "--from",
            "--with",
            "--with-editable",
            "--with-requirements",
            "--python",
            "-p",
            "--script",
        ],
    ),
    (
        "docker",
        &[
            "--privileged",
            "--entrypoint",
            "--cap-add",
            "--security-opt",
            "--pid",
            "--ipc",
            "--userns",
            "--device",
        ],
    ),
];

/// The runtime flags passed to each runner: flags that take the value after them (a flag
/// that takes none would leave its value to be read as the package or image to run).
pub(crate) const VALUE_FLAGS: [(&str, &[&str]); 3] = [
    ("npx", &["--registry", "--cache", "--loglevel"]),
    (
        "uvx",
        &[
            "--index",
            "--index-url",
            "--default-index",
            "--extra-index-url",
            "--cache-dir",
        ],
    ),
    (
        "docker",
        &[
            "-e",
            "--env",
            "--env-file",
            "-v",
            "--volume",
            "--mount",
            "-p",
            "--publish",
            "--network",
            "--name",
            "-w",
            "--workdir",
            "-u",
            "--user",
            "--platform",
            "-m",
            "--memory",
            "--cpus",
            "-l",
            "--label",
            "--add-host",
            "--tmpfs",
        ],
    ),
];

/// The runner the registry format names for `registry_type`.
pub(crate) fn runner_of(registry_type: &str) -> Option<&'static str> {
    (RUNNERS.iter())
        .find(|(kind, _)| *kind == registry_type)
        .map(|(_, runner)| *runner)
}

/// A control or format character (newlines, bidi overrides, zero-width characters).
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}')
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// An HTTP header name (an RFC 9110 token).
pub(crate) fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && (name.chars()).all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// A package name, image or version: starts with a letter or digit (or `@`, an npm scope,
/// when `scoped`) and holds only letters, digits, `._-` and the characters of `extra` (`/`,
/// `:`, `@`, `~`, `+` as the package type allows): never a leading `-` (an option), a space,
/// a path or a URL.
fn is_plain_spec(text: &str, extra: &str, scoped: bool) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || scoped && c == '@')
        && chars.all(|c| c.is_ascii_alphanumeric() || "._-".contains(c) || extra.contains(c))
}

/// A flag name: `-x`, `--name` (letters, digits, `.`, `_`, `-`), or a bare word.
fn is_flag_name(name: &str) -> bool {
    let body = name.trim_start_matches('-');
    name.len() - body.len() <= 2
        && body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// Why `p` cannot be installed as it is, when it cannot: its runner, identifier, version,
/// arguments or env names.
pub(crate) fn package_problem(p: &Package) -> Option<String> {
    let runner = runner_of(&p.registry_type)?;
    if let Some(hint) = &p.runtime_hint
        && hint != runner
    {
        let known: Vec<&str> = RUNNERS.iter().map(|(_, r)| *r).collect();
        return Some(format!(
            "its runtimeHint {hint:?} is not the runner of {} packages ({runner}); the runners \
             this app runs are {}",
            p.registry_type,
            known.join(", ")
        ));
    }
    let (id_extra, version_extra) = match p.registry_type.as_str() {
        "npm" => ("/~", "+~"),
        "oci" => ("/:@", "+"),
        _ => ("", "+!"),
    };
    let npm_shape = |id: &str| match id.strip_prefix('@') {
        // `@scope/name`; any other `/` is a GitHub shorthand or a path to npm.
        Some(scoped) => scoped.split('/').count() == 2 && !scoped.starts_with('/'),
        None => !id.contains('/'),
    };
    let plain = is_plain_spec(&p.identifier, id_extra, p.registry_type == "npm");
    if !plain || p.registry_type == "npm" && !npm_shape(&p.identifier) {
        return Some(format!(
            "its package identifier {:?} is not a plain {} package name ({})",
            p.identifier,
            p.registry_type,
            starts_with_dash(&p.identifier)
                .unwrap_or("it holds characters a package name does not")
        ));
    }
    if let Some(version) = &p.version
        && !is_plain_spec(version, version_extra, false)
    {
        return Some(format!(
            "its version {version:?} is not a plain version ({})",
            starts_with_dash(version).unwrap_or("it holds characters a version does not")
        ));
    }
    for a in &p.runtime_arguments {
        if let Some(why) = argument_problem(a, Some(runner)) {
            return Some(format!("a runtime argument {why}"));
        }
    }
    for a in &p.package_arguments {
        if let Some(why) = argument_problem(a, None) {
            return Some(format!("a package argument {why}"));
        }
    }
    for kv in &p.environment_variables {
        if !is_env_name(&kv.name) {
            return Some(format!(
                "its environment variable name {:?} is not a plain variable name \
                 (letters, digits and _, not starting with a digit)",
                kv.name
            ));
        }
        if let Some(why) = value_problem(&kv.input, false) {
            return Some(format!("the value of {} {why}", kv.name));
        }
    }
    None
}

/// Why the remote `r` cannot be installed as it is, when it cannot: its header names.
pub(crate) fn remote_problem(r: &RemoteTransport) -> Option<String> {
    for KeyValueInput { name, input } in &r.headers {
        if !is_header_name(name) {
            return Some(format!(
                "its header name {name:?} is not an HTTP header name"
            ));
        }
        if let Some(why) = value_problem(input, false) {
            return Some(format!("the value of header {name} {why}"));
        }
    }
    None
}

fn starts_with_dash(text: &str) -> Option<&'static str> {
    text.starts_with('-')
        .then_some("it starts with '-', so the runner would read it as an option")
}

/// Why argument `a` (a runtime argument of `runner`, or a package argument) is refused.
fn argument_problem(a: &Argument, runner: Option<&str>) -> Option<String> {
    if let Some(name) = &a.name {
        if a.kind == "named" && !is_flag_name(name) {
            return Some(format!("is named {name:?}, which is not a plain flag"));
        }
        let loading = (LOADING_FLAGS.iter())
            .find(|(r, _)| Some(*r) == runner)
            .is_some_and(|(_, flags)| flags.contains(&name.as_str()));
        if loading {
            return Some(format!(
                "is {name}, which makes {} load or run something besides the pinned package",
                runner.unwrap_or("the runner")
            ));
        }
    }
    if let Some(why) = value_problem(&a.input, true) {
        return Some(format!("{} {why}", argument_label(a)));
    }
    // What the runner reads before the package: only a flag that takes the value after it,
    // else that value (or a positional one) is read as the package or image to run.
    let runner = runner?;
    let flags = (VALUE_FLAGS.iter())
        .find(|(r, _)| *r == runner)
        .map_or(&[][..], |(_, f)| *f);
    match (a.kind.as_str(), a.name.as_deref()) {
        ("named", Some(name)) if flags.contains(&name) => None,
        ("named", Some(name)) => Some(format!(
            "is {name}, which is not one of the runtime flags this app passes to {runner} ({})",
            if flags.is_empty() {
                "none".to_owned()
            } else {
                flags.join(", ")
            }
        )),
        _ => Some(format!(
            "{} is positional, which {runner} would read as the package or image to run",
            match &a.input.value {
                Some(value) => format!("{value:?}"),
                None => argument_label(a),
            }
        )),
    }
}

fn argument_label(a: &Argument) -> String {
    match (&a.name, &a.value_hint) {
        (Some(name), _) => name.clone(),
        (None, Some(hint)) => hint.clone(),
        (None, None) => "(positional)".to_owned(),
    }
}

/// Why the entry's own value of `input` (fixed, default or choices) is refused; `argument`:
/// it becomes a command-line argument (a leading `-` is refused).
fn value_problem(input: &Input, argument: bool) -> Option<String> {
    let own = (input.value.iter())
        .chain(&input.default)
        .chain(&input.choices);
    for value in own {
        if let Some(why) = text_problem(value, argument) {
            return Some(why);
        }
    }
    (input.variables.values()).find_map(|v| value_problem(v, false))
}

/// Why `value` is refused as an argument (`argument`) or a value: a hidden character, or a
/// leading `-` for an argument.
pub(crate) fn text_problem(value: &str, argument: bool) -> Option<String> {
    if let Some(c) = value.chars().find(|c| hidden(*c)) {
        return Some(format!("holds the hidden character U+{:04X}", u32::from(c)));
    }
    if argument && value.starts_with('-') {
        return Some(format!(
            "{value:?} starts with '-', so the runner would read it as an option"
        ));
    }
    None
}
