#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the fixtures (cut to small inputs).
# Usage: fuzz/seed.sh   (idempotent; the corpora are not committed)
set -euo pipefail
cd "$(dirname "$0")"
fx=../fixtures
mkdir -p corpus
python3 - "$fx" <<'PY'
import glob, os, re, struct, sys, hashlib

fx = sys.argv[1]
def put(target, data):
    d = os.path.join("corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)

dbs = sorted(glob.glob(os.path.join(fx, "blprof/*/bl_prof")))
rd = lambda p: open(p, "rb").read()

# blprof_header: every header file.
for db in dbs:
    for h in glob.glob(os.path.join(db, "*_H*")):
        put("blprof_header", rd(h))

# base_block: nfuncs u32, seekpos u64, real u8, nblocks u8, data.
for db in dbs:
    nfuncs = sum(1 for l in open(os.path.join(db, "bl_prof_H")) if l.startswith("phFName"))
    for d in sorted(glob.glob(os.path.join(db, "bl_prof_D_*")))[:1]:
        data = rd(d)
        nblocks = len(data) // (16 * nfuncs) if nfuncs else 0
        put("base_block", struct.pack("<IQBB", nfuncs, 0, 0, nblocks) + data)
        put("base_block", struct.pack("<IQBB", nfuncs, 0, 1, nblocks) + data[: 12 * nfuncs])

# trace_block and regions: the first block of each per-file header, cut
# out of its data file (seekpos rebased to 0) and capped at 4 KiB of calls.
for db in dbs:
    for h in sorted(glob.glob(os.path.join(db, "bl_call_stats_H_*")))[:2]:
        for line in open(h):
            m = re.match(r"CallStatsProc\s+(\d+)\s+nRSS\s+(\d+)\s+nTraceStats\s+(\d+)\s+datafile\s+(\S+)\s+seekpos\s+(\d+)", line)
            if not m:
                continue
            nrss, ntrace, seek = int(m[2]), int(m[3]), int(m[5])
            data = rd(os.path.join(db, m[4]))
            nt = min(ntrace, 4096 // 40)
            nr = min(nrss, 64)
            regs = data[seek : seek + 16 * nrss]
            block = regs[: 16 * nr] + data[seek + 16 * nrss : seek + 16 * nrss + 40 * nt]
            put("trace_block", struct.pack("<QQQB", nr, nt, 0, 0) + block)
            put("trace_block", struct.pack("<QQQB", nr, nt, 0, 1) + block)
            recs = b""
            for i in range(nr):
                t, num, start = struct.unpack_from("<dii", regs, 16 * i)
                recs += struct.pack("<BBhf", 0, 1 if start else 0, num, t)
            filt = b"__IncludeAll__\n- \"RComm\" 2\n"
            put("regions", bytes([len(filt)]) + filt + recs)
            break

# comm_block: ncomm u64, seekpos u64, record_size u16, real u8, data.
for db in dbs:
    for h in sorted(glob.glob(os.path.join(db, "bl_comm_prof_H_*")))[:1]:
        for line in open(h):
            m = re.match(r"CommProfProc\s+(\d+)\s+nCommStats\s+(\d+)\s+datafile\s+(\S+)\s+seekpos\s+(\d+)", line)
            if not m:
                continue
            n, seek = min(int(m[2]), 128), int(m[4])
            data = rd(os.path.join(db, m[3]))[seek : seek + 24 * n]
            put("comm_block", struct.pack("<QQHB", n, 0, 24, 0) + data)
            put("comm_block", struct.pack("<QQHB", n, 0, 20, 1) + data[: 20 * n])
            break

# filter_file: the filter fixtures and the golden RegionFilters.
for f in glob.glob(os.path.join(fx, "blprof/filters/*")) + glob.glob(os.path.join(fx, "blprof/*/golden/*/RegionFilters.txt")):
    put("filter_file", rd(f))

# tlog: every log, the damaged ones included.
for f in glob.glob(os.path.join(fx, "tlog/*.log")) + glob.glob(os.path.join(fx, "tlog/bad/*.log")):
    put("tlog", rd(f))

# timer_tree: JSON and XML trees.
for f in glob.glob(os.path.join(fx, "timertree/**/*.json"), recursive=True) + glob.glob(os.path.join(fx, "timertree/**/*.xml"), recursive=True):
    put("timer_tree", rd(f))

# tinyprofiler: every TinyProfiler log (reports, and logs without one).
for f in glob.glob(os.path.join(fx, "tinyprofiler/*.txt")):
    put("tinyprofiler", rd(f))

# database: the `single` fixture as is (empty input), and each file as a chunk.
put("database", b"")
names = ["bl_prof_H", "bl_prof_D_00000", "bl_call_stats_H", "bl_call_stats_H_00000",
         "bl_call_stats_D_00000", "bl_comm_prof_H", "bl_comm_prof_H_00000", "bl_comm_prof_D_00000"]
for i, n in enumerate(names):
    data = rd(os.path.join(fx, "blprof/single/bl_prof", n))[:4096]
    put("database", struct.pack("<BH", i, len(data)) + data)

# cli: every command line on the unpatched inputs (byte 0 picks the line).
ncommands = open(os.path.join(os.path.dirname(fx), "fuzz/fuzz_targets/cli.rs")).read() \
    .split("const COMMANDS")[1].split("];")[0].count('",')
for i in range(ncommands):
    put("cli", bytes([i]))
PY
# The committed seeds (small hand-made inputs and past crashes).
if [ -d seeds ]; then
    for d in seeds/*/; do
        t=$(basename "$d")
        mkdir -p "corpus/$t"
        cp "$d"* "corpus/$t/" 2>/dev/null || true
    done
fi
for d in corpus/*/; do echo "$(basename "$d"): $(ls "$d" | wc -l) inputs"; done
