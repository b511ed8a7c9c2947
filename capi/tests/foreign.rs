//! The C API and the Fortran module, compiled and run as their users do:
//! `fortran/timer_tree_type.F90` with gfortran, `capi/tests/c/timer_test.c`
//! with cc, both linked against the `libprofparse_timer` this build made.
//!
//! The Fortran tests are optional (`#[ignore]`): `cargo test --
//! --include-ignored` runs them (CI does, after installing gfortran), and
//! they fail when gfortran is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Where this build put `libprofparse_timer.a` and `.so`: beside the test
/// binary in `target/<profile>/deps` (`cargo test` builds them there and,
/// unlike `cargo build`, does not copy them up to `target/<profile>`).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

fn static_lib() -> PathBuf {
    let lib = lib_dir().join("libprofparse_timer.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn check(cmd: &mut Command) -> Output {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn on_path(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok()
}

/// Fails the (optional) test unless gfortran is on the PATH.
fn require_gfortran() {
    assert!(
        on_path("gfortran"),
        "gfortran is missing: this optional test needs it (apt-get install gfortran); \
         plain `cargo test` leaves it out"
    );
}

/// Fails the test unless a C compiler is on the PATH (Rust links with
/// `cc` on Linux, so every machine that builds the crate has one).
fn require_cc() {
    assert!(
        on_path("cc"),
        "cc is missing: the C API test needs a C compiler (apt-get install gcc)"
    );
}

/// The module compiled once: its directory holds `timer_tree_type.o` and
/// `timer_tree_type.mod`.
fn module_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("fortran-module");
        check(
            Command::new("gfortran")
                .args(["-std=f2008", "-Wall", "-Werror=conversion", "-c"])
                .arg(repo().join("fortran/timer_tree_type.F90"))
                .current_dir(&dir),
        );
        dir
    })
}

