//! Names from the data with control characters and formula prefixes:
//! visible escapes on terminals and in text, the
//! OWASP rule in CSV, exact names in JSON, valid XML.

use std::fs;

use crate::common::{copy_db, output, s, timer_tree};

/// An ESC sequence (set the window title), a BEL and a leading `=`.
const EVIL: &str = "=Evil\x1b]0;pwn\x07()";
const SHOWN: &str = "=Evil\\x1b]0;pwn\\x07()";

/// small4 with "Compute()" renamed to [`EVIL`] in every header.
fn evil_db() -> tempfile::TempDir {
    let tmp = copy_db("small4");
    for e in fs::read_dir(tmp.path()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        if name.contains("_H") {
            let text = fs::read_to_string(&p).unwrap();
            fs::write(&p, text.replace("\"Compute()\"", &format!("\"{EVIL}\""))).unwrap();
        }
    }
    tmp
}

fn stdout(args: &[&str]) -> String {
    let out = output(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn no_raw_controls(text: &str) -> bool {
    text.chars().all(|c| !c.is_control() || c == '\n')
}

#[test]
fn terminal_outputs_show_control_characters_as_escapes() {
    let db = evil_db();
    let d = s(db.path());
    for args in [
        vec!["summary", d],
        vec!["summary", d, "--format", "reference"],
        vec!["regions", d],
        vec!["info", d],
        vec!["calltrace", d, "--proc", "0", "--delimiter", ","],
    ] {
        let out = stdout(&args);
        assert!(no_raw_controls(&out), "{args:?}: {out:?}");
    }
    let out = stdout(&["summary", d]);
    assert!(out.contains(SHOWN), "{out}");
}

#[test]
fn csv_text_cells_never_start_a_formula_and_numbers_stay_numbers() {
    let db = evil_db();
    let out = stdout(&["summary", s(db.path()), "--format", "csv"]);
    assert!(no_raw_controls(&out), "{out:?}");
    assert!(out.contains(&format!("'{SHOWN},")), "{out}");
    for line in out.lines() {
        assert!(!line.starts_with(['=', '+', '@']), "{line}");
    }
}

#[test]
fn json_keeps_the_exact_name() {
    let db = evil_db();
    let out = stdout(&["summary", s(db.path()), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(out.contains("\\u001b"), "serde escapes the ESC");
    let names: Vec<&str> = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert!(names.contains(&EVIL), "{names:?}");
}

#[test]
fn timer_tree_layouts_escape_names_and_xml_stays_well_formed() {
    let tmp = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(timer_tree("edge_cases.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["name"][0] = "=to\x1b[2Jp\rX\x00".into();
    let f = tmp.path().join("t.json");
    fs::write(&f, v.to_string()).unwrap();
    let f = s(&f);
    for layout in ["timer-tree", "truchas", "table"] {
        let out = output(&["-q", "tree", "show", f, "--layout", layout]);
        let out = String::from_utf8(out.stdout).unwrap();
        assert!(no_raw_controls(&out), "{layout}: {out:?}");
        assert!(out.contains("=to\\x1b[2Jp\\rX\\x00"), "{layout}: {out}");
    }
    let out = output(&["-q", "tree", "show", f, "--layout", "xml"]);
    let xml = String::from_utf8(out.stdout).unwrap();
    // XML 1.0: no control character but tab, LF, CR; ESC and NUL become
    // U+FFFD, CR a character reference.
    assert!(no_raw_controls(&xml), "{xml:?}");
    assert!(
        xml.contains("NAME=\"=to\u{fffd}[2Jp&#13;X\u{fffd}\""),
        "{xml}"
    );
}

/// `compare --svg` draws timer names into the picture: an ESC and a BEL
/// in a name (XML 1.0 cannot hold them, not even as character
/// references) become visible escapes, and the SVG parses as XML.
#[test]
fn compare_svg_of_a_name_with_control_characters_is_well_formed_xml() {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec!["compare".to_owned(), "--svg".to_owned()];
    let svg = tmp.path().join("scaling.svg");
    args.push(s(&svg).to_owned());
    for n in [1, 2, 4] {
        let name = format!("asyncout_24.10_np{n}.txt");
        let text =
            fs::read_to_string(crate::common::fixtures().join("tinyprofiler").join(&name)).unwrap();
        // Same length, so the report's columns stay aligned.
        let text = text.replace("MultiFab::min()", "Multi\x1b\x07b::min()");
        let f = tmp.path().join(name);
        fs::write(&f, text).unwrap();
        args.push(s(&f).to_owned());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    stdout(&args);
    let text = fs::read_to_string(&svg).unwrap();
    assert!(text.contains("Multi\\x1b\\x07b::min()"), "{text}");
    assert!(no_raw_controls(&text), "{text:?}");
    let parsed = crate::common::python(
        "import sys, xml.etree.ElementTree as E; \
         r = E.parse(sys.argv[1]).getroot(); print(r.tag)",
        &[svg.as_os_str()],
    );
    assert!(parsed.trim().ends_with("svg"), "{parsed}");
}
