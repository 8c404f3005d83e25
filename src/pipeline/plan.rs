//! The plan of a run, made before anything is sent: the calls the pipeline would make,
//! what each would carry (files and lines, after redaction), estimated tokens, the cost
//! with and without prefix caching, and the files no call would carry. `mastor run
//! --dry-run` prints it; a run over its token or cost budget shows it first.
//!
//! A company pointing mastor at its own source needs to know what leaves the machine
//! before it does, so the plan renders the prompts the run would render: the same prompt
//! variables (the agents' own functions), the same bundles (the configured bundle mode)
//! and the same templates. What only an earlier answer decides (a context, a suite, the
//! groups) is stood in for by an estimate, and each call names its estimated parts.

use crate::agents::Agent;
use crate::agents::generation::{Target, Var};
use crate::agents::single_op::OpTarget;
use crate::llm::{LlmConfig, Role, Usage};
use crate::model::SourceContext;
use crate::pipeline::discovery_mode::DiscoveryDecision;
use crate::pipeline::orchestrator::PipelineOptions;
use crate::pipeline::plan_files::{never_sent, resource_of, sent_files};
use crate::project::Prepared;
use crate::prompts::Prompts;
use serde::Serialize;
use std::collections::BTreeMap;

/// Tokens a model answers per call of `agent`: about what a strong model answered per
/// call over a 10-operation API (186,000 output tokens in all, most of them oracles).
pub fn answer_tokens(agent: Agent) -> u64 {
    match agent {
        Agent::Discovery => 400,
        Agent::Extraction | Agent::Semantic => 1_500,
        Agent::SingleOp => 5_000,
        Agent::SingleOpChallenger => 1_200,
        Agent::SingleOpRegenerate => 3_000,
        Agent::MultiOp => 4_000,
        Agent::MultiOpChallenger => 1_000,
        Agent::MultiOpRegenerate => 2_500,
        _ => 2_000,
    }
}

/// Tokens a prefix cache serves at a time: a shared prefix counts in whole blocks.
const CACHE_BLOCK: u64 = 64;
/// Tokens of one operation's compressed context in the grouping prompt.
const GROUPING_TOKENS_PER_OP: u64 = 300;
/// Tokens of the cited lines a challenger, a revision or a group's generator reads.
const CITED_TOKENS: u64 = 400;

/// What the plan is made from.
pub struct PlanInput<'a> {
    pub project: &'a Prepared,
    pub prompts: &'a Prompts,
    pub options: PipelineOptions,
    /// Whether discovery runs, and why (`options.discovery` is its `ran`).
    pub discovery: DiscoveryDecision,
    pub config: &'a LlmConfig,
    /// The run's cap on answer tokens, if any (it also caps the estimates).
    pub max_tokens: Option<u32>,
    /// The bundle mode in force (`closure`, `slice`).
    pub bundle_mode: String,
    /// Operations whose reviewer-edited context the run uses instead of extracting.
    pub edited_contexts: std::collections::BTreeSet<String>,
}

/// Lines of one file that a call would carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SentFile {
    pub file: String,
    /// Line ranges, `1-40, 52-60`; `seed records` for seed data files.
    pub lines: String,
    /// Secrets in those lines replaced before sending.
    pub redactions: usize,
}

/// One model call the run would make.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedCall {
    pub agent: Agent,
    /// The operation, group or entry file the call is about.
    pub target: String,
    pub role: Role,
    pub sends: Vec<SentFile>,
    /// Estimated input tokens, estimated parts included.
    pub input_tokens: u64,
    /// Of those, the leading tokens byte-identical to an earlier call's on the same model:
    /// what a provider's prefix cache serves (an operation's bundle after its extraction,
    /// an agent's instructions after its first call).
    pub prefix_tokens: u64,
    pub output_tokens: u64,
    /// Parts of the prompt only an earlier answer decides, with their estimated size.
    pub estimated: Vec<String>,
}

/// A project file no call would carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotSent {
    pub file: String,
    pub reason: String,
}

/// An estimated cost in USD.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct PlanCost {
    pub without_cache: f64,
    pub with_cache: f64,
}

