//! Installing MCP servers: from the MCP Registry ([`registry`]: `server.json` entries, the
//! client that searches and pages a registry, the install plan pinned to an entry's version),
//! from MCP Bundles ([`bundle`]: the manifest, checked unpacking, `mcp_config` substitutions),
//! from install links ([`link`]), and updates; [`installer`] is the host's side of all four.

pub(crate) mod bundle;
pub(crate) mod digest;
mod installer;
pub(crate) mod link;
pub(crate) mod registry;

pub use installer::{Installed, Installer};
