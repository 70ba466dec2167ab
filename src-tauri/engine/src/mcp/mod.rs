//! The MCP host: server configuration, supervision of running servers, the client side of
//! the protocol (on rmcp, wrapped here so its API churn stays in this module), tool
//! execution for the agent loop, approval policy and built-in servers.

pub mod spec;

pub use spec::{ServerSpec, Transport};
