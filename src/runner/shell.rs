//! The user's shell commands (`check --reset`, `mutate --build` / `--start`) and the
//! programs mastor starts for them, run so that none can hang, flood or outlive a run.
//!
//! - **Placeholders** (`{dir}`, `{port}`, `{classpath}`) are replaced in one pass over the
//!   template, each value single-quoted for `sh`: a value is never scanned again, so a
//!   path holding `{port}`, `$(...)`, backticks or quotes stays one literal word.
//! - **Process groups**: every command runs in a group of its own, and a timeout kills
//!   the group, so `sh -c 'sleep 1000'` leaves no `sleep` behind.
//! - **Output** is drained to the end and only the first `cap` bytes are kept: a command
//!   that writes a lot is never killed by a closed pipe (SIGPIPE). Once the command itself
//!   exits, its pipes are read for a short grace only: a background child that inherited
//!   them (`(sleep 15 &)`) does not hold the caller.
//! - **Registry**: every live group is recorded, so a signal handler can stop them all
//!   ([`kill_all`]). A process that calls `setsid` leaves our group and is out of reach.

use std::collections::BTreeSet;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// How long a command's pipes are still read after the command itself exited.
pub const PIPE_GRACE: Duration = Duration::from_millis(300);

/// Single-quotes `s` for `sh` (`'` becomes `'\''`).
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Replaces each `{name}` of `values` in `template` by its value, shell-quoted, in one
/// left-to-right pass; other braces are kept as written. A substituted value is never
/// looked at again.
pub fn substitute(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    'outer: while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        for (name, value) in values {
            let token_len = name.len() + 2;
            if tail.len() >= token_len
                && tail.as_bytes()[token_len - 1] == b'}'
                && &tail[1..token_len - 1] == *name
            {
                out.push_str(&quote(value));
                rest = &tail[token_len..];
                continue 'outer;
            }
        }
        out.push('{');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// A `sh -c line` command.
pub fn sh(line: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", line]);
    cmd
}

static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// A process group in the registry; dropped, it leaves the registry (and, while armed,
/// kills the group first: a run cancelled half-way leaves nothing behind).
pub struct Group {
    pgid: i32,
    armed: bool,
}

impl Group {
    /// Records the group led by `pid` (spawned with `process_group(0)`).
    pub fn register(pid: u32) -> Group {
        let pgid = pid as i32;
        GROUPS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(pgid);
        if super::signals::stopping() {
            // mastor is being stopped: nothing new may outlive it.
            signal_group(pgid, libc::SIGKILL);
        }
        Group { pgid, armed: true }
    }

    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Sends `signal` to every process of the group.
    pub fn signal(&self, signal: libc::c_int) {
        signal_group(self.pgid, signal);
    }

    /// Leaves the group running when dropped (a reset that restarted a server in the
    /// background must keep it).
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.armed {
            signal_group(self.pgid, libc::SIGKILL);
        }
        GROUPS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.pgid);
    }
}

/// The groups alive now (for a signal handler and for tests).
pub fn live_groups() -> Vec<i32> {
    GROUPS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .copied()
        .collect()
}

/// Sends `signal` to every registered group; returns how many there were.
pub fn kill_all(signal: libc::c_int) -> usize {
    let groups = live_groups();
    for g in &groups {
        signal_group(*g, signal);
    }
    groups.len()
}

/// `killpg`, ignoring a group that is already gone.
pub fn signal_group(pgid: i32, signal: libc::c_int) {
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; each group was created for one child alone
    // (`process_group(0)`), so nothing else is hit.
    unsafe {
        libc::killpg(pgid as libc::pid_t, signal);
    }
}

/// What a finished command gave.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    /// The first `cap` bytes of stdout and of stderr.
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Bytes read past the cap and discarded (both streams).
    pub discarded: u64,
}

