//! Keyset paging shared by the repositories, and the clock they stamp rows with.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::StoreError;

/// The most rows one page may hold.
pub(crate) const MAX_PAGE: u32 = 500;

/// Which page to fetch: at most `limit` rows after `cursor` (from the previous page).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PageRequest {
    /// Rows wanted; clamped to 1..=500, 50 when zero.
    #[serde(default)]
    pub limit: u32,
    /// The `nextCursor` of the previous page; none for the first page.
    #[serde(default)]
    #[ts(optional)]
    pub cursor: Option<String>,
}

impl PageRequest {
    /// The first page of `limit` rows.
    pub fn first(limit: u32) -> Self {
        Self {
            limit,
            cursor: None,
        }
    }

    /// The clamped row count.
    pub(crate) fn size(&self) -> u32 {
        match self.limit {
            0 => 50,
            n => n.min(MAX_PAGE),
        }
    }
}

/// One page of rows and the cursor for the next, if there is one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    /// The rows, in the listing's order.
    pub items: Vec<T>,
    /// Pass this back to get the next page; none when this is the last.
    pub next_cursor: Option<String>,
}

impl<T> Page<T> {
    /// Builds a page from `size + 1` fetched rows: the extra row only signals that more exist.
    pub(crate) fn from_rows(mut rows: Vec<T>, size: u32, cursor: impl Fn(&T) -> String) -> Self {
        let more = rows.len() > size as usize;
        rows.truncate(size as usize);
        let next_cursor = if more { rows.last().map(cursor) } else { None };
        Self {
            items: rows,
            next_cursor,
        }
    }
}

/// Splits a cursor made of `n` colon-separated fields (the last may contain colons).
pub(crate) fn split_cursor(cursor: &str, n: usize) -> Result<Vec<&str>, StoreError> {
    let parts: Vec<&str> = cursor.splitn(n, ':').collect();
    if parts.len() == n {
        Ok(parts)
    } else {
        Err(StoreError::Invalid(format!(
            "malformed page cursor {cursor:?}"
        )))
    }
}

/// Parses one numeric cursor field.
pub(crate) fn cursor_number(field: &str) -> Result<i64, StoreError> {
    field
        .parse()
        .map_err(|_| StoreError::Invalid(format!("malformed page cursor field {field:?}")))
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A new time-ordered id.
pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
