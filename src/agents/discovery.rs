//! Endpoint discovery (paper 4.3.2, OAS matching): the model says which spec operations
//! an entry file's bundle implements, choosing only from the spec's list. Its answer is
//! compared with the static pre-match; disagreements are recorded, not resolved silently:
//! where the static handler is a generic dispatcher and the code shows the model's more
//! specific method serving the operation (`source::evidence`), the model's answer wins
//! and the agents read that handler and its bundle; `conflicts/<op>.json` keeps both.

use crate::agents::error::AgentError;
use crate::agents::runtime::AgentCtx;
use crate::agents::schemas;
use crate::model::EntryRef;
use crate::project::{Override, Prepared};
use crate::source::bundle::Bundle;
use crate::source::evidence;
use crate::store::{HandlerConflict, HandlerSide};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One claimed match, as the model answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub op_id: String,
    #[serde(default)]
    pub class: String,
    #[serde(default)]
    pub method: String,
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub line: usize,
}

#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(default)]
    matches: Vec<Claim>,
}

/// How the model's claim relates to the static pre-match for one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// Same class and method.
    Agree,
    /// Both found a handler, but not the same one.
    Conflict,
    /// Only the model found it.
    ModelOnly,
}

/// One line of `discovery.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub entry_file: String,
    pub claim: Claim,
    pub agreement: Agreement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_entry: Option<EntryRef>,
}

/// Result of discovery over one bundle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DiscoveryRecord {
    pub entry_file: String,
    pub findings: Vec<Finding>,
    /// Claims refused because they name operations outside the spec list.
    pub refused: Vec<Claim>,
}

fn entry_bundle(project: &Prepared, entry_file: &str) -> Result<Arc<Bundle>, AgentError> {
    project
        .entry_bundles()
        .get(entry_file)
        .cloned()
        .ok_or_else(|| AgentError::Missing(format!("no bundle for entry file {entry_file}")))
}

/// The discovery prompt's variables for `entry_file`; a run plan renders the same ones.
pub fn prompt_vars(
    project: &Prepared,
    entry_file: &str,
) -> Result<Vec<crate::agents::generation::Var>, AgentError> {
    let bundle = entry_bundle(project, entry_file)?;
    // The entry file whole, the other files as their declarations (see there why).
    let view = crate::source::declarations::declarations_view(&bundle.text, entry_file);
    Ok(vec![
        ("operations", project.operation_list()),
        ("entry_file", entry_file.to_string()),
        ("bundle", view),
    ])
}

/// Runs discovery over `entry_file`'s bundle; returns the op_ids it claims.
pub async fn run(ctx: &AgentCtx, entry_file: &str) -> Result<Vec<String>, AgentError> {
    let bundle = entry_bundle(&ctx.project, entry_file)?;
    let vars = prompt_vars(&ctx.project, entry_file)?;
    let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let answer = ctx
        .call::<Answer>(
            crate::agents::Agent::Discovery,
            None,
            &refs,
            Some(schemas::for_discovery(&ctx.project.selected).noted(
                ctx,
                crate::agents::Agent::Discovery,
                None,
            )),
        )
        .await?;
    let mut record = DiscoveryRecord {
        entry_file: entry_file.to_string(),
        ..Default::default()
    };
    for claim in answer.value.matches {
        if !ctx.project.selected.contains(&claim.op_id) {
            record.refused.push(claim);
            continue;
        }
        let static_entry = ctx.project.scanned_entry(&claim.op_id).cloned();
        let agreement = match &static_entry {
            None => Agreement::ModelOnly,
            Some(e) if same_handler(e, &claim) => Agreement::Agree,
            Some(_) => Agreement::Conflict,
        };
        record.findings.push(Finding {
            entry_file: entry_file.to_string(),
            claim,
            agreement,
            static_entry,
        });
    }
    let conflicts: Vec<HandlerConflict> = record
        .findings
        .iter()
        .filter(|f| f.agreement == Agreement::Conflict)
        .filter_map(|f| settle(&ctx.project, &bundle, f))
        .collect();
    for c in conflicts {
        let project = Arc::clone(&ctx.project);
        ctx.write(move |s| {
            // Another bundle's answer already won: a losing claim does not replace it.
            if c.won == HandlerSide::Static && project.override_of(&c.op_id).is_some() {
                return Ok(());
            }
            s.write_conflict(&c)
        })
        .await?;
    }
    let rel = format!("discovery/{}.json", crate::store::op_slug(entry_file));
    let copy = record.clone();
    ctx.write(move |s| s.write_json(&rel, &copy)).await?;
    let mut board = ctx.board();
    for f in &record.findings {
        let entry = EntryRef {
            file: if f.claim.file.is_empty() {
                entry_file.to_string()
            } else {
                f.claim.file.clone()
            },
            class: f.claim.class.clone(),
            method: f.claim.method.clone(),
            line: f.claim.line,
        };
        board
            .discovered
            .entry(f.claim.op_id.clone())
            .or_insert((entry, entry_file.to_string()));
    }
    Ok(record.findings.into_iter().map(|f| f.claim.op_id).collect())
}

