//! Semantically unique metamorphic tests across sessions, counted as ARMeta counts them:
//! every scenario title of every session and iteration is normalized with the title slug
//! (`slug::title_slug`) and the distinct slugs are the unique tests.
//!
//! This is the paper's reproducibility measure, so it deliberately uses the title slug
//! and not the structural slug the loop deduplicates with: within a session the loop
//! already folds equal structures, while across sessions the paper compares intents as
//! worded. Titles come from the kept tests (`metamorphic/`, else the report's) and from
//! the duplicates the loop folded into them (reports that recorded their titles); a
//! candidate dropped by the checks has no title and is not counted.

use crate::metamorphic::slug::title_slug;
use crate::store::{Session, StoreError};
use serde::Serialize;
use std::collections::BTreeMap;

/// Unique tests over a set of sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct UniqueTests {
    /// Sessions read.
    pub sessions: usize,
    /// Scenario titles found (kept tests and folded duplicates, every session).
    pub titles: usize,
    /// Distinct title slugs: the semantically unique tests.
    pub unique: usize,
    /// Slug → how many titles map to it.
    pub groups: BTreeMap<String, usize>,
}

/// Every scenario title of one session (kept tests, then folded duplicates).
pub fn session_titles(session: &Session) -> Result<Vec<String>, StoreError> {
    let report = super::store::load_report(session)?;
    let mut tests = super::store::load_tests(session)?;
    if tests.is_empty()
        && let Some(r) = &report
    {
        tests = r.tests.clone();
    }
    let mut titles: Vec<String> = tests
        .iter()
        .map(|t| {
            if t.scenario.trim().is_empty() {
                t.test_id.clone()
            } else {
                t.scenario.clone()
            }
        })
        .collect();
    titles.extend(
        report
            .iter()
            .flat_map(|r| &r.iterations)
            .flat_map(|i| &i.duplicates)
            .filter(|d| !d.scenario.trim().is_empty())
            .map(|d| d.scenario.clone()),
    );
    Ok(titles)
}

/// Groups titles (one list per session) by title slug.
pub fn count<S: AsRef<str>>(per_session: &[Vec<S>]) -> UniqueTests {
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    let mut titles = 0;
    for title in per_session.iter().flatten() {
        let slug = title_slug(title.as_ref());
        if slug.is_empty() {
            continue;
        }
        titles += 1;
        *groups.entry(slug).or_default() += 1;
    }
    UniqueTests {
        sessions: per_session.len(),
        titles,
        unique: groups.len(),
        groups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_worded_alike_across_sessions_count_once() {
        let u = count(&[
            vec![
                "MR 1: Updating a pet's status should be observable",
                "Filtering by status returns a subset",
            ],
            vec![
                "updating a pet's status  should be observable!",
                "MR 7 - Deleting a pet makes it unreadable",
            ],
        ]);
        assert_eq!((u.sessions, u.titles, u.unique), (2, 4, 3));
        assert_eq!(u.groups["updating_a_pet_s_status_should_be_observable"], 2);
    }
}
