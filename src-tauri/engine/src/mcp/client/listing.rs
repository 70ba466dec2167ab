//! Tool, prompt and resource lists with their cache hints (SEP-2549, protocol 2026-07-28:
//! `ttlMs` and `cacheScope` on list results). rmcp keeps each page in its per-connection
//! response cache for `ttlMs` (capped at 24 h) and drops it on a `list_changed` notification;
//! here the merged hint becomes our [`CacheHint`], which the supervisor uses to decide when a
//! turn must list again ([`CacheHint::expiry`]). The client's list methods live here.

use std::time::{Duration, Instant};

use rmcp::model as rm;
use rmcp::service::MergedList;

use super::{McpClient, convert};
use crate::vocab::mcp::{CacheHint, CacheScope, Listed, ProtocolEra};
use crate::vocab::mcp::{McpError, PromptInfo, ResourceInfo, ToolInfo};

/// The longest a list is kept, whatever the server says (rmcp's own cap).
pub(crate) const MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// A merged list in our types, `convert` mapping each item.
pub(super) fn listed<T, U>(list: MergedList<T>, convert: impl Fn(T) -> U) -> Listed<U> {
    Listed {
        items: list.items.into_iter().map(convert).collect(),
        hint: CacheHint {
            ttl: list.ttl_ms.map(Duration::from_millis),
            scope: list.cache_scope.map(scope),
        },
    }
}

fn scope(scope: rm::CacheScope) -> CacheScope {
    match scope {
        rm::CacheScope::Private => CacheScope::Private,
        _ => CacheScope::Public,
    }
}

impl CacheHint {
    /// Until when a list listed `now` with this hint may be reused; `None` means until the
    /// server says the list changed. A `ttlMs` is honoured in either era (capped at
    /// [`MAX_TTL`]). Without one, a handshake-era list is kept until `list_changed` (that era's
    /// session delivers it), while a stateless-era list is stale at once: without a session
    /// nothing would tell us it changed.
    pub fn expiry(&self, era: ProtocolEra, now: Instant) -> Option<Instant> {
        match (self.ttl, era) {
            (Some(ttl), _) => Some(now + ttl.min(MAX_TTL)),
            (None, ProtocolEra::Handshake) => None,
            (None, ProtocolEra::Stateless) => Some(now),
        }
    }
}

impl McpClient {
    /// Every tool the server offers (all pages).
    pub async fn list_tools(&self) -> Result<Vec<ToolInfo>, McpError> {
        Ok(self.list_tools_hinted().await?.items)
    }

    /// Every tool the server offers, with the list's cache hint. Within the hint's `ttlMs`
    /// the list comes from the connection's response cache, with no request.
    pub async fn list_tools_hinted(&self) -> Result<Listed<ToolInfo>, McpError> {
        let tools = self.service.list_all_tools_with_cache_hint();
        Ok(listed(self.bounded(tools).await?, convert::tool))
    }

    /// Every resource the server lists (all pages).
    pub async fn list_resources(&self) -> Result<Vec<ResourceInfo>, McpError> {
        Ok(self.list_resources_hinted().await?.items)
    }

    /// Every resource the server lists, with the list's cache hint.
    pub async fn list_resources_hinted(&self) -> Result<Listed<ResourceInfo>, McpError> {
        let resources = self.service.list_all_resources_with_cache_hint();
        Ok(listed(self.bounded(resources).await?, convert::resource))
    }

    /// Every prompt the server lists (all pages).
    pub async fn list_prompts(&self) -> Result<Vec<PromptInfo>, McpError> {
        Ok(self.list_prompts_hinted().await?.items)
    }

    /// Every prompt the server lists, with the list's cache hint.
    pub async fn list_prompts_hinted(&self) -> Result<Listed<PromptInfo>, McpError> {
        let prompts = self.service.list_all_prompts_with_cache_hint();
        Ok(listed(self.bounded(prompts).await?, convert::prompt_info))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ttl_is_honoured_in_both_eras_and_capped() {
        let now = Instant::now();
        let hint = |ttl| CacheHint {
            ttl: Some(ttl),
            scope: Some(CacheScope::Public),
        };
        let minute = Duration::from_secs(60);
        for era in [ProtocolEra::Stateless, ProtocolEra::Handshake] {
            assert_eq!(hint(minute).expiry(era, now), Some(now + minute));
            let week = Duration::from_secs(7 * 24 * 3600);
            assert_eq!(hint(week).expiry(era, now), Some(now + MAX_TTL));
        }
    }

    #[test]
    fn without_a_ttl_only_the_handshake_era_keeps_a_list_until_it_changes() {
        let now = Instant::now();
        let hint = CacheHint::default();
        assert_eq!(hint.expiry(ProtocolEra::Handshake, now), None);
        assert_eq!(hint.expiry(ProtocolEra::Stateless, now), Some(now));
    }
}
