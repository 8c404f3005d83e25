//! Prompt tokens per operation, by agent, as `mastor run --dry-run --json` estimates them
//! for a fixture (the run's own plan: the same prompt variables and templates the run
//! renders; what only an answer decides is the plan's stand-in). Printed beside the
//! figures recorded in `benches/data/agent_tokens_before.json`, the same estimate made
//! with the prompts before each agent was given only what it needs.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Estimated input tokens per operation, by agent, and the operations planned.
pub struct AgentTokens {
    pub operations: usize,
    pub per_op: BTreeMap<String, u64>,
}

impl AgentTokens {
    pub fn total(&self) -> u64 {
        self.per_op.values().sum()
    }
}

/// The plan of `mastor run <root> --dry-run` (spec `spec` if given), or why there is none.
pub fn plan(root: &Path, spec: Option<&Path>) -> Result<AgentTokens, String> {
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = home.path().join("session");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mastor"));
    cmd.arg("run")
        .arg(root)
        .arg("--out")
        .arg(&out)
        .args(["--dry-run", "--json"]);
    if let Some(spec) = spec {
        cmd.arg("--spec").arg(spec);
    }
    // The configured model never matters to the token estimate; a clean environment
    // keeps the developer's own config out of it.
    for var in [
        "MASTOR_CONFIG",
        "MASTOR_BASE_URL",
        "MASTOR_MODEL",
        "MASTOR_PROVIDER",
        "MASTOR_API_KEY",
    ] {
        cmd.env_remove(var);
    }
    let output = cmd
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        return Err(err.lines().last().unwrap_or("failed").to_string());
    }
    let plan: Value = serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    let operations = plan["operations"].as_array().map_or(0, Vec::len);
    let mut sums: BTreeMap<String, u64> = BTreeMap::new();
    for call in plan["calls"].as_array().into_iter().flatten() {
        let agent = call["agent"].as_str().unwrap_or("?").to_string();
        *sums.entry(agent).or_default() += call["input_tokens"].as_u64().unwrap_or(0);
    }
    let n = operations.max(1) as u64;
    Ok(AgentTokens {
        operations,
        per_op: sums.into_iter().map(|(a, t)| (a, t.div_ceil(n))).collect(),
    })
}

/// The recorded figures: fixture → agent → tokens per operation.
pub fn before(file: &Path) -> BTreeMap<String, BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let doc: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out = BTreeMap::new();
    for (fixture, agents) in doc["fixtures"].as_object().into_iter().flatten() {
        let agents = agents
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(a, n)| Some((a.clone(), n.as_u64()?)))
            .collect();
        out.insert(fixture.clone(), agents);
    }
    out
}

/// Prints one fixture's rows: every agent, then all agents together.
pub fn print(name: &str, now: &AgentTokens, before: Option<&BTreeMap<String, u64>>) {
    let mut agents: Vec<&String> = now.per_op.keys().collect();
    if let Some(b) = before {
        agents.extend(b.keys().filter(|a| !now.per_op.contains_key(*a)));
    }
    agents.sort();
    agents.dedup();
    let was = |a: &str| {
        before
            .and_then(|b| b.get(a))
            .map_or("-".to_string(), u64::to_string)
    };
    for agent in agents {
        let is = now
            .per_op
            .get(agent)
            .map_or("-".to_string(), u64::to_string);
        println!("{name:<24} {agent:<22} {:>8} {is:>8}", was(agent));
    }
    let total_before = before.map_or("-".to_string(), |b| b.values().sum::<u64>().to_string());
    println!(
        "{name:<24} {:<22} {total_before:>8} {:>8}   ({} operations)",
        "all agents",
        now.total(),
        now.operations
    );
}
