#!/usr/bin/env python3
"""Job-by-job comparison of a Maui 3.3 simulation with mauictl simulate.

usage: compare.py SIMSTAT JOBS_CSV [--procs N] [--list K]

SIMSTAT: Maui's stats/simstat.out. JOBS_CSV: mauictl simulate --grid
--out's jobs.csv (with --hosts, the hosts are compared too). Prints
how many jobs start at the same time, the first jobs that do not, whether
the hosts agree, and mean wait and utilization of both runs.
"""
import argparse
import csv


def maui(path):
    jobs = {}
    for line in open(path):
        if line.startswith(("VERSION", "#")) or not line.strip():
            continue
        f = line.split()
        jobs[f[0]] = {"start": int(f[10]), "end": int(f[11]), "tasks": int(f[21]),
                      "hosts": sorted(f[37].split(":")) if len(f) > 37 else None}
    return jobs


def ours(path):
    jobs = {}
    for r in csv.DictReader(open(path)):
        hosts = r.get("hosts")
        jobs[r["id"]] = {"submit": int(r["submit"]), "start": int(r["start"]), "end": int(r["end"]),
                         "tasks": int(r["procs"]),
                         "hosts": sorted(h.split(":")[0] for h in hosts.split("+")) if hosts else None}
    return jobs


def summary(jobs, submit, procs):
    wait = sum(j["start"] - submit[k] for k, j in jobs.items()) / len(jobs)
    first = min(submit.values())
    last = max(j["end"] for j in jobs.values())
    work = sum(j["tasks"] * (j["end"] - j["start"]) for j in jobs.values())
    return wait, work / (procs * (last - first))


def main():
    a = argparse.ArgumentParser()
    a.add_argument("simstat")
    a.add_argument("jobs_csv")
    a.add_argument("--procs", type=int, default=2048, help="processors in the cluster")
    a.add_argument("--list", type=int, default=8, help="diverging jobs to list")
    o = a.parse_args()
    m, s = maui(o.simstat), ours(o.jobs_csv)
    both = sorted((k for k in s if k in m), key=lambda k: (s[k]["start"], int(k) if k.isdigit() else k))
    same = [k for k in both if m[k]["start"] == s[k]["start"]]
    print(f"jobs: Maui {len(m)}, mauisched {len(s)}, both {len(both)}")
    print(f"same start time: {len(same)} ({100 * len(same) / max(1, len(both)):.1f} %)")
    hosts = [k for k in both if m[k]["hosts"] is not None and s[k]["hosts"] is not None]
    if hosts:
        agree = sum(1 for k in hosts if m[k]["hosts"] == s[k]["hosts"])
        print(f"same hosts: {agree} of {len(hosts)}")
    submit = {k: s[k]["submit"] for k in both}
    (mw, mu), (sw, su) = (summary({k: m[k] for k in both}, submit, o.procs),
                          summary({k: s[k] for k in both}, submit, o.procs))
    print(f"mean wait: Maui {mw:.0f} s, mauisched {sw:.0f} s ({100 * (sw - mw) / max(mw, 1):+.1f} %)")
    print(f"utilization: Maui {100 * mu:.2f} %, mauisched {100 * su:.2f} %")
    for k in [k for k in both if k not in set(same)][:o.list]:
        print(f"  job {k}: mauisched {s[k]['start']}, Maui {m[k]['start']}")


if __name__ == "__main__":
    main()
