//! Servers a killed analysis left behind, found and stopped by the next one.
//!
//! SIGKILL cannot be caught, so a `mastor mutate` killed that way leaves each mutant's
//! server running in its process group, holding its port. Every server is started with
//! [`TOKEN_ENV`] set to a token of its results directory, and its group id is written
//! to `work/pids/<pgid>` while it runs (removed when it is stopped). A new analysis of
//! the same directory reads those files first: a group whose processes still carry the
//! token in their environment is ours and is killed; anything else (the id was reused
//! by an unrelated process) is left alone. The file is removed either way.

use crate::mutate::error::MutateError;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The environment variable that marks a server as started for one results directory.
pub const TOKEN_ENV: &str = "MASTOR_MUTATE_RUN";

/// Where a results directory's pid files are, and the token its servers carry.
#[derive(Debug, Clone)]
pub struct Leftovers {
    pub dir: PathBuf,
    pub token: String,
}

impl Leftovers {
    /// For the results directory whose scratch directory is `work`.
    pub fn for_work_dir(work: &Path) -> Self {
        let real = work.canonicalize().unwrap_or_else(|_| work.to_path_buf());
        let token = hex::encode(Sha256::digest(real.display().to_string()))[..16].to_string();
        Leftovers {
            dir: work.join("pids"),
            token,
        }
    }

    /// Records a running server's group.
    pub fn record(&self, pgid: i32) -> Result<PathBuf, MutateError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| MutateError::io("create", &self.dir, e))?;
        let path = self.dir.join(pgid.to_string());
        std::fs::write(&path, format!("{pgid}\n"))
            .map_err(|e| MutateError::io("write", &path, e))?;
        Ok(path)
    }

    /// Stops every recorded group that is still ours; returns one line per group
    /// stopped.
    pub fn stop_all(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut stopped = Vec::new();
        for e in entries.flatten() {
            let path = e.path();
            let pgid = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok());
            if let Some(pgid) = pgid.filter(|p| *p > 1) {
                let ours = members(pgid, &self.token);
                if !ours.is_empty() {
                    crate::runner::shell::signal_group(pgid, libc::SIGKILL);
                    stopped.push(format!(
                        "process group {pgid} ({} process(es)) left by an earlier run that was \
                         killed",
                        ours.len()
                    ));
                }
            }
            let _ = std::fs::remove_file(&path);
        }
        stopped
    }
}

/// Live processes of group `pgid` whose environment holds `TOKEN_ENV=token`.
fn members(pgid: i32, token: &str) -> Vec<i32> {
    let want = format!("{TOKEN_ENV}={token}");
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Fields after the command name: state, ppid, pgrp.
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map(|(_, r)| r.split_whitespace().collect())
                .unwrap_or_default();
            fields.get(2).and_then(|g| g.parse::<i32>().ok()) == Some(pgid)
                && fields.first() != Some(&"Z")
        })
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .unwrap_or_default()
                .split(|b| *b == 0)
                .any(|kv| kv == want.as_bytes())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
        })
    }

    #[test]
    fn only_groups_that_carry_the_token_are_stopped() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Leftovers::for_work_dir(tmp.path());
        let spawn = |token: Option<&str>| {
            let mut cmd = std::process::Command::new("sleep");
            cmd.arg("1000.77").process_group(0);
            if let Some(t) = token {
                cmd.env(TOKEN_ENV, t);
            }
            cmd.spawn().unwrap()
        };
        let mut stranger = spawn(Some("another-directory"));
        let mut ours = spawn(Some(&l.token));
        l.record(stranger.id() as i32).unwrap();
        l.record(ours.id() as i32).unwrap();
        let stopped = l.stop_all();
        assert_eq!(stopped.len(), 1, "{stopped:?}");
        assert!(stopped[0].contains(&ours.id().to_string()), "{stopped:?}");
        let _ = ours.wait();
        assert!(
            alive(stranger.id()),
            "a process that is not ours was killed"
        );
        assert!(
            std::fs::read_dir(&l.dir).unwrap().next().is_none(),
            "pid files stay"
        );
        let _ = stranger.kill();
        let _ = stranger.wait();
    }
}
