#!/usr/bin/env python3
"""An SWF log as Maui 3.3 traces, read as `mauictl simulate` reads the SWF.

usage: swf_to_maui.py SWF[.gz] JOBS NODES WORKLOAD RESOURCES

The first JOBS jobs: tasks requested (else allocated), walltime requested
(else the runtime), runtime cut at the walltime, submit times moved up by
1,000,000 s; NODES one-processor nodes (KTH-SP2: 100).
"""
import gzip
import sys


def main():
    src, jobs, nodes, out_w, out_r = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    opener = gzip.open if src.endswith(".gz") else open
    lines = ["VERSION 230"]
    with opener(src, "rt") as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            x = line.split()
            sub, run, alloc, req, reqt = int(x[1]), int(x[3]), int(x[4]), int(x[7]), int(x[8])
            tasks = req if req > 0 else alloc
            if tasks <= 0 or run < 0:
                continue
            wall = reqt if reqt > 0 else max(run, 1)
            run = max(1, min(run, wall))
            t = 1_000_000 + sub
            lines.append(
                f"{x[0]} 0 {tasks} u{x[11]} g{x[12]} {wall} Completed [batch:1] {t} {t} {t} {t + run} "
                f"[NONE] [NONE] [NONE] >= 0 >= 0 [NONE] {t} {tasks} -1 DEFAULT:DEFAULT 0 [NONE] "
                f"sim.exe [NONE] 0 {run * tasks} [DEFAULT] 1 0 0 0 0 0 [NONE] DEFAULT [NONE] [NONE] "
                "[NONE] [NONE] 0")
            if len(lines) > jobs:
                break
    with open(out_w, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(out_r, "w") as f:
        for i in range(1, nodes + 1):
            f.write(f"COMPUTENODE AVAILABLE 0 n{i:03d} DEFAULT 1024 1024 10000 1 -1 -1 1 "
                    "[NONE] [NONE] [NONE] [batch:1] [NONE] 1.0 0 0 0\n")


if __name__ == "__main__":
    main()
