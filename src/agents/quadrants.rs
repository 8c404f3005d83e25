//! The quadrant check (paper Table 4: FV, FI, BV and BI are each "intentionally
//! populated"). After generation, each quadrant is checked against what the verified
//! context offers; where the context has material for a quadrant the suite lacks, a
//! `suite` hint of our own joins the challenger's, so the one targeted regeneration
//! fills it. Deterministic, no model call.
//!
//! Material per quadrant:
//! - FV: a known success status → some fv oracle.
//! - FI / BI: each error case → some fi or bi oracle expecting its status.
//! - BV / BI: a request parameter constraint with a bound (a number, a comparison,
//!   min/max, length/size, range) → some bv and some bi oracle.

use crate::model::{Assertion, Hint, HintDimension, HintOrigin, Oracle, SourceContext, Strategy};
use regex::Regex;
use std::sync::LazyLock;

/// At most this many quadrant hints per suite, so they never drown the challenger's.
pub const MAX_HINTS: usize = 6;

/// Hints for the quadrants `oracles` leave empty although `ctx` has material for them.
pub fn hints(ctx: &SourceContext, oracles: &[Oracle]) -> Vec<Hint> {
    let has = |s: Strategy| oracles.iter().any(|o| o.oracle_strategy == Some(s));
    let mut out = Vec::new();
    if let Some(status) = ctx.response_schema.success_status
        && !has(Strategy::Fv)
    {
        out.push(format!(
            "no FV oracle: add a valid request expecting {status} with field assertions on \
             the verified response fields"
        ));
    }
    for case in &ctx.response_schema.error_cases {
        // A 5xx of a correct program sits behind a path no request is meant to reach:
        // asking for one asks for the impossible.
        // The framework's own statuses are facts an oracle may use, not material of the
        // project's code to cover.
        if case.status >= 500 || case.is_framework() {
            continue;
        }
        let covered = oracles.iter().any(|o| {
            matches!(o.oracle_strategy, Some(Strategy::Fi | Strategy::Bi))
                && o.assertions.iter().any(|a| {
                    *a == Assertion::Status {
                        expected: case.status,
                    }
                })
        });
        if !covered {
            let how = if case.status == 405 {
                " (send another method with input.method)"
            } else {
                ""
            };
            out.push(format!(
                "no FI or BI oracle for error case {} '{}': add an invalid request that \
                 triggers it{how}",
                case.status,
                one_line(&case.condition)
            ));
        }
    }
    if let Some(bound) = first_bound(ctx) {
        if !has(Strategy::Bv) {
            out.push(format!(
                "no BV oracle: constraint '{bound}' states a bound; add valid requests at \
                 it and just inside it, as far as the data allows"
            ));
        }
        if !has(Strategy::Bi) {
            out.push(format!(
                "no BI oracle: constraint '{bound}' has values just outside its bounds; add \
                 invalid requests at them"
            ));
        }
    }
    out.truncate(MAX_HINTS);
    out.into_iter()
        .map(|text| Hint {
            test_id: crate::agents::challenge::SUITE.to_string(),
            dimension: HintDimension::CoverageGaps,
            text,
            origin: HintOrigin::Quadrant,
            affects: Vec::new(),
        })
        .collect()
}

/// The first request constraint that states a bound a request can be built at, as
/// `name: constraint`: a comparison, range or size word next to a number. Path parameters
/// are left out (their valid values are the records that exist, not a range), and so are
/// type widths ("a signed 64-bit integer" states no bound anyone can send a record at).
fn first_bound(ctx: &SourceContext) -> Option<String> {
    static BOUND: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)<|>|\bmin|\bmax|\blength\b|\bsize\b|\brange\b|\bbetween\b|\.\.|\bat (least|most)\b",
        )
        .expect("static regex is valid")
    });
    static NUMBER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\d").expect("static regex is valid"));
    static WIDTH: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\d+-?bit").expect("static regex is valid"));
    ctx.request_params
        .iter()
        .filter(|p| !p.location.eq_ignore_ascii_case("path"))
        .find_map(|p| {
            p.constraints
                .iter()
                .find(|c| {
                    let without_width = WIDTH.replace_all(c, "");
                    BOUND.is_match(&without_width) && NUMBER.is_match(&without_width)
                })
                .map(|c| format!("{}: {}", p.name, one_line(c)))
        })
}

/// Our hints without the error-case ones the challenger already spoke to: a challenger
/// hint that names the same status (to ask for it, or to say "do not add" it) wins, so
/// one request never says both.
pub fn drop_answered(own: Vec<Hint>, challenger: &[Hint]) -> Vec<Hint> {
    static CASE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^no FI or BI oracle for error case (\d{3})\b").expect("static regex is valid")
    });
    own.into_iter()
        .filter(|h| {
            let Some(c) = CASE.captures(&h.text) else {
                return true;
            };
            let status = Regex::new(&format!(r"\b{}\b", &c[1])).expect("a number is a regex");
            !challenger.iter().any(|m| status.is_match(&m.text))
        })
        .collect()
}

