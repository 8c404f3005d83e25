//! Accounting: what one model call cost and did ([`CallRecord`]), model prices
//! ([`PriceTable`]) and roll-ups per agent and per phase ([`Ledger`], the paper's
//! Tables 12 and 13). Plain data; persisting records is the caller's job.

use super::config::Provider;
use super::{Message, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Token counts of one call, as the provider reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Prompt tokens served from the provider's prefix cache (billed cheaper).
    pub cached_tokens: u64,
}

impl Usage {
    /// Reads an OpenAI-style `usage` object, including DeepSeek's
    /// `prompt_cache_hit_tokens` and OpenAI's `prompt_tokens_details.cached_tokens`.
    pub fn from_json(v: &serde_json::Value) -> Option<Usage> {
        let obj = v.as_object()?;
        let n = |k: &str| obj.get(k).and_then(|x| x.as_u64());
        let cached = n("prompt_cache_hit_tokens")
            .or_else(|| {
                obj.get("prompt_tokens_details")
                    .and_then(|d| d.get("cached_tokens"))
                    .and_then(|x| x.as_u64())
            })
            .unwrap_or(0);
        Some(Usage {
            prompt_tokens: n("prompt_tokens").unwrap_or(0),
            completion_tokens: n("completion_tokens").unwrap_or(0),
            cached_tokens: cached,
        })
    }

    /// Adds another call's usage (corrective re-asks add up).
    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.cached_tokens += other.cached_tokens;
    }
}

/// One retry: why the previous attempt failed and how long the client waited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryNote {
    /// The attempt that failed (1-based).
    pub attempt: u32,
    pub reason: String,
    pub wait_ms: u64,
    /// True when the wait came from `Retry-After` / `retry-after-ms`.
    pub from_retry_after: bool,
}

/// Everything about one logical call (retries and a corrective re-ask included), handed
/// to the caller on success and on failure so every prompt and answer can be kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub id: String,
    pub agent: String,
    pub phase: String,
    pub op_id: Option<String>,
    pub role: Role,
    pub provider: Provider,
    pub model: String,
    pub base_url: String,
    /// The messages of the last request sent (a re-ask includes the bad answer and the
    /// correction).
    pub messages: Vec<Message>,
    /// The last raw answer text, if any arrived.
    pub raw_answer: Option<String>,
    /// Raw answers that were rejected before the last one (a re-asked bad answer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_answers: Vec<String>,
    pub finish_reason: Option<String>,
    /// Parse outcome: `None` on success (or for text calls), else the parse error.
    pub parse_error: Option<String>,
    /// What the JSON repairer changed (e.g. "code fence", "trailing comma").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
    /// Whether a corrective re-ask was sent.
    pub reasked: bool,
    /// HTTP attempts made (0 on a cache hit).
    pub attempts: u32,
    pub retries: Vec<RetryNote>,
    pub usage: Usage,
    pub wall_ms: u64,
    pub cache_hit: bool,
    pub cost_usd: f64,
    /// RFC 3339.
    pub started_at: String,
    /// Final error, when the call failed.
    pub error: Option<String>,
    /// What the caller changed before sending, e.g. files left out of a bundle to fit
    /// the model's context window.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input_cache_hit: f64,
    pub input_cache_miss: f64,
    pub output: f64,
}

impl Price {
    /// Cost of `u` at this price.
    pub fn cost(&self, u: &Usage) -> f64 {
        let hit = u.cached_tokens.min(u.prompt_tokens) as f64;
        let miss = u.prompt_tokens.saturating_sub(u.cached_tokens) as f64;
        (hit * self.input_cache_hit
            + miss * self.input_cache_miss
            + u.completion_tokens as f64 * self.output)
            / 1_000_000.0
    }
}

/// Prices by model name. Unknown models (and local servers) cost 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable(BTreeMap<String, Price>);

impl Default for PriceTable {
    /// List prices (USD per million tokens, December 2026) of the paper's two models.
    fn default() -> Self {
        let mut m = BTreeMap::new();
        m.insert(
            "deepseek-chat".to_string(),
            Price {
                input_cache_hit: 0.028,
                input_cache_miss: 0.28,
                output: 0.42,
            },
        );
        m.insert(
            "qwen-plus".to_string(),
            Price {
                input_cache_hit: 0.08,
                input_cache_miss: 0.4,
                output: 1.2,
            },
        );
        Self(m)
    }
}

