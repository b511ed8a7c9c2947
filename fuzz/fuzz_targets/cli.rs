//! Whole command lines, in process (`profparse::cli::run_in_process`:
//! argument parsing, commands, renderers, output files) on inputs patched by
//! the fuzz input — a four-process bl_prof database (the `small4` fixture), a
//! tlog trace, a timer tree and an AMReX job log.
//!
//! Input: byte 0 picks a command line from `COMMANDS`; then patches
//! `file: u8` (mod the number of files), `op: u8`:
//! - `op & 0x80`: the file's content becomes the next `u16 LE` bytes;
//! - otherwise: `u32 LE` offset (mod the file's length + 1), then `op`
//!   bytes written there (the file grows when they pass its end).
//!
//! Run it with `-close_fd_mask=3` (fuzz/run.sh does): the reports go to a
//! closed stdout, whose writes std treats as done.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// Command lines; `DB` is the patched database, `BASE` the unpatched one,
/// `TLOG`, `TREE` and `LOG` the other inputs, `OUT` a directory for outputs.
const COMMANDS: &[&str] = &[
    "info DB",
    "info DB --format json",
    "summary DB",
    "summary DB --format json",
    "summary DB --format csv",
    "summary DB --format reference --proc 3",
    "summary DB --sort imbalance --top 3 --wide",
    "summary DB --width 20",
    "calltree DB --width 30 --top 1 --aggregate sum",
    "calltree DB --bottom-up --width 1 --depth 2",
    "comm time DB --width 50",
    "regions DB --width 0",
    "trace-summary DB",
    "trace-summary DB --format json --proc 2",
    "trace-summary DB --format reference --exclude-region RComm",
    "trace-summary DB --include-region R* --format csv",
    "regions DB --proc 1",
    "regions DB --format json --write-filter-file OUT/filters",
    "calltree DB",
    "calltree DB --proc 1 --format json",
    "calltree DB --format folded",
    "calltree DB --format html -o OUT/tree.html",
    "calltree DB --format hatchet",
    "calltree DB --bottom-up --depth 3",
    "calltree DB --focus main --top 2 --min-percent 1",
    "calltree DB --exclude-region RComm --wide",
    "calltrace DB --proc 0",
    "calltrace DB --proc 3 --no-combine --reference-names",
    "check DB",
    "check DB --format json",
    "report DB -o OUT/report.html",
    "report DB --proc 1 --depth 4 -o OUT/report.html",
    "diff BASE DB",
    "diff BASE DB --format json --metric exclusive --sort rel",
    "diff TREE TREE --metric calls",
    "export DB --chrome OUT/trace.json",
    "export DB --chrome OUT/trace.json --proc 1 --min-dur 0.0001 --no-comm",
    "export DB --parquet OUT/pq",
    "export DB --tau OUT/tau --proc 0,2",
    "comm stats DB",
    "comm stats DB --format json --proc 2",
    "comm barriers DB",
    "comm barriers DB --reductions --format json",
    "comm matrix DB --svg OUT/m.svg",
    "comm matrix DB --format csv",
    "comm pairs DB",
    "comm pairs DB --format json --time 0..0.5",
    "comm time DB",
    "comm time DB --format csv --exclude-region RComm",
    "comm timeline DB --svg OUT/t.svg --chrome OUT/t.json",
    "comm check DB --format json",
    "tlog dump TLOG",
    "tlog dump TLOG --style tlog_dump --nodes 4",
    "tlog dump TLOG --format json --raw",
    "tlog dump TLOG --format csv --style sample",
    "tlog summary TLOG --format json",
    "tlog tree TLOG",
    "tlog tree TLOG --proc 1 --format json",
    "tlog tree TLOG --format hatchet",
    "tlog export TLOG --chrome OUT/tlog.json",
    "tree show TREE",
    "tree show TREE --layout table --indent 7",
    "tree show TREE --layout xml",
    "tree show TREE --layout truchas --handle 2",
    "tree show TREE --layout json",
    "tree merge TREE TREE --format json",
    "tree merge --keep-going TREE OUT/missing.json TREE",
    "summary LOG",
    "summary LOG --memory --format json",
    "calltree LOG --format json",
    "info LOG",
    "compare LOG LOG",
    // Appended, so that the indices above keep their command lines.
    "comm clocks DB --format json",
    "comm waits DB --align-clocks --top 3",
    "comm waits DB --format json --proc 1 --time 0..0.5 --no-trace",
    "comm pairs DB --align-clocks --format csv",
    "comm timeline DB --align-clocks --svg OUT/ta.svg --chrome OUT/ta.json",
];

