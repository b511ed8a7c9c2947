//! `profparse report`: the self-contained HTML page. Checks of the markup on
//! every fixture and on a database with only the base profile (every
//! section, no network address, tags that nest, every function escaped; the
//! trees, timelines and matrix against the commands that print the same
//! numbers), and a render in headless Chromium: the DOM after the script
//! ran, a search through the page's query string, and a screenshot that
//! must not be blank. The render tests are optional (`cargo test --
//! --include-ignored` runs them; CI does, after installing Debian's
//! `chromium`); a missing `/usr/bin/chromium`, or `PROFPARSE_CHROMIUM`'s
//! path, then fails them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::{self, db, profparse, require};

/// Section ids, in page order.
const SECTIONS: [&str; 6] = [
    "summary",
    "calltree",
    "regions",
    "timeline",
    "comm-matrix",
    "imbalance",
];

fn ok(out: Output, what: &str) -> Output {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Writes the report of `db` (with `extra` options) to `page` and returns it.
fn report(db: &Path, page: &Path, extra: &[&str]) -> String {
    let out = profparse()
        .arg("report")
        .arg(db)
        .arg("-o")
        .arg(page)
        .args(extra)
        .output()
        .unwrap();
    let out = ok(out, &format!("report {}", db.display()));
    assert!(
        out.stdout.is_empty(),
        "-o FILE leaves stdout empty: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    fs::read_to_string(page).unwrap()
}

/// Function names and average times, as `summary --format json` gives them.
fn summary_functions(db: &Path) -> Vec<(String, f64)> {
    let out = ok(
        profparse()
            .arg("summary")
            .arg(db)
            .args(["--format", "json"])
            .output()
            .unwrap(),
        "summary",
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["avg"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Text as Chromium serializes it in `--dump-dom` (quotes stay).
fn dom_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Opening (`<tag>` or `<tag …`) and closing tags of `tag`.
fn tag_counts(page: &str, tag: &str) -> (usize, usize) {
    let open =
        page.matches(&format!("<{tag}>")).count() + page.matches(&format!("<{tag} ")).count();
    (open, page.matches(&format!("</{tag}>")).count())
}

/// Checks that elements nest properly: every closing tag closes the
/// innermost open element. Void elements (`<meta>`) and self-closed SVG
/// elements (`<rect … />`) open nothing; scripts and styles are skipped.
fn check_nesting(page: &str, what: &str) {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = page;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        if rest.starts_with("<!") {
            let end = if rest.starts_with("<!--") { "-->" } else { ">" };
            rest = &rest[rest.find(end).unwrap() + end.len()..];
            continue;
        }
        let end = rest
            .find('>')
            .unwrap_or_else(|| panic!("{what}: unclosed tag"));
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop();
            assert_eq!(open, Some(name), "{what}: </{name}> closes {open:?}");
            continue;
        }
        let name = tag.split([' ', '/']).next().unwrap();
        if tag.ends_with('/') || VOID.contains(&name) {
            continue;
        }
        if name == "script" || name == "style" {
            let close = format!("</{name}>");
            rest = &rest[rest.find(&close).unwrap()..];
        }
        stack.push(name);
    }
    assert!(stack.is_empty(), "{what}: left open: {stack:?}");
}

/// The page without HTML comments and SVG namespace declarations: what is
/// left must not name any web address.
fn without_comments_and_xmlns(page: &str) -> String {
    let mut s = String::new();
    let mut rest = page;
    while let Some(i) = rest.find("<!--") {
        s.push_str(&rest[..i]);
        rest = rest[i..].find("-->").map_or("", |j| &rest[i + j + 3..]);
    }
    s.push_str(rest);
    s.replace("xmlns=\"http://www.w3.org/2000/svg\"", "")
}

/// Checks every page must pass: sections, no web references, balanced
/// tags, every function of the summary named (escaped).
fn check_page(page: &str, functions: &[(String, f64)], what: &str) {
    assert!(page.starts_with("<!DOCTYPE html>"), "{what}");
    assert!(page.trim_end().ends_with("</html>"), "{what}");
    for id in SECTIONS {
        assert!(
            page.contains(&format!("<section id=\"{id}\">")),
            "{what}: section {id} missing"
        );
    }
    let bare = without_comments_and_xmlns(page);
    assert!(
        !bare.contains("http://") && !bare.contains("https://"),
        "{what}: the page refers to the network"
    );
    for tag in [
        "html", "head", "body", "header", "nav", "section", "footer", "table", "thead", "tbody",
        "tr", "th", "td", "details", "summary", "svg", "title", "text", "script", "style", "div",
        "p", "h1", "h2", "h3", "ul", "li", "code",
    ] {
        let (open, close) = tag_counts(page, tag);
        assert_eq!(open, close, "{what}: <{tag}> opened {open}, closed {close}");
    }
    assert!(tag_counts(page, "section").0 >= SECTIONS.len());
    check_nesting(page, what);
    for (name, _) in functions {
        assert!(
            page.contains(&format!("<tr><td>{}</td>", escape(name))),
            "{what}: function {name:?} not in the summary table"
        );
    }
}

/// A database holding only the base profile of small4 (no traces, no comm).
fn base_only(dir: &Path) -> PathBuf {
    let db = dir.join("bl_prof");
    fs::create_dir(&db).unwrap();
    for e in fs::read_dir(common::db("small4")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if name == "bl_prof_H" || name.starts_with("bl_prof_D_") {
            fs::copy(e.path(), db.join(&name)).unwrap();
        }
    }
    db
}

fn every_fixture_gets_every_section(name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(name);
    let page = report(&db, &tmp.path().join(format!("{name}.html")), &[]);
    check_page(&page, &summary_functions(&db), name);
    // With all three parts nothing is missing; one process sends nothing.
    let absent: Vec<&str> = page
        .match_indices("<p class=\"absent\">")
        .map(|(i, _)| &page[i..])
        .collect();
    if name == "single" {
        assert_eq!(absent.len(), 1);
        assert!(absent[0].starts_with("<p class=\"absent\">No messages were sent."));
    } else {
        assert!(absent.is_empty(), "{name}");
    }
    assert!(page.contains("id=\"summary-table\""), "{name}");
    assert!(page.contains("id=\"regions-table\""), "{name}");
    for id in ["calltree-top-down", "calltree-bottom-up"] {
        assert!(page.contains(&format!("id=\"{id}\"")), "{name}: {id}");
    }
    assert!(!page.contains("left out"), "{name}: fixtures' trees fit");
    // The depth selector of the trace timeline: depth 0 always, and it
    // works without scripts (CSS shows the checked depth's picture).
    assert!(
        page.contains("<input type=\"radio\" name=\"tl-depth\" id=\"tl-d0\""),
        "{name}"
    );
    assert!(
        page.contains("#tl-d0:checked~#tl-0{display:block}"),
        "{name}"
    );
    assert_eq!(
        page.matches(" checked>").count(),
        1,
        "{name}: one depth selected"
    );
    // The search box shows only with scripts.
    assert!(page.contains("<div id=\"search-bar\" hidden>"), "{name}");
    // Trace timeline, comm timeline, matrix, one per-process picture per function.
    assert!(page.matches("<svg ").count() >= 4, "{name}");
    assert!(page.contains("One bar per process"), "{name}");
}

database_tests!(every_fixture_gets_every_section);

/// One row of a tree: depth, name, then the numbers: average inclusive and
/// exclusive seconds, calls, inclusive min and max, process of the max.
type Row = (usize, String, [f64; 5], Option<u64>);

/// The rows of the page's tree `id`, in page order, from their `--d`,
/// `data-v` and name cell.
fn page_rows(page: &str, id: &str) -> Vec<Row> {
    let start = page
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("{id}"));
    let tree = &page[start..];
    // The tree ends before the next heading or the section's end.
    let end = [tree.find("</div>\n<h3"), tree.find("</section>")]
        .into_iter()
        .flatten()
        .min()
        .unwrap();
    let tree = &tree[..end];
    let mut rows = Vec::new();
    for part in tree.split("style=\"--d:").skip(1) {
        let depth: usize = part[..part.find('"').unwrap()].parse().unwrap();
        let v = &part[part.find("data-v=\"").unwrap() + 8..];
        let v: Vec<&str> = v[..v.find('"').unwrap()].split(' ').collect();
        let name = &part[part.find("title=\"").unwrap() + 7..];
        let name = name[..name.find('"').unwrap()]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        let num = |i: usize| v[i].parse::<f64>().unwrap();
        rows.push((
            depth,
            name,
            [num(0), num(1), num(2), num(3), num(4)],
            v[5].parse().ok(),
        ));
    }
    rows
}

/// The rows of a `calltree --format json` tree, in pre-order.
fn json_rows(v: &Value) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut stack: Vec<(usize, &Value)> = v["roots"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .map(|n| (0, n))
        .collect();
    while let Some((depth, n)) = stack.pop() {
        let f = |k: &str| n[k].as_f64().unwrap();
        rows.push((
            depth,
            n["name"].as_str().unwrap().to_owned(),
            [
                f("inclusive_avg"),
                f("exclusive_avg"),
                f("calls"),
                f("inclusive_min"),
                f("inclusive_max"),
            ],
            n["max_proc"].as_u64(),
        ));
        stack.extend(
            n["children"]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .map(|c| (depth + 1, c)),
        );
    }
    rows
}

fn same_rows(page: &[Row], json: &[Row], what: &str) {
    assert_eq!(page.len(), json.len(), "{what}: rows");
    for (a, b) in page.iter().zip(json) {
        assert_eq!((a.0, &a.1, a.3), (b.0, &b.1, b.3), "{what}");
        for (x, y) in a.2.iter().zip(&b.2) {
            assert!(
                (x - y).abs() <= 1e-12 * y.abs().max(1e-9),
                "{what}: {}: {x} vs {y}",
                a.1
            );
        }
    }
}

/// The page's trees hold the numbers of `calltree --format json` and
/// `calltree --bottom-up --format json`, node for node and in their order,
/// merged and for one process, and bounded by --depth as they are.
fn trees_equal_calltree_json(name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let db = db(name);
    for extra in [&[][..], &["--proc", "0"][..], &["--depth", "2"][..]] {
        let page = report(&db, &tmp.path().join("r.html"), extra);
        for (id, flags) in [
            ("calltree-top-down", &[][..]),
            ("calltree-bottom-up", &["--bottom-up"][..]),
        ] {
            let out = ok(
                profparse()
                    .arg("calltree")
                    .arg(&db)
                    .args(["--format", "json"])
                    .args(flags)
                    .args(extra)
                    .output()
                    .unwrap(),
                "calltree",
            );
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            let want = json_rows(&v);
            assert!(!want.is_empty(), "{name} {id}");
            same_rows(
                &page_rows(&page, id),
                &want,
                &format!("{name} {id} {extra:?}"),
            );
        }
    }
}

database_tests!(trees_equal_calltree_json);

#[test]
fn small4_page_shows_the_analyses_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let db = db("small4");
    let page = report(&db, &tmp.path().join("r.html"), &["--top", "3"]);
    // Regions of the `regions` command.
    for r in ["R::Step", "R::Compute", "R::Comm", "RV::Reduce"] {
        assert!(page.contains(&format!("<tr><td>{r}</td>")), "{r}");
    }
    // Call tree nodes of the `calltree` command (merged over 4 processes).
    assert!(page.contains("4 processes merged"));
    assert!(page.contains("<span class=\"n\" title=\"main()\">main()</span>"));
    assert!(page.contains("largest inclusive time of one process\">Incl max</span>"));
    // Three imbalance pictures, four bars each.
    let imb = &page[page.find("<section id=\"imbalance\">").unwrap()..];
    assert_eq!(imb.matches("<div class=\"imb\">").count(), 3);
    assert_eq!(imb.matches("<title>process ").count(), 12);
    // The largest maximum first: amrex_mempool_init() (0.0209 s on process 3).
    assert!(imb.contains("<h3>amrex_mempool_init()</h3>"));
}

#[test]
fn base_only_database_says_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let db = base_only(tmp.path());
    let page = report(&db, &tmp.path().join("r.html"), &[]);
    check_page(&page, &summary_functions(&db), "base only");
    let traces =
        "The database has no call traces (bl_call_stats_H); the run needs TRACE_PROFILE=TRUE.";
    let comm = "The database has no communication profile (bl_comm_prof_H); the run needs COMM_PROFILE=TRUE.";
    // Call tree, regions, trace timeline; comm timeline, matrix.
    assert_eq!(page.matches(traces).count(), 3);
    assert_eq!(page.matches(comm).count(), 2);
    assert!(page.contains("id=\"summary-table\""));
    assert!(page.contains("<div class=\"imb\">"));
}

