//! Mutation benchmark with two workers.
//!
//! petstore-jdk: viable mutants per minute, and the overhead over the bare cost of one
//! mutant measured in the same process (one `javac` of the changed file, one JVM start
//! until the API answers, one suite run). Goal: at least 30 viable mutants per minute on
//! 2 cores, overhead at most 1.3x. `MUTATE_BENCH_N` sets the number of mutants (default
//! 30).
//!
//! shop-spring-run (Spring MVC 4.3, needs the Debian jars of scripts/setup.sh): the same
//! mutants twice, by the javac fast path (`--classpath`: the changed file against the
//! original classes and the jars) and by `--build` (a copy built by the fixture's
//! build.sh), viable mutants per minute of each. `MUTATE_BENCH_SPRING_N` sets the number
//! (default 12); `MUTATE_BENCH=petstore` or `spring` runs one part only.
//!
//! Run with `cargo bench --bench mutate` (needs a JDK).

use mastor::mutate::analysis::{self, Options};
use mastor::mutate::build::BuildOutcome;
use mastor::mutate::{Mutant, MutantOutcome, Operator};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn main() {
    let only = std::env::var("MUTATE_BENCH").unwrap_or_default();
    if only != "spring" {
        petstore();
    }
    if only != "petstore" {
        spring();
    }
}

fn petstore() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let project = root.join("tests/fixtures/petstore-jdk");
    let n: usize = std::env::var("MUTATE_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let out = tempfile::tempdir().expect("temp dir");
    let jobs = 2;
    let opts = Options {
        jobs,
        out: Some(out.path().join("results")),
        ..reference_options(
            &project,
            &["**/handlers/*.java", "**/store/*.java"],
            n,
            Duration::from_secs(30),
        )
    };
    let target = analysis::load_target(&opts).expect("reference suite and bundles");
    let (mutants, _) = analysis::list_mutants(&target, &opts).expect("mutants");
    let rt = tokio::runtime::Runtime::new().expect("runtime");

    // The bare cost of one mutant, measured with the same pieces, one after the other.
    let setup = analysis::setup(&target, &opts).expect("setup");
    let original = rt
        .block_on(setup.workspace.build_original())
        .expect("original builds");
    let (javac, start, suite) = rt.block_on(bare_cost(&setup, &original, &mutants));
    let bare = javac + start + suite;

    let quiet = |_: &Mutant, _: &MutantOutcome| {};
    let t = Instant::now();
    let report = rt
        .block_on(analysis::execute(&target, &opts, mutants, &quiet))
        .expect("analysis runs");
    let elapsed = t.elapsed();
    let baseline = Duration::from_millis(report.suite_ms * 2 + report.start_ms * 3);
    let t = &report.summary.total;
    let viable = t.mutants - t.unviable;
    let mutant_time = elapsed.saturating_sub(baseline);
    let per_minute = viable as f64 / mutant_time.as_secs_f64() * 60.0;
    let per_mutant_cpu = mutant_time.as_secs_f64() * jobs as f64 / t.mutants.max(1) as f64;
    println!(
        "petstore-jdk, reference suite ({} oracles), {jobs} workers",
        report.matrix.oracles.len()
    );
    println!(
        "bare cost of one mutant: javac {:.0} ms + start {:.0} ms + suite {:.0} ms = {:.0} ms",
        ms(javac),
        ms(start),
        ms(suite),
        ms(bare)
    );
    println!(
        "{} mutants ({} viable, {} unviable, {} timeout) in {:.1} s after a {:.1} s baseline",
        t.mutants,
        viable,
        t.unviable,
        t.timeout,
        mutant_time.as_secs_f64(),
        baseline.as_secs_f64()
    );
    println!("viable mutants per minute: {per_minute:.1} (goal >= 30)");
    println!(
        "worker time per mutant: {:.0} ms = {:.2}x the bare cost (goal <= 1.3x)",
        per_mutant_cpu * 1000.0,
        per_mutant_cpu / bare.as_secs_f64()
    );
    println!("mutation score: {:?}", t.score);
}

