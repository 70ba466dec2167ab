//! Integration suites: the IPC commands through Tauri's mock runtime, the CLI as a process,
//! and the generated TypeScript bindings.

mod bindings;
mod cli;
mod edits;
mod ipc;
mod mcp_cli;
mod providers;
mod servers;
