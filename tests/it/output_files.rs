//! `-o FILE` and the other output files: written beside the destination and
//! renamed over it at the end, never over an input.

use std::fs;

use crate::common::{db, output, s, timer_tree};

fn code(args: &[&str]) -> (i32, String) {
    let out = output(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_input_is_never_written_over() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    fs::create_dir(&dir).unwrap();
    for e in fs::read_dir(db("small4")).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let header = dir.join("bl_prof_H");
    let before = fs::read(&header).unwrap();
    // A part of the database given as the output of a report on it.
    for args in [
        vec!["summary", s(&dir), "-o", s(&header)],
        vec![
            "calltree",
            s(&dir),
            "--format",
            "json",
            "--output",
            s(&header),
        ],
        vec!["regions", s(&dir), "--write-filter-file", s(&header)],
    ] {
        let (c, stderr) = code(&args);
        assert_eq!(c, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("refusing to write"), "{stderr}");
        assert_eq!(fs::read(&header).unwrap(), before, "{args:?}");
    }
    // Other files in the input folder may be written (and rewritten).
    let report = dir.join("summary.txt");
    for _ in 0..2 {
        assert_eq!(code(&["summary", s(&dir), "-o", s(&report)]).0, 0);
    }
    // The input file itself as the output.
    let tree = tmp.path().join("t.json");
    fs::copy(timer_tree("doc_example.json"), &tree).unwrap();
    let tree_before = fs::read(&tree).unwrap();
    let (c, stderr) = code(&["tree", "show", s(&tree), "--layout", "json", "-o", s(&tree)]);
    assert_eq!(c, 2, "{stderr}");
    assert_eq!(fs::read(&tree).unwrap(), tree_before);
}

#[test]
fn a_failed_run_leaves_the_old_output_and_no_temporary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.json");
    let d = db("small4");
    let (c, stderr) = code(&["calltree", s(&d), "--format", "json", "-o", s(&out)]);
    assert_eq!(c, 0, "{stderr}");
    let good = fs::read(&out).unwrap();
    // Fails after the output is opened: no such process.
    let (c, _) = code(&[
        "calltree",
        s(&d),
        "--format",
        "json",
        "--proc",
        "99",
        "-o",
        s(&out),
    ]);
    assert_ne!(c, 0);
    assert_eq!(fs::read(&out).unwrap(), good);
    let names: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["out.json"], "only the output is left");
    // Rewriting an existing output is allowed, and devices are written in place.
    assert_eq!(code(&["summary", s(&d), "-o", s(&out)]).0, 0);
    assert_eq!(code(&["summary", s(&d), "-o", "/dev/null"]).0, 0);
}

/// `man --dir DIR` with a page in DIR that is a symbolic link to a file
/// outside: the link is replaced by the page, its target left unchanged.
#[test]
fn man_dir_replaces_a_linked_page_and_leaves_its_target_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man");
    fs::create_dir(&dir).unwrap();
    let outside = tmp.path().join("precious.txt");
    fs::write(&outside, "do not overwrite\n").unwrap();
    let page = dir.join("profparse-calltree.1");
    std::os::unix::fs::symlink(&outside, &page).unwrap();
    let (c, err) = code(&["man", "--dir", s(&dir)]);
    assert_eq!(c, 0, "{err}");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "do not overwrite\n");
    assert!(
        !fs::symlink_metadata(&page)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(fs::read_to_string(&page).unwrap().contains(".TH"));
    // No temporary file left in DIR.
    let stray: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".1"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}
