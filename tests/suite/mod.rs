//! Integration suites: the IPC commands through Tauri's mock runtime, the CLI as a process,
//! and the generated TypeScript bindings.

mod bindings;
mod cli;
mod ipc;
mod mcp_cli;
mod mcp_oauth;
mod providers;
mod servers;
