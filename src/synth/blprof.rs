//! A generator of valid bl_prof databases of any size, deterministic by
//! seed: base profile, call traces (flushed blocks, nested calls, regions)
//! and communication records (barriers, ring sends/receives, name tags),
//! laid out over files exactly as AMReX does (BLPROF_FORMAT.md §3).
//!
//! The base profile is computed from the generated calls, so the base
//! `summary` and an unfiltered `trace-summary` of a generated database agree.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::SplitMix64;
use super::blprof_waits::{Injected, TRUTH_FILE};
use crate::formats::blprof::files::{FileLayout, numbered_name};

/// What to generate.
#[derive(Debug, Clone)]
pub struct BlprofConfig {
    /// Processes.
    pub nprocs: u64,
    /// `prof_nfiles`: at most this many files per part.
    pub nfiles: u64,
    /// Trace and comm blocks per process (1 + flushes).
    pub blocks: u64,
    /// Distinct timed functions (besides `main()`).
    pub functions: u32,
    /// Deepest nesting below `main()`.
    pub depth: u32,
    /// User regions (besides `__NoRegion__`).
    pub regions: u32,
    /// Call records per trace block (approximate, the sentinel excluded).
    pub calls_per_block: u64,
    /// Ring messages per comm block.
    pub messages_per_block: u64,
    /// Seed of the generator: the same seed, the same bytes.
    pub seed: u64,
    /// Known clock offsets and waits (None: the plain ring, every clock
    /// the same, as before).
    pub injected: Option<Injected>,
}

impl Default for BlprofConfig {
    fn default() -> Self {
        BlprofConfig {
            nprocs: 4,
            nfiles: 256,
            blocks: 1,
            functions: 12,
            depth: 4,
            regions: 3,
            calls_per_block: 1000,
            messages_per_block: 100,
            seed: 1,
            injected: None,
        }
    }
}

/// A call being generated: what closing it needs.
struct OpenCall {
    /// Its record's index.
    record: usize,
    fnum: i32,
    depth: i32,
    start: f64,
    /// Its own time, half spent before its callees, half after.
    own: f64,
    /// Inclusive time of its callees so far.
    children: f64,
    callees_left: u64,
    /// When the current callee started.
    callee_start: f64,
}

struct Call {
    depth: i32,
    fnum: i32,
    inclusive: f64,
    exclusive: f64,
    start: f64,
}

/// Per-process state carried across blocks.
struct ProcGen {
    rng: SplitMix64,
    time: f64,
    calls: Vec<i64>,
    excl: Vec<f64>,
    barrier: i64,
    tags: u64,
    min_start: f64,
    max_start: f64,
    /// Where `main()`'s record lies (file number, byte offset), to patch
    /// its times in place at the end, as AMReX's final write does.
    main_record: Option<(usize, u64)>,
    /// Σ inclusive of `main()`'s children.
    main_children: f64,
}

fn function_name(f: u32) -> String {
    if f == 0 {
        "main()".to_owned()
    } else {
        format!("Fn{f:04}()")
    }
}

fn region_name(r: u32) -> String {
    if r == 0 {
        "__NoRegion__".to_owned()
    } else {
        format!("R::Region{r:02}")
    }
}

impl BlprofConfig {
    fn layout(&self) -> FileLayout {
        FileLayout::new(self.nprocs, self.nfiles)
    }

    /// Writes the database into `dir` (created if missing).
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        let layout = self.layout();
        let nfiles = layout.files_used(self.nprocs);
        let nfuncs = self.functions + 1;
        let mut gens: Vec<ProcGen> = (0..self.nprocs)
            .map(|p| ProcGen {
                rng: SplitMix64::new(self.seed ^ (p.wrapping_mul(0x9E37_79B9_7F4A_7C15))),
                time: 1e-4,
                calls: vec![0; nfuncs as usize],
                excl: vec![0.0; nfuncs as usize],
                barrier: 0,
                tags: 0,
                min_start: f64::INFINITY,
                max_start: 0.0,
                main_record: None,
                main_children: 0.0,
            })
            .collect();

