//! The agents as a type. Their names appear in prompts (one file per agent), call records,
//! events, the cost roll-ups, `--refresh-from` and the workbench; each of those reads the
//! name, phase, model role and downstream agents from here instead of repeating strings.
//! Serialised as the names sessions already hold (`single_op_challenger`, ...).

use crate::llm::Role;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// Every agent that calls a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agent {
    /// Endpoint discovery: which spec operations a bundle implements (paper 4.1).
    Discovery,
    /// SourceExtractionAgent: the verified source context of one operation.
    Extraction,
    /// Semantic grouping of operations into sequences.
    Semantic,
    /// SingleOpOracleAgent: first generation.
    SingleOp,
    /// SingleOpChallengerAgent: one review of a suite.
    SingleOpChallenger,
    /// SingleOpOracleAgent: the one targeted regeneration.
    SingleOpRegenerate,
    /// MultiOpOracleAgent: first generation for a group.
    MultiOp,
    /// MultiOpChallengerAgent.
    MultiOpChallenger,
    /// MultiOpOracleAgent: the targeted regeneration.
    MultiOpRegenerate,
    /// Direct Prompting baseline (paper Listing A.1).
    BaselineDp,
    /// Spec-only baseline.
    BaselineSpec,
    /// ARMeta's HLMT generator layer.
    MrGenerator,
    /// ARMeta's refiner layer.
    MrRefiner,
}

impl Agent {
    /// The pipeline's agents, in the order a run meets them.
    pub const PIPELINE: [Agent; 9] = [
        Agent::Discovery,
        Agent::Extraction,
        Agent::Semantic,
        Agent::SingleOp,
        Agent::SingleOpChallenger,
        Agent::SingleOpRegenerate,
        Agent::MultiOp,
        Agent::MultiOpChallenger,
        Agent::MultiOpRegenerate,
    ];

    /// Every agent.
    pub const ALL: [Agent; 13] = [
        Agent::Discovery,
        Agent::Extraction,
        Agent::Semantic,
        Agent::SingleOp,
        Agent::SingleOpChallenger,
        Agent::SingleOpRegenerate,
        Agent::MultiOp,
        Agent::MultiOpChallenger,
        Agent::MultiOpRegenerate,
        Agent::BaselineDp,
        Agent::BaselineSpec,
        Agent::MrGenerator,
        Agent::MrRefiner,
    ];

    /// The name in prompts, records, events and flags.
    pub const fn name(self) -> &'static str {
        match self {
            Agent::Discovery => "discovery",
            Agent::Extraction => "extraction",
            Agent::Semantic => "semantic",
            Agent::SingleOp => "single_op",
            Agent::SingleOpChallenger => "single_op_challenger",
            Agent::SingleOpRegenerate => "single_op_regenerate",
            Agent::MultiOp => "multi_op",
            Agent::MultiOpChallenger => "multi_op_challenger",
            Agent::MultiOpRegenerate => "multi_op_regenerate",
            Agent::BaselineDp => "baseline_dp",
            Agent::BaselineSpec => "baseline_spec",
            Agent::MrGenerator => "mr_generator",
            Agent::MrRefiner => "mr_refiner",
        }
    }

    /// The phase its calls and events are filed under (source analysis, oracle
    /// generation, a baseline's own, metamorphic).
    pub fn phase(self) -> &'static str {
        match self {
            Agent::Discovery | Agent::Extraction | Agent::Semantic => "source_analysis",
            Agent::BaselineDp => "baseline_dp",
            Agent::BaselineSpec => "baseline_spec",
            Agent::MrGenerator | Agent::MrRefiner => "metamorphic",
            _ => "oracle_generation",
        }
    }

    /// The cost phase of the paper's Tables 12–13 (`Ph-A`, `Ph-B-SO`, `Ph-B-MO`,
    /// `Ph-B-R`); agents outside the pipeline are their own phase.
    pub fn paper_phase(self) -> &'static str {
        match self {
            Agent::Discovery | Agent::Extraction => "Ph-A",
            Agent::SingleOp | Agent::SingleOpRegenerate => "Ph-B-SO",
            Agent::Semantic | Agent::MultiOp | Agent::MultiOpRegenerate => "Ph-B-MO",
            Agent::SingleOpChallenger | Agent::MultiOpChallenger => "Ph-B-R",
            other => other.name(),
        }
    }

    /// The configured model it calls: challengers on the challenger, ARMeta's layers on
    /// their own, everything else on the primary.
    pub fn role(self) -> Role {
        match self {
            Agent::SingleOpChallenger | Agent::MultiOpChallenger => Role::Challenger,
            Agent::MrGenerator => Role::Generator,
            Agent::MrRefiner => Role::Refiner,
            _ => Role::Primary,
        }
    }

    /// The agents that read this one's output directly (the pipeline's task graph).
    pub fn feeds(self) -> &'static [Agent] {
        match self {
            Agent::Discovery => &[Agent::Extraction],
            Agent::Extraction => &[Agent::Semantic, Agent::SingleOp],
            Agent::Semantic => &[Agent::MultiOp],
            Agent::SingleOp => &[Agent::SingleOpChallenger],
            Agent::SingleOpChallenger => &[Agent::SingleOpRegenerate],
            Agent::MultiOp => &[Agent::MultiOpChallenger],
            Agent::MultiOpChallenger => &[Agent::MultiOpRegenerate],
            _ => &[],
        }
    }

    /// This agent and every agent fed by it, directly or not: what a re-run "from this
    /// agent on" must ask the model again.
    pub fn downstream(self) -> BTreeSet<Agent> {
        let mut out = BTreeSet::from([self]);
        let mut todo = vec![self];
        while let Some(a) = todo.pop() {
            for next in a.feeds() {
                if out.insert(*next) {
                    todo.push(*next);
                }
            }
        }
        out
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Agent {
    type Err = String;

    /// By name; the error lists every name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Agent::ALL
            .into_iter()
            .find(|a| a.name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
                format!("unknown agent `{s}`; one of: {}", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_text_and_serde() {
        for a in Agent::ALL {
            assert_eq!(a.name().parse::<Agent>(), Ok(a));
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(json, format!("\"{}\"", a.name()));
        }
        assert!(
            "extractor"
                .parse::<Agent>()
                .unwrap_err()
                .contains("one of: discovery")
        );
    }

    #[test]
    fn every_agent_has_a_prompt() {
        for a in Agent::ALL {
            let found = crate::prompts::EMBEDDED.iter().any(|(n, _)| *n == a.name());
            assert!(found, "no prompt for {a}");
        }
    }

    #[test]
    fn roles_phases_and_the_task_graph() {
        assert_eq!(Agent::SingleOpChallenger.role(), Role::Challenger);
        assert_eq!(Agent::MrRefiner.role(), Role::Refiner);
        assert_eq!(Agent::Semantic.paper_phase(), "Ph-B-MO");
        assert_eq!(Agent::Discovery.downstream().len(), Agent::PIPELINE.len());
        assert_eq!(
            Agent::SingleOp.downstream(),
            BTreeSet::from([
                Agent::SingleOp,
                Agent::SingleOpChallenger,
                Agent::SingleOpRegenerate
            ])
        );
    }
}
