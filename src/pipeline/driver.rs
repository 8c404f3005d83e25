//! The driver: carries out the orchestrator's tasks as concurrent tokio tasks and feeds
//! their outcomes back. The model client's semaphore bounds calls in flight; the driver
//! itself starts every task as soon as the orchestrator allows it.
//!
//! After every transition the orchestrator's state is written to `state.json`, so a
//! reviewer (or the TUI) sees where each operation stands, and failures keep their reason.

use crate::agents::multi_op::GroupTarget;
use crate::agents::runtime::AgentCtx;
use crate::agents::single_op::OpTarget;
use crate::agents::{discovery, extraction, generation, semantic};
use crate::pipeline::discovery_mode::DiscoveryDecision;
use crate::pipeline::orchestrator::{Event, Orchestrator, Outcome, PipelineOptions, Task};
use crate::store::{Event as StoreEvent, EventKind};
use std::time::Instant;
use tokio::task::JoinSet;

/// File in the session holding the orchestrator's last state.
pub const STATE_FILE: &str = "state.json";

/// Runs the whole pipeline over the prepared project; returns the final state.
/// `discovery`: what was decided about discovery (`options.discovery` follows it), kept in
/// the state for the summary.
pub async fn run(
    ctx: AgentCtx,
    options: PipelineOptions,
    discovery: Option<DiscoveryDecision>,
) -> Orchestrator {
    let project = &ctx.project;
    let entry_files: Vec<String> = project.entry_bundles().keys().cloned().collect();
    let mut orch = Orchestrator::new(
        options,
        project.selected.clone(),
        project.static_matched(),
        entry_files,
    );
    orch.discovery = discovery;
    // The run's own start and end, for its wall-clock time (`pipeline::phases`).
    let started = chrono::Utc::now();
    record_run(&ctx, started, None);
    let mut running = JoinSet::new();
    for task in orch.start() {
        spawn(&mut running, &ctx, task);
    }
    save_state(&ctx, &orch);
    while let Some(joined) = running.join_next().await {
        // Every task that has finished by now is handled before the state is written
        // once: an atomic write costs an fsync, and writing after each of many tasks
        // finishing together would make the loop, not the model, the bottleneck.
        let mut batch = vec![joined];
        while let Some(more) = running.try_join_next() {
            batch.push(more);
        }
        for joined in batch {
            let event = match joined {
                Ok(event) => event,
                Err(e) => {
                    // A panicking agent is a bug; the run goes on without its task.
                    tracing::error!("agent task panicked: {e}");
                    continue;
                }
            };
            for task in orch.handle(event) {
                spawn(&mut running, &ctx, task);
            }
        }
        save_state(&ctx, &orch);
    }
    // Finished is not completed: an operation left with nothing is failed, with why.
    crate::pipeline::completion::fail_hollow_ops(&ctx, &mut orch);
    save_state(&ctx, &orch);
    for note in &orch.notes {
        ctx.emit(StoreEvent::new(EventKind::Note, "orchestrator").message(note.clone()));
    }
    record_run(&ctx, started, Some(chrono::Utc::now()));
    orch
}

/// Records the run's start (and, once done, its end) in the manifest.
fn record_run(
    ctx: &AgentCtx,
    started: chrono::DateTime<chrono::Utc>,
    finished: Option<chrono::DateTime<chrono::Utc>>,
) {
    use crate::store::{PhaseState, PhaseStatus};
    let state = PhaseState {
        status: if finished.is_some() {
            PhaseStatus::Done
        } else {
            PhaseStatus::Running
        },
        started_at: Some(started),
        finished_at: finished,
        message: None,
    };
    if let Err(e) = ctx
        .session
        .set_phase(crate::pipeline::phases::RUN_PHASE, state)
    {
        tracing::warn!("cannot record the run's times: {e}");
    }
}

fn spawn(set: &mut JoinSet<Event>, ctx: &AgentCtx, task: Task) {
    let ctx = ctx.clone();
    set.spawn(async move {
        let started = Instant::now();
        ctx.emit(with_op(
            StoreEvent::new(EventKind::AgentStarted, task.agent().name()).phase(task.phase()),
            &task,
        ));
        let result = execute(&ctx, &task).await;
        let wall_ms = started.elapsed().as_millis() as u64;
        match result {
            Ok(outcome) => {
                ctx.emit(with_op(
                    StoreEvent::new(EventKind::AgentFinished, task.agent().name())
                        .phase(task.phase())
                        .wall_ms(wall_ms),
                    &task,
                ));
                Event::Succeeded { task, outcome }
            }
            Err(reason) => {
                ctx.emit(with_op(
                    StoreEvent::new(EventKind::AgentFailed, task.agent().name())
                        .phase(task.phase())
                        .wall_ms(wall_ms)
                        .message(reason.clone()),
                    &task,
                ));
                Event::Failed { task, reason }
            }
        }
    });
}

/// Labels an event with the task's operation or group.
fn with_op(event: StoreEvent, task: &Task) -> StoreEvent {
    match task {
        Task::Extract { op_id }
        | Task::SingleOp { op_id }
        | Task::SingleChallenge { op_id }
        | Task::SingleRegen { op_id } => event.op(op_id.clone()),
        Task::MultiOp { group_id }
        | Task::MultiChallenge { group_id }
        | Task::MultiRegen { group_id } => event.op(format!("group:{group_id}")),
        Task::Discover { entry_file } => event.message(format!("bundle {entry_file}")),
        Task::Group => event,
    }
}

async fn execute(ctx: &AgentCtx, task: &Task) -> Result<Outcome, String> {
    Ok(match task {
        Task::Discover { entry_file } => Outcome::Discovered {
            op_ids: discovery::run(ctx, entry_file).await?,
        },
        Task::Extract { op_id } => {
            if !crate::pipeline::context_edits::use_edit(ctx, op_id)? {
                extraction::run(ctx, op_id).await?;
            }
            Outcome::Done
        }
        Task::Group => Outcome::Grouped {
            group_ids: semantic::run(ctx).await?,
        },
        Task::SingleOp { op_id } => Outcome::Generated {
            kept: generation::generate::<OpTarget>(ctx, op_id).await?,
        },
        Task::SingleChallenge { op_id } => Outcome::Reviewed {
            hints: generation::challenge::<OpTarget>(ctx, op_id).await?,
        },
        Task::SingleRegen { op_id } => {
            generation::regenerate::<OpTarget>(ctx, op_id).await?;
            Outcome::Done
        }
        Task::MultiOp { group_id } => Outcome::Generated {
            kept: generation::generate::<GroupTarget>(ctx, group_id).await?,
        },
        Task::MultiChallenge { group_id } => Outcome::Reviewed {
            hints: generation::challenge::<GroupTarget>(ctx, group_id).await?,
        },
        Task::MultiRegen { group_id } => {
            generation::regenerate::<GroupTarget>(ctx, group_id).await?;
            Outcome::Done
        }
    })
}

fn save_state(ctx: &AgentCtx, orch: &Orchestrator) {
    if let Err(e) = ctx.session.write_json(STATE_FILE, orch) {
        tracing::warn!("cannot write {STATE_FILE}: {e}");
    }
}