        let mut trace_h: Vec<BufWriter<File>> = Vec::new();
        let mut trace_d: Vec<(BufWriter<File>, u64)> = Vec::new();
        let mut comm_h: Vec<BufWriter<File>> = Vec::new();
        let mut comm_d: Vec<(BufWriter<File>, u64)> = Vec::new();
        for k in 0..nfiles {
            trace_h.push(BufWriter::new(File::create(
                dir.join(numbered_name("bl_call_stats_H_", k)),
            )?));
            trace_d.push((
                BufWriter::new(File::create(
                    dir.join(numbered_name("bl_call_stats_D_", k)),
                )?),
                0,
            ));
            comm_h.push(BufWriter::new(File::create(
                dir.join(numbered_name("bl_comm_prof_H_", k)),
            )?));
            comm_d.push((
                BufWriter::new(File::create(dir.join(numbered_name("bl_comm_prof_D_", k)))?),
                0,
            ));
        }
        for block in 0..self.blocks {
            let last = block + 1 == self.blocks;
            // Within a file, each write appends the blocks of its ranks in rank order.
            for p in 0..self.nprocs {
                let k = layout.file_of(p) as usize;
                let g = &mut gens[p as usize];
                let (calls, regions) = self.trace_block(g, block == 0, last);
                let (d, pos) = &mut trace_d[k];
                let seekpos = *pos;
                for &(t, n, s) in &regions {
                    d.write_all(&t.to_le_bytes())?;
                    d.write_all(&n.to_le_bytes())?;
                    d.write_all(&(s as i32).to_le_bytes())?;
                }
                write_call(d, -1, -1, -1, -1.1, -1.2, -1.3)?;
                if block == 0 {
                    g.main_record = Some((k, seekpos + 16 * regions.len() as u64 + 40));
                }
                for c in &calls {
                    write_call(d, c.depth, c.fnum, 1, c.inclusive, c.exclusive, c.start)?;
                }
                *pos += 16 * regions.len() as u64 + 40 * (calls.len() as u64 + 1);
                let h = &mut trace_h[k];
                writeln!(
                    h,
                    "CallStatsProc {p} nRSS {} nTraceStats {}  datafile  {}  seekpos  {seekpos}",
                    regions.len(),
                    calls.len() + 1,
                    numbered_name("bl_call_stats_D_", k as u64)
                )?;
                let mut names: Vec<(String, u32)> =
                    (0..nfuncs).map(|f| (function_name(f), f)).collect();
                names.sort();
                for (n, f) in names {
                    writeln!(h, "fName \"{n}\" {f}")?;
                }
                writeln!(h, "timeMinMax  {} {}", g.min_start, g.max_start)?;
                self.comm_block(g, p, block, k, &mut comm_h[k], &mut comm_d[k])?;
            }
        }
        for mut w in trace_h.into_iter().chain(comm_h) {
            w.flush()?;
        }
        for (mut w, _) in trace_d.into_iter().chain(comm_d) {
            w.flush()?;
        }
        self.patch_main(dir, &mut gens)?;
        self.write_globals(dir, nfiles, &gens)?;
        self.write_base(dir, &gens)?;
        if let Some(inj) = &self.injected {
            let truth = inj.truth(self.seed, self.nprocs, self.blocks, self.messages_per_block);
            let f = BufWriter::new(File::create(dir.join(TRUTH_FILE))?);
            serde_json::to_writer_pretty(f, &truth).map_err(io::Error::other)?;
        }
        Ok(())
    }

    /// One block of calls: `main()` open over the whole run at depth 0
    /// (written in the first block, its times known only at the end, as a
    /// patched record would be), then nested calls inside regions.
    fn trace_block(
        &self,
        g: &mut ProcGen,
        first: bool,
        last: bool,
    ) -> (Vec<Call>, Vec<(f64, i32, bool)>) {
        let mut calls = Vec::with_capacity(self.calls_per_block as usize + 1);
        let mut regions = Vec::new();
        if first {
            regions.push((g.time, 0, true));
            g.time += 1e-5;
        }
        let target = self.calls_per_block.max(1) as usize;
        while calls.len() < target {
            let region = 1 + (g.rng.next_u64() % self.regions.max(1) as u64) as i32;
            // `__NoRegion__` stops just after the user region starts (as AMReX stamps it).
            let t_start = g.time;
            regions.push((t_start + 1e-7, 0, false));
            regions.push((t_start, region, true));
            self.nested(g, &mut calls, 1, target, None);
            regions.push((g.time, region, false));
            regions.push((g.time, 0, true));
            g.time += 1e-6;
        }
        if last {
            regions.push((g.time, 0, false));
            regions.push((g.time, 0, true));
        }
        if first {
            // Placed first: index 1 of the block, after the sentinel.
            // main() covers the run; it is counted once, with its own time 0.
            let start = 1e-4 + 5e-6;
            calls.insert(
                0,
                Call {
                    depth: 0,
                    fnum: 0,
                    inclusive: 0.0,
                    exclusive: 0.0,
                    start,
                },
            );
            g.calls[0] += 1;
            g.min_start = g.min_start.min(start);
        }
        (calls, regions)
    }

    /// One call at `depth` with its children. Like real code, each function
    /// calls only a few fixed others, so call paths repeat. The nesting is
    /// an explicit stack: `--depth` may be large.
    fn nested(
        &self,
        g: &mut ProcGen,
        calls: &mut Vec<Call>,
        depth: i32,
        target: usize,
        parent: Option<i32>,
    ) {
        let mut stack = vec![self.open_call(g, calls, depth, parent)];
        while let Some(top) = stack.last_mut() {
            if top.callees_left > 0 && calls.len() < target {
                top.callees_left -= 1;
                top.callee_start = g.time;
                let (depth, fnum) = (top.depth + 1, top.fnum);
                let callee = self.open_call(g, calls, depth, Some(fnum));
                stack.push(callee);
            } else {
                let done = stack
                    .pop()
                    .expect("the loop runs while the stack has a call");
                self.close_call(g, calls, &done);
                if let Some(caller) = stack.last_mut() {
                    caller.children += g.time - caller.callee_start;
                }
            }
        }
    }

    /// Starts a call: its record (times filled in by `close_call`), half its
    /// own time, and how many callees it will have.
    fn open_call(
        &self,
        g: &mut ProcGen,
        calls: &mut Vec<Call>,
        depth: i32,
        parent: Option<i32>,
    ) -> OpenCall {
        let n = self.functions.max(1) as u64;
        let fnum = match parent {
            None => 1 + (g.rng.next_u64() % n) as i32,
            // Three choices near the top, one fixed callee deeper down: a few
            // thousand distinct call paths, as in real codes (not 3^depth).
            Some(f) => {
                let choices = if depth <= 3 { 3 } else { 1 };
                1 + ((f as u64 * 7 + depth as u64 + g.rng.next_u64() % choices) % n) as i32
            }
        };
        let start = g.time;
        let record = calls.len();
        calls.push(Call {
            depth,
            fnum,
            inclusive: 0.0,
            exclusive: 0.0,
            start,
        });
        g.min_start = g.min_start.min(start);
        g.max_start = g.max_start.max(start);
        let own = 1e-6 * (1 + g.rng.next_u64() % 50) as f64;
        g.time += own / 2.0;
        let callees_left = if depth < self.depth as i32 {
            g.rng.next_u64() % 4
        } else {
            0
        };
        OpenCall {
            record,
            fnum,
            depth,
            start,
            own,
            children: 0.0,
            callees_left,
            callee_start: start,
        }
    }

    /// Ends a call: the other half of its own time, its times and totals.
    fn close_call(&self, g: &mut ProcGen, calls: &mut [Call], open: &OpenCall) {
        g.time += open.own / 2.0;
        if open.depth == 1 {
            g.main_children += g.time - open.start;
        }
        let c = &mut calls[open.record];
        c.inclusive = g.time - open.start;
        c.exclusive = c.inclusive - open.children;
        g.calls[open.fnum as usize] += 1;
        g.excl[open.fnum as usize] += c.exclusive;
    }

    /// A comm block: a barrier, ring sends/receives, a name tag.
    fn comm_block(
        &self,
        g: &mut ProcGen,
        p: u64,
        block: u64,
        k: usize,
        h: &mut impl Write,
        d: &mut (BufWriter<File>, u64),
    ) -> io::Result<()> {
        let (barrier_at, tag_at) = (0, 2);
        let recs = match &self.injected {
            Some(inj) => inj.records(
                self.seed,
                self.nprocs,
                self.messages_per_block,
                p,
                block,
                g.barrier as i32,
                g.tags as i32,
            ),
            None => self.ring_records(g, p),
        };
        let (w, pos) = d;
        let seekpos = *pos;
        for &(ty, size, peer, tag, time) in &recs {
            w.write_all(&ty.to_le_bytes())?;
            w.write_all(&size.to_le_bytes())?;
            w.write_all(&peer.to_le_bytes())?;
            w.write_all(&tag.to_le_bytes())?;
            w.write_all(&time.to_le_bytes())?;
        }
        *pos += 24 * recs.len() as u64;
        writeln!(
            h,
            "CommProfProc  {p}  nCommStats  {}  datafile  {}  seekpos  {seekpos}  synth{p:05}",
            recs.len(),
            numbered_name("bl_comm_prof_D_", k as u64)
        )?;
        writeln!(h, "bNum  {} \"Synth::barrier\" {barrier_at}", g.barrier)?;
        writeln!(h, "nTag  {} {tag_at}", g.tags)?;
        let (first, last) = (recs[0].4, recs[recs.len() - 1].4);
        // Shortest round trip: 16 decimals lose bits of times near 0 (short
        // blocks, thousands of processes), which `check` then reports.
        writeln!(h, "timeMinMax  {first} {last}")?;
        writeln!(h, "timerTime  2.0e-08")?;
        g.barrier += 1;
        g.tags += 1;
        for i in 0..g.tags {
            writeln!(h, "nameTagNames  \"STEP {i}\"")?;
        }
        writeln!(h, "tagRange  1000 2147483647")
    }

    /// The plain block: a barrier, a name tag and ring messages, each
    /// process on its own clock (record 0 the barrier, record 2 the tag).
    fn ring_records(&self, g: &ProcGen, p: u64) -> Vec<(i32, i32, i32, i32, f64)> {
        let right = ((p + 1) % self.nprocs) as i32;
        let left = ((p + self.nprocs - 1) % self.nprocs) as i32;
        let mut recs: Vec<(i32, i32, i32, i32, f64)> = Vec::new();
        let mut t = g.time - 1e-3;
        let mut step = || {
            t += 1e-7;
            t
        };
        recs.push((25, 0, -5, g.barrier as i32, step()));
        recs.push((25, -7, -7, g.barrier as i32, step()));
        recs.push((27, 0, 2, g.tags as i32, step()));
        for m in 0..self.messages_per_block {
            let tag = 1000 + (m % 1000) as i32;
            recs.push((6, 512, right, tag, step()));
            recs.push((6, -7, right, tag, step()));
            recs.push((11, 512, left, tag, step()));
            recs.push((11, -7, left, tag, step()));
        }
        recs
    }

    /// Writes `main()`'s final inclusive and exclusive times into its record.
    fn patch_main(&self, dir: &Path, gens: &mut [ProcGen]) -> io::Result<()> {
        use std::io::{Seek, SeekFrom};
        for g in gens.iter_mut() {
            let Some((k, offset)) = g.main_record else {
                continue;
            };
            let start = 1e-4 + 5e-6;
            let inclusive = g.time - start;
            let exclusive = inclusive - g.main_children;
            g.excl[0] += exclusive;
            let mut f = fs::OpenOptions::new()
                .write(true)
                .open(dir.join(numbered_name("bl_call_stats_D_", k as u64)))?;
            f.seek(SeekFrom::Start(offset + 16))?;
            f.write_all(&inclusive.to_le_bytes())?;
            f.write_all(&exclusive.to_le_bytes())?;
        }
        Ok(())
    }

    fn write_globals(&self, dir: &Path, nfiles: u64, gens: &[ProcGen]) -> io::Result<()> {
        let layout = self.layout();
        let mut h = BufWriter::new(File::create(dir.join("bl_call_stats_H"))?);
        writeln!(
            h,
            "CallStatsProfVersion  1\nNProcs  {}\nNOutFiles  {}",
            self.nprocs, layout.nout_files
        )?;
        let mut regions: Vec<(String, u32)> =
            (0..=self.regions).map(|r| (region_name(r), r)).collect();
        regions.sort();
        for (n, r) in regions {
            writeln!(h, "RegionName \"{n}\" {r}")?;
        }
        for k in 0..nfiles {
            writeln!(h, "HeaderFile {}", numbered_name("bl_call_stats_H_", k))?;
        }
        h.flush()?;
        let mut h = BufWriter::new(File::create(dir.join("bl_comm_prof_H"))?);
        writeln!(
            h,
            "CommProfVersion  1\nNProcs  {}\nCommStatsSize  24\nNOutFiles  {}\nFinestLevel  -1\nMaxLevel  -1",
            self.nprocs, layout.nout_files
        )?;
        for k in 0..nfiles {
            writeln!(h, "HeaderFile {}", numbered_name("bl_comm_prof_H_", k))?;
        }
        let _ = gens;
        h.flush()
    }

    fn write_base(&self, dir: &Path, gens: &[ProcGen]) -> io::Result<()> {
        let layout = self.layout();
        let nfuncs = self.functions as usize + 1;
        let mut order: Vec<(String, usize)> = (0..nfuncs as u32)
            .map(|f| (function_name(f), f as usize))
            .collect();
        order.sort();
        let mut h = BufWriter::new(File::create(dir.join("bl_prof_H"))?);
        writeln!(
            h,
            "BLProfVersion 1\nNProcs  {}\nNOutFiles  {}",
            self.nprocs, layout.nout_files
        )?;
        for (n, _) in &order {
            writeln!(h, "phFName \"{n}\"")?;
        }
        let block = 16 * nfuncs as u64;
        let mut files: Vec<BufWriter<File>> = Vec::new();
        for k in 0..layout.files_used(self.nprocs) {
            files.push(BufWriter::new(File::create(
                dir.join(numbered_name("bl_prof_D_", k)),
            )?));
        }
        for (p, g) in gens.iter().enumerate() {
            let k = layout.file_of(p as u64);
            let seekpos = (p as u64 - k * layout.set_length) * block;
            writeln!(
                h,
                "BLProfProc {p} datafile {} seekpos {seekpos}",
                numbered_name("bl_prof_D_", k)
            )?;
            let f = &mut files[k as usize];
            for (_, i) in &order {
                f.write_all(&g.calls[*i].to_le_bytes())?;
            }
            for (_, i) in &order {
                f.write_all(&g.excl[*i].to_le_bytes())?;
            }
        }
        writeln!(h, "calcEndTime {}", gens.first().map_or(0.0, |g| g.time))?;
        for mut f in files {
            f.flush()?;
        }
        h.flush()
    }
}

fn write_call(
    w: &mut impl Write,
    depth: i32,
    fnum: i32,
    n: i64,
    inc: f64,
    exc: f64,
    start: f64,
) -> io::Result<()> {
    w.write_all(&depth.to_le_bytes())?;
    w.write_all(&fnum.to_le_bytes())?;
    w.write_all(&n.to_le_bytes())?;
    w.write_all(&inc.to_le_bytes())?;
    w.write_all(&exc.to_le_bytes())?;
    w.write_all(&start.to_le_bytes())
}
