//! What models cost, as data: a built-in table (`prices.json`, US dollars per million input
//! and output tokens, keyed by model id or id prefix) with the user's own entries over it
//! (the `chat.model_prices` setting). The UI prices each message's token use with it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::Providers;
use crate::EngineError;
use crate::vocab::error::AgentError;

/// The setting that holds the user's prices.
pub(crate) const PRICES_SETTING: &str = "chat.model_prices";

/// The price of a model's tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ModelPrice {
    /// US dollars per million input (prompt) tokens.
    pub input: f64,
    /// US dollars per million output (completion) tokens.
    pub output: f64,
}

/// Model id (or id prefix) → price.
pub type PriceTable = BTreeMap<String, ModelPrice>;

/// The built-in prices.
pub fn builtin() -> PriceTable {
    serde_json::from_str(include_str!("prices.json")).unwrap_or_default()
}

impl Providers {
    /// The user's prices (none set: empty).
    pub async fn own_prices(&self) -> Result<PriceTable, EngineError> {
        Ok(match self.store().setting(PRICES_SETTING).await? {
            Some(v) => serde_json::from_value(v).unwrap_or_default(),
            None => PriceTable::new(),
        })
    }

    /// The built-in prices with the user's over them.
    pub async fn model_prices(&self) -> Result<PriceTable, EngineError> {
        let mut table = builtin();
        table.extend(self.own_prices().await?);
        Ok(table)
    }

    /// Replaces the user's prices; a negative or non-finite price is refused.
    pub async fn set_own_prices(&self, prices: PriceTable) -> Result<(), EngineError> {
        if let Some((model, _)) = prices.iter().find(|(k, p)| {
            k.trim().is_empty()
                || ![p.input, p.output]
                    .iter()
                    .all(|v| v.is_finite() && *v >= 0.0)
        }) {
            return Err(AgentError::Invalid(format!(
                "the price of “{model}” must name a model and be zero or more"
            ))
            .into());
        }
        let value = serde_json::to_value(&prices)
            .map_err(|e| AgentError::Invalid(format!("cannot store the prices: {e}")))?;
        self.store().set_setting(PRICES_SETTING, &value).await?;
        Ok(())
    }
}
