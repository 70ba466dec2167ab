//! What the engine does across two parts for a knowledge base: a base is offered to models as
//! its own built-in `knowledge` MCP server (so it goes through the one tool pipeline, approval
//! and per-chat tool choice, and an assistant can be given it), created and removed with the
//! base; a source added or removed changes what is watched (the caller indexes: the window in
//! the background, the CLI in the foreground); at start every base is brought up to date and
//! watched.

use std::collections::BTreeMap;
use std::path::Path;

use crate::Engine;
use crate::error::EngineError;
use crate::store::KnowledgeBase;
use crate::vocab::server::{ServerConfig, Transport};

/// The name of base `base`'s MCP server.
pub fn server_name(base: &str) -> String {
    format!("knowledge-{base}")
}

/// The configuration of base `base`'s MCP server.
fn server_config(base: &str) -> ServerConfig {
    let transport = Transport::Builtin {
        server: "knowledge".to_owned(),
        allow_private: false,
        folders: Vec::new(),
        env: BTreeMap::new(),
        settings: BTreeMap::from([("BASE".to_owned(), base.to_owned())]),
    };
    ServerConfig::new(server_name(base), transport)
}

/// Whether `config` is the knowledge server of base `base`.
fn serves(config: &ServerConfig, base: &str) -> bool {
    matches!(&config.transport, Transport::Builtin { server, settings, .. }
        if server == "knowledge" && settings.get("BASE").is_some_and(|b| b.eq_ignore_ascii_case(base)))
}

impl Engine {
    /// Creates the knowledge base `name` over `sources` (absolute folders or files), adds its
    /// MCP server and starts it; the caller indexes it.
    pub async fn create_knowledge_base(
        &self,
        name: &str,
        sources: &[&Path],
    ) -> Result<KnowledgeBase, EngineError> {
        let base = self.knowledge().create(name).await?;
        for source in sources {
            if let Err(error) = self.knowledge().add_source(&base.name, source).await {
                self.knowledge().delete(&base.name).await?;
                return Err(error.into());
            }
        }
        let servers = self.mcp().list_servers().await?;
        if !servers.iter().any(|s| serves(&s.config, &base.name)) {
            // Nothing half made: a base whose server cannot be added goes again.
            let record = match self.mcp().add_server(server_config(&base.name)).await {
                Ok(record) => record,
                Err(error) => {
                    self.knowledge().delete(&base.name).await?;
                    return Err(error);
                }
            };
            self.mcp()
                .follow_config(std::slice::from_ref(&record.id))
                .await;
        }
        self.knowledge().rewatch().await;
        Ok(self.knowledge().get(&base.name).await?)
    }

    /// Deletes the knowledge base `name` (the user's files are not touched) and its MCP server.
    pub async fn delete_knowledge_base(&self, name: &str) -> Result<(), EngineError> {
        let base = self.knowledge().get(name).await?;
        self.knowledge().delete(&base.name).await?;
        for server in self.mcp().list_servers().await? {
            if serves(&server.config, &base.name) {
                self.mcp().remove_server(&server.id).await?;
            }
        }
        self.knowledge().rewatch().await;
        Ok(())
    }

    /// Adds a folder or file to base `name`; the caller indexes it.
    pub async fn add_knowledge_source(
        &self,
        name: &str,
        source: &Path,
    ) -> Result<KnowledgeBase, EngineError> {
        let base = self.knowledge().add_source(name, source).await?;
        self.knowledge().rewatch().await;
        Ok(base)
    }

    /// Removes a source from base `name`; its files leave the index at the next run.
    pub async fn remove_knowledge_source(
        &self,
        name: &str,
        source: &str,
    ) -> Result<KnowledgeBase, EngineError> {
        let base = self.knowledge().remove_source(name, source).await?;
        self.knowledge().rewatch().await;
        Ok(base)
    }

    /// Brings every base up to date in the background and watches their sources (at start).
    pub async fn start_knowledge(&self) -> Result<(), EngineError> {
        let bases = self.knowledge().list().await?;
        self.knowledge().rewatch().await;
        let knowledge = self.knowledge().clone();
        tokio::spawn(async move {
            for base in bases {
                if let Err(error) = knowledge.index(&base.name).await {
                    tracing::warn!(base = %base.name, %error, "indexing at start failed");
                }
            }
        });
        Ok(())
    }
}