#[test]
fn damaged_data_still_gives_a_page_with_its_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("bl_prof");
    fs::create_dir(&db).unwrap();
    for e in fs::read_dir(common::db("small4")).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), db.join(e.file_name())).unwrap();
    }
    let cut = |name: &str, len: u64| {
        fs::OpenOptions::new()
            .write(true)
            .open(db.join(name))
            .unwrap()
            .set_len(len)
            .unwrap()
    };
    cut("bl_call_stats_D_00002", 1000);
    cut("bl_comm_prof_D_00001", 100);
    cut("bl_prof_D_00003", 50);
    let page_path = tmp.path().join("r.html");
    let out = profparse()
        .arg("report")
        .arg(&db)
        .arg("-o")
        .arg(&page_path)
        .output()
        .unwrap();
    // A report from damaged input: exit code 3 (docs/ERRORS.md).
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let page = fs::read_to_string(&page_path).unwrap();
    check_page(&page, &[], "damaged");
    let listed: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert!(listed.len() >= 3, "{stderr}");
    let mut unique = listed.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), listed.len(), "each warning once: {stderr}");
    assert!(page.contains("<section id=\"warnings\">"));
    assert_eq!(page.matches("<li>").count(), listed.len());
    assert!(page.contains("process 3 left out"));
    // The readable processes still show.
    assert!(page.contains("id=\"summary-table\"") && page.contains("id=\"calltree-top-down\""));
}