/// The whole plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub bundle_mode: String,
    /// `provider model` per role the plan calls.
    pub models: BTreeMap<String, String>,
    /// Operations the run would work on, with their handler.
    pub operations: Vec<(String, String)>,
    /// Selected operations with no handler: planned without calls of their own.
    pub unmatched: Vec<(String, String)>,
    /// Agents per operation, in order.
    pub agents_per_operation: Vec<Agent>,
    /// Whether discovery (one call per entry file) is planned, and why.
    pub discovery: DiscoveryDecision,
    pub calls: Vec<PlannedCall>,
    pub never_sent: Vec<NotSent>,
    pub input_tokens: u64,
    pub prefix_tokens: u64,
    pub output_tokens: u64,
    pub cost: PlanCost,
    /// What the estimates assume.
    pub assumptions: Vec<String>,
}

impl Plan {
    /// Input and output tokens together.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

/// Makes the plan. Nothing is sent and nothing is written.
pub fn build(input: &PlanInput) -> Result<Plan, String> {
    let project = input.project;
    let options = input.options;
    let mut b = Builder {
        input,
        calls: Vec::new(),
        requests: Vec::new(),
    };
    if options.discovery {
        for entry_file in project.entry_bundles().keys() {
            let vars = crate::agents::discovery::prompt_vars(project, entry_file)?;
            b.add(Agent::Discovery, entry_file, vars, Vec::new())?;
        }
    }
    let mut operations = Vec::new();
    let mut unmatched = Vec::new();
    for op in &project.selected {
        match project.static_entry(op) {
            Some(e) if project.bundle_for(op, None).is_some() => {
                let handler = format!("{}.{} ({}:{})", e.class, e.method, e.file, e.line);
                operations.push((op.clone(), handler));
            }
            _ => {
                let why = project.weak_reason(op).map_or_else(
                    || {
                        if options.discovery {
                            "no handler found by the scan; if discovery finds one, its entry \
                             file's bundle is sent as for the others"
                                .to_string()
                        } else {
                            "no handler found by the scan (discovery is off)".to_string()
                        }
                    },
                    str::to_string,
                );
                unmatched.push((op.clone(), why));
            }
        }
    }
    let mut agents = vec![Agent::Extraction, Agent::SingleOp];
    if options.challenger {
        agents.extend([Agent::SingleOpChallenger, Agent::SingleOpRegenerate]);
    }
    for (op, _) in &operations {
        b.operation(op)?;
    }
    if options.multi_op && operations.len() >= 2 {
        b.multi_op(&operations)?;
    }
    let calls = b.calls;
    let never_sent = never_sent(project, &calls, &input.bundle_mode);
    let mut plan = Plan {
        bundle_mode: input.bundle_mode.clone(),
        models: models(input.config, &calls),
        operations,
        unmatched,
        agents_per_operation: agents,
        discovery: input.discovery.clone(),
        input_tokens: calls.iter().map(|c| c.input_tokens).sum(),
        prefix_tokens: calls.iter().map(|c| c.prefix_tokens).sum(),
        output_tokens: calls.iter().map(|c| c.output_tokens).sum(),
        cost: PlanCost::default(),
        calls,
        never_sent,
        assumptions: assumptions(options),
    };
    plan.cost = cost(&plan, input.config);
    Ok(plan)
}

/// The plan's cost under the configured prices: every call's input at the cache-miss
/// price, and with its shared prefix at the cache-hit price. Local servers cost nothing.
pub fn cost(plan: &Plan, config: &LlmConfig) -> PlanCost {
    let mut out = PlanCost::default();
    for c in &plan.calls {
        let role = config.role(c.role);
        let mut usage = Usage {
            prompt_tokens: c.input_tokens,
            completion_tokens: c.output_tokens,
            cached_tokens: 0,
        };
        out.without_cache += config.prices.cost(role.provider, &role.model, &usage);
        usage.cached_tokens = c.prefix_tokens;
        out.with_cache += config.prices.cost(role.provider, &role.model, &usage);
    }
    out
}

fn models(config: &LlmConfig, calls: &[PlannedCall]) -> BTreeMap<String, String> {
    let mut roles: Vec<Role> = Vec::new();
    for c in calls {
        if !roles.contains(&c.role) {
            roles.push(c.role);
        }
    }
    roles
        .into_iter()
        .map(|r| {
            let c = config.role(r);
            (
                role_name(r).to_string(),
                format!("{} {}", c.provider, c.model),
            )
        })
        .collect()
}

/// The role's name as the configuration spells it.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::Primary => "primary",
        Role::Challenger => "challenger",
        Role::Generator => "generator",
        Role::Refiner => "refiner",
    }
}