struct Inputs {
    /// Name in the command lines, path of the file, its unpatched content.
    files: Vec<(PathBuf, Vec<u8>)>,
    dir: PathBuf,
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(rel)
}

fn inputs() -> &'static Inputs {
    static I: OnceLock<Inputs> = OnceLock::new();
    I.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("profparse-fuzz-cli-{}", std::process::id()));
        for sub in ["db", "base", "out"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let mut names: Vec<_> = std::fs::read_dir(fixture("blprof/small4/bl_prof"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        let mut files = Vec::new();
        for name in names {
            let bytes = std::fs::read(fixture("blprof/small4/bl_prof").join(&name)).unwrap();
            std::fs::write(dir.join("base").join(&name), &bytes).unwrap();
            files.push((dir.join("db").join(&name), bytes));
        }
        for (name, rel) in [
            ("trace.log", "tlog/np4.log"),
            ("tree.json", "timertree/measured_example.json"),
            ("job.log", "tinyprofiler/asyncout_24.10_np2.txt"),
        ] {
            files.push((dir.join(name), std::fs::read(fixture(rel)).unwrap()));
        }
        Inputs { files, dir }
    })
}

/// The files' contents after the patches of `data`.
fn patched<'a>(inputs: &'a Inputs, mut data: &[u8]) -> Vec<std::borrow::Cow<'a, [u8]>> {
    let mut contents: Vec<std::borrow::Cow<[u8]>> = inputs
        .files
        .iter()
        .map(|(_, c)| std::borrow::Cow::Borrowed(c.as_slice()))
        .collect();
    while data.len() >= 2 {
        let file = data[0] as usize % contents.len();
        let op = data[1];
        data = &data[2..];
        if op & 0x80 != 0 {
            let Some(len) = data.get(..2) else { break };
            let len = (u16::from_le_bytes([len[0], len[1]]) as usize).min(data.len() - 2);
            contents[file] = data[2..2 + len].to_vec().into();
            data = &data[2 + len..];
        } else {
            let Some(at) = data.get(..4) else { break };
            let at = u32::from_le_bytes([at[0], at[1], at[2], at[3]]) as usize;
            let len = (op as usize).min(data.len() - 4);
            let bytes = &data[4..4 + len];
            data = &data[4 + len..];
            let file = contents[file].to_mut();
            let at = at % (file.len() + 1);
            if file.len() < at + len {
                file.resize(at + len, 0);
            }
            file[at..at + len].copy_from_slice(bytes);
        }
    }
    contents
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, patches)) = data.split_first() else {
        return;
    };
    let inputs = inputs();
    for ((path, _), bytes) in inputs.files.iter().zip(patched(inputs, patches)) {
        std::fs::write(path, bytes).unwrap();
    }
    let dir = inputs.dir.to_str().unwrap();
    let line = COMMANDS[pick as usize % COMMANDS.len()];
    let args = std::iter::once("profparse".to_string())
        .chain(line.split(' ').map(|w| match w {
            "DB" => format!("{dir}/db"),
            "BASE" => format!("{dir}/base"),
            "TLOG" => format!("{dir}/trace.log"),
            "TREE" => format!("{dir}/tree.json"),
            "LOG" => format!("{dir}/job.log"),
            w => w.replace("OUT", &format!("{dir}/out")),
        }))
        .chain(["-q".to_string()]);
    profparse::cli::run_in_process(args).expect("every command line in COMMANDS parses");
});
