//! What a server's trust is bound to: its identity, the program it runs (command, arguments,
//! working directory) or the endpoint it reaches (transport and canonical URL). When a
//! server's configuration changes its identity, or an import replaces it, the trust given to
//! the old one does not carry over: its "always allow"/"never" tool policies are cleared (the
//! user is asked again), and its OAuth tokens (stored under its id and URL) and client
//! secret are deleted, as they are when it is renamed (a new server may take the old name).

use super::McpHost;
use crate::EngineError;
use crate::vocab::server::canonical_url;
use crate::vocab::server::{ServerConfig, Transport};

/// Whether `new` runs another program or reaches another endpoint than `old`.
pub(crate) fn identity_changed(old: &Transport, new: &Transport) -> bool {
    match (old, new) {
        (
            Transport::Stdio {
                command: c1,
                args: a1,
                cwd: d1,
                ..
            },
            Transport::Stdio {
                command: c2,
                args: a2,
                cwd: d2,
                ..
            },
        ) => c1 != c2 || a1 != a2 || d1 != d2,
        (Transport::Http { url: u1, .. }, Transport::Http { url: u2, .. })
        | (Transport::Sse { url: u1, .. }, Transport::Sse { url: u2, .. }) => {
            canonical_url(u1) != canonical_url(u2)
        }
        (Transport::Builtin { server: s1, .. }, Transport::Builtin { server: s2, .. }) => s1 != s2,
        _ => true,
    }
}

impl McpHost {
    /// After server `id`'s configuration went from `old` to `new`: clears its tool policies
    /// when its identity changed, and forgets the secrets stored under its old name when its
    /// identity or its name changed.
    pub(crate) async fn rebind_trust(
        &self,
        id: &str,
        old: &ServerConfig,
        new: &ServerConfig,
    ) -> Result<(), EngineError> {
        let identity = identity_changed(&old.transport, &new.transport);
        if identity {
            self.clear_tool_policies(id).await?;
            tracing::info!(server = %new.name, "the server's identity changed: its tool policies were cleared");
        }
        if identity || old.name != new.name {
            self.server_secrets().forget_server_secrets(id, old).await;
        }
        Ok(())
    }

    /// Forgets everything trusted about server `id`, configured as `old` (an import replaced
    /// it).
    pub(crate) async fn revoke_trust(
        &self,
        id: &str,
        old: &ServerConfig,
    ) -> Result<(), EngineError> {
        self.clear_tool_policies(id).await?;
        self.server_secrets().forget_server_secrets(id, old).await;
        Ok(())
    }

    /// Removes every tool policy of server `id`, and its Apps' grants.
    async fn clear_tool_policies(&self, id: &str) -> Result<(), EngineError> {
        for tool in self.store().tool_policies(id).await?.into_keys() {
            self.store().set_tool_policy(id, &tool, None).await?;
        }
        self.clear_app_grants(id).await
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn stdio(command: &str, args: &[&str]) -> Transport {
        Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    fn http(url: &str) -> Transport {
        Transport::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    #[test]
    fn a_new_command_args_url_or_transport_is_a_new_identity() {
        let a = stdio("npx", &["-y", "pkg"]);
        assert!(identity_changed(&a, &stdio("npx", &["-y", "other"])));
        assert!(identity_changed(&a, &stdio("uvx", &["-y", "pkg"])));
        assert!(identity_changed(&a, &http("https://a.example/mcp")));
        assert!(identity_changed(
            &http("https://a.example/mcp"),
            &http("https://b.example/mcp")
        ));
    }

    #[test]
    fn env_headers_and_spelling_of_the_same_url_keep_the_identity() {
        let mut with_env = stdio("npx", &["pkg"]);
        if let Transport::Stdio { env, .. } = &mut with_env {
            env.insert("TOKEN".into(), "new".into());
        }
        assert!(!identity_changed(&stdio("npx", &["pkg"]), &with_env));
        assert!(!identity_changed(
            &http("https://A.example:443/mcp/"),
            &http("https://a.example/mcp#x")
        ));
    }
}
