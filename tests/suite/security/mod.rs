//! The security suite (issue 17): one test per hardening finding, each failing on the code
//! before its fix — servers' environments, App CSP sources, SSRF ranges, the filesystem
//! built-in, sampling limits, the OAuth loopback, file permissions, bounded imports and
//! servers' env and header values in the keychain; and the second pass (issue 31): install
//! confirmations, registry plans, approved-is-applied digests, redirects and bounded parsers.

mod app_approval;
mod app_csp;
mod approved_applied;
mod bounded_parsers;
mod env;
#[cfg(unix)]
mod file_modes;
#[cfg(target_os = "linux")]
mod filesystem;
mod import_cap;
mod install_links;
mod leak_scan;
mod oauth_loopback;
mod redirects;
mod registry_plans;
mod sampling;
mod server_values;
mod ssrf;
mod trust;