/// `s` on one line and at most 120 characters (it comes from a model).
fn one_line(s: &str) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ContextParam, ErrorCase, ResponseSchema};

    fn ctx(success: Option<u16>, errors: &[(u16, &str)], constraints: &[&str]) -> SourceContext {
        SourceContext {
            op_id: "GET /pets".into(),
            error_envelopes: vec![],
            request_params: vec![ContextParam {
                name: "limit".into(),
                location: "query".into(),
                ty: "integer".into(),
                required: false,
                constraints: constraints.iter().map(|c| c.to_string()).collect(),
                oas_match: true,
            }],
            response_schema: ResponseSchema {
                success_status: success,
                fields: vec![],
                error_cases: errors
                    .iter()
                    .map(|(s, c)| ErrorCase {
                        status: *s,
                        condition: c.to_string(),
                        ..Default::default()
                    })
                    .collect(),
            },
            request_params_pending: vec![],
            response_schema_pending: vec![],
        }
    }

    fn oracle(s: Strategy, status: u16) -> Oracle {
        Oracle {
            test_id: format!("{s:?}_{status}"),
            op_id: "GET /pets".into(),
            description: String::new(),
            oracle_strategy: Some(s),
            input: Default::default(),
            assertions: vec![Assertion::Status { expected: status }],
            evidence: String::new(),
            evidence_refs: vec![],
            fresh_state: false,
        }
    }

    fn texts(h: &[Hint]) -> Vec<&str> {
        h.iter()
            .map(|h| h.text.split(':').next().unwrap())
            .collect()
    }

    #[test]
    fn an_empty_suite_gets_a_hint_per_quadrant_with_material() {
        let c = ctx(Some(200), &[(404, "pet not found")], &["1 <= limit <= 100"]);
        let h = hints(&c, &[]);
        assert_eq!(
            texts(&h),
            vec![
                "no FV oracle",
                "no FI or BI oracle for error case 404 'pet not found'",
                "no BV oracle",
                "no BI oracle"
            ]
        );
        assert!(h.iter().all(|h| h.test_id == "suite"
            && h.origin == HintOrigin::Quadrant
            && h.dimension == HintDimension::CoverageGaps));
        assert!(h[2].text.contains("limit: 1 <= limit <= 100"));
    }

    #[test]
    fn a_full_suite_gets_none_and_no_material_means_no_hint() {
        let c = ctx(Some(200), &[(404, "pet not found")], &["1 <= limit <= 100"]);
        let full = [
            oracle(Strategy::Fv, 200),
            oracle(Strategy::Fi, 404),
            oracle(Strategy::Bv, 200),
            oracle(Strategy::Bi, 400),
        ];
        assert!(hints(&c, &full).is_empty());
        // No success status, no error case, no bounded constraint: nothing to ask for.
        let bare = ctx(None, &[], &["must be a known tag"]);
        assert!(hints(&bare, &[]).is_empty());
    }

    #[test]
    fn each_error_case_needs_its_own_invalid_oracle() {
        let c = ctx(Some(200), &[(400, "bad"), (404, "gone")], &[]);
        let h = hints(&c, &[oracle(Strategy::Fv, 200), oracle(Strategy::Bi, 400)]);
        assert_eq!(
            texts(&h),
            vec!["no FI or BI oracle for error case 404 'gone'"]
        );
        // An fv oracle expecting the error status does not cover it.
        let h = hints(&c, &[oracle(Strategy::Fv, 404), oracle(Strategy::Fi, 400)]);
        assert_eq!(h.len(), 1, "{h:?}");
    }

    #[test]
    fn hints_are_capped_and_model_text_is_flattened() {
        let many: Vec<(u16, &str)> = (400..410).map(|s| (s, "line one\nline two")).collect();
        let h = hints(&ctx(Some(200), &many, &[]), &[]);
        assert_eq!(h.len(), MAX_HINTS);
        assert!(h[1].text.contains("'line one line two'"), "{}", h[1].text);
    }

    #[test]
    fn hints_ask_only_for_what_a_request_can_reach() {
        // A 500 behind an unreachable path, a path id's type width: no hint asks for them.
        let mut c = ctx(Some(200), &[(500, "store failure"), (405, "not GET")], &[]);
        c.request_params.push(crate::model::ContextParam {
            name: "petId".into(),
            location: "path".into(),
            ty: "long".into(),
            required: true,
            constraints: vec!["1 <= petId".into()],
            oas_match: true,
        });
        c.request_params[0].constraints = vec!["a signed 64-bit integer".into()];
        let h = hints(&c, &[oracle(Strategy::Fv, 200)]);
        assert_eq!(
            texts(&h),
            vec!["no FI or BI oracle for error case 405 'not GET'"]
        );
        // A 405 is reachable through the method override, and the hint says how.
        assert!(h[0].text.contains("input.method"), "{}", h[0].text);
    }

    #[test]
    fn the_challengers_word_on_an_error_case_wins() {
        let c = ctx(Some(200), &[(404, "gone"), (409, "sold")], &[]);
        let own = hints(&c, &[oracle(Strategy::Fv, 200)]);
        assert_eq!(own.len(), 2);
        let model = Hint {
            test_id: "suite".into(),
            dimension: HintDimension::CoverageGaps,
            text: "do not add a 404 case: the route never reaches it".into(),
            origin: HintOrigin::Challenger,
            affects: vec![],
        };
        let kept = drop_answered(own, &[model]);
        assert_eq!(
            texts(&kept),
            vec!["no FI or BI oracle for error case 409 'sold'"]
        );
    }
}
