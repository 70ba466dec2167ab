//! [`Backoff`]: when the supervisor restarts a server that died — bounded exponential delays
//! with jitter, and when it gives up.

use std::time::Duration;

/// The restart policy for servers that die unexpectedly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// The delay before the first restart; it doubles with each consecutive failure.
    pub base: Duration,
    /// The longest delay.
    pub max: Duration,
    /// After this many consecutive failures (crashes or failed restarts) the server is Failed.
    pub max_failures: u32,
}

impl Default for Backoff {
    /// 1 s, 2 s, 4 s … up to 60 s; give up after 5 consecutive failures.
    fn default() -> Self {
        Self {
            base: Duration::from_secs(1),
            max: Duration::from_secs(60),
            max_failures: 5,
        }
    }
}

impl Backoff {
    /// The delay before restart `attempt` (1-based), without jitter.
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.base.saturating_mul(factor).min(self.max)
    }

    /// [`Backoff::delay`] with ±20 % jitter.
    pub fn jittered(&self, attempt: u32) -> Duration {
        self.delay(attempt).mul_f64(0.8 + fastrand::f64() * 0.4)
    }
}
