//! Integration suites: the IPC commands through Tauri's mock runtime, the CLI as a process,
//! the generated TypeScript bindings, and the engine against real MCP servers from PyPI.

mod agent;
mod attachments;
mod backups;
mod bindings;
mod bundles;
mod cli;
mod dependencies;
mod edits;
mod export;
mod ipc;
mod ipc_chat;
mod ipc_install;
mod ipc_mcp;
mod ipc_mcp_content;
mod ipc_paging;
mod ipc_projects;
mod ipc_servers_start;
mod knowledge;
mod knowledge_providers;
#[cfg(feature = "local")]
mod local;
mod mcp_apps;
mod mcp_cli;
mod mcp_eras;
mod mcp_listen;
mod mcp_mrtr;
mod mcp_oauth;
mod mcp_py;
mod mcp_serve;
mod mcp_serve_http;
mod mcp_serve_relay;
mod mcp_serve_tasks;
mod mcp_serve_window;
mod mrtr_server;
mod openai_api;
mod probe;
mod providers;
mod registry;
mod runtimes;
mod security;
mod servers;
pub(crate) mod support_cli;
pub(crate) mod support_py;
mod sync;
mod tasks_server;
mod web_search;