#[test]
fn stdout_by_default_and_proc_focus() {
    let db = db("small4");
    let out = ok(
        profparse()
            .arg("report")
            .arg(&db)
            .args(["--proc", "2"])
            .output()
            .unwrap(),
        "report --proc 2",
    );
    let page = String::from_utf8(out.stdout).unwrap();
    check_page(&page, &summary_functions(&db), "--proc 2");
    assert!(page.contains("NCalls = calls on process 2"));
    assert!(page.contains("From the call traces, process 2."));
    assert!(
        page.contains("process 2: "),
        "the outlined process is named"
    );
    assert!(page.contains("stroke=\"#000\""), "its bars are outlined");

    profparse()
        .arg("report")
        .arg(&db)
        .args(["--proc", "4"])
        .assert()
        .code(2);
}

#[test]
fn many_processes_get_histograms_and_bounded_pictures() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("synth");
    ok(
        profparse()
            .args(["synth", "blprof"])
            .arg(&db)
            .args(["--procs", "40", "--calls", "300", "--messages", "20"])
            .output()
            .unwrap(),
        "synth",
    );
    let page = report(&db, &tmp.path().join("r.html"), &["--proc", "7"]);
    check_page(&page, &summary_functions(&db), "synth 40");
    let imb = &page[page.find("<section id=\"imbalance\">").unwrap()..];
    assert!(imb.contains("a histogram instead"));
    assert!(!imb.contains("<title>process "), "no bar per process");
    assert!(imb.contains("process(es) with"));
    assert!(histogram_labels_read(imb) > 40, "{imb}");
    // Bounded: bars never exceed columns × processes per picture, and the
    // deeper depths' pictures a fixed number of bars, whatever the calls.
    let tl = &page[page.find("<section id=\"timeline\">").unwrap()
        ..page.find("<section id=\"comm-matrix\">").unwrap()];
    let pictures = tl.matches("<svg ").count();
    assert!(
        tl.matches("<rect").count() <= 2 * 1130 * 40 + 30_000 + pictures,
        "{} bars",
        tl.matches("<rect").count()
    );
}

