//! The environment a stdio server's process starts with: nothing of the app's own environment
//! but the platform allow-list the official MCP SDKs pass (the TypeScript SDK's stdio client's
//! `DEFAULT_INHERITED_ENV_VARS`), the variables the user named for that server
//! (`inheritEnv`), the login-shell PATH, and the server's configured `env` on top.
//!
//! Provider keys (the app reads `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, … from its environment)
//! never reach a server by inheritance: any name with `KEY`, `TOKEN`, `SECRET`, `PASSWORD`,
//! `PASSWD` or `CREDENTIAL` in it cannot be inherited. That covers the key variable of every
//! provider preset (all are `*_API_KEY`; the security suite checks each preset, since `mcp`
//! may not import `provider`), and a custom provider has no key variable of its own: its key
//! is in the keychain, and whatever variable a user keeps such a key in is caught by those
//! words. A user who
//! means to give a server such a value writes it in that server's `env`.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// What a server inherits on Unix (the TypeScript SDK's list).
pub(crate) const UNIX_INHERITED: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// What a server inherits on Windows (the TypeScript SDK's list).
pub(crate) const WINDOWS_INHERITED: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// This platform's allow-list.
pub(crate) const INHERITED: &[&str] = if cfg!(windows) {
    WINDOWS_INHERITED
} else {
    UNIX_INHERITED
};

/// Words (upper case) whose presence in a name keeps it from being inherited: keys, tokens,
/// secrets and passwords.
const NEVER_INHERITED_WORDS: &[&str] =
    &["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"];

/// The environment of one server: from `parent` (the app's environment, passed in so tests
/// need not touch the real one) the [`INHERITED`] names and the `inherit` ones, then `path` as
/// PATH, then `configured` (the server's own `env`, which wins over everything).
pub(crate) fn server_env<I>(
    parent: I,
    path: &OsStr,
    inherit: &[String],
    configured: &BTreeMap<String, String>,
) -> BTreeMap<OsString, OsString>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    let mut env: BTreeMap<OsString, OsString> = parent
        .into_iter()
        .filter(|(name, value)| passes(name, value, inherit))
        .collect();
    remove_name(&mut env, "PATH");
    env.insert("PATH".into(), path.to_owned());
    for (name, value) in configured {
        remove_name(&mut env, name);
        env.insert(name.into(), value.into());
    }
    env
}

/// Whether a variable of the app's environment is passed on.
fn passes(name: &OsStr, value: &OsStr, inherit: &[String]) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    // Like the TypeScript SDK: exported shell functions (`() { …`) are a known attack vector.
    if value.to_string_lossy().starts_with("()") {
        return false;
    }
    let listed = INHERITED.iter().any(|allowed| same_name(allowed, name))
        || inherit.iter().any(|wanted| same_name(wanted, name));
    listed && inheritable(name)
}

/// Whether `name` may be inherited at all: not a name that says it holds a key, token,
/// secret or password (every provider preset's key variable is one).
pub(crate) fn inheritable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    !NEVER_INHERITED_WORDS.iter().any(|w| upper.contains(w))
}

/// Removes `name` (and, on Windows, any spelling of it in another case).
fn remove_name(env: &mut BTreeMap<OsString, OsString>, name: &str) {
    env.retain(|key, _| !key.to_str().is_some_and(|key| same_name(key, name)));
}

/// Environment names compare case-insensitively on Windows, exactly elsewhere.
fn same_name(a: &str, b: &str) -> bool {
    if cfg!(windows) {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

/// The problems of an `inheritEnv` list, one sentence each (empty when it is fine).
pub(crate) fn check_names(names: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    for name in names {
        if name.is_empty() || name.contains(['=', '\0']) {
            problems.push(format!("{name:?} is not a variable name"));
        } else if !inheritable(name) {
            problems.push(format!(
                "{name:?} looks like a provider key, token, secret or password and is never \
                 inherited; put it in \"env\" to give it to this server"
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<OsString, OsString> {
        pairs
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    #[cfg(unix)]
    #[test]
    fn a_server_gets_only_the_allow_list_the_login_path_and_its_own_env() {
        let app = parent(&[
            ("HOME", "/home/u"),
            ("USER", "u"),
            ("PATH", "/usr/bin"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("LANG", "C.UTF-8"),
        ]);
        let configured = BTreeMap::from([("TOKEN".to_owned(), "t".to_owned())]);
        let got = server_env(app, OsStr::new("/login/bin:/usr/bin"), &[], &configured);
        assert_eq!(
            got,
            env(&[
                ("HOME", "/home/u"),
                ("PATH", "/login/bin:/usr/bin"),
                ("TOKEN", "t"),
                ("USER", "u"),
            ])
        );
    }

    #[cfg(unix)]
    #[test]
    fn named_variables_are_inherited_but_provider_keys_never_are() {
        let app = parent(&[("LANG", "C.UTF-8"), ("OPENAI_API_KEY", "sk"), ("X", "()")]);
        let inherit = ["LANG".to_owned(), "OPENAI_API_KEY".to_owned()];
        let got = server_env(app, OsStr::new("/bin"), &inherit, &BTreeMap::new());
        assert_eq!(got, env(&[("LANG", "C.UTF-8"), ("PATH", "/bin")]));
    }

    #[test]
    fn names_of_keys_tokens_secrets_and_passwords_are_never_inherited() {
        let names = [
            "GEMINI_API_KEY",
            "MY_LLM_KEY",
            "GITHUB_TOKEN",
            "db_password",
            "CLIENT_SECRET",
            "HF_TOKEN",
        ]
        .map(str::to_owned);
        let problems = check_names(&names);
        assert_eq!(problems.len(), names.len(), "{problems:?}");
        assert!(check_names(&["LANG".to_owned(), "HTTPS_PROXY".to_owned()]).is_empty());
    }

    #[test]
    fn the_configured_env_wins_over_the_inherited_values_and_the_path() {
        let app = parent(&[("HOME", "/home/u")]);
        let configured = BTreeMap::from([
            ("HOME".to_owned(), "/srv".to_owned()),
            ("PATH".to_owned(), "/opt/bin".to_owned()),
        ]);
        let got = server_env(app, OsStr::new("/bin"), &[], &configured);
        assert_eq!(got, env(&[("HOME", "/srv"), ("PATH", "/opt/bin")]));
    }

    #[test]
    fn exported_shell_functions_are_not_inherited() {
        let app = parent(&[("HOME", "() { :; }; echo pwned")]);
        let got = server_env(app, OsStr::new("/bin"), &[], &BTreeMap::new());
        assert_eq!(got, env(&[("PATH", "/bin")]));
    }

    #[test]
    fn inherit_lists_with_bad_names_or_provider_keys_are_refused() {
        let names = [
            "LANG".to_owned(),
            "A=B".to_owned(),
            "dashscope_api_key".to_owned(),
        ];
        let problems = check_names(&names);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[1].contains("provider key"), "{problems:?}");
    }
}