/// Decides a conflict between the static match and the model's claim by the evidence
/// rule of `source::evidence`: a reviewer's pick stands; else the claim wins when the
/// static handler is generic and the code shows the claimed method serving the
/// operation, and the handler and bundle follow it. Both answers are kept either way.
fn settle(project: &Prepared, read: &Bundle, f: &Finding) -> Option<HandlerConflict> {
    let op_id = &f.claim.op_id;
    let scanned = f.static_entry.as_ref()?;
    let weak = project.weak_reason(op_id);
    let shared_by = project.shared_by(scanned);
    let claimed = EntryRef {
        file: f.claim.file.clone(),
        class: f.claim.class.clone(),
        method: f.claim.method.clone(),
        line: f.claim.line,
    };
    let conflict = |discovered: EntryRef, won, why: String| HandlerConflict {
        op_id: op_id.clone(),
        static_entry: scanned.clone(),
        static_weak: weak.map(str::to_string),
        discovered,
        entry_file: f.entry_file.clone(),
        won,
        why,
    };
    if let Some(o) = project.override_of(op_id) {
        if o.side == HandlerSide::Discovered {
            // An earlier bundle's answer won; its conflict record stands.
            return None;
        }
        let why = format!(
            "the reviewer picked {}.{} ({}:{})",
            o.entry.class, o.entry.method, o.entry.file, o.entry.line
        );
        return Some(conflict(claimed, o.side, why));
    }
    let verdict = evidence::overrule(
        &project.analysis.files,
        &read.files,
        &evidence::StaticSide {
            entry: scanned,
            weak,
            shared_by,
        },
        &evidence::ClaimSide {
            file: &f.claim.file,
            class: &f.claim.class,
            method: &f.claim.method,
        },
    );
    Some(match verdict {
        Ok((entry, why)) => {
            let (entry_file, bundle) = match project.entry_bundles().get(&entry.file) {
                Some(b) => (entry.file.clone(), Arc::clone(b)),
                None => (f.entry_file.clone(), Arc::new(read.clone())),
            };
            let o = Override {
                entry: entry.clone(),
                bundle,
                entry_file,
                side: HandlerSide::Discovered,
            };
            // A second bundle claiming the same operation does not overrule the first.
            if !project.set_override(op_id, o) {
                return None;
            }
            conflict(entry, HandlerSide::Discovered, why)
        }
        Err(why) => conflict(claimed, HandlerSide::Static, why),
    })
}

/// Class names compare by their last segment (`Outer.Inner` vs `Inner`, FQN vs simple).
fn same_handler(e: &EntryRef, c: &Claim) -> bool {
    let last = |s: &str| s.rsplit('.').next().unwrap_or(s).to_string();
    last(&e.class) == last(&c.class) && e.method == c.method
}
