//! Integration suites: the IPC commands through Tauri's mock runtime, the CLI as a process,
//! and the generated TypeScript bindings.

mod agent;
mod bindings;
mod cli;
mod export;
mod ipc;
mod ipc_chat;
mod mcp_cli;
mod providers;
mod servers;
