use super::*;
use std::collections::VecDeque;

/// Runs the machine to completion, answering each task with `answer`; returns every task
/// in the order it was issued.
fn simulate(orch: &mut Orchestrator, answer: impl Fn(&Task) -> Event) -> Vec<Task> {
    let mut queue: VecDeque<Task> = orch.start().into();
    let mut seen = Vec::new();
    while let Some(task) = queue.pop_front() {
        seen.push(task.clone());
        assert!(seen.len() < 1000, "orchestrator does not terminate");
        queue.extend(orch.handle(answer(&task)));
    }
    seen
}

fn ok(task: &Task) -> Event {
    let outcome = match task {
        Task::Discover { .. } => Outcome::Discovered {
            op_ids: vec!["GET /b".into(), "GET /c".into()],
        },
        Task::Group => Outcome::Grouped {
            group_ids: vec!["g1".into()],
        },
        Task::SingleOp { .. } | Task::MultiOp { .. } => Outcome::Generated { kept: 3 },
        Task::SingleChallenge { op_id } => Outcome::Reviewed {
            hints: usize::from(op_id == "GET /a"),
        },
        Task::MultiChallenge { .. } => Outcome::Reviewed { hints: 1 },
        _ => Outcome::Done,
    };
    Event::Succeeded {
        task: task.clone(),
        outcome,
    }
}

fn ops() -> Vec<String> {
    ["GET /a", "GET /b", "GET /c", "GET /d"]
        .map(String::from)
        .to_vec()
}

fn count(tasks: &[Task], agent: &str) -> usize {
    tasks.iter().filter(|t| t.agent().name() == agent).count()
}

fn orch(options: PipelineOptions) -> Orchestrator {
    Orchestrator::new(
        options,
        ops(),
        ["GET /a".to_string(), "GET /b".to_string()],
        ["A.java".to_string()],
    )
}

#[test]
fn full_run_visits_every_agent_in_order() {
    let mut o = orch(PipelineOptions::default());
    let tasks = simulate(&mut o, ok);
    assert_eq!(
        tasks[0],
        Task::Discover {
            entry_file: "A.java".into()
        }
    );
    // a, b static; b, c discovered; d neither.
    assert_eq!(count(&tasks, "extraction"), 3);
    assert_eq!(o.ops["GET /d"], OpState::Unmatched);
    assert_eq!(count(&tasks, "single_op"), 3);
    assert_eq!(count(&tasks, "single_op_challenger"), 3);
    // only the operation with hints is regenerated
    assert_eq!(
        tasks
            .iter()
            .filter(|t| matches!(t, Task::SingleRegen { .. }))
            .collect::<Vec<_>>(),
        vec![&Task::SingleRegen {
            op_id: "GET /a".into()
        }]
    );
    assert_eq!(count(&tasks, "semantic"), 1);
    assert_eq!(count(&tasks, "multi_op"), 1);
    assert_eq!(count(&tasks, "multi_op_challenger"), 1);
    assert_eq!(count(&tasks, "multi_op_regenerate"), 1);
    // grouping only after the last extraction
    let group_at = tasks.iter().position(|t| *t == Task::Group).unwrap();
    let last_extract = tasks
        .iter()
        .rposition(|t| matches!(t, Task::Extract { .. }))
        .unwrap();
    assert!(group_at > last_extract);
    assert!(o.is_finished());
    assert_eq!(o.ops["GET /a"], OpState::Done);
}

#[test]
fn ablations_change_the_call_counts() {
    let no_ch = PipelineOptions {
        challenger: false,
        ..Default::default()
    };
    let tasks = simulate(&mut orch(no_ch), ok);
    assert_eq!(count(&tasks, "single_op_challenger"), 0);
    assert_eq!(count(&tasks, "multi_op_challenger"), 0);
    assert_eq!(count(&tasks, "single_op_regenerate"), 0);
    assert_eq!(count(&tasks, "multi_op"), 1);

    let no_multi = PipelineOptions {
        multi_op: false,
        ..Default::default()
    };
    let tasks = simulate(&mut orch(no_multi), ok);
    assert_eq!(count(&tasks, "semantic"), 0);
    assert_eq!(count(&tasks, "multi_op"), 0);
    assert_eq!(count(&tasks, "single_op"), 3);

    let no_disc = PipelineOptions {
        discovery: false,
        ..Default::default()
    };
    let mut o = orch(no_disc);
    let tasks = simulate(&mut o, ok);
    assert_eq!(count(&tasks, "discovery"), 0);
    // without discovery only the static matches are extracted
    assert_eq!(count(&tasks, "extraction"), 2);
    assert_eq!(o.ops["GET /c"], OpState::Unmatched);
}

