//! JUnit XML for CI: one `<testsuite>` per op_id (a sequence goes under its group id),
//! one `<testcase>` per oracle, `<failure>`/`<error>`/`<skipped>` carrying expected vs
//! actual and the curl line. Written with quick-xml so escaping is never hand-rolled.

use crate::model::{Outcome, Verdict};
use crate::runner::report::{failure_details, failure_message};
use crate::text::escape_controls;
use quick_xml::Writer;
use quick_xml::events::{BytesCData, BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use std::collections::BTreeMap;
use std::io::Cursor;

/// Renders verdicts as a JUnit XML document.
pub fn render(verdicts: &[Verdict]) -> Result<String, std::io::Error> {
    let mut suites: BTreeMap<&str, Vec<&Verdict>> = BTreeMap::new();
    for v in verdicts {
        let suite = v.o_id.split_once('#').map_or(v.o_id.as_str(), |(op, _)| op);
        suites.entry(suite).or_default().push(v);
    }
    let mut w = Writer::new_with_indent(Cursor::new(Vec::new()), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let count = |vs: &[&Verdict], o: Outcome| vs.iter().filter(|v| v.outcome == o).count();
    let all: Vec<&Verdict> = verdicts.iter().collect();
    let mut root = BytesStart::new("testsuites");
    root.push_attribute(("name", "mastor"));
    root.push_attribute(("tests", all.len().to_string().as_str()));
    root.push_attribute(("failures", count(&all, Outcome::Fail).to_string().as_str()));
    root.push_attribute(("errors", count(&all, Outcome::Error).to_string().as_str()));
    root.push_attribute((
        "skipped",
        count(&all, Outcome::Skipped).to_string().as_str(),
    ));
    w.write_event(Event::Start(root))?;
    for (name, vs) in &suites {
        let mut suite = BytesStart::new("testsuite");
        suite.push_attribute(("name", escape_controls(name).as_ref()));
        suite.push_attribute(("tests", vs.len().to_string().as_str()));
        suite.push_attribute(("failures", count(vs, Outcome::Fail).to_string().as_str()));
        suite.push_attribute(("errors", count(vs, Outcome::Error).to_string().as_str()));
        suite.push_attribute(("skipped", count(vs, Outcome::Skipped).to_string().as_str()));
        w.write_event(Event::Start(suite))?;
        for v in vs {
            let elapsed: u64 = v
                .steps
                .iter()
                .filter_map(|s| s.exchange.as_ref().map(|e| e.elapsed_ms))
                .sum();
            let mut case = BytesStart::new("testcase");
            case.push_attribute(("classname", escape_controls(name).as_ref()));
            case.push_attribute(("name", escape_controls(&v.o_id).as_ref()));
            case.push_attribute(("time", format!("{:.3}", elapsed as f64 / 1000.0).as_str()));
            let tag = match v.outcome {
                Outcome::Pass => None,
                Outcome::Fail => Some("failure"),
                Outcome::Error => Some("error"),
                Outcome::Skipped => Some("skipped"),
            };
            let Some(tag) = tag else {
                w.write_event(Event::Empty(case))?;
                continue;
            };
            w.write_event(Event::Start(case))?;
            let mut el = BytesStart::new(tag);
            let message = failure_message(v);
            let message = escape_controls(&message);
            el.push_attribute(("message", message.as_ref()));
            if v.outcome == Outcome::Skipped {
                w.write_event(Event::Empty(el))?;
            } else {
                el.push_attribute(("type", tag));
                w.write_event(Event::Start(el))?;
                let details = failure_details(v);
                if details.contains("]]>") {
                    w.write_event(Event::Text(BytesText::new(&details)))?;
                } else {
                    w.write_event(Event::CData(BytesCData::new(details)))?;
                }
                w.write_event(Event::End(BytesEnd::new(tag)))?;
            }
            w.write_event(Event::End(BytesEnd::new("testcase")))?;
        }
        w.write_event(Event::End(BytesEnd::new("testsuite")))?;
    }
    w.write_event(Event::End(BytesEnd::new("testsuites")))?;
    String::from_utf8(w.into_inner().into_inner())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}
