//! `mauictl bench`: iteration latency on the synthetic scenario of
//! [`super::synth`], and the peak memory of the process.

use super::synth::{self, SynthSpec};
use crate::config::Config;
use crate::engine::Engine;
use std::time::{Duration, Instant};

/// What a benchmark run measured.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// The scenario.
    pub spec: SynthSpec,
    /// Nodes, idle jobs and running jobs actually in the snapshot.
    pub counts: (usize, usize, usize),
    /// Time to generate the scenario.
    pub setup: Duration,
    /// Time of each measured iteration, in run order.
    pub times: Vec<Duration>,
    /// CPU time of the thread in each measured iteration (less sensitive
    /// than wall time to other work on a shared machine).
    pub cpu_times: Vec<Duration>,
    /// Jobs started and job reservations made by the last iteration.
    pub starts: usize,
    /// Job reservations made by the last iteration.
    pub reservations: usize,
    /// Peak resident set size of the process in KB (`VmHWM`), if known.
    pub peak_rss_kb: Option<u64>,
    /// The last iteration's plan.
    pub plan: std::sync::Arc<crate::engine::Plan>,
    /// `--what-if N`: jobs given an estimate and the time to estimate the
    /// first N unreserved idle jobs after the last iteration (what a
    /// front end does to show `showstart`'s estimate in the RM).
    pub what_if: Option<(usize, usize, Duration)>,
}

fn median_of(times: &[Duration]) -> Duration {
    let mut v = times.to_vec();
    v.sort();
    match v.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2,
    }
}

/// CPU time the calling thread has run so far (Linux
/// `/proc/thread-self/schedstat`, nanoseconds on a CPU); zero elsewhere.
pub fn thread_cpu_time() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(Duration::from_nanos)
        .unwrap_or_default()
}

impl BenchReport {
    /// Median iteration time.
    pub fn median(&self) -> Duration {
        median_of(&self.times)
    }

    /// Median CPU time of an iteration.
    pub fn cpu_median(&self) -> Duration {
        median_of(&self.cpu_times)
    }

    /// Fastest iteration.
    pub fn min(&self) -> Duration {
        self.times.iter().min().copied().unwrap_or_default()
    }

    /// Slowest iteration.
    pub fn max(&self) -> Duration {
        self.times.iter().max().copied().unwrap_or_default()
    }

    /// The report as text.
    pub fn render(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let (n, i, r) = self.counts;
        let mut out = format!(
            "scenario: {n} nodes, {i} idle jobs, {r} running jobs, seed {} (built in {:.0} ms)\n",
            self.spec.seed,
            ms(self.setup)
        );
        out.push_str(&format!(
            "iterations: {}   median {:.1} ms   min {:.1} ms   max {:.1} ms   (CPU median {:.1} ms)\n",
            self.times.len(),
            ms(self.median()),
            ms(self.min()),
            ms(self.max()),
            ms(self.cpu_median())
        ));
        out.push_str(&format!(
            "last iteration: {} starts, {} job reservations\n",
            self.starts, self.reservations
        ));
        if let Some((limit, n, t)) = self.what_if {
            out.push_str(&format!(
                "what-if estimates: {n} of the first {limit} unreserved idle jobs in {:.1} ms\n",
                ms(t)
            ));
        }
        match self.peak_rss_kb {
            Some(kb) => out.push_str(&format!("peak RSS: {:.0} MB\n", kb as f64 / 1024.0)),
            None => out.push_str("peak RSS: unknown (no /proc/self/status)\n"),
        }
        out
    }
}

