//! The shell commands mastor runs for the user (`check --reset`, `mutate --build` and
//! `--start`) cannot inject, hang, flood or leave processes behind: placeholders are
//! substituted once and quoted, every command runs in its own process group that a
//! timeout kills, output is drained to a cap, and a build copy keeps links inside the
//! project as links.

use mastor::mutate::build::{BuildMode, Built, Workspace};
use mastor::mutate::server::StartSpec;
use mastor::runner::reset_command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Pids of live processes whose command line contains `marker` (zombies excluded).
pub fn procs_with(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'));
        if !zombie
            && String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(marker)
        {
            out.push(pid);
        }
    }
    out
}

/// Waits (at most 5 s) until no process carries `marker`; the pids left otherwise.
pub fn gone(marker: &str) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = procs_with(marker);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap()
}

/// A one-file project to copy and build.
fn small_project(root: &Path) -> PathBuf {
    let p = root.join("proj");
    std::fs::create_dir_all(p.join("sub")).unwrap();
    std::fs::write(p.join("A.java"), "class A {}\n").unwrap();
    std::fs::write(p.join("sub/B.txt"), "b\n").unwrap();
    p
}

/// A directory name holding every trick a path can play on a shell template.
fn hostile_dir(tmp: &Path) -> PathBuf {
    let pwned = tmp.join("PWNED");
    let name = format!(
        "inj{{classpath}}{{port}}$(touch {p}) `touch {p}` \"dq\" 'sq' sp ace",
        p = pwned.display()
    );
    let dir = tmp.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn build_placeholders_are_substituted_once_and_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let project = small_project(tmp.path());
    let work = hostile_dir(tmp.path());
    let seen = tmp.path().join("seen");
    let template = format!(
        "printf %s {{dir}} > '{}'; test -f {{dir}}/A.java",
        seen.display()
    );
    let ws = Workspace::new(project, work.clone(), BuildMode::Command { template });
    let built = rt().block_on(ws.build_original()).expect("the build runs");
    assert!(
        !tmp.path().join("PWNED").exists(),
        "the path was run as shell code"
    );
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        built.dir.display().to_string(),
        "{{dir}} is the copy's path, word for word"
    );
    assert!(built.dir.starts_with(&work));
}

#[test]
fn start_placeholders_are_substituted_once_and_quoted_and_the_group_is_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hostile_dir(tmp.path());
    let seen = tmp.path().join("seen");
    let built = Built {
        dir: dir.clone(),
        classpath: format!(
            "{}/classes:{{dir}}$(touch {}/PWNED)",
            dir.display(),
            tmp.path().display()
        ),
    };
    let spec = StartSpec {
        template: format!(
            "printf '%s|%s|%s' {{dir}} {{classpath}} {{port}} > '{}'; sleep 1000.61; true",
            seen.display()
        ),
        ready_path: "/".into(),
        ready_timeout: Duration::from_millis(1500),
        leftovers: None,
    };
    let err = match rt().block_on(spec.start_on(&built, tmp.path().join("log"), 1)) {
        Ok(_) => panic!("nothing listens on port 1"),
        Err(e) => e,
    };
    assert!(
        matches!(err, mastor::mutate::MutateError::Start(_)),
        "{err}"
    );
    let err = err.to_string();
    assert!(err.contains("did not answer"), "{err}");
    assert!(!tmp.path().join("PWNED").exists());
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        format!("{}|{}|1", built.dir.display(), built.classpath)
    );
    assert_eq!(
        gone("1000.61"),
        Vec::<u32>::new(),
        "the server's group is gone"
    );
}

#[test]
fn a_reset_that_times_out_is_killed_with_its_children() {
    let t0 = Instant::now();
    let err = rt()
        .block_on(reset_command(
            "sleep 1000.31; true",
            Duration::from_millis(800),
        ))
        .unwrap_err();
    assert!(err.contains("did not finish"), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert_eq!(
        gone("1000.31"),
        Vec::<u32>::new(),
        "sleep outlived its reset"
    );
}

#[test]
fn a_reset_that_writes_a_lot_to_stderr_succeeds_and_its_stderr_is_escaped() {
    // 300 KB through the shell's own printf: a closed pipe would kill the shell itself.
    let chatty =
        "i=0; while [ $i -lt 3000 ]; do printf '%0100d\\n' 0 >&2; i=$((i+1)); done; exit 0";
    rt().block_on(reset_command(chatty, Duration::from_secs(30)))
        .expect("a chatty reset that exits 0 succeeded");
    let hostile = "printf '\\033]0;owned\\007\\033[2J boom' >&2; exit 3";
    let err = rt()
        .block_on(reset_command(hostile, Duration::from_secs(10)))
        .unwrap_err();
    assert!(err.contains("boom"), "{err}");
    assert!(
        !err.chars().any(|c| c.is_control()),
        "control characters reach the terminal: {err:?}"
    );
}

#[test]
fn a_build_does_not_wait_for_a_background_child_and_has_a_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let project = small_project(tmp.path());
    let mode = BuildMode::Command {
        template: "true && (sleep 15.27 &)".into(),
    };
    let ws = Workspace::new(project.clone(), tmp.path().join("w1"), mode);
    let t0 = Instant::now();
    rt().block_on(ws.build_original())
        .expect("the build exits 0");
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "the build waited {:?} for its background child",
        t0.elapsed()
    );
    assert_eq!(
        gone("15.27"),
        Vec::<u32>::new(),
        "the background child outlived the build"
    );

    let mode = BuildMode::Command {
        template: "sleep 1000.42; true".into(),
    };
    let mut ws = Workspace::new(project, tmp.path().join("w2"), mode);
    ws.build_timeout = Duration::from_secs(1);
    let t0 = Instant::now();
    let err = rt().block_on(ws.build_original()).unwrap_err();
    assert!(
        matches!(err, mastor::mutate::MutateError::Build(_)),
        "{err}"
    );
    let err = err.to_string();
    assert!(err.contains("--build-timeout"), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert_eq!(gone("1000.42"), Vec::<u32>::new());
}

