//! Integration suites: the IPC commands through Tauri's mock runtime, the CLI as a process,
//! the generated TypeScript bindings, and the engine against real MCP servers from PyPI.

mod bindings;
mod cli;
mod ipc;
mod mcp_cli;
mod mcp_py;
mod providers;
mod servers;
pub mod support_py;