/// Peak resident set size of this process in KB (Linux `VmHWM`).
pub fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Builds the scenario and times `iterations` iterations of one engine
/// over the same snapshot, after one warm-up iteration (which makes the
/// job reservations later iterations start from, as in production).
/// `tick` is called after each iteration. With `what_if`, the estimates
/// a front end shows for that many unreserved jobs are timed after the
/// last iteration. `cfg` replaces the scenario's configuration
/// ([`synth::config_text`]) when given.
pub fn run(
    spec: SynthSpec,
    cfg: Option<Config>,
    iterations: usize,
    what_if: Option<usize>,
    mut tick: impl FnMut(usize),
) -> BenchReport {
    let t0 = Instant::now();
    let snap = synth::snapshot(&spec);
    let cfg =
        cfg.unwrap_or_else(|| Config::parse(&synth::config_text(), "<bench scenario>").config);
    let setup = t0.elapsed();
    let running = snap.jobs.iter().filter(|j| j.state.is_active()).count();
    let counts = (snap.nodes.len(), snap.jobs.len() - running, running);
    let mut engine = Engine::new(cfg);
    let mut plan = engine.iterate(&snap, synth::NOW);
    let mut times = Vec::with_capacity(iterations);
    let mut cpu_times = Vec::with_capacity(iterations);
    for k in 0..iterations {
        // Let go of before the next iteration, as a front end does once it
        // has applied it: kept, it would be in the peak twice.
        drop(plan);
        let c = thread_cpu_time();
        let t = Instant::now();
        plan = engine.iterate(&snap, synth::NOW);
        times.push(t.elapsed());
        cpu_times.push(thread_cpu_time().saturating_sub(c));
        tick(k + 1);
    }
    let what_if = what_if.and_then(|limit| {
        let last = engine.last()?;
        let t = Instant::now();
        let n =
            crate::commands::render::what_if_starts(engine.config(), last, limit, || true).len();
        Some((limit, n, t.elapsed()))
    });
    BenchReport {
        spec,
        counts,
        setup,
        times,
        cpu_times,
        starts: plan.starts.len(),
        reservations: plan.stats.job_reservations,
        peak_rss_kb: peak_rss_kb(),
        plan,
        what_if,
    }
}

/// What the fairshare journal costs an iteration ([`journal_cost`]).
#[derive(Clone, Debug)]
pub struct JournalCost {
    /// Where the journal was written (its file system decides the sync).
    pub path: std::path::PathBuf,
    /// Time to take the changes, write and sync one record, per iteration.
    pub times: Vec<Duration>,
    /// Bytes of each record.
    pub bytes: Vec<usize>,
}

impl JournalCost {
    /// The report as text.
    pub fn render(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mut b = self.bytes.clone();
        b.sort_unstable();
        format!(
            "fairshare journal: {} records   median {:.2} ms   max {:.2} ms   median {} bytes   ({})\n",
            self.times.len(),
            ms(median_of(&self.times)),
            ms(self.times.iter().max().copied().unwrap_or_default()),
            b.get(b.len() / 2).copied().unwrap_or(0),
            self.path.display()
        )
    }
}

/// Times the fairshare journal a service keeps between checkpoints
/// ([`crate::persist::journal`]) on the scenario: each of `iterations`
/// iterations, one poll interval (60 s) apart so that the running jobs
/// accrue, is followed by taking fairshare's changes and appending and
/// syncing one record to a fresh journal in `dir`; only that part is
/// timed. Under FSPOLICY DEDICATEDPS when the configuration tracks no
/// usage. The file is removed afterwards.
pub fn journal_cost(
    spec: &SynthSpec,
    cfg: Option<Config>,
    dir: &std::path::Path,
    iterations: usize,
) -> std::io::Result<JournalCost> {
    use crate::persist::journal::{append_changes, Journal};
    let snap = synth::snapshot(spec);
    let mut cfg =
        cfg.unwrap_or_else(|| Config::parse(&synth::config_text(), "<bench scenario>").config);
    if cfg.params.fs_policy.metric.is_none() {
        cfg.params.fs_policy.metric = Some(crate::config::FsMetric::DedicatedPs);
    }
    let path = dir.join(format!("mauisched-bench-{}.journal", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut journal = Journal::open(&path)?;
    let mut engine = Engine::new(cfg);
    engine.iterate(&snap, synth::NOW);
    engine.fairshare_mut().journal_changes();
    let (mut times, mut bytes) = (Vec::new(), Vec::new());
    for k in 1..=iterations as i64 {
        let now = synth::NOW + 60 * k;
        engine.iterate(&snap, now);
        let t = Instant::now();
        let n = append_changes(&mut journal, engine.fairshare_mut(), now)?;
        times.push(t.elapsed());
        bytes.push(n.unwrap_or(0));
    }
    drop(journal);
    std::fs::remove_file(&path)?;
    Ok(JournalCost { path, times, bytes })
}