/// The Spring fixture's mutants by the fast path and by `--build`: viable mutants per
/// minute of each.
fn spring() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let project = root.join("tests/fixtures/shop-spring-run");
    let n: usize = std::env::var("MUTATE_BENCH_SPRING_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let tmp = tempfile::tempdir().expect("temp dir");
    let classpath = spring_classpath(&project, tmp.path());
    let base = reference_options(
        &project,
        &["**/service/*.java", "**/web/*Controller.java"],
        n,
        Duration::from_secs(60),
    );
    let fast = Options {
        classpath: Some(classpath),
        start: Some(
            "exec java --add-opens java.base/java.lang=ALL-UNNAMED -XX:TieredStopAtLevel=1 \
             -cp {classpath} shop.ShopApplication {port}"
                .into(),
        ),
        out: Some(tmp.path().join("fast")),
        ..base.clone()
    };
    let copy = Options {
        build: Some("bash {dir}/build.sh {dir}".into()),
        start: Some("exec bash {dir}/run.sh {dir} {port}".into()),
        out: Some(tmp.path().join("build")),
        ..base
    };
    println!("shop-spring-run, reference suite, 2 workers, {n} mutants");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    for (name, opts) in [
        ("javac fast path (--classpath)", fast),
        ("--build (a copy per mutant)", copy),
    ] {
        let target = analysis::load_target(&opts).expect("reference suite and bundles");
        let (mutants, _) = analysis::list_mutants(&target, &opts).expect("mutants");
        let quiet = |_: &Mutant, _: &MutantOutcome| {};
        let t = Instant::now();
        let report = rt
            .block_on(analysis::execute(&target, &opts, mutants, &quiet))
            .expect("analysis runs");
        let elapsed = t.elapsed();
        let baseline = Duration::from_millis(report.suite_ms * 2 + report.start_ms * 3);
        let t = &report.summary.total;
        let viable = t.mutants - t.unviable;
        let mutant_time = elapsed.saturating_sub(baseline);
        println!(
            "{name}: {} mutants ({viable} viable, {} timeout) in {:.1} s after a {:.1} s \
             baseline; viable mutants per minute: {:.1}; score {:?}",
            t.mutants,
            t.timeout,
            mutant_time.as_secs_f64(),
            baseline.as_secs_f64(),
            viable as f64 / mutant_time.as_secs_f64() * 60.0,
            t.score
        );
    }
}

/// The one-class CGLIB/ASM shim compiled into `dir` (see the fixture's README), then the
/// Debian jars of its jars.txt.
fn spring_classpath(project: &std::path::Path, dir: &std::path::Path) -> String {
    let jars: Vec<String> = std::fs::read_to_string(project.join("jars.txt"))
        .expect("jars.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|j| format!("/usr/share/java/{j}"))
        .collect();
    let shim = dir.join("shim");
    let ok = std::process::Command::new("javac")
        .args(["-nowarn", "-d"])
        .arg(&shim)
        .args(["-cp", &jars.join(":")])
        .arg(project.join("support/asm-shim/org/springframework/cglib/core/AsmApi.java"))
        .status()
        .expect("javac runs");
    assert!(
        ok.success(),
        "the shim compiles (the Debian jars installed?)"
    );
    format!("{}:{}", shim.display(), jars.join(":"))
}

/// javac of one changed file, one start until ready, one suite run (the first mutant
/// that builds).
async fn bare_cost(
    setup: &mastor::mutate::execute::Setup,
    original: &mastor::mutate::build::Built,
    mutants: &[Mutant],
) -> (Duration, Duration, Duration) {
    for m in mutants {
        let t = Instant::now();
        let BuildOutcome::Built(built) = setup
            .workspace
            .build_mutant(m, original)
            .await
            .expect("build runs")
        else {
            continue;
        };
        let javac = t.elapsed();
        let t = Instant::now();
        let log = built.dir.join("bench-server.log");
        let mut server = setup.start.start(original, log).await.expect("starts");
        let start = t.elapsed();
        let t = Instant::now();
        let cfg = mastor::runner::RunConfig {
            base_url: server.base_url.clone(),
            ..setup.run.clone()
        };
        let _ = mastor::runner::run(&setup.plan, &cfg).await;
        let suite = t.elapsed();
        server.stop().await;
        // The analysis must build it again, as it builds every other mutant.
        let _ = std::fs::remove_dir_all(&built.dir);
        return (javac, start, suite);
    }
    panic!("no mutant builds");
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The bench's settings for a fixture's reference suite over `files`: every operator but
/// `VoidCall` (hangs cost a timeout each and measure nothing about speed), `n` mutants,
/// seed 1, 2 workers, no build or start command and no output directory yet.
fn reference_options(project: &Path, files: &[&str], n: usize, ready_timeout: Duration) -> Options {
    Options {
        input: project.join("suites/reference.json"),
        project: Some(project.to_path_buf()),
        spec: None,
        only: None,
        ops: vec![],
        files: files.iter().map(|f| f.to_string()).collect(),
        operators: Operator::ALL
            .into_iter()
            .filter(|o| *o != Operator::VoidCall)
            .collect(),
        max_mutants: Some(n),
        seed: 1,
        in_diff: None,
        shard: None,
        build: None,
        classpath: None,
        start: None,
        ready: "/".into(),
        ready_timeout,
        timeout: None,
        jobs: 2,
        request_timeout: Duration::from_secs(5),
        build_timeout: mastor::mutate::build::BUILD_TIMEOUT,
        encoding: Default::default(),
        out: None,
        only_mutants: None,
        extra_oracles: Default::default(),
    }
}