/// Seconds of a time for people: `0` (exact zero) or a number and its
/// unit; `None` for anything else (a bare number).
fn seconds_with_unit(text: &str) -> Option<f64> {
    if text == "0" {
        return Some(0.0);
    }
    let (number, unit) = text.split_once(' ')?;
    let scale = match unit {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" => 1e-6,
        "ns" => 1e-9,
        _ => return None,
    };
    Some(number.parse::<f64>().ok()? * scale)
}

/// The bin labels (`449.0 µs–493.4 µs`) of every histogram in `section`:
/// both ends with units, no end reads as zero unless it is written `0`,
/// each bin starts where the one before ended and neighbouring bins read
/// apart. Returns the labels checked.
fn histogram_labels_read(section: &str) -> usize {
    let mut checked = 0;
    for svg in section.split("<svg ").skip(1) {
        let mut last_end: Option<(&str, f64)> = None;
        for piece in svg.split("<text x=\"4\" y=\"").skip(1) {
            let label = &piece[piece.find('>').unwrap() + 1..piece.find("</text>").unwrap()];
            let (a, z) = label
                .split_once('–')
                .unwrap_or_else(|| panic!("not a bin: {label}"));
            let read = |end: &str| {
                let x = seconds_with_unit(end).unwrap_or_else(|| panic!("no unit: {label}"));
                assert!(x != 0.0 || end == "0", "reads as zero: {label}");
                x
            };
            let (x, y) = (read(a), read(z));
            assert!(x < y, "the bin's ends alike: {label}");
            if let Some((end, at)) = last_end {
                assert_eq!(a, end, "not where the bin before ended: {label}");
                assert!(at < y, "{label}");
            }
            last_end = Some((z, y));
            // Its bar's tooltip says the same.
            assert!(
                piece.contains(&format!("process(es) with {label}</title>")),
                "{piece}"
            );
            checked += 1;
        }
    }
    checked
}

