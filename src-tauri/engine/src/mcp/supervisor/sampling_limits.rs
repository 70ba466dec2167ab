//! Limits on what servers may ask of the user's model through sampling: a server's
//! `maxTokens` is clamped to a setting ([`MAX_TOKENS_SETTING`], default [`DEFAULT_MAX_TOKENS`])
//! before the user is asked, and each server may make at most [`DEFAULT_PER_MINUTE`] sampling
//! requests a minute (a sliding window); more are refused at once, without a prompt.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::mcp::client::interact_types::SamplingRequest;

/// The setting holding the largest `maxTokens` a sampling request keeps.
pub(crate) const MAX_TOKENS_SETTING: &str = "mcp.sampling_max_tokens";
/// The largest `maxTokens` a sampling request keeps by default.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;
/// How many sampling requests one server may make per [`WINDOW`] by default.
pub const DEFAULT_PER_MINUTE: usize = 10;
/// The window of the rate limit.
pub(crate) const WINDOW: Duration = Duration::from_secs(60);

/// The limits, shared by every server's connection. Cheap to clone; clones share the state.
#[derive(Clone, Debug)]
pub struct SamplingLimits {
    inner: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    max_tokens: u32,
    per_window: usize,
    /// Per server: when its recent requests were admitted, oldest first.
    recent: HashMap<String, VecDeque<Instant>>,
}

impl Default for SamplingLimits {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_TOKENS, DEFAULT_PER_MINUTE)
    }
}

impl SamplingLimits {
    /// Limits of `max_tokens` per request and `per_window` requests per server per [`WINDOW`].
    pub fn new(max_tokens: u32, per_window: usize) -> Self {
        let state = State {
            max_tokens,
            per_window,
            recent: HashMap::new(),
        };
        Self {
            inner: Arc::new(Mutex::new(state)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        match self.inner.lock() {
            Ok(state) => state,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The largest `maxTokens` kept.
    pub fn max_tokens(&self) -> u32 {
        self.lock().max_tokens
    }

    /// Changes the largest `maxTokens` kept (at least 1).
    pub fn set_max_tokens(&self, max_tokens: u32) {
        self.lock().max_tokens = max_tokens.max(1);
    }

    /// `request` with its `maxTokens` clamped.
    pub fn clamp(&self, mut request: SamplingRequest) -> SamplingRequest {
        request.max_tokens = request.max_tokens.min(self.max_tokens());
        request
    }

    /// Counts one request of `server` at `now`; `Err(wait)` when it is over the limit, with how
    /// long until it would be admitted.
    pub fn admit(&self, server: &str, now: Instant) -> Result<(), Duration> {
        let mut state = self.lock();
        let per_window = state.per_window;
        let recent = state.recent.entry(server.to_owned()).or_default();
        while recent
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= WINDOW)
        {
            recent.pop_front();
        }
        if recent.len() >= per_window {
            let oldest = recent.front().copied().unwrap_or(now);
            return Err(WINDOW.saturating_sub(now.saturating_duration_since(oldest)));
        }
        recent.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_over_its_rate_is_refused_until_the_window_moves_on() {
        let limits = SamplingLimits::new(100, 2);
        let start = Instant::now();
        assert_eq!(limits.admit("a", start), Ok(()));
        assert_eq!(limits.admit("a", start), Ok(()));
        assert_eq!(limits.admit("a", start), Err(WINDOW));
        assert_eq!(
            limits.admit("b", start),
            Ok(()),
            "servers are counted apart"
        );
        assert_eq!(limits.admit("a", start + WINDOW), Ok(()));
    }
}
