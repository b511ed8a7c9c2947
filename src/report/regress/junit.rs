//! `regress --format junit`: JUnit XML for CI dashboards (Jenkins, GitLab,
//! GitHub test reporters). One test case per timer: `slower` is a
//! failure, `too noisy to tell` is skipped (nothing could be decided), the
//! others pass; each case's message carries the numbers.

use std::io::{self, Write};

use super::{RegressReport, change_text, ci_text, name, prob, seconds, verdict_text};
use crate::analysis::regress::verdict::Verdict;
use crate::report::renderers::html::escape::markup;

pub fn write(r: &RegressReport, w: &mut dyn Write) -> io::Result<()> {
    let [slower, _, noisy, _] = r.regress.counts();
    let tests = r.regress.timers.len();
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        w,
        r#"<testsuites name="profparse regress" tests="{tests}" failures="{slower}" skipped="{noisy}">"#
    )?;
    writeln!(
        w,
        r#"  <testsuite name="profparse regress" tests="{tests}" failures="{slower}" skipped="{noisy}" errors="0">"#
    )?;
    let notes: Vec<String> = std::iter::once(r.heading()).chain(r.caveats()).collect();
    writeln!(w, "    <system-out>{}</system-out>", markup(&notes.join("\n")))?;
    for t in &r.regress.timers {
        let numbers = format!(
            "{}: base {}, new {}, change {} (95 % CI {}), p {}, q {}",
            verdict_text(t),
            seconds(t.base_median),
            seconds(t.new_median),
            change_text(t),
            ci_text(t),
            prob(t.p),
            prob(t.q)
        );
        let body = match t.verdict {
            Verdict::Slower => format!(
                r#"<failure type="slower" message="{}"/>"#,
                markup(&numbers)
            ),
            Verdict::Noisy => format!(r#"<skipped message="{}"/>"#, markup(&numbers)),
            _ => format!("<system-out>{}</system-out>", markup(&numbers)),
        };
        writeln!(
            w,
            "    <testcase classname=\"profparse.regress\" name=\"{}\">\n      {body}\n    </testcase>",
            markup(&name(t))
        )?;
    }
    writeln!(w, "  </testsuite>\n</testsuites>")
}