#[test]
fn one_failing_operation_does_not_stop_the_others() {
    let mut o = orch(PipelineOptions::default());
    let tasks = simulate(&mut o, |t| match t {
        Task::Extract { op_id } if op_id == "GET /b" => Event::Failed {
            task: t.clone(),
            reason: "model returned garbage twice".into(),
        },
        _ => ok(t),
    });
    assert_eq!(
        o.ops["GET /b"],
        OpState::Failed {
            agent: "extraction".into(),
            reason: "model returned garbage twice".into()
        }
    );
    assert_eq!(o.ops["GET /a"], OpState::Done);
    assert_eq!(o.ops["GET /c"], OpState::Done);
    assert!(!tasks.contains(&Task::SingleOp {
        op_id: "GET /b".into()
    }));
    assert!(o.is_finished());
}

#[test]
fn failed_review_keeps_the_generated_oracles() {
    let mut o = orch(PipelineOptions::default());
    simulate(&mut o, |t| match t {
        Task::SingleChallenge { .. } | Task::Group => Event::Failed {
            task: t.clone(),
            reason: "HTTP 500 after 3 attempts".into(),
        },
        _ => ok(t),
    });
    assert!(o.ops.values().filter(|s| **s == OpState::Done).count() == 3);
    assert!(o.notes.iter().any(|n| n.contains("grouping failed")));
    assert!(o.notes.iter().any(|n| n.contains("single_op_challenger")));
    assert!(o.groups.is_empty());
    assert!(o.is_finished());
}

#[test]
fn failed_discovery_falls_back_to_the_static_matches() {
    let mut o = orch(PipelineOptions::default());
    let tasks = simulate(&mut o, |t| match t {
        Task::Discover { .. } => Event::Failed {
            task: t.clone(),
            reason: "timeout".into(),
        },
        _ => ok(t),
    });
    assert_eq!(count(&tasks, "extraction"), 2);
    assert!(o.notes[0].contains("discovery failed for A.java"));
}

#[test]
fn no_oracles_kept_means_no_review() {
    let mut o = orch(PipelineOptions::default());
    let tasks = simulate(&mut o, |t| match t {
        Task::SingleOp { .. } => Event::Succeeded {
            task: t.clone(),
            outcome: Outcome::Generated { kept: 0 },
        },
        _ => ok(t),
    });
    assert_eq!(count(&tasks, "single_op_challenger"), 0);
    assert!(o.is_finished());
}

#[test]
fn a_single_operation_skips_grouping() {
    let mut o = Orchestrator::new(
        PipelineOptions::default(),
        vec!["GET /a".to_string()],
        vec!["GET /a".to_string()],
        Vec::<String>::new(),
    );
    let tasks = simulate(&mut o, ok);
    assert_eq!(count(&tasks, "semantic"), 0);
    assert!(o.notes.iter().any(|n| n.contains("fewer than two")));
    assert!(o.is_finished());
}

#[test]
fn downstream_follows_the_task_graph() {
    let set = |a: &str| {
        let mut names: Vec<&str> = downstream_of(a)
            .unwrap()
            .into_iter()
            .map(|a| a.name())
            .collect();
        names.sort();
        names
    };
    assert_eq!(set("discovery").len(), AGENTS.len());
    assert_eq!(
        set("single_op"),
        vec!["single_op", "single_op_challenger", "single_op_regenerate"]
    );
    assert_eq!(
        set("semantic"),
        vec![
            "multi_op",
            "multi_op_challenger",
            "multi_op_regenerate",
            "semantic"
        ]
    );
    assert_eq!(set("single_op_regenerate"), vec!["single_op_regenerate"]);
    assert!(!set("extraction").contains(&"discovery"));
    let err = downstream_of("extractor").unwrap_err();
    assert!(
        err.contains("extractor") && err.contains("single_op_challenger"),
        "{err}"
    );
    // Every listed agent is the agent of some task, so the names cannot drift apart.
    let tasks = [
        Task::Discover {
            entry_file: String::new(),
        },
        Task::Extract {
            op_id: String::new(),
        },
        Task::Group,
        Task::SingleOp {
            op_id: String::new(),
        },
        Task::SingleChallenge {
            op_id: String::new(),
        },
        Task::SingleRegen {
            op_id: String::new(),
        },
        Task::MultiOp {
            group_id: String::new(),
        },
        Task::MultiChallenge {
            group_id: String::new(),
        },
        Task::MultiRegen {
            group_id: String::new(),
        },
    ];
    let names: Vec<crate::agents::Agent> = tasks.iter().map(Task::agent).collect();
    assert_eq!(names, AGENTS.to_vec());
}