/// Chromium (`PROFPARSE_CHROMIUM`, else /usr/bin/chromium); the
/// (optional) test fails when it is missing.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PROFPARSE_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    require(
        path.exists(),
        &path.display().to_string(),
        "apt-get install chromium, or PROFPARSE_CHROMIUM=PATH",
    );
    path
}

/// Runs headless Chromium on `page` with `args` (bounded by `timeout`).
fn headless(chromium: &Path, profile: &Path, page: &Path, args: &[&str]) -> Output {
    headless_url(
        chromium,
        profile,
        &format!("file://{}", page.display()),
        args,
    )
}

/// [`headless`] on an address (a page with a query string).
fn headless_url(chromium: &Path, profile: &Path, url: &str, args: &[&str]) -> Output {
    let out = std::process::Command::new("timeout")
        .arg("180")
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Width, height and RGBA pixels of a PNG.
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<[u8; 4]>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let data = &buf[..info.buffer_size()];
    let px: Vec<[u8; 4]> = match info.color_type {
        png::ColorType::Rgba => data
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
        png::ColorType::Rgb => data
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    (info.width, info.height, px)
}

#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn chromium_renders_the_page_and_runs_its_script() {
    let chromium = chromium();
    let tmp = tempfile::tempdir().unwrap();
    let full = tmp.path().join("small4.html");
    let db = db("small4");
    report(&db, &full, &[]);
    let base_dir = tempfile::tempdir().unwrap();
    let base_db = base_only(base_dir.path());
    let base = tmp.path().join("base.html");
    report(&base_db, &base, &[]);

    for (page, db) in [(&full, &db), (&base, &base_db)] {
        let profile = tempfile::tempdir().unwrap();
        let dom = headless(&chromium, profile.path(), page, &["--dump-dom"]);
        let dom = String::from_utf8(dom.stdout).unwrap();
        for id in SECTIONS {
            assert!(
                dom.contains(&format!("<section id=\"{id}\">")),
                "{}: rendered DOM lacks section {id}",
                page.display()
            );
        }
        // The sort script ran: it marks the table and sorts it by average
        // time, largest first (the page itself lists functions by name).
        let table = &dom[dom.find("id=\"summary-table\"").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        assert!(
            dom.contains(
                "class=\"sortable filterable\" id=\"summary-table\" data-sortable=\"ready\""
            ),
            "{}: the sort script did not run",
            page.display()
        );
        assert!(table.contains("aria-sort=\"descending\""));
        let mut functions = summary_functions(db);
        functions.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let body = &table[table.find("<tbody>").unwrap()..];
        let first = body.split("<tr>").nth(1).unwrap();
        assert!(
            first.starts_with(&format!("<td>{}</td>", dom_escape(&functions[0].0))),
            "{}: first row after sorting by average: {first}",
            page.display()
        );
    }

    let profile = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("shot.png");
    headless(
        &chromium,
        profile.path(),
        &full,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000",
        ],
    );
    let bytes = fs::read(&shot).expect("chromium wrote no screenshot");
    assert!(
        bytes.len() > 40_000,
        "screenshot of {} bytes is too small for the page",
        bytes.len()
    );
    let (w, h, px) = decode_png(&bytes);
    assert_eq!((w, h), (1280, 2000));
    let mut colours: Vec<[u8; 4]> = px.clone();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 50,
        "only {} colours: the page did not render",
        colours.len()
    );
    let ink = px.iter().filter(|p| p[..3] != [255, 255, 255]).count();
    assert!(
        ink * 50 > px.len(),
        "only {ink} of {} pixels are not white",
        px.len()
    );
}