/// Builds `fortran/tests/<name>.f90` against the module and the static
/// library, once per test binary (tests that share a program must not run
/// it while another writes it); returns the program's path.
fn fortran_program(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let exe = scratch("fortran-programs").join(name);
    if built.iter().any(|b| b == name) {
        return exe;
    }
    let module = module_dir();
    check(
        Command::new("gfortran")
            .arg("-I")
            .arg(module)
            .arg(repo().join(format!("fortran/tests/{name}.f90")))
            .arg(module.join("timer_tree_type.o"))
            .arg(static_lib())
            .arg("-o")
            .arg(&exe),
    );
    built.push(name.to_owned());
    exe
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
#[ignore = "needs gfortran (apt-get install gfortran)"]
fn the_documented_example_program_prints_the_documented_tree() {
    require_gfortran();
    let out = check(&mut Command::new(fortran_program("doc_example")));
    let golden =
        std::fs::read_to_string(repo().join("fixtures/timertree/doc_example.doc_exact.txt"))
            .unwrap();
    let text = stdout(&out);
    // The times are measured; everything before each colon is the layout.
    let labels = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split(':').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(labels(&text), labels(&golden), "{text}");
    for line in text.lines() {
        let time = line.split(':').nth(1).unwrap();
        assert_eq!(time.len(), 12, "{line}");
        let seconds: f64 = time.trim().parse().unwrap();
        assert!((0.0..10.0).contains(&seconds), "{line}");
    }
}

/// One case of `fixtures/timertree`: the serialized arrays in the text form
/// `fortran/tests/layouts.f90` reads.
fn layouts_input(case: &str) -> PathBuf {
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join(format!("fixtures/timertree/{case}.json"))).unwrap(),
    )
    .unwrap();
    let ints = |key: &str| -> Vec<String> {
        json[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect()
    };
    let bits: Vec<String> = json["time"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let x = match v {
                serde_json::Value::String(s) => s.parse::<f64>().unwrap(),
                v => v.as_f64().unwrap(),
            };
            // The times are binary32 values: exact as bit patterns.
            i32::from_ne_bytes((x as f32).to_bits().to_ne_bytes()).to_string()
        })
        .collect();
    let names: Vec<&str> = json["name"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let text = format!(
        "{}\n{}\n{}\n{}\n",
        names.len(),
        ints("tree").join(" "),
        bits.join(" "),
        names.join("\n")
    );
    let path = scratch("fortran-inputs").join(format!("{case}.txt"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Every layout golden of the fixtures (`<case>.indent<N>.txt`,
/// `<case>.handle<H>.indent<N>.txt`), through the global tree and through an
/// instance: deserialize, check serialize gives the arrays back, write.
#[test]
#[ignore = "needs gfortran (apt-get install gfortran)"]
fn writes_match_the_reference_goldens_byte_for_byte() {
    require_gfortran();
    let program = fortran_program("layouts");
    let mut checked = 0;
    for entry in std::fs::read_dir(repo().join("fixtures/timertree")).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = file.strip_suffix(".txt") else {
            continue;
        };
        let parts: Vec<&str> = stem.split('.').collect();
        let (case, handle, indent) = match parts.as_slice() {
            [case, indent] => (*case, None, *indent),
            [case, handle, indent] => (*case, handle.strip_prefix("handle"), *indent),
            _ => continue,
        };
        let Some(indent) = indent.strip_prefix("indent") else {
            continue;
        };
        let input = layouts_input(case);
        let golden = std::fs::read(repo().join("fixtures/timertree").join(&file)).unwrap();
        for tree in ["global", "instance"] {
            let mut cmd = Command::new(&program);
            cmd.arg(&input).arg(tree).arg(indent).args(handle);
            let out = check(&mut cmd);
            assert!(
                out.stdout == golden,
                "{file} through the {tree} tree:\n{}",
                String::from_utf8_lossy(&out.stdout)
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} layouts checked");
}

fn misnest(mode: &str) -> Output {
    run(Command::new(fortran_program("misnest")).arg(mode))
}

#[test]
#[ignore = "needs gfortran (apt-get install gfortran)"]
fn a_misnested_stop_with_stat_returns_the_message_and_keeps_the_tree() {
    require_gfortran();
    let out = misnest("stat");
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "stat=-1\n\
         errmsg=TIMER_TREE%STOP: current timer is B; cannot stop A\n\
         stop B stat=0\n\
         stop A stat=0 errmsg allocated=F\n"
    );
    assert_eq!(stdout(&misnest("statonly")), "stat=-1\n");
    assert_eq!(
        stdout(&misnest("idle")),
        "stat=-1\nerrmsg=TIMER_TREE%STOP: current timer is ; cannot stop A\n"
    );
}

#[test]
#[ignore = "needs gfortran (apt-get install gfortran)"]
fn a_misnested_stop_without_stat_ends_the_program_with_the_message() {
    require_gfortran();
    let out = misnest("nostat");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("TIMER_TREE%STOP: current timer is B; cannot stop A\n"),
        "{stderr}"
    );
}

#[test]
#[ignore = "needs gfortran (apt-get install gfortran)"]
fn instances_are_independent_of_each_other_and_of_the_global_tree() {
    require_gfortran();
    let out = check(&mut Command::new(fortran_program("instances")));
    assert_eq!(
        stdout(&out),
        "handles one: 1 2 3\n\
         handle two: 1\n\
         read A >= 0: T\n\
         one tree: 1 2 2 3 3 1\n\
         one name length: 12\n\
         one names: A B C\n\
         two tree: 1 1\n\
         global tree: 1 1\n\
         outer: 5.00000E-01\n   inner: 2.50000E-01\n\
         inner: 2.50000E-01\n\
         read inner: 2.50000E-01\n\
         after reset: 0\n\
         after reset and start: 1 1\n"
    );
}

/// The C test program, linked statically and dynamically.
#[test]
fn the_c_test_program_passes_against_the_header() {
    require_cc();
    let dir = scratch("c-program");
    let source = repo().join("capi/tests/c/timer_test.c");
    let include = repo().join("capi/include");
    let golden = repo().join("fixtures/timertree/doc_example.doc_exact.txt");
    let cc = |exe: &Path| {
        let mut cmd = Command::new("cc");
        cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(&include)
            .arg(&source)
            .arg("-o")
            .arg(exe);
        cmd
    };
    let static_exe = dir.join("timer_test_static");
    check(cc(&static_exe).arg(static_lib()).arg("-lm"));
    let shared_exe = dir.join("timer_test_shared");
    check(
        cc(&shared_exe)
            .arg("-L")
            .arg(lib_dir())
            .arg(format!("-Wl,-rpath,{}", lib_dir().display()))
            .arg("-lprofparse_timer"),
    );
    for exe in [static_exe, shared_exe] {
        let out = check(Command::new(&exe).arg(&golden));
        assert_eq!(stdout(&out), "C API: all checks passed\n");
    }
}
