//! Verdicts stored by another process (`mastor check` from another shell, beside the
//! open workbench) come into view without a relaunch, as a live run's events do: the
//! event loop looks at `verdicts/latest.json` about once a second and, when it changed
//! and it was not the workbench's own run that stored it, reads the session again.

use super::state::App;
use super::store::Session;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// How often the event loop looks at the verdicts file.
const EVERY: Duration = Duration::from_secs(1);

/// What identifies one version of the file: modification time and length.
type Stamp = Option<(SystemTime, u64)>;

/// The last version of `verdicts/latest.json` the workbench has shown.
#[derive(Debug)]
pub struct VerdictWatch {
    path: PathBuf,
    seen: Stamp,
    last_look: Instant,
    /// The workbench's own run was storing at the last look: its end reloads the
    /// session itself, so the change it made is not news.
    own_run: bool,
}

impl VerdictWatch {
    /// Watches the session's latest verdicts from the version on disk now.
    pub fn new(session: &Session) -> VerdictWatch {
        let path = session.dir().join(crate::suite::session::LATEST_VERDICTS);
        VerdictWatch {
            seen: stamp(&path),
            path,
            last_look: Instant::now(),
            own_run: false,
        }
    }

    /// Looks at most once per second (cheap: one `stat`); true when the screen changed.
    pub fn poll(&mut self, session: &Session, app: &mut App) -> bool {
        if self.last_look.elapsed() < EVERY {
            return false;
        }
        self.look(session, app)
    }

    /// Looks now: when the verdicts changed under the workbench, reloads the session
    /// and says so; true when the screen changed.
    pub fn look(&mut self, session: &Session, app: &mut App) -> bool {
        self.last_look = Instant::now();
        let now = stamp(&self.path);
        let running = app.tasks.any(super::tasks::TaskKind::stores_verdicts);
        let absorb = running || self.own_run;
        self.own_run = running;
        if now == self.seen {
            return false;
        }
        self.seen = now;
        if absorb {
            return false;
        }
        if !super::msg::reload(session, app, "new verdicts") {
            return true;
        }
        let c = app.total_counts;
        let errors = if c.error > 0 {
            format!(" !{}", c.error)
        } else {
            String::new()
        };
        app.notify(format!(
            "verdicts stored outside the workbench (mastor check?): reloaded, now ✓{} ✗{}{errors}",
            c.pass, c.fail
        ));
        true
    }
}

fn stamp(path: &std::path::Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}