/// The opening tags of `<div class="row leaf …>` in `html`, with the
/// (escaped) name each row shows.
fn leaf_tags(html: &str) -> Vec<(&str, &str)> {
    html.split("<div class=\"row leaf")
        .skip(1)
        .map(|part| {
            let tag = &part[..part.find('>').unwrap()];
            let name = &part[part.find("title=\"").unwrap() + 7..];
            (tag, &name[..name.find('"').unwrap()])
        })
        .collect()
}

/// `?q=exchange` in the page's address fills the search box: in the
/// rendered DOM the tree rows that do not match (and hold no match below)
/// and the table rows that do not match are hidden, the branches above a
/// match open, and the status counts the matches.
#[test]
#[ignore = "needs chromium (apt-get install chromium)"]
fn chromium_search_box_filters_trees_and_tables() {
    let chromium = chromium();
    let tmp = tempfile::tempdir().unwrap();
    let page_path = tmp.path().join("small4.html");
    let db = db("small4");
    let page = report(&db, &page_path, &[]);
    let q = "exchange";
    let hit = |name: &str| name.to_lowercase().contains(q);
    // The matches, from the page as written.
    let tree_hits: usize = ["calltree-top-down", "calltree-bottom-up"]
        .iter()
        .map(|id| page_rows(&page, id).iter().filter(|r| hit(&r.1)).count())
        .sum();
    let function_hits = summary_functions(&db).iter().filter(|f| hit(&f.0)).count();
    let regions = &page[page.find("id=\"regions-table\"").unwrap()..];
    let regions = &regions[..regions.find("</table>").unwrap()];
    let region_hits = regions
        .split("<tr><td>")
        .skip(1)
        .filter(|r| hit(&r[..r.find("</td>").unwrap()]))
        .count();
    assert!(tree_hits > 0 && function_hits > 0);

    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}?q={q}", page_path.display());
    let dom = headless_url(&chromium, profile.path(), &url, &["--dump-dom"]);
    let dom = String::from_utf8(dom.stdout).unwrap();
    assert!(
        dom.contains("<div id=\"search-bar\">"),
        "the script shows the search box"
    );
    assert!(dom.contains("id=\"search\""));
    let matches = tree_hits + function_hits + region_hits;
    assert!(
        dom.contains(&format!(
            "data-matches=\"{matches}\">{matches} matching rows"
        )),
        "status: {}",
        &dom[dom.find("id=\"search-status\"").unwrap()..][..120]
    );
    // Leaves have nothing below them: hidden exactly when they do not match.
    let trees = &dom[dom.find("id=\"calltree-top-down\"").unwrap()
        ..dom.find("<section id=\"regions\">").unwrap()];
    let leaves = leaf_tags(trees);
    assert!(leaves.iter().any(|(tag, _)| tag.contains("hidden")));
    for (tag, name) in &leaves {
        assert_eq!(
            tag.contains(" hidden=\"\""),
            !hit(name),
            "leaf {name}: {tag}"
        );
        assert_eq!(tag.contains(" match\""), hit(name), "leaf {name}: {tag}");
    }
    // main() holds the matches: shown, open, not marked.
    assert!(
        trees
            .contains("<details open=\"\" data-open0=\"1\"><summary class=\"row\" style=\"--d:0\""),
        "the outermost branch opens"
    );
    // The summary table: only the matching functions stay.
    let table = &dom[dom.find("id=\"summary-table\"").unwrap()..];
    let table = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
    let rows: Vec<&str> = table.split("<tr").skip(1).collect();
    assert_eq!(rows.len(), summary_functions(&db).len());
    for r in rows {
        let name = &r[r.find("<td>").unwrap() + 4..];
        let name = &name[..name.find("</td>").unwrap()];
        assert_eq!(r.starts_with(" hidden=\"\""), !hit(name), "row {name}");
    }
}

