//! The digest of what an install confirmation showed: `sha256:` and the hex SHA-256 of a
//! canonical serialization (a plan's or an update's JSON, whose maps are sorted) or of a
//! bundle file's bytes. The preview returns it; install and update take it back and refuse
//! ([`InstallError::NotAsShown`]) when what they would apply has another.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::vocab::error::InstallError;

/// What a digest starts with.
const PREFIX: &str = "sha256:";

/// `sha256:` and the hex of a finished SHA-256.
pub(crate) fn hex_of(hash: Sha256) -> String {
    let bytes = hash.finalize();
    let mut out = String::with_capacity(PREFIX.len() + 64);
    out.push_str(PREFIX);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The digest of `value`'s JSON (struct fields in their order, maps sorted: canonical for
/// the types it is used on, whose maps are `BTreeMap`s).
pub(crate) fn of_json(value: &impl Serialize) -> String {
    let json = serde_json::to_vec(value).unwrap_or_default();
    let mut hash = Sha256::new();
    hash.update(&json);
    hex_of(hash)
}

/// Refuses unless `given` (what the user saw) is `actual` (what would be applied).
pub(crate) fn require(what: &str, given: &str, actual: &str) -> Result<(), InstallError> {
    if given.trim().eq_ignore_ascii_case(actual) {
        return Ok(());
    }
    Err(InstallError::NotAsShown(format!(
        "{what} is not what was shown (digest {actual}, the confirmation showed {})",
        if given.trim().is_empty() {
            "none"
        } else {
            given.trim()
        }
    )))
}
