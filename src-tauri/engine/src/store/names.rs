//! Names unique regardless of case (assistants, projects): the first free name for a copy or an
//! import (`Name`, `Name (2)`, …), and a clash with a taken name said in words.

use std::collections::HashSet;

use super::{Store, StoreError};

impl Store {
    /// `wanted` (trimmed), or `wanted (2)`, `wanted (3)`, … — the first no row of `table` has
    /// as its `name`, regardless of case.
    pub(super) async fn free_name(
        &self,
        table: &'static str,
        wanted: &str,
    ) -> Result<String, StoreError> {
        let sql = format!("SELECT lower(name) FROM {table}");
        let taken: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_all(&self.reader)
            .await
            .map_err(|e| self.classify(e))?;
        let taken: HashSet<String> = taken.into_iter().map(|(n,)| n).collect();
        let free = |n: &String| !taken.contains(&n.to_lowercase());
        let first = wanted.trim().to_owned();
        if free(&first) {
            return Ok(first);
        }
        Ok((2..)
            .map(|i| format!("{first} ({i})"))
            .find(free)
            .unwrap_or(first))
    }

    /// A write's row, or — when it broke a unique name — "a `what` named … already exists".
    pub(super) fn name_checked<R, T: From<R>>(
        &self,
        row: Result<R, sqlx::Error>,
        what: &str,
        name: &str,
    ) -> Result<T, StoreError> {
        match row {
            Ok(row) => Ok(row.into()),
            Err(e)
                if e.as_database_error()
                    .is_some_and(|d| d.is_unique_violation()) =>
            {
                Err(StoreError::Invalid(format!(
                    "{what} named {name:?} already exists"
                )))
            }
            Err(e) => Err(self.classify(e)),
        }
    }
}