#[test]
#[should_panic(expected = "closes")]
fn nesting_check_catches_crossed_tags() {
    check_nesting("<div><p>x</div></p>", "crossed");
}

/// The header texts and the rows of `(data-v, shown)` cells of the table
/// `id` of `page` (the name cells, which have no `data-v`, left out).
fn sortable_table(page: &str, id: &str) -> (Vec<String>, Vec<Vec<(f64, String)>>) {
    let start = page
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("{id}"));
    let table = &page[start..];
    let table = &table[..table.find("</table>").unwrap()];
    let (head, body) = table.split_once("<tbody>").unwrap();
    let headers = head
        .split("<th")
        .skip(1)
        .filter(|h| !h.starts_with("ead"))
        .map(|h| {
            let h = &h[h.find('>').unwrap() + 1..];
            h[..h.find("</th>").unwrap()].to_owned()
        })
        .collect();
    let rows = body
        .split("<tr>")
        .skip(1)
        .map(|r| {
            r.split("<td data-v=\"")
                .skip(1)
                .filter_map(|c| {
                    let (key, rest) = c.split_once("\">")?;
                    let shown = &rest[..rest.find("</td>")?];
                    Some((key.parse().ok()?, shown.to_owned()))
                })
                .collect()
        })
        .collect();
    (headers, rows)
}

/// The time cells of the table `id` (the columns named in `times`, counted
/// among the cells with a sort key): each shows its exact `data-v` with a
/// unit, to 4 significant digits, and reads as zero only when it is.
/// Returns the cells checked.
fn times_have_units(page: &str, id: &str, times: &[&str]) -> usize {
    let (headers, rows) = sortable_table(page, id);
    // Headers of the keyed cells: every header but the name's.
    let keyed: Vec<&String> = headers.iter().skip(1).collect();
    let columns: Vec<usize> = times
        .iter()
        .map(|t| {
            keyed
                .iter()
                .position(|h| h == t)
                .unwrap_or_else(|| panic!("{id}: no column {t} in {headers:?}"))
        })
        .collect();
    let mut checked = 0;
    for row in &rows {
        for &c in &columns {
            let (exact, shown) = &row[c];
            let n = common::line_numbers(shown);
            let unit = shown.ends_with(" s")
                || shown.ends_with(" ms")
                || shown.ends_with(" µs")
                || shown.ends_with(" ns");
            assert!(
                unit || (*exact == 0.0 && shown == "0"),
                "{id} {}: {shown}",
                keyed[c]
            );
            let v = n[0].unwrap();
            assert_eq!(v == 0.0, *exact == 0.0, "{id}: {shown} for {exact}");
            assert!(common::shows(v, *exact), "{id}: {shown} for {exact}");
            checked += 1;
        }
    }
    checked
}

/// The function summary and the regions table show times with units (no
/// `0.0000` for microsecond functions), and sort by the exact value.
fn summary_and_regions_times_have_units(name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let page = report(&db(name), &tmp.path().join("r.html"), &[]);
    let n = times_have_units(&page, "summary-table", &["Min", "Avg", "Max", "StdDev"]);
    assert!(n > 0, "{name}");
    if page.contains("id=\"regions-table\"") {
        times_have_units(&page, "regions-table", &["Total", "Min", "Avg", "Max"]);
    }
    // The column sorted by default still sorts by its key.
    assert!(
        page.contains("data-default-sort=\"descending\">Avg</th>"),
        "{name}"
    );
}

database_tests!(summary_and_regions_times_have_units);

/// The page of a job log: the timer tables' times with units.
#[test]
fn tinyprofiler_page_times_have_units() {
    let tmp = tempfile::tempdir().unwrap();
    let log = common::fixtures().join("tinyprofiler/singlevortex_24.10_np2.txt");
    let page = report(&log, &tmp.path().join("r.html"), &[]);
    let id = page
        .split("id=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .find(|s| page.contains(&format!("<table class=\"sortable\" id=\"{s}\"")))
        .unwrap()
        .to_owned();
    let times = [
        "Excl. min",
        "Excl. avg",
        "Excl. max",
        "Incl. min",
        "Incl. avg",
        "Incl. max",
    ];
    assert!(times_have_units(&page, &id, &times) > 40 * 6);
}
