//! The shared vocabulary: the types that cross the engine's parts — a configured server and its
//! approval, what MCP servers offer and answer (tools, results, resources, prompts), task
//! status, the user's approval answers, chat events, the parts of a message, provider kinds and
//! tool modes, and error kinds.
//!
//! It imports nothing else from the crate: `store`, `mcp`, `agent`, `provider`, `export` and
//! the IPC bindings all depend on it, and never on each other for a type (the rule is checked
//! by `tests::dependencies`, see `docs/architecture.md`).

pub mod approval;
pub mod chat;
pub mod content;
pub mod error;
pub mod knowledge;
pub mod mcp;
pub mod provider;
pub mod server;
pub mod task;

pub use approval::ApprovalAnswer;
pub use chat::{CallView, ChatEvent, TurnEnd};
pub use content::{Attachment, ContentPart};
pub use error::ErrorKind;
pub use provider::{ProviderKind, ToolMode, Usage};
pub use server::{Approval, ServerConfig, ServerSpec, Transport};
pub use task::TaskStatus;