#[test]
fn a_build_copy_keeps_links_inside_and_names_links_out() {
    let tmp = tempfile::tempdir().unwrap();
    let project = small_project(tmp.path());
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("Secret.java"), "class Secret {}\n").unwrap();
    std::os::unix::fs::symlink("sub", project.join("inner")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("Secret.java"), project.join("S.java")).unwrap();
    let mode = BuildMode::Command {
        template: "test -L {dir}/inner && test -f {dir}/inner/B.txt && test ! -e {dir}/out \
                   && test ! -e {dir}/S.java"
            .into(),
    };
    let ws = Workspace::new(project, tmp.path().join("w"), mode);
    rt().block_on(ws.build_original())
        .expect("a project with directory links builds");
    let notes = ws.notes.lock().unwrap().join("\n");
    assert!(notes.contains("out: a symbolic link to"), "{notes}");
    assert!(notes.contains("S.java: a symbolic link to"), "{notes}");
    assert!(notes.contains("outside the project"), "{notes}");
    assert!(!notes.contains("inner"), "{notes}");
}

/// `mastor mutate` on the fixture with servers marked by `marker`, stderr piped.
fn spawn_mutate(out: &Path, marker: &str, max: &str) -> std::process::Child {
    let fixture = crate::runner_support::repo_root().join("tests/fixtures/petstore-jdk");
    let start =
        format!("exec java -Dmastor.test={marker} -cp {{classpath}} petstore.Main {{port}}");
    std::process::Command::new(env!("CARGO_BIN_EXE_mastor"))
        .args(["mutate"])
        .arg(fixture.join("suites/reference.json"))
        .arg("--project")
        .arg(&fixture)
        .arg("--out")
        .arg(out)
        .args(["--files", "**/PetHandler.java", "--operator", "status_swap"])
        .args(["--max-mutants", max, "--jobs", "2", "--start", &start])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Lines of `child`'s stderr, as they come.
fn stderr_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    rx
}

/// Waits (at most `secs`) for `child` to exit.
fn wait_exit(child: &mut std::process::Child, secs: u64) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("mastor did not exit within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sigterm_stops_every_server_and_a_rerun_reuses_the_finished_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let marker = format!("sigterm-{}", std::process::id());
    let mut child = spawn_mutate(&out, &marker, "6");
    let lines = stderr_lines(&mut child);
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(Duration::from_secs(180)) {
            Ok(l) if l.starts_with("[1]") => break,
            Ok(l) => seen.push(l),
            Err(_) => panic!("no mutant finished: {seen:?}"),
        }
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = wait_exit(&mut child, 30);
    assert_eq!(status.code(), Some(143), "{seen:?}");
    let words: Vec<String> = lines.try_iter().collect();
    assert!(
        words.iter().any(|l| l.contains("stopped by SIGTERM")),
        "{words:?}"
    );
    assert_eq!(gone(&marker), Vec::<u32>::new(), "servers outlived mastor");
    let runs = std::fs::read_to_string(out.join("runs.jsonl")).unwrap();
    assert!(!runs.trim().is_empty(), "no finished run was kept");

    let mut again = spawn_mutate(&out, &marker, "6");
    let status = wait_exit(&mut again, 300);
    let mut stdout = String::new();
    std::io::Read::read_to_string(again.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    assert!(matches!(status.code(), Some(0 | 1)), "{stdout}");
    let reused: usize = stdout
        .split("reused ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        reused >= 1,
        "the interrupted run's work was redone: {stdout}"
    );
    assert_eq!(gone(&marker), Vec::<u32>::new());
}

#[test]
fn a_run_after_sigkill_stops_the_servers_the_killed_run_left() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let marker = format!("sigkill-{}", std::process::id());
    let mut child = spawn_mutate(&out, &marker, "6");
    let pids = out.join("work/pids");
    let deadline = Instant::now() + Duration::from_secs(180);
    while std::fs::read_dir(&pids).map_or(true, |d| d.count() == 0)
        || procs_with(&marker).is_empty()
    {
        assert!(Instant::now() < deadline, "no server started");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    wait_exit(&mut child, 30);
    std::thread::sleep(Duration::from_millis(200));
    let left = procs_with(&marker);
    assert!(
        !left.is_empty(),
        "SIGKILL cannot be caught: a server is left"
    );
    let mut again = spawn_mutate(&out, &marker, "1");
    let lines = stderr_lines(&mut again);
    let status = wait_exit(&mut again, 300);
    let err: Vec<String> = lines.try_iter().collect();
    assert!(matches!(status.code(), Some(0 | 1)), "{err:?}");
    assert!(
        err.iter()
            .any(|l| l.contains("left by an earlier run that was killed")),
        "{err:?}"
    );
    assert_eq!(gone(&marker), Vec::<u32>::new(), "the leftovers still run");
}
