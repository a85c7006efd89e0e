//! Per-credential tables, the grid, the rejected jobs and the time series
//! on a hand-checked run.

use super::*;
use crate::sim::cluster::parse_cluster;
use crate::sim::run::tests::{cfg, swf};
use crate::sim::run::{simulate, SimOptions};

const FCFS: &str = "RMPOLLINTERVAL 10\nQUEUETIMEWEIGHT 1\nRESERVATIONDEPTH 1\n\
                    ACCOUNTCFG[chem] FSTARGET=25\nACCOUNTCFG[phys] FSTARGET=60+\n";

/// Four one-processor nodes. Jobs (submit, procs, walltime, runtime):
/// 1 (0, 2, 100, 100) runs 0-100; 2 (0, 2, 200, 50) runs 0-50;
/// 3 (10, 4, 100, 100) waits for all four: 100-200;
/// 4 (20, 8, 100, 100) can never run on four processors.
/// Accounts: 1 and 3 chem, 2 phys, 4 none.
fn run() -> (Config, Vec<SimJob>, SimResult) {
    let c = cfg(FCFS);
    let nodes = parse_cluster("n[1-4] procs=1\n", "test").unwrap();
    let mut jobs = swf(&[
        (0, 2, 100, 100),
        (0, 2, 200, 50),
        (10, 4, 100, 100),
        (20, 8, 100, 100),
    ]);
    for (j, a) in jobs
        .iter_mut()
        .zip([Some("chem"), Some("phys"), Some("chem"), None])
    {
        j.job.account = a.map(String::from);
    }
    let res = simulate(&c, &nodes, &jobs, &SimOptions::default(), |_| {}).unwrap();
    (c, jobs, res)
}

#[test]
fn credentials_count_waits_and_delivered_hours_per_account() {
    let (c, jobs, res) = run();
    let t = credentials(&c, &jobs, &res);
    assert_eq!(
        t.iter().map(|t| t.kind).collect::<Vec<_>>(),
        ["user", "group", "account", "class", "qos"]
    );
    let acct = &t[2].rows;
    assert_eq!(
        acct.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["chem", "phys"],
        "the rejected job (no account) completed nothing"
    );
    // chem: jobs 1 (wait 0, 2 x 100 s) and 3 (wait 90, 4 x 100 s).
    let chem = &acct[0];
    assert_eq!((chem.jobs, chem.mean_wait, chem.p90_wait), (2, 45.0, 90.0));
    assert!((chem.proc_hours - 600.0 / 3600.0).abs() < 1e-9);
    // Delivered: 200 + 100 + 400 processor-seconds; chem 600 of 700.
    assert!((chem.share - 100.0 * 600.0 / 700.0).abs() < 1e-9);
    assert_eq!(
        (chem.fs_target, chem.fs_target_mode),
        (Some(25.0), Some("target"))
    );
    assert_eq!(acct[1].fs_target_mode, Some("floor"));
    // Bounded slowdowns: job 1 1.0, job 3 (90 + 100) / 100 = 1.9.
    assert!((chem.mean_bounded_slowdown - 1.45).abs() < 1e-9);
    // The SWF queue number is the class; no QOS: one line of jobs without.
    assert_eq!(t[3].rows.len(), 1);
    assert_eq!((t[3].rows[0].name.as_str(), t[3].rows[0].jobs), ("q1", 3));
    assert_eq!(t[4].rows.len(), 1);
    assert_eq!((t[4].rows[0].name.as_str(), t[4].rows[0].jobs), (NONE, 3));
    let csv = credentials_csv(&t);
    assert!(
        csv.contains("\naccount,chem,2,45,90,1.450,0.167,85.714,25\n"),
        "{csv}"
    );
    assert!(
        csv.contains("\naccount,phys,1,0,0,1.000,0.028,14.286,60+\n"),
        "{csv}"
    );
}

#[test]
fn the_grid_puts_jobs_by_processors_and_walltime_requested() {
    let (c, jobs, res) = run();
    let g = Grid::of(&jobs, &res, c.params.system_default_job_walltime.0);
    assert_eq!(g.walltimes.len(), 11);
    assert_eq!((g.walltimes[0], g.walltimes[10]), (120, 122_880));
    assert_eq!(g.procs, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
    // Jobs 1 and 2: 2 processors, walltime 100 and 200 s: row 2, columns
    // 2:00 and 4:00; job 3: 4 processors, 100 s.
    assert_eq!(g.cells[1][0].jobs, 1);
    assert_eq!(g.cells[1][1].jobs, 1);
    assert_eq!(g.cells[2][0].jobs, 1);
    assert_eq!(g.total().jobs, 3);
    // Expansion factor (wait + run) / walltime: job 3 (90 + 100) / 100.
    assert!((g.cells[2][0].xfactor_sum - 1.9).abs() < 1e-9);
    let text = grid_text(&g, GridStat::AvgXFactor);
    assert!(
        text.starts_with("Average XFactor Grid\n\n[ PROCS ][ 00:02:00 ][ 00:04:00 ]"),
        "{text}"
    );
    assert!(
        text.contains("\n[     4 ][  1.90   1][ -------- ]"),
        "{text}"
    );
    // Column totals: job 1 (1.0) and job 3 (1.9) in the first column.
    assert!(
        text.contains("\n[ T TOT ][  1.45   2][  0.25   1]"),
        "{text}"
    );
    assert!(
        text.contains("Total Samples:                    3\n"),
        "{text}"
    );
}

#[test]
fn rejected_jobs_keep_their_reason() {
    let (_, jobs, res) = run();
    let r = rejected(&jobs, &res);
    assert_eq!(r.len(), 1);
    assert_eq!(
        (r[0].id.as_str(), r[0].procs, r[0].rejected_at),
        ("4", 8, 20)
    );
    assert!(r[0].reason.starts_with("NoFit "), "{}", r[0].reason);
    let rows: Vec<_> = r.iter().map(|x| (Some("a"), x)).collect();
    let csv = rejected_csv(&rows);
    assert_eq!(
        csv,
        "config,id,user,procs,walltime,submit,rejected_at,reason\n\
         a,4,u4,8,100,20,20,\"NoFit 8 processors requested, 4 exist on suitable nodes\"\n"
    );
}

#[test]
fn the_queue_over_time_counts_waiting_jobs() {
    let (_, jobs, res) = run();
    // From 0 to 200 in 20 bins of 10 s: job 3 waits 10-100, job 4 20-20
    // (rejected at its first iteration).
    let s = TimeSeries::of(&jobs, &res, 4, 0, 200, 20);
    assert_eq!(s.queue[0], 0.0);
    assert_eq!(s.queue[1..10], [1.0; 9]);
    assert_eq!(s.queue[10..], [0.0; 10]);
    // Busy: 4 processors 0-50, 2 until 100, 4 until 200.
    assert_eq!(s.utilization[..5], [1.0; 5]);
    assert_eq!(s.utilization[5..10], [0.5; 5]);
    // Waits by submission: bin 0 has jobs 1 and 2 (0 s), bin 1 job 3 (90 s).
    assert_eq!(s.wait[0], Some(0.0));
    assert_eq!(s.wait[1], Some(90.0));
    assert_eq!(s.wait[2], None);
}
