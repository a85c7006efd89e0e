#!/usr/bin/env python3
"""Synthetic Maui 3.3 traces for comparing mauisched with Maui's simulator.

usage: gen_workload.py JOBS SEED WORKLOAD RESOURCES [--interarrival S]

RESOURCES: 256 nodes of 8 processors, mixed memory (n001-n064 2 GB,
n065-n192 4 GB, n193-n256 16 GB). WORKLOAD: JOBS jobs (VERSION 230), one to
64 tasks, walltimes of 15 minutes to 8 hours, runtimes 10-100 % of the
walltime, twelve users in four groups and accounts, QOS high, normal and
low, one job in ten asking for a node of 8 GB or more.
"""
import argparse
import random


def main():
    a = argparse.ArgumentParser()
    a.add_argument("jobs", type=int)
    a.add_argument("seed", type=int)
    a.add_argument("workload")
    a.add_argument("resources")
    a.add_argument("--interarrival", type=float, default=30.0,
                   help="mean seconds between submissions (default 30: a queue forms)")
    o = a.parse_args()
    r = random.Random(o.seed)
    with open(o.resources, "w") as f:
        for i in range(1, 257):
            mem = 2048 if i <= 64 else (4096 if i <= 192 else 16384)
            # type event time name rm swap mem disk procs frame slot
            # slot-use os arch features classes network speed/gres r1 r2 r3
            f.write(f"COMPUTENODE AVAILABLE 0 n{i:03d} DEFAULT {mem} {mem} 10000 8 "
                    "-1 -1 1 [NONE] [NONE] [NONE] [batch:8] [NONE] 1.0 0 0 0\n")
    t = 1_000_000
    lines = ["VERSION 230"]
    for j in range(1, o.jobs + 1):
        t += int(r.expovariate(1 / o.interarrival))
        tasks = r.choice([1, 1, 1, 2, 4, 4, 8, 8, 16, 16, 32, 64])
        wall = r.choice([900, 1800, 3600, 7200, 14400, 28800])
        run = max(60, int(wall * r.uniform(0.1, 1.0)))
        user = r.randrange(12)
        grp = user % 4
        qos = r.choices(["high", "normal", "low"], [1, 6, 3])[0]
        mem = 8192 if r.random() < 0.1 else 0
        lines.append(
            f"{j} 0 {tasks} u{user} g{grp} {wall} Completed [batch:1] {t} {t} {t} {t + run} "
            f"[NONE] [NONE] [NONE] >= {mem} >= 0 [NONE] {t} {tasks} -1 {qos}:{qos} 0 a{grp} "
            f"sim.exe [NONE] 0 {run * tasks} [DEFAULT] 1 0 0 0 0 0 [NONE] DEFAULT [NONE] "
            "[NONE] [NONE] [NONE] 0")
    with open(o.workload, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