impl PriceTable {
    /// An empty table (everything costs 0).
    pub fn empty() -> Self {
        Self(BTreeMap::new())
    }
    /// Sets or replaces a model's price.
    pub fn set(&mut self, model: impl Into<String>, price: Price) {
        self.0.insert(model.into(), price);
    }
    /// The price of a model, if known.
    pub fn get(&self, model: &str) -> Option<&Price> {
        self.0.get(model)
    }
    /// All entries, ordered by model name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Price)> {
        self.0.iter()
    }
    /// Cost of a call; local providers are free whatever the table says.
    pub fn cost(&self, provider: Provider, model: &str, u: &Usage) -> f64 {
        if provider.is_local() {
            return 0.0;
        }
        self.get(model).map(|p| p.cost(u)).unwrap_or(0.0)
    }
}

/// Sums over a set of calls.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Totals {
    pub calls: u64,
    pub failures: u64,
    pub cache_hits: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    pub cost_usd: f64,
    pub wall_ms: u64,
}

impl Totals {
    fn add(&mut self, r: &CallRecord) {
        self.calls += 1;
        self.failures += u64::from(r.error.is_some());
        self.cache_hits += u64::from(r.cache_hit);
        self.prompt_tokens += r.usage.prompt_tokens;
        self.completion_tokens += r.usage.completion_tokens;
        self.cached_tokens += r.usage.cached_tokens;
        self.cost_usd += r.cost_usd;
        self.wall_ms += r.wall_ms;
    }
}

/// Roll-ups per agent and per phase (paper Tables 12 and 13).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Ledger {
    pub total: Totals,
    pub by_agent: BTreeMap<String, Totals>,
    pub by_phase: BTreeMap<String, Totals>,
}

impl Ledger {
    /// Adds one call.
    pub fn add(&mut self, r: &CallRecord) {
        self.total.add(r);
        self.by_agent.entry(r.agent.clone()).or_default().add(r);
        self.by_phase.entry(r.phase.clone()).or_default().add(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(agent: &str, phase: &str, p: u64, c: u64, cost: f64) -> CallRecord {
        CallRecord {
            id: "x".into(),
            agent: agent.into(),
            phase: phase.into(),
            op_id: None,
            role: Role::Primary,
            provider: Provider::Deepseek,
            model: "deepseek-chat".into(),
            base_url: "u".into(),
            messages: vec![],
            raw_answer: None,
            rejected_answers: vec![],
            finish_reason: None,
            parse_error: None,
            repairs: vec![],
            reasked: false,
            notes: vec![],
            attempts: 1,
            retries: vec![],
            usage: Usage {
                prompt_tokens: p,
                completion_tokens: c,
                cached_tokens: 0,
            },
            wall_ms: 10,
            cache_hit: false,
            cost_usd: cost,
            started_at: String::new(),
            error: None,
        }
    }

    #[test]
    fn usage_reads_both_cache_fields() {
        let d = Usage::from_json(&json!({"prompt_tokens": 10, "completion_tokens": 5,
            "prompt_cache_hit_tokens": 4, "prompt_cache_miss_tokens": 6}))
        .unwrap();
        assert_eq!(
            d,
            Usage {
                prompt_tokens: 10,
                completion_tokens: 5,
                cached_tokens: 4
            }
        );
        let o = Usage::from_json(&json!({"prompt_tokens": 8, "completion_tokens": 2,
            "prompt_tokens_details": {"cached_tokens": 3}}))
        .unwrap();
        assert_eq!(o.cached_tokens, 3);
    }

    #[test]
    fn cost_splits_hit_and_miss() {
        let p = Price {
            input_cache_hit: 1.0,
            input_cache_miss: 10.0,
            output: 100.0,
        };
        let u = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 500_000,
            cached_tokens: 250_000,
        };
        let cost = p.cost(&u);
        assert!((cost - (0.25 + 7.5 + 50.0)).abs() < 1e-9, "{cost}");
        let t = PriceTable::default();
        assert_eq!(t.cost(Provider::Llamacpp, "deepseek-chat", &u), 0.0);
        assert!(t.cost(Provider::Deepseek, "deepseek-chat", &u) > 0.0);
        assert_eq!(t.cost(Provider::Openai, "unknown", &u), 0.0);
    }

    #[test]
    fn ledger_rolls_up_per_agent_and_phase() {
        let mut l = Ledger::default();
        l.add(&rec("extraction", "source_analysis", 100, 10, 0.5));
        l.add(&rec("extraction", "source_analysis", 50, 5, 0.25));
        let mut failed = rec("single_op", "oracle_generation", 7, 0, 0.0);
        failed.error = Some("x".into());
        l.add(&failed);
        assert_eq!(l.total.calls, 3);
        assert_eq!(l.total.failures, 1);
        assert_eq!(l.by_agent["extraction"].prompt_tokens, 150);
        assert_eq!(l.by_agent["extraction"].cost_usd, 0.75);
        assert_eq!(l.by_phase["oracle_generation"].calls, 1);
        assert_eq!(l.by_phase["source_analysis"].completion_tokens, 15);
    }
}
