//! How a plan shows what it will save: the env and header values as the entry gives them (a
//! fixed value or a default is the entry's, shown as it is) and the values the user typed
//! masked ([`SECRET_MASK`]), the command line with them, and the digest of it all that install
//! takes back ([`crate::mcp::install::digest`]).

use std::collections::BTreeMap;

use super::{InstallPlan, RuntimeCheck};
use crate::mcp::install::digest;
use crate::vocab::server::{SECRET_MASK, ServerConfig, Transport};
use crate::vocab::server::{secrets_of, secrets_of_mut};

/// `config` as shown: each env or header value as `shown` has it (the entry's own value, or
/// the mask for a typed one); a value `shown` does not know (a secret argument's) masked.
pub(crate) fn shown_config(
    config: &ServerConfig,
    shown: &BTreeMap<String, String>,
) -> ServerConfig {
    let mut copy = config.clone();
    for (name, value) in secrets_of_mut(&mut copy.transport).iter_mut() {
        *value = (shown.get(name).cloned()).unwrap_or_else(|| SECRET_MASK.to_owned());
    }
    copy
}

/// The command line of `config` with its env values as they are (`shown_config` masks the
/// typed ones), or its URL and transport.
fn command_line_shown(config: &ServerConfig) -> String {
    let Transport::Stdio {
        command, args, env, ..
    } = &config.transport
    else {
        return config.command_line();
    };
    let env = env.iter().map(|(k, v)| match v.as_str() {
        SECRET_MASK => format!("{}=••••", shell_word(k)),
        v => format!("{}={}", shell_word(k), shell_word(v)),
    });
    let words = std::iter::once(command).chain(args).map(|w| shell_word(w));
    env.chain(words).collect::<Vec<_>>().join(" ")
}

/// `word`, single-quoted when a shell would split or expand it.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_alphanumeric() || "-_./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The plan shown for `config`, whose env or header values are shown as `shown` has them.
pub(crate) fn plan_of(
    config: &ServerConfig,
    shown: &BTreeMap<String, String>,
    runtime: Option<RuntimeCheck>,
) -> InstallPlan {
    let names: Vec<String> = secrets_of(&config.transport).keys().cloned().collect();
    let seen = shown_config(config, shown);
    let values = secrets_of(&seen.transport).clone();
    let (command, args, url, stdio) = match &config.transport {
        Transport::Stdio { command, args, .. } => (Some(command.clone()), args.clone(), None, true),
        Transport::Http { url, .. } | Transport::Sse { url, .. } => {
            (None, vec![], Some(url.clone()), false)
        }
        Transport::Builtin { .. } => (None, vec![], None, false),
    };
    InstallPlan {
        server_name: config.name.clone(),
        command_line: command_line_shown(&seen),
        command,
        args,
        env_names: if stdio { names.clone() } else { vec![] },
        env: if stdio {
            values.clone()
        } else {
            BTreeMap::new()
        },
        url,
        header_names: if stdio { vec![] } else { names },
        headers: if stdio { BTreeMap::new() } else { values },
        runtime,
        digest: digest::of_json(&seen),
        config: seen,
    }
}