/// Why a command has no exit status.
#[derive(Debug)]
pub enum Failure {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It ran past the limit; its group was killed. What it wrote so far is kept.
    Timeout { stdout: Vec<u8>, stderr: Vec<u8> },
    /// Waiting for it failed.
    Wait(std::io::Error),
}

#[derive(Default)]
struct Sink {
    kept: Vec<u8>,
    discarded: u64,
}

/// Reads `pipe` to its end, keeping the first `cap` bytes and discarding the rest.
fn drain<R>(pipe: Option<R>, cap: usize) -> (Arc<Mutex<Sink>>, tokio::task::JoinHandle<()>)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    let sink = Arc::new(Mutex::new(Sink::default()));
    let shared = sink.clone();
    let task = tokio::spawn(async move {
        let Some(mut pipe) = pipe else { return };
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match pipe.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
                    let room = cap.saturating_sub(s.kept.len()).min(n);
                    s.kept.extend_from_slice(&buf[..room]);
                    s.discarded += (n - room) as u64;
                }
            }
        }
    });
    (sink, task)
}

fn take(sink: &Arc<Mutex<Sink>>) -> (Vec<u8>, u64) {
    let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
    (std::mem::take(&mut s.kept), s.discarded)
}

/// Runs `cmd` in a process group of its own, stdin closed, stdout and stderr drained
/// (`cap` bytes of each kept), bounded by `limit`: past it the whole group is killed.
/// Only the command's own exit is awaited; its pipes are read for [`PIPE_GRACE`] more.
/// `keep_group` leaves what the command started in the background running after a
/// normal exit (a reset that restarts the server); otherwise the group is killed then.
pub async fn run(
    mut cmd: Command,
    limit: Duration,
    cap: usize,
    keep_group: bool,
) -> Result<Finished, Failure> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(Failure::Spawn)?;
    let mut group = Group::register(child.id().unwrap_or(0));
    let (out, out_task) = drain(child.stdout.take(), cap);
    let (err, err_task) = drain(child.stderr.take(), cap);
    let status = match tokio::time::timeout(limit, child.wait()).await {
        Err(_) => {
            group.signal(libc::SIGKILL);
            let _ = child.wait().await;
            out_task.abort();
            err_task.abort();
            return Err(Failure::Timeout {
                stdout: take(&out).0,
                stderr: take(&err).0,
            });
        }
        Ok(Err(e)) => return Err(Failure::Wait(e)),
        Ok(Ok(status)) => status,
    };
    let both = async {
        let _ = out_task.await;
        let _ = err_task.await;
    };
    if tokio::time::timeout(PIPE_GRACE, both).await.is_err() {
        // A background child holds a pipe: what was read so far is the output.
    }
    if keep_group {
        group.disarm();
    }
    drop(group);
    let (stdout, d1) = take(&out);
    let (stderr, d2) = take(&err);
    Ok(Finished {
        status,
        stdout,
        stderr,
        discarded: d1 + d2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_placeholder_is_replaced_once_and_quoted() {
        let v = [
            ("dir", "/tmp/a{port}b"),
            ("port", "8080"),
            ("classpath", "x'y"),
        ];
        assert_eq!(
            substitute("cd {dir} && run {port} {classpath} {other} {", &v),
            r"cd '/tmp/a{port}b' && run '8080' 'x'\''y' {other} {"
        );
        assert_eq!(
            substitute("{dir}{dir}", &v[..1]),
            "'/tmp/a{port}b''/tmp/a{port}b'"
        );
        assert_eq!(substitute("{{port}}", &v), "{'8080'}");
    }

    #[test]
    fn a_value_with_shell_syntax_stays_one_word() {
        let dir = "/tmp/x/inj{classpath}$(touch PWNED) `id` \"q\" 'q' a b";
        let line = substitute("printf %s {dir}", &[("dir", dir), ("classpath", "cp")]);
        let out = std::process::Command::new("sh")
            .args(["-c", &line])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), dir);
    }
}