fn assumptions(options: PipelineOptions) -> Vec<String> {
    let mut out = vec![
        "tokens are estimated from text length (3 characters a token), answers from a strong \
         model's per-call averages"
            .to_string(),
        "a shared prefix is billed at the cache-hit price only when the provider caches \
         prefixes and the earlier call's entry is still cached; it counts in whole blocks of \
         64 tokens"
            .to_string(),
    ];
    if options.challenger {
        out.push(
            "every challenger is assumed to flag something, so each review is followed by one \
             regeneration (the most the run makes)"
                .into(),
        );
    }
    if options.multi_op {
        out.push(
            "groups are the grouping agent's answer; the plan assumes one group per resource \
             (first path segment) with two or more operations"
                .into(),
        );
    }
    out
}

struct Builder<'a> {
    input: &'a PlanInput<'a>,
    calls: Vec<PlannedCall>,
    /// Each call's messages (system, then user), for the shared prefix of later calls.
    requests: Vec<String>,
}

impl Builder<'_> {
    /// The calls of one operation, as `single_op` and `generation` make them.
    fn operation(&mut self, op: &str) -> Result<(), String> {
        let project = self.input.project;
        if !self.input.edited_contexts.contains(op) {
            let vars = crate::agents::extraction::prompt_vars(project, op, None)?;
            self.add(Agent::Extraction, op, vars, Vec::new())?;
        }
        let stand_in = SourceContext {
            op_id: op.to_string(),
            ..SourceContext::default()
        };
        let target = OpTarget::new(project, op, stand_in, None)?;
        let context = estimate(
            "the verified source context",
            answer_tokens(Agent::Extraction),
        );
        let mut vars = target.vars();
        vars.extend(target.generate_vars());
        self.add(Agent::SingleOp, op, vars, vec![context.clone()])?;
        if !self.input.options.challenger {
            return Ok(());
        }
        let mut vars = target.review_vars(&[]);
        vars.extend([("oracles", String::new()), ("mutation", String::new())]);
        let suite = estimate("the oracle suite", answer_tokens(Agent::SingleOp));
        let cited = estimate("the lines the context and the suite cite", CITED_TOKENS);
        self.add(
            Agent::SingleOpChallenger,
            op,
            vars,
            vec![context.clone(), suite, cited],
        )?;
        let mut vars = target.revise_vars(&[]);
        vars.extend([
            ("flagged", String::new()),
            ("existing", String::new()),
            ("hints", String::new()),
        ]);
        let flagged = estimate(
            "the flagged oracles and the hints",
            answer_tokens(Agent::SingleOpRegenerate) / 2 + answer_tokens(Agent::SingleOpChallenger),
        );
        let cited = estimate(
            "the lines the context and the flagged oracles cite",
            CITED_TOKENS,
        );
        self.add(
            Agent::SingleOpRegenerate,
            op,
            vars,
            vec![context, flagged, cited],
        )
    }

    /// The grouping call and, per assumed group, the multi-op calls.
    fn multi_op(&mut self, operations: &[(String, String)]) -> Result<(), String> {
        let n = operations.len() as u64;
        let contexts = estimate(
            "every operation's compressed context",
            n * GROUPING_TOKENS_PER_OP,
        );
        self.add(
            Agent::Semantic,
            "all operations",
            vec![("contexts", String::new())],
            vec![contexts],
        )?;
        let mut by_resource: BTreeMap<String, Vec<(String, Option<String>)>> = BTreeMap::new();
        for (op, _) in operations {
            by_resource
                .entry(resource_of(op))
                .or_default()
                .push((op.clone(), None));
        }
        for (resource, ops) in by_resource.into_iter().filter(|(_, o)| o.len() >= 2) {
            let group = format!("{resource} (assumed)");
            let (_, _, seed) = crate::agents::multi_op::group_source(self.input.project, &ops);
            // A group's agents read the contexts and the lines they cite, not the bundle.
            let common = || -> Vec<Var> {
                vec![
                    ("group_id", group.clone()),
                    ("contexts", String::new()),
                    ("seed_data", seed.clone()),
                    ("cited", String::new()),
                ]
            };
            let contexts = estimate(
                "the group's verified contexts",
                ops.len() as u64 * answer_tokens(Agent::Extraction),
            );
            let mut vars = common();
            vars.extend([("pattern", String::new()), ("sequence", String::new())]);
            let cited = estimate("the lines the contexts cite", CITED_TOKENS);
            self.add(
                Agent::MultiOp,
                &group,
                vars,
                vec![contexts.clone(), cited.clone()],
            )?;
            if !self.input.options.challenger {
                continue;
            }
            let mut vars = common();
            vars.push(("oracles", String::new()));
            let oracles = estimate("the group's oracles", answer_tokens(Agent::MultiOp));
            let cited = estimate("the lines the contexts and the oracles cite", CITED_TOKENS);
            self.add(
                Agent::MultiOpChallenger,
                &group,
                vars,
                vec![contexts.clone(), oracles, cited],
            )?;
            let mut vars = common();
            vars.extend([
                ("flagged", String::new()),
                ("existing", String::new()),
                ("hints", String::new()),
            ]);
            let flagged = estimate(
                "the flagged oracles and the hints",
                answer_tokens(Agent::MultiOpRegenerate) / 2
                    + answer_tokens(Agent::MultiOpChallenger),
            );
            let cited = estimate(
                "the lines the contexts and the flagged oracles cite",
                CITED_TOKENS,
            );
            self.add(
                Agent::MultiOpRegenerate,
                &group,
                vars,
                vec![contexts, flagged, cited],
            )?;
        }
        Ok(())
    }

    /// Renders `agent`'s prompt with `vars` as the run would and adds the call.
    fn add(
        &mut self,
        agent: Agent,
        target: &str,
        mut vars: Vec<Var>,
        estimated: Vec<(String, u64)>,
    ) -> Result<(), String> {
        if let Some(budget) = crate::agents::runtime::output_budget(self.input.max_tokens) {
            vars.push(("output_budget", budget));
        }
        let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let rendered = self
            .input
            .prompts
            .render(agent.name(), &refs)
            .map_err(|e| e.to_string())?;
        let known = crate::agents::fit::estimate_prompt(&[&rendered.system, &rendered.user]);
        let role = agent.role();
        let model = self.input.config.role(role);
        // What a cache can serve is the longest prefix the request (system message, then
        // user message) shares with an earlier call's on the same model (the bytes after
        // it differ, so nothing later counts). A cache is keyed by the bytes, not by the
        // operation: an agent's instructions, the same for every operation, are served
        // after its first call when they come first.
        let request = format!("{}\n{}", rendered.system, rendered.user);
        let shared = self
            .calls
            .iter()
            .zip(&self.requests)
            .filter(|(c, _)| {
                let m = self.input.config.role(c.role);
                m.model == model.model && m.base_url == model.base_url
            })
            .map(|(_, s)| common_prefix(s, &request))
            .max()
            .unwrap_or(0);
        // Caches serve whole blocks (DeepSeek's unit is 64 tokens): a few shared words
        // ("You are ") are no prefix a cache serves.
        let prefix = if shared == 0 {
            0
        } else {
            let tokens = crate::agents::fit::estimate_tokens(&request[..shared]) as u64;
            tokens / CACHE_BLOCK * CACHE_BLOCK
        };
        let mut output = answer_tokens(agent);
        if let Some(m) = self.input.max_tokens {
            output = output.min(u64::from(m));
        }
        self.calls.push(PlannedCall {
            agent,
            target: target.to_string(),
            role,
            sends: sent_files(self.input.project, &request),
            input_tokens: known as u64 + estimated.iter().map(|(_, n)| n).sum::<u64>(),
            prefix_tokens: prefix,
            output_tokens: output,
            estimated: estimated
                .iter()
                .map(|(what, n)| format!("{what} (about {n} tokens)"))
                .collect(),
        });
        self.requests.push(request);
        Ok(())
    }
}

/// Bytes `a` and `b` share from their start, at a character boundary.
pub fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or_else(|| a.len().min(b.len()), |((i, _), _)| i)
}

fn estimate(what: &str, tokens: u64) -> (String, u64) {
    (what.to_string(), tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_prefix_ends_at_the_first_difference_on_a_character_boundary() {
        assert_eq!(common_prefix("abcé1", "abcé2"), 5);
        assert_eq!(common_prefix("ab", "abc"), 2);
        assert_eq!(common_prefix("é", "è"), 0);
        assert_eq!(common_prefix("", "x"), 0);
    }

    #[test]
    fn answers_are_estimated_for_every_pipeline_agent() {
        for a in Agent::PIPELINE {
            assert!(answer_tokens(a) > 0, "{a}");
        }
        assert!(answer_tokens(Agent::SingleOp) > answer_tokens(Agent::SingleOpChallenger));
    }
}
