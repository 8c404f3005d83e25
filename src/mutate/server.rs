//! Starts the API under test for one run, waits until it answers, and stops it with
//! everything it started (the whole process group), so no server outlives its mutant.

use super::build::Built;
use super::leftovers::{Leftovers, TOKEN_ENV};
use crate::mutate::error::MutateError;
use crate::runner::shell::{self, Group};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::process::{Child, Command};

/// How to start the API and tell it is ready.
#[derive(Debug, Clone)]
pub struct StartSpec {
    /// Shell command; `{dir}`, `{port}` and `{classpath}` are replaced, and `PORT` is set.
    pub template: String,
    /// Path requested until any HTTP answer comes back.
    pub ready_path: String,
    /// Longest wait for that answer.
    pub ready_timeout: Duration,
    /// Pid files and the token that let the next run stop what a killed run left
    /// (`None`: not recorded).
    pub leftovers: Option<Leftovers>,
}

/// A started API; stopped when dropped (or by [`Server::stop`]).
pub struct Server {
    /// The server's process group, in the registry a signal handler stops.
    group: Option<Group>,
    /// `work/pids/<pgid>` while the server runs.
    pid_file: Option<PathBuf>,
    child: Option<Child>,
    pub base_url: String,
    pub log: PathBuf,
}

/// A loopback port free at the time of the call.
pub fn free_port() -> Result<u16, MutateError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| MutateError::Start(format!("no free port on 127.0.0.1: {e}")))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| MutateError::Start(format!("no free port on 127.0.0.1: {e}")))
}

impl StartSpec {
    /// Starts `built` on a free port and waits until it answers; `Err` says why not
    /// (the command failed, the server exited, or it did not answer in time), with the
    /// tail of its log.
    pub async fn start(&self, built: &Built, log: PathBuf) -> Result<Server, MutateError> {
        self.start_on(built, log, free_port()?).await
    }

    /// [`StartSpec::start`] on a given port (a restart keeps its base URL).
    pub async fn start_on(
        &self,
        built: &Built,
        log: PathBuf,
        port: u16,
    ) -> Result<Server, MutateError> {
        let line = self.command_line(built, port);
        if let Some(parent) = log.parent() {
            std::fs::create_dir_all(parent).map_err(|e| MutateError::io("create", parent, e))?;
        }
        let out = std::fs::File::create(&log).map_err(|e| MutateError::io("create", &log, e))?;
        let err = out
            .try_clone()
            .map_err(|e| MutateError::io("open", &log, e))?;
        let mut cmd = Command::new("sh");
        if let Some(l) = &self.leftovers {
            cmd.env(TOKEN_ENV, &l.token);
        }
        let child = cmd
            .args(["-c", &line])
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                MutateError::Start(format!("cannot run the start command `{line}`: {e}"))
            })?;
        let group = child.id().map(Group::register);
        let pid_file = match (&self.leftovers, &group) {
            (Some(l), Some(g)) => l.record(g.pgid()).ok(),
            _ => None,
        };
        let mut server = Server {
            group,
            pid_file,
            child: Some(child),
            base_url: format!("http://127.0.0.1:{port}"),
            log,
        };
        match self.wait_ready(&mut server).await {
            Ok(()) => Ok(server),
            Err(why) => {
                server.stop().await;
                Err(MutateError::Start(format!(
                    "{why}; log tail: {}",
                    server.log_tail()
                )))
            }
        }
    }

    /// The start command: `{dir}`, `{classpath}` and `{port}` replaced in one pass, each
    /// value quoted for the shell.
    pub fn command_line(&self, built: &Built, port: u16) -> String {
        shell::substitute(
            &self.template,
            &[
                ("dir", &built.dir.display().to_string()),
                ("classpath", &built.classpath),
                ("port", &port.to_string()),
            ],
        )
    }

    async fn wait_ready(&self, server: &mut Server) -> Result<(), MutateError> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(1))
            .no_proxy()
            .build()
            .map_err(|e| MutateError::Start(format!("cannot build an HTTP client: {e}")))?;
        let url = format!("{}{}", server.base_url, self.ready_path);
        let deadline = Instant::now() + self.ready_timeout;
        loop {
            if let Some(child) = server.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(MutateError::Start(format!(
                    "the server exited before it answered ({status})"
                )));
            }
            if client.get(&url).send().await.is_ok() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(MutateError::Start(format!(
                    "the server did not answer {url} within {:?}",
                    self.ready_timeout
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Server {
    /// Stops the server's whole process group: TERM, then KILL after a second.
    pub async fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Some(group) = self.group.as_ref() {
            group.signal(libc::SIGTERM);
            let waited = tokio::time::timeout(Duration::from_secs(1), child.wait()).await;
            group.signal(libc::SIGKILL);
            if waited.is_err() {
                let _ = child.wait().await;
            }
        }
        if let Some(mut g) = self.group.take() {
            g.disarm();
        }
        if let Some(p) = self.pid_file.take() {
            let _ = std::fs::remove_file(p);
        }
    }

    /// The server's process group id (its leader's pid).
    pub fn pgid(&self) -> Option<i32> {
        self.group.as_ref().map(Group::pgid)
    }

    /// The last lines of the server's log, on one line.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().rev().take(5).collect();
        let mut lines: Vec<&str> = lines.into_iter().rev().collect();
        if lines.is_empty() {
            lines.push("(empty)");
        }
        crate::text::escape_controls(&lines.join(" | ")).into_owned()
    }
}

/// Dropping a `Server` drops its `Group`, which kills the whole process group.
impl Drop for Server {
    fn drop(&mut self) {
        if let Some(p) = self.pid_file.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}
