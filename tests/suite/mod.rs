//! Integration suites: the IPC commands through Tauri's mock runtime, the CLI as a process,
//! and the generated TypeScript bindings.

mod agent;
mod bindings;
mod cli;
mod ipc;
mod ipc_chat;
mod ipc_mcp;
mod mcp_cli;
mod mcp_oauth;
mod providers;
mod servers;
