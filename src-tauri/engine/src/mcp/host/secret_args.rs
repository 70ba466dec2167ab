//! Secret values a stdio server takes on its command line (a registry entry's secret argument,
//! a bundle's sensitive `user_config` value placed in `args`): kept with the server's env
//! values (the keychain, never SQLite), the argument holding `${secret:NAME}` instead, and
//! filled in only when the server starts.

use crate::vocab::server::{ServerConfig, Transport};

/// The env name a secret argument's value is kept under: `SWITCHBOARD_SECRET_` and the key,
/// upper-cased, other characters as `_`.
pub(crate) fn secret_env_name(key: &str) -> String {
    let key: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("SWITCHBOARD_SECRET_{key}")
}

/// How an argument names the value kept under env `name`.
fn placeholder(name: &str) -> String {
    format!("${{secret:{name}}}")
}

/// Takes each of `secrets` (key, value) out of `config`'s arguments: every occurrence of the
/// value becomes `${secret:NAME}` and the value is kept as env NAME. Remote servers have no
/// arguments and are left as they are.
pub(crate) fn seal_secret_args(config: &mut ServerConfig, secrets: &[(String, String)]) {
    let Transport::Stdio { args, env, .. } = &mut config.transport else {
        return;
    };
    for (key, value) in secrets.iter().filter(|(_, v)| !v.is_empty()) {
        // Several values of one key (a list) each get their own name.
        let base = secret_env_name(key);
        let name = (1..)
            .map(|i| {
                if i == 1 {
                    base.clone()
                } else {
                    format!("{base}_{i}")
                }
            })
            .find(|n| env.get(n).is_none_or(|v| v == value))
            .unwrap_or(base);
        let mut used = false;
        for arg in args.iter_mut().filter(|a| a.contains(value.as_str())) {
            *arg = arg.replace(value.as_str(), &placeholder(&name));
            used = true;
        }
        if used {
            env.insert(name, value.clone());
        }
    }
}

/// Fills every `${secret:NAME}` of `config`'s arguments with env NAME's value (a name with
/// no value is left as written).
pub(crate) fn fill_secret_args(config: &mut ServerConfig) {
    let Transport::Stdio { args, env, .. } = &mut config.transport else {
        return;
    };
    for arg in args.iter_mut().filter(|a| a.contains("${secret:")) {
        for (name, value) in env.iter() {
            let p = placeholder(name);
            if arg.contains(&p) {
                *arg = arg.replace(&p, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(args: &[&str]) -> ServerConfig {
        ServerConfig::new(
            "s",
            Transport::Stdio {
                command: "npx".into(),
                args: args.iter().map(|a| a.to_string()).collect(),
                env: Default::default(),
                cwd: None,
            },
        )
    }

    fn args_env(c: &ServerConfig) -> (Vec<String>, Vec<(String, String)>) {
        match &c.transport {
            Transport::Stdio { args, env, .. } => (
                args.clone(),
                env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            ),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_secret_argument_is_kept_as_env_and_the_argument_names_it_until_the_start() {
        let mut c = stdio(&["-y", "pkg@1", "--token=sk-123", "sk-123"]);
        seal_secret_args(&mut c, &[("api token".into(), "sk-123".into())]);
        let (args, env) = args_env(&c);
        let p = "${secret:SWITCHBOARD_SECRET_API_TOKEN}";
        assert_eq!(args, ["-y", "pkg@1", &format!("--token={p}"), p]);
        assert_eq!(
            env,
            [("SWITCHBOARD_SECRET_API_TOKEN".into(), "sk-123".into())]
        );
        fill_secret_args(&mut c);
        assert_eq!(args_env(&c).0, ["-y", "pkg@1", "--token=sk-123", "sk-123"]);
    }

    #[test]
    fn an_empty_or_unused_secret_changes_nothing() {
        let mut c = stdio(&["-y", "pkg@1"]);
        seal_secret_args(
            &mut c,
            &[("a".into(), "".into()), ("b".into(), "zz".into())],
        );
        assert_eq!(args_env(&c), (vec!["-y".into(), "pkg@1".into()], vec![]));
    }
}
