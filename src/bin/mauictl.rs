//! mauictl: the command-line front end of mauisched.
//!
//! `mauictl <command> [options]` asks the running scheduler through its
//! admin socket (see `mauisched::socket`); links named after Maui's commands
//! (`showq`, `setres`, ...) run the same code. The offline forms read a
//! snapshot (`--snapshot FILE`) or fairshare files (`--fs-dir DIR`)
//! instead; `mauictl showconfig` shows a configuration file (or the
//! embedded default) unless `--live` or `--socket` asks the scheduler.

#![deny(unsafe_code)]

use clap::{Parser, Subcommand};
use mauisched::cfg::{render, Severity, DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL};
use mauisched::views::spec;
use mauisched::{Config, Loaded};
use std::path::PathBuf;
use std::process::ExitCode;

// An iteration builds and drops many small objects (plans, priority
// breakdowns, profile lines); mimalloc serves them at a fraction of glibc's
// cost, which is most of what a long simulation spends on allocation.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

// Not src/bin/man.rs: cargo would take that for a binary of its own.
#[path = "mauictl/man.rs"]
mod man;

// The IFL client library, loaded at run time: mauictl's only unsafe code.
#[allow(unsafe_code)]
#[path = "mauictl/ifl.rs"]
mod ifl;

#[path = "mauictl/sweep_pbs.rs"]
mod sweep_pbs;

#[derive(Parser)]
#[command(
    name = "mauictl",
    version,
    about = "Maui-compatible scheduling policy engine: commands"
)]
struct Cli {
    /// maui.cfg to use (default: the embedded default configuration);
    /// -c FILE is still read before the command.
    #[arg(
        short = 'C',
        long = "config",
        short_alias = 'c',
        global = true,
        value_name = "FILE"
    )]
    config: Option<PathBuf>,
    /// The running scheduler's admin socket, for `snapshot` and `whatif
    /// live` (default: $MAUISCHED_SOCKET, ADMINSOCKET of -C FILE,
    /// run/mauisched.sock in the state directory).
    #[arg(long, global = true, value_name = "PATH")]
    socket: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Read maui.cfg and report every error, warning and note; exit 1 on errors.
    Check {
        /// Show errors and warnings only, not notes.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Print every parameter with its effective value, defaults included
    /// (of -c FILE or the embedded default; --live or --socket: of the
    /// running scheduler).
    Showconfig {
        /// Print JSON instead of Maui's layout.
        #[arg(long)]
        json: bool,
    },
    /// Trace-driven what-if simulation: run a workload through the engine.
    Simulate(SimulateArgs),
    /// Simulate a grid of maui.cfg parameter values on one or more traces
    /// and rank the configurations (here in parallel, or as a Slurm or
    /// Torque job array).
    Sweep(SweepArgs),
    /// Run one point of a sweep (what each task of a sweep's job array runs).
    #[command(hide = true)]
    SweepPoint {
        /// The sweep's directory (--out of `sweep`).
        dir: PathBuf,
        /// The point, from 0.
        index: usize,
    },
    /// Gather a sweep's points into its ranking and report (the job that
    /// follows a sweep's job array).
    #[command(hide = true)]
    SweepGather {
        /// The sweep's directory.
        dir: PathBuf,
    },
    /// Time scheduling iterations on a large synthetic cluster, under the scenario's configuration or -c FILE (see docs/simulator.md).
    Bench(BenchArgs),
    /// Summarise a workload trace (SWF or Maui workload trace, plain or gzip).
    TraceInfo(TraceInfoArgs),
    /// Convert accounting data (sacct -P output, Torque accounting files) to a trace for simulate, with every credential.
    ///
    /// The trace is SWF, or Maui's workload trace with --to maui; each job
    /// keeps its user, group, account, QOS and class (Slurm partition,
    /// Torque queue). What could not be carried is counted on stderr.
    Convert(ConvertArgs),
    /// List the maui.cfg parameters mauisched knows, and what it does with them.
    Params {
        /// Print the documentation page (docs/parameters.md) as Markdown.
        #[arg(long)]
        markdown: bool,
    },
    /// Run one scheduling iteration on a snapshot and print the plan.
    Plan {
        /// RM snapshot (JSON, docs/snapshot.md).
        #[arg(long, value_name = "FILE")]
        snapshot: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write the snapshot the running scheduler's last iteration was given,
    /// with the memory it started from (administrative reservations,
    /// fairshare usage, queue time, system priorities, holds...), as a
    /// snapshot file (docs/snapshot.md); needs ADMIN3.
    Snapshot {
        /// Write to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Compare one iteration under the configuration in force with one
    /// under -C FILE, on the same snapshot and memory, in memory: starts,
    /// priority order, reservations, reasons, credentials that change.
    Whatif(WhatifArgs),
    /// Write the manual pages (mauictl.1, one per subcommand and per
    /// Maui-named command) into DIR; packaging runs it.
    #[command(hide = true)]
    Man {
        /// Output directory (created if missing).
        dir: PathBuf,
    },
}

#[derive(clap::Args)]
struct WhatifArgs {
    /// `live`: the running scheduler's last snapshot and its configuration,
    /// through its admin socket (ADMIN3).
    #[arg(value_parser = ["live"], required_unless_present = "snapshot")]
    live: Option<String>,
    /// Offline: this snapshot (docs/snapshot.md; `mauictl snapshot` writes
    /// one with the scheduler's memory).
    #[arg(long, value_name = "FILE", conflicts_with = "live")]
    snapshot: Option<PathBuf>,
    /// The configuration in force (needed offline; live, in place of the
    /// running scheduler's).
    #[arg(long, value_name = "FILE")]
    current: Option<PathBuf>,
    /// How many of each priority order to compare.
    #[arg(long, value_name = "N", default_value_t = mauisched::sim::whatif::DEFAULT_TOP)]
    top: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML page with the two priority orders
    /// side by side.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// The workload and cluster of `simulate` and `trace-info`, and how the
/// trace's records become jobs.
#[derive(clap::Args)]
struct WorkloadArgs {
    /// Workload trace: SWF or Maui workload trace, plain or gzip (omit with --demo or --synthetic).
    #[arg(required_unless_present_any = ["demo", "synthetic"])]
    file: Option<PathBuf>,
    /// The bundled demo: 3,000 KTH-SP2 jobs on a 100-node cluster.
    #[arg(long, conflicts_with_all = ["file", "synthetic"])]
    demo: bool,
    /// A synthetic cluster of NODES nodes and a trace of JOBS jobs (default
    /// 10,000) that keeps it 90 % busy, drawn from SEED (default 1).
    #[arg(long, value_name = "NODES[,JOBS[,SEED]]", conflicts_with = "file")]
    synthetic: Option<mauisched::sim::synth_trace::TraceSpec>,
    /// Cluster file (text format or Maui resource trace); default: from the SWF header.
    #[arg(long, value_name = "FILE")]
    cluster: Option<PathBuf>,
    /// Skip malformed trace lines and count them instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// Keep the first N jobs.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Start at a duration after the trace start ([[DD:]HH:]MM:SS) or at job:ID.
    #[arg(long, value_name = "WHEN")]
    start_at: Option<mauisched::sim::workload::StartAt>,
    /// Divide interarrival times by F (1.5, 3/2): F > 1 raises the load.
    #[arg(long, value_name = "F")]
    scale_load: Option<mauisched::sim::workload::LoadScale>,
    /// Walltime of jobs without one: runtime, default (SYSTEMDEFAULTJOBWALLTIME) or a duration.
    #[arg(long, value_name = "HOW", default_value = "runtime")]
    no_request: mauisched::sim::NoRequest,
    /// Turn trace partition numbers into required partitions p<N>.
    #[arg(long)]
    partitions: bool,
}

/// A cluster's nodes and the label reports give it (a file's path, the
/// demo's or the synthetic trace's name).
type NamedCluster = (Vec<mauisched::snapshot::Node>, String);

impl WorkloadArgs {
    /// The selected workload (the demo's without a file), and the cluster
    /// the options name with its label: `--cluster FILE`, the demo's or the
    /// synthetic one; `None` when it comes from the trace's header. A
    /// synthetic trace is drawn once, its nodes and jobs together.
    fn load(&self) -> Result<(mauisched::sim::workload::Workload, Option<NamedCluster>), String> {
        use mauisched::sim::{cluster, demo, synth_trace, workload, MapOptions, ReadOptions};
        let map = MapOptions {
            no_request: self.no_request,
            partitions: self.partitions,
            ..MapOptions::default()
        };
        let (mut w, mut named) = match (&self.file, &self.synthetic) {
            (Some(p), _) => (
                workload::load_path(
                    p,
                    ReadOptions {
                        lenient: self.lenient,
                    },
                    &map,
                )
                .map_err(|e| e.to_string())?,
                None,
            ),
            (None, Some(spec)) => {
                let (nodes, w) = synth_trace::trace(spec);
                (w, Some((nodes, spec.label())))
            }
            (None, None) => (
                demo::workload_with(&map),
                Some((demo::cluster(), demo::CLUSTER_LABEL.to_string())),
            ),
        };
        if let Some(p) = &self.cluster {
            named = Some((
                cluster::load_cluster(p).map_err(|e| e.to_string())?,
                p.display().to_string(),
            ));
        }
        w.select(&workload::Selection {
            start_at: self.start_at.clone(),
            jobs: self.jobs,
            scale_load: self.scale_load,
        })?;
        Ok((w, named))
    }
}

#[derive(clap::Args)]
struct SimulateArgs {
    #[command(flatten)]
    workload: WorkloadArgs,
    /// Write jobs.csv, summary.json, utilization.svg and nodes.svg here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Maui's simulator clock: fixed RMPOLLINTERVAL steps (to compare with Maui).
    #[arg(long)]
    grid: bool,
    /// Run every poll iteration, also those that provably change nothing.
    #[arg(long)]
    every_poll: bool,
    /// Node chart window start, after the first submission ([[DD:]HH:]MM:SS).
    #[arg(long, value_name = "WHEN")]
    chart_start: Option<String>,
    /// Node chart window length ([[DD:]HH:]MM:SS; default one day).
    #[arg(long, value_name = "DURATION")]
    chart_span: Option<String>,
    /// Nodes shown in the node chart (the first ones; default 128).
    #[arg(long, value_name = "N")]
    chart_nodes: Option<usize>,
    /// Operators' commands to apply during the run: lines of `WHEN [as
    /// USER] COMMAND ARGS`, WHEN after the first submission
    /// ([[DD:]HH:]MM:SS); see docs/simulator.md.
    #[arg(long, value_name = "FILE")]
    operators: Option<PathBuf>,
    /// Print summary.json instead of the text summary.
    #[arg(long)]
    json: bool,
    /// Add the gres and hosts columns (node:tasks where each job ran) to
    /// jobs.csv, as for runs with generic resources.
    #[arg(long)]
    hosts: bool,
    /// Run the trace under each of these configurations (two or more) and
    /// report them side by side (with --out: report.html, compare.json,
    /// rejected.csv and a directory per run); give the trace first:
    /// `simulate TRACE --compare A.cfg B.cfg`.
    #[arg(long, num_args = 2.., value_name = "CFG")]
    compare: Vec<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
struct SweepArgs {
    /// Grid file: maui.cfg lines added to the base configuration (-C FILE,
    /// else the embedded default), and `SWEEP NAME VALUE...` lines, one per
    /// parameter varied (values split on `|` when the line has one).
    grid: PathBuf,
    /// Traces: SWF or Maui workload traces, plain or gzip, or `demo` for
    /// the bundled one.
    #[arg(required = true)]
    traces: Vec<String>,
    /// Directory for the sweep: sweep.json, points/, the results and report.html.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Cluster file for every trace (default: from each SWF header; the demo's for `demo`).
    #[arg(long, value_name = "FILE")]
    cluster: Option<PathBuf>,
    /// Keep the first N jobs of each trace.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Skip malformed trace lines.
    #[arg(long)]
    lenient: bool,
    /// The metric ranked: mean_bounded_slowdown, mean_wait, median_wait,
    /// p95_wait, max_wait, utilization, makespan, backfilled_share, lost_proc_hours.
    #[arg(long, default_value = "mean_bounded_slowdown")]
    metric: String,
    /// Configurations shown in the printed ranking (all in ranking.csv).
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Points run at once here (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// Run the points as a Slurm job array (one task per point) and gather
    /// them in a job that follows it; the directory must be on a file
    /// system the compute nodes share.
    #[arg(long)]
    slurm: bool,
    /// Run the points as a Torque job array (one job per point, submitted
    /// through Torque's IFL library, as qsub -t would) and gather them in a
    /// job that depends on it (afteranyarray); the directory must be on a
    /// file system the compute nodes share.
    #[arg(long, conflicts_with = "slurm")]
    pbs: bool,
    /// With --pbs: the IFL client library to load (default libtorque.so.2,
    /// through the dynamic linker's path), as mauisched-pbs's --libtorque.
    #[arg(long, value_name = "PATH", requires = "pbs")]
    libtorque: Option<PathBuf>,
    /// With --pbs: the pbs_server (default: libtorque's, $PBS_DEFAULT or
    /// its server_name file).
    #[arg(long, value_name = "HOST[:PORT]", requires = "pbs")]
    server: Option<String>,
    /// An option for both jobs (repeat it): for sbatch with --slurm
    /// (`--submit-arg=--partition=short --submit-arg=--time=30`); with
    /// --pbs a qsub option mauictl turns into the jobs' attributes: -q
    /// QUEUE, -l RESOURCE=VALUE[,...], -A ACCOUNT, -W NAME=VALUE, -p
    /// PRIORITY, -m, -M (`--submit-arg='-l walltime=00:30:00'`).
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    submit_arg: Vec<String>,
    /// With --slurm or --pbs: wait until the gathering job has ended and
    /// print the ranking (--pbs: polls pbs_server for it).
    #[arg(long)]
    wait: bool,
    /// With --pbs --wait: stop waiting after this long, [[DD:]HH:]MM:SS
    /// (default 24:00:00); the jobs stay queued.
    #[arg(long, value_name = "DURATION", requires = "wait")]
    wait_timeout: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// `mauictl sweep`.
fn sweep(loaded: &Loaded, a: SweepArgs) -> Result<String, String> {
    use mauisched::sim::sweep;
    usable(loaded)?;
    sweep::check_metric(&a.metric)?;
    let grid_name = a.grid.display().to_string();
    let text = std::fs::read_to_string(&a.grid).map_err(|e| format!("{grid_name}: {e}"))?;
    let spec = sweep::parse_grid(&text, &grid_name)?;
    let base = match &loaded.config.source {
        s if s == DEFAULT_CONFIG_LABEL => DEFAULT_CONFIG.to_string(),
        s => std::fs::read_to_string(s).map_err(|e| format!("{s}: {e}"))?,
    };
    let configs = spec.configs(&base, &grid_name)?;
    let mut traces = Vec::new();
    for t in &a.traces {
        if t == sweep::DEMO {
            traces.push(t.clone());
            continue;
        }
        // Absolute, for the array's tasks wherever they start.
        let p = std::fs::canonicalize(t).map_err(|e| format!("{t}: {e}"))?;
        traces.push(p.display().to_string());
    }
    let cluster = match &a.cluster {
        Some(c) => Some(std::fs::canonicalize(c).map_err(|e| format!("{}: {e}", c.display()))?),
        None => None,
    };
    let m = sweep::Manifest {
        grid_file: grid_name,
        base: loaded.config.source.clone(),
        axes: spec.axes,
        configs,
        traces,
        options: sweep::TraceOptions {
            cluster,
            jobs: a.jobs,
            lenient: a.lenient,
        },
        metric: a.metric.clone(),
    };
    sweep::prepare(&a.out, &m)?;
    let dir = std::fs::canonicalize(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    if a.slurm {
        return sweep_slurm(&dir, &m, &a);
    }
    if a.pbs {
        return sweep_pbs::submit(&dir, &m, &a);
    }
    let bar = jobs_bar(m.points() as u64, a.quiet);
    bar.set_message("points");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| e.to_string())?;
    pool.install(|| sweep::run_all(&dir, &m, &|| bar.inc(1)))?;
    bar.finish_and_clear();
    let g = sweep::gather(&dir, &m)?;
    let mut text = sweep::write_results(&dir, &m, &g, a.top)?;
    let _ = std::fmt::Write::write_fmt(
        &mut text,
        format_args!(
            "\nwrote {0}/sweep.csv, {0}/ranking.csv, {0}/ranking.svg, {0}/report.html\n",
            dir.display()
        ),
    );
    Ok(text)
}

/// Submits a sweep as a Slurm job array and the job that gathers it.
fn sweep_slurm(
    dir: &std::path::Path,
    m: &mauisched::sim::sweep::Manifest,
    a: &SweepArgs,
) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("mauictl's own path: {e}"))?;
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    let quote =
        |p: &std::path::Path| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    let sbatch = |args: Vec<String>| -> Result<String, String> {
        let out = std::process::Command::new("sbatch")
            .args(&args)
            .output()
            .map_err(|e| format!("sbatch: {e} (is Slurm's sbatch on PATH?)"))?;
        let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() {
            return Err(format!(
                "sbatch {}: {}{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim(),
                if stdout.is_empty() {
                    String::new()
                } else {
                    format!(" ({stdout})")
                }
            ));
        }
        // --parsable: `ID` or `ID;CLUSTER`.
        Ok(stdout.split(';').next().unwrap_or("").to_string())
    };
    let mut args = vec![
        "--parsable".to_string(),
        format!("--array=0-{}", m.points() - 1),
        "--job-name=mauictl-sweep".to_string(),
        format!("--output={}/point-%a.out", logs.display()),
    ];
    args.extend(a.submit_arg.iter().cloned());
    args.push(format!(
        "--wrap={} sweep-point {} $SLURM_ARRAY_TASK_ID",
        quote(&exe),
        quote(dir)
    ));
    let array = sbatch(args)?;
    let mut args = vec![
        "--parsable".to_string(),
        format!("--dependency=afterany:{array}"),
        "--job-name=mauictl-sweep-gather".to_string(),
        format!("--output={}/gather.out", logs.display()),
    ];
    args.extend(a.submit_arg.iter().cloned());
    if a.wait {
        args.push("--wait".into());
    }
    args.push(format!(
        "--wrap={} sweep-gather {}",
        quote(&exe),
        quote(dir)
    ));
    let submitted = format!(
        "submitted {} points as Slurm job array {array}, gathered by the job that follows it; results in {}\n",
        m.points(),
        dir.display()
    );
    let gather = match sbatch(args) {
        Ok(id) => id,
        Err(e) if a.wait => {
            return Err(format!(
                "{submitted}the gathering job failed: {e}; see {}/gather.out",
                logs.display()
            ))
        }
        Err(e) => return Err(e),
    };
    if !a.wait {
        return Ok(format!(
            "{submitted}gathering job {gather}; then {}/report.html\n",
            dir.display()
        ));
    }
    let g = mauisched::sim::sweep::gather(dir, m)?;
    Ok(format!(
        "{submitted}{}",
        mauisched::sim::sweep::ranking_text(m, &g, a.top)
    ))
}

/// `mauictl sweep-point DIR N`.
fn sweep_point(dir: &std::path::Path, index: usize) -> Result<String, String> {
    use mauisched::sim::sweep;
    let m = sweep::read_manifest(dir)?;
    let r = sweep::run_point(dir, &m, index)?;
    let (c, _) = m.point(index);
    Ok(format!(
        "point {index}: {} on {}: {} {:.6}\n",
        m.label(c),
        r.trace,
        m.metric,
        r.get(&m.metric).unwrap_or(f64::NAN)
    ))
}

/// `mauictl sweep-gather DIR`.
fn sweep_gather(dir: &std::path::Path) -> Result<String, String> {
    use mauisched::sim::sweep;
    let m = sweep::read_manifest(dir)?;
    let g = sweep::gather(dir, &m)?;
    sweep::write_results(dir, &m, &g, usize::MAX)
}

/// A configuration with errors is not used: its diagnostics go to stderr
/// and the error says what to run.
fn usable(loaded: &Loaded) -> Result<(), String> {
    if loaded.is_ok() {
        return Ok(());
    }
    for d in loaded.errors() {
        eprintln!("{d}");
    }
    Err(format!(
        "{} has errors; run `mauictl check`",
        loaded.config.source
    ))
}

fn duration_arg(name: &str, v: &Option<String>) -> Result<Option<i64>, String> {
    match v.as_deref() {
        None => Ok(None),
        Some(s) => match mauisched::time::parse_duration(s) {
            Ok(Some(d)) if d >= 0 => Ok(Some(d)),
            _ => Err(format!("--{name}: expected [[DD:]HH:]MM:SS, got \"{s}\"")),
        },
    }
}

/// The workload, the cluster and its label of `simulate`.
fn sim_inputs(
    a: &SimulateArgs,
) -> Result<(mauisched::sim::workload::Workload, NamedCluster), String> {
    use mauisched::sim::{cluster, workload::TraceFormat};
    let (w, named) = a.workload.load()?;
    if w.read.malformed > 0 {
        eprintln!(
            "mauictl: {}: skipped {} malformed line(s) (--lenient); first: {}",
            w.source,
            w.read.malformed,
            w.read
                .examples
                .first()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
    }
    let (nodes, cluster_label) = match named {
        Some(c) => c,
        None => (
            cluster::synthesize(&w.header, &w.jobs).ok_or_else(|| {
                format!(
                    "{}: the header gives neither MaxNodes nor MaxProcs; use --cluster FILE",
                    w.source
                )
            })?,
            match w.format {
                TraceFormat::Swf => "<synthesised from the SWF header>",
                // `# MaxNodes:` comments, as `mauictl convert --to maui` writes.
                TraceFormat::MauiWorkload => {
                    "<synthesised from the trace's MaxNodes and MaxProcs comments>"
                }
            }
            .to_string(),
        ),
    };
    Ok((w, (nodes, cluster_label)))
}

/// The operators' commands of `simulate` (lines and events), read under
/// `cfg`.
fn sim_operators(
    a: &SimulateArgs,
    cfg: &Config,
    first_submit: i64,
) -> Result<(Vec<String>, Vec<mauisched::sim::run::OperatorEvent>), String> {
    Ok(match &a.operators {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            mauisched::sim::operators::parse_operators(
                &p.display().to_string(),
                &text,
                first_submit,
                cfg,
            )?
            .into_iter()
            .unzip()
        }
        None => Default::default(),
    })
}

/// The simulation settings of `simulate` under `cfg`.
fn sim_options(a: &SimulateArgs, cfg: &Config) -> Result<mauisched::sim::run::SimOptions, String> {
    use mauisched::sim::run;
    Ok(run::SimOptions {
        clock: if a.grid {
            run::Clock::Grid
        } else {
            run::Clock::Events
        },
        every_poll: a.every_poll,
        initial_queue_depth: if a.grid {
            run::grid_initial_queue_depth(cfg)?
        } else {
            0
        },
    })
}

/// A progress bar over `total` jobs on a terminal, else a hidden one.
fn jobs_bar(total: u64, quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let b = indicatif::ProgressBar::new(total);
    b.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} jobs done {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    b
}

fn simulate(loaded: &Loaded, a: SimulateArgs) -> Result<String, String> {
    use mauisched::sim::{report, run};
    if !a.compare.is_empty() {
        if loaded.config.source != DEFAULT_CONFIG_LABEL {
            return Err(
                "--compare takes every configuration to run: give them there, not with -C".into(),
            );
        }
        return simulate_compare(a);
    }
    usable(loaded)?;
    let chart = report::ChartChoice {
        start: duration_arg("chart-start", &a.chart_start)?,
        span: duration_arg("chart-span", &a.chart_span)?,
        nodes: a.chart_nodes,
    };
    let (w, (nodes, cluster_label)) = sim_inputs(&a)?;
    let cfg = &loaded.config;
    let first_submit = w.jobs.first().map_or(0, |j| j.job.submit_time);
    let (op_lines, op_events) = sim_operators(&a, cfg, first_submit)?;
    let opts = sim_options(&a, cfg)?;
    let bar = jobs_bar(w.jobs.len() as u64, a.quiet);
    let mut calls = 0u64;
    let res = run::simulate_with_operators(cfg, &nodes, &w.jobs, &op_events, &opts, |p| {
        calls += 1;
        if calls % 256 == 0 {
            bar.set_position(p.finished as u64);
            bar.set_message(report::iso_time(p.now));
        }
    })
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let labels = report::Labels {
        workload: w.source.clone(),
        cluster: cluster_label,
        config: cfg.source.clone(),
    };
    let mut s = report::summarize(cfg, &nodes, &w.jobs, &res, opts.clock, &labels);
    report::add_operators(&mut s, &op_lines, &op_events, &res);
    let mut text = if a.json {
        report::summary_json(&s)
    } else {
        report::render(&s, 10)
    };
    if let Some(dir) = &a.out {
        let stats = mauisched::sim::stats::RunStats::of(cfg, &w.jobs, &res, &s);
        let files = report::write_dir(dir, &s, &stats, &w.jobs, &nodes, &res, &chart, a.hosts)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        if !a.json {
            text.push_str(&wrote(&files));
        }
    }
    Ok(text)
}

/// `wrote A, B, C` after a report, naming the files written.
fn wrote(files: &[PathBuf]) -> String {
    format!(
        "\nwrote {}\n",
        files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `simulate --compare`: the trace under each configuration, in parallel.
fn simulate_compare(a: SimulateArgs) -> Result<String, String> {
    use mauisched::sim::{compare, report, stats};
    let chart = report::ChartChoice {
        start: duration_arg("chart-start", &a.chart_start)?,
        span: duration_arg("chart-span", &a.chart_span)?,
        nodes: a.chart_nodes,
    };
    let paths: Vec<String> = a.compare.iter().map(|p| p.display().to_string()).collect();
    let labels = compare::labels(&paths);
    let (w, (nodes, cluster_label)) = sim_inputs(&a)?;
    let first_submit = w.jobs.first().map_or(0, |j| j.job.submit_time);
    let mut entries = Vec::new();
    for (p, label) in a.compare.iter().zip(labels) {
        let loaded = load(&Some(p.clone()))?;
        usable(&loaded)?;
        let config = loaded.config;
        let (operator_lines, operators) = sim_operators(&a, &config, first_submit)?;
        entries.push(compare::Entry {
            label,
            options: sim_options(&a, &config)?,
            config,
            operators,
            operator_lines,
        });
    }
    let bar = jobs_bar((w.jobs.len() * entries.len()) as u64, a.quiet);
    let labels = report::Labels {
        workload: w.source.clone(),
        cluster: cluster_label,
        config: String::new(),
    };
    let runs = compare::run_all(&entries, &nodes, &w.jobs, &labels, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    let compared: Vec<compare::Compared> = runs.iter().map(|r| r.compared.clone()).collect();
    let mut text = if a.json {
        compare::json(&compared)
    } else {
        compare::text(&compared)
    };
    if let Some(dir) = &a.out {
        let fail = |e: std::io::Error| format!("{}: {e}", dir.display());
        std::fs::create_dir_all(dir).map_err(fail)?;
        let mut files = Vec::new();
        let rejected: Vec<(Option<&str>, &stats::RejectedJob)> = compared
            .iter()
            .flat_map(|c| c.stats.rejected.iter().map(|r| (Some(c.label.as_str()), r)))
            .collect();
        for (name, body) in [
            ("report.html", compare::html(&compared)),
            ("compare.json", compare::json(&compared)),
            ("rejected.csv", stats::rejected_csv(&rejected)),
        ] {
            let p = dir.join(name);
            mauisched::atomic_write(&p, body.as_bytes()).map_err(fail)?;
            files.push(p);
        }
        for r in &runs {
            let c = &r.compared;
            let sub = dir.join(&c.label);
            files.extend(
                report::write_dir(
                    &sub, &c.summary, &c.stats, &w.jobs, &nodes, &r.result, &chart, a.hosts,
                )
                .map_err(|e| format!("{}: {e}", sub.display()))?,
            );
        }
        if !a.json {
            text.push_str(&wrote(&files[..3]));
            let _ = std::fmt::Write::write_fmt(
                &mut text,
                format_args!(
                    "and each run's jobs.csv, summary.json, credentials.csv, showgrid.txt, rejected.csv and charts in {}/<run>/\n",
                    dir.display()
                ),
            );
        }
    }
    Ok(text)
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Nodes in the synthetic cluster.
    #[arg(long, default_value_t = 10_000)]
    nodes: usize,
    /// Idle jobs in the queue.
    #[arg(long, default_value_t = 50_000)]
    idle: usize,
    /// Running jobs to place (those that fit are kept).
    #[arg(long, default_value_t = 8_000)]
    running: usize,
    /// Measured iterations (after one warm-up iteration).
    #[arg(long, default_value_t = 10)]
    iterations: usize,
    /// Seed of the scenario generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write the last iteration's plan as JSON (to compare two builds).
    #[arg(long, value_name = "FILE")]
    plan_json: Option<PathBuf>,
    /// Also time showstart's estimate for the first N unreserved idle jobs
    /// (what the Slurm front end shows as StartTime).
    #[arg(long, value_name = "N")]
    what_if: Option<usize>,
    /// Add a GPU mix: PERCENT of the nodes get gres gpu:4 and about as
    /// large a share of the jobs ask 1-4 GPUs per task or per node (0: none,
    /// the default scenario unchanged).
    #[arg(long, value_name = "PERCENT", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=100))]
    gpus: u32,
    /// Also time the fairshare journal each iteration writes between
    /// checkpoints (take the changes, append a record, fdatasync) in a
    /// temporary file in DIR; use the state directory's file system.
    #[arg(long, value_name = "DIR")]
    journal: Option<PathBuf>,
}

/// With `-c FILE`, the scenario runs under that configuration instead
/// of its own (whose standing reservations name the synthetic cluster's
/// features and classes).
fn bench(loaded: &Loaded, given: bool, a: BenchArgs) -> Result<String, String> {
    use mauisched::sim::{bench, synth::SynthSpec};
    let cfg = if given {
        usable(loaded)?;
        Some(loaded.config.clone())
    } else {
        None
    };
    let spec = SynthSpec {
        nodes: a.nodes,
        idle: a.idle,
        running: a.running,
        seed: a.seed,
        gpus: a.gpus,
    };
    let r = bench::run(spec, cfg.clone(), a.iterations, a.what_if, |_| {});
    if let Some(p) = &a.plan_json {
        let text = serde_json::to_string_pretty(&*r.plan).map_err(|e| e.to_string())?;
        mauisched::atomic_write(p, text.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let mut out = r.render();
    if let Some(dir) = &a.journal {
        let j = bench::journal_cost(&spec, cfg, dir, a.iterations.max(1))
            .map_err(|e| format!("fairshare journal in {}: {e}", dir.display()))?;
        out.push_str(&j.render());
    }
    Ok(out)
}

#[derive(clap::Args)]
struct TraceInfoArgs {
    #[command(flatten)]
    workload: WorkloadArgs,
}

fn trace_info(a: TraceInfoArgs) -> Result<String, String> {
    use mauisched::sim::{cluster, info};
    let a = a.workload;
    let (w, named) = a.load()?;
    let c = match named {
        Some((nodes, source)) => info::ClusterInfo::File { source, nodes },
        None => match cluster::synth_spec(&w.header, &w.jobs) {
            Some(spec) => info::ClusterInfo::Synthesised {
                nodes: cluster::parse_cluster(&spec, "<synthesised>").map_err(|e| e.to_string())?,
                spec,
            },
            None => info::ClusterInfo::None,
        },
    };
    Ok(info::render(&w, &c))
}

/// Accounting formats `mauictl convert` reads.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ConvertFormat {
    /// `sacct -P` output, with or without its header line (docs/testing-a-config.md).
    Sacct,
    /// Torque server accounting files (server_priv/accounting/YYYYMMDD).
    TorqueAcct,
}

/// Trace formats `mauictl convert` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ConvertTarget {
    /// Standard Workload Format; names, accounts and QOS as header comments
    /// that simulate reads back.
    Swf,
    /// Maui's workload trace: original job ids, every credential by name.
    Maui,
}

#[derive(clap::Args)]
#[command(
    after_help = "Slurm: SLURM_TIME_FORMAT=%s sacct -a -X -P -S START -E END -o JobID,User,Group,Account,Partition,QOS,Submit,Start,End,Elapsed,Timelimit,AllocCPUS,ReqCPUS,ReqMem,NNodes,State\n\
Torque: the server's accounting files, server_priv/accounting/YYYYMMDD.\n\
A summary on stderr counts the lines and jobs left out and why, the fields changed, the jobs simulate will skip, and what the output format cannot hold. See docs/testing-a-config.md."
)]
struct ConvertArgs {
    /// Format of the input.
    #[arg(value_enum)]
    format: ConvertFormat,
    /// Input files, plain or gzip (`-`: standard input); Torque: every day's file.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Trace format to write.
    #[arg(long, value_enum, value_name = "TRACE_FORMAT", default_value = "swf")]
    to: ConvertTarget,
    /// Write the trace to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the number-to-name table (users, groups, queues, partitions, job ids) to FILE (SWF only).
    #[arg(long, value_name = "FILE")]
    map: Option<PathBuf>,
    /// Skip malformed lines and count them instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// MaxNodes for the trace's header (Torque: default from exec_host).
    #[arg(long, value_name = "N")]
    max_nodes: Option<u64>,
    /// MaxProcs for the trace's header (Torque: default from exec_host).
    #[arg(long, value_name = "N")]
    max_procs: Option<u64>,
}

/// `mauictl convert`: exit 1 on unreadable or malformed input.
fn convert(a: ConvertArgs) -> ExitCode {
    use mauisched::sim::convert::{self, ConvertOptions, Source, Target};
    let source = match a.format {
        ConvertFormat::Sacct => Source::Sacct,
        ConvertFormat::TorqueAcct => Source::TorqueAcct,
    };
    let target = match a.to {
        ConvertTarget::Swf => Target::Swf,
        ConvertTarget::Maui => Target::Maui,
    };
    if target == Target::Maui && a.map.is_some() {
        eprintln!(
            "mauictl: convert: --map lists the numbers SWF gives to names and job ids; \
             the Maui trace keeps the original ids and names (leave --map out)"
        );
        return ExitCode::FAILURE;
    }
    // sacct's and Torque's clock times are the site's: read them in this
    // host's zone (TZ names another).
    let (zone, problem) = mauisched::time::Zone::host();
    if let Some(p) = problem {
        eprintln!("mauictl convert: time zone: {p}");
    }
    let opts = ConvertOptions {
        lenient: a.lenient,
        max_nodes: a.max_nodes,
        max_procs: a.max_procs,
        zone,
    };
    let run = || -> Result<String, String> {
        let inputs = convert::open_inputs(&a.files).map_err(|e| e.to_string())?;
        let c = convert::convert(source, inputs, &opts).map_err(|e| e.to_string())?;
        let trace = match target {
            Target::Swf => c.swf(),
            Target::Maui => c.maui_trace(),
        };
        let write = |p: &PathBuf, text: &str| {
            mauisched::atomic_write(p, text.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))
        };
        if let Some(p) = &a.map {
            write(p, &c.map_text())?;
        }
        let map = a.map.as_ref().map(|p| p.display().to_string());
        eprint!("{}", c.report(target, map.as_deref()));
        match &a.output {
            Some(p) => write(p, &trace).map(|_| String::new()),
            None => Ok(trace),
        }
    };
    print_or_fail(run())
}

/// Prints a command's output, or its error on stderr with exit status 1.
fn print_or_fail(result: Result<String, impl std::fmt::Display>) -> ExitCode {
    match result {
        Ok(text) => {
            emit(&text);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mauictl: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes to stdout; a closed pipe (`mauictl showconfig | head`) ends quietly.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("mauictl: cannot write output: {e}");
        std::process::exit(2);
    }
}

/// Reads maui.cfg (or the embedded default), in the host's time zone: the
/// first diagnostic names it.
fn load(path: &Option<PathBuf>) -> Result<Loaded, String> {
    let mut loaded = match path {
        Some(p) => Config::load(p).map_err(|e| e.to_string())?,
        None => Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL),
    };
    loaded.use_host_zone();
    Ok(loaded)
}

/// A Maui command as typed, with mauictl's own options taken out.
#[derive(Default)]
struct MauiCall {
    /// What the user typed the command as (`mauictl` or a Maui name).
    prog: String,
    cmd: String,
    /// The command's arguments, as Maui spells them.
    args: Vec<String>,
    json: bool,
    socket: Option<PathBuf>,
    config: Option<PathBuf>,
    snapshot: Option<PathBuf>,
    fs_dir: Option<PathBuf>,
    store: Option<PathBuf>,
    help: bool,
}

impl MauiCall {
    /// The name messages start with.
    fn who(&self) -> &str {
        if self.prog == "mauictl" {
            "mauictl"
        } else {
            &self.prog
        }
    }

    /// Offline: some input file is given.
    fn offline(&self) -> bool {
        self.snapshot.is_some() || self.fs_dir.is_some() || self.store.is_some()
    }
}

/// Takes mauictl's option `a` (and its value from `rest`) into `c`;
/// false when `a` is not one of mauictl's. Maui's own flags, `-c`
/// included, are left to the command.
fn own_option(
    c: &mut MauiCall,
    a: &str,
    rest: &mut dyn Iterator<Item = String>,
) -> Result<bool, String> {
    let (name, inline) = match a.split_once('=') {
        Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
        _ => (a, None),
    };
    let mut value = |slot: &mut Option<PathBuf>| -> Result<bool, String> {
        let v = match inline.clone() {
            Some(v) => v,
            None => rest.next().ok_or_else(|| format!("{name} needs a value"))?,
        };
        *slot = Some(PathBuf::from(v));
        Ok(true)
    };
    match name {
        "--json" if inline.is_none() => c.json = true,
        "-h" | "--help" if inline.is_none() => c.help = true,
        "--socket" => return value(&mut c.socket),
        "-C" | "--config" => return value(&mut c.config),
        "--snapshot" => return value(&mut c.snapshot),
        "--fs-dir" => return value(&mut c.fs_dir),
        "--store" => return value(&mut c.store),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Decides what runs a command line. `args` excludes the program name.
/// `None`: clap (mauictl's own commands, `mauictl showconfig` as the
/// configuration tool, help). `Some(Err)`: a usage error.
fn route(prog: &str, args: &[String]) -> Option<Result<MauiCall, String>> {
    let mut c = MauiCall {
        prog: prog.to_string(),
        ..MauiCall::default()
    };
    let mut it = args.iter().cloned().peekable();
    // mauictl's options before the command; there `-c FILE` is still
    // taken as the configuration, as mauictl always read it.
    while let Some(a) = it.peek().cloned() {
        if a.starts_with('-') && spec::find(&a).is_none() {
            it.next();
            if a == "-c" {
                match it.next() {
                    Some(v) => c.config = Some(PathBuf::from(v)),
                    None => return None,
                }
                continue;
            }
            match own_option(&mut c, &a, &mut it) {
                Ok(true) if !c.help => continue,
                _ => return None,
            }
        }
        break;
    }
    c.cmd = it.next()?;
    spec::find(&c.cmd)?;
    let mut live_asked = false;
    while let Some(a) = it.next() {
        if a == "--live" && c.cmd == "showconfig" {
            live_asked = true;
            continue;
        }
        match own_option(&mut c, &a, &mut it) {
            Ok(true) => {}
            Ok(false) => c.args.push(a),
            Err(e) => return Some(Err(format!("{}: {e}", c.cmd))),
        }
    }
    // `mauictl showconfig` is the configuration tool: it shows FILE (-C)
    // or the embedded default. The running scheduler's configuration is
    // what the `showconfig` name, `--live` or `--socket` ask for.
    if c.cmd == "showconfig"
        && !(live_asked || c.prog == "showconfig" || c.socket.is_some() || c.help || c.offline())
    {
        return None;
    }
    Some(Ok(c))
}

/// Loads `-C FILE` for a Maui command; a configuration with errors is
/// refused (exit 1), an unreadable file is a usage error (exit 2).
fn maui_config(c: &MauiCall) -> Result<Option<Loaded>, ExitCode> {
    let Some(p) = &c.config else { return Ok(None) };
    let who = c.who();
    match Config::load(p) {
        Ok(mut loaded) => match usable(&loaded) {
            Ok(()) => {
                loaded.use_host_zone();
                Ok(Some(loaded))
            }
            Err(e) => {
                eprintln!("{who}: {e}");
                Err(ExitCode::FAILURE)
            }
        },
        Err(e) => {
            eprintln!("{who}: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// Runs a Maui command: its help, its offline form, or on the running
/// scheduler. Exit status: 0 done, 1 refused (permission, not found, not
/// supported, no room...), 2 usage, 3 no scheduler answering.
fn run_maui(c: MauiCall) -> ExitCode {
    let who = c.who().to_string();
    let Some(sp) = spec::find(&c.cmd) else {
        return ExitCode::from(2);
    };
    if c.help {
        emit(&sp.help());
        return ExitCode::SUCCESS;
    }
    if let spec::Support::No(why) = sp.support {
        eprintln!("{who}: {}: not supported by mauisched: {why}", c.cmd);
        return ExitCode::FAILURE;
    }
    let loaded = match maui_config(&c) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if c.offline() {
        if !sp.reads {
            eprintln!(
                "{who}: {} changes the running scheduler; --snapshot, --fs-dir and --store are for the reading commands",
                c.cmd
            );
            return ExitCode::from(2);
        }
        return offline(&c, loaded);
    }
    live(&c, loaded.as_ref())
}

/// The offline form: one iteration over the snapshot in memory, answered
/// as the running scheduler answers.
fn offline(c: &MauiCall, loaded: Option<Loaded>) -> ExitCode {
    use mauisched::service::offline::{Inputs, Offline};
    let who = c.who();
    let fail = |e: String| {
        eprintln!("{who}: {e}");
        ExitCode::from(2)
    };
    let loaded = match loaded {
        Some(l) => l,
        None => match load(&None) {
            Ok(l) => l,
            Err(e) => return fail(e),
        },
    };
    let cfg = loaded.config;
    let needs_snapshot = !(c.cmd == "diagnose" && c.args.iter().any(|a| a == "-f"));
    let snapshot = match &c.snapshot {
        Some(p) => match read_snapshot(p) {
            Ok(mut s) => {
                s.now = Some(snapshot_now(&s));
                Some(s)
            }
            Err(e) => return fail(e),
        },
        None if needs_snapshot => {
            return fail(format!(
                "{}: the offline form needs --snapshot FILE (docs/snapshot.md)",
                c.cmd
            ))
        }
        None => None,
    };
    let now = snapshot
        .as_ref()
        .and_then(|s| s.now)
        .unwrap_or_else(wall_clock);
    let fairshare = match &c.fs_dir {
        None => None,
        Some(dir) if !dir.is_dir() => {
            return fail(format!(
                "--fs-dir {}: no such directory (the FS.<epoch> files are in the state directory's fairshare/)",
                dir.display()
            ))
        }
        Some(dir) => match mauisched::views::offline::Fairshare::load_dir(dir, &cfg, now) {
            Ok((fs, issues)) => {
                for i in issues {
                    eprintln!("{who}: {i}");
                }
                Some(fs)
            }
            Err(e) => return fail(format!("{}: {e}", dir.display())),
        },
    };
    let admin = match &c.store {
        None => None,
        Some(p) if !p.is_file() => return fail(format!("--store {}: no such file", p.display())),
        Some(p) => match mauisched::views::offline::AdminStore::load(p) {
            Ok(s) => Some(s),
            Err(e) => return fail(e.to_string()),
        },
    };
    let inputs = Inputs {
        snapshot,
        fairshare,
        admin,
    };
    let o = match Offline::new(cfg, inputs) {
        Ok(o) => o,
        Err(e) => {
            let file = c.snapshot.as_deref().unwrap_or(std::path::Path::new("-"));
            return fail(format!("{}: {e}", file.display()));
        }
    };
    answer(who, c.json, o.ask(&c.cmd, &c.args, c.json))
}

/// Prints a response: its text or JSON on stdout, or its error on stderr
/// (and as JSON with --json), with the exit status its code means.
fn answer(who: &str, json: bool, r: mauisched::socket::protocol::Response) -> ExitCode {
    use mauisched::socket::protocol;
    if r.ok {
        match (r.output, r.data) {
            (Some(t), _) => emit(&t),
            (None, Some(v)) => emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&v).unwrap_or_default()
            )),
            (None, None) => {}
        }
        return ExitCode::SUCCESS;
    }
    let e = r.error.unwrap_or(protocol::ErrorBody {
        code: protocol::ErrorCode::Internal,
        message: "the scheduler refused without saying why".into(),
        needs: None,
    });
    if json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&e).unwrap_or_default()
        ));
    }
    eprintln!("{who}: {}", e.message);
    match e.code {
        protocol::ErrorCode::Usage | protocol::ErrorCode::UnknownCommand => ExitCode::from(2),
        _ => ExitCode::FAILURE,
    }
}

/// Runs a command on the running scheduler.
fn live(c: &MauiCall, loaded: Option<&Loaded>) -> ExitCode {
    let who = c.who();
    let cfg = loaded.zip(c.config.as_deref()).map(|(l, p)| (&l.config, p));
    // schedctl -n FILE: the table goes into FILE (Maui printed it only).
    let mut args = c.args.clone();
    let table_file = match args.as_slice() {
        [n, f] if c.cmd == "schedctl" && n == "-n" && !f.starts_with('-') => {
            args.pop().map(PathBuf::from)
        }
        _ => None,
    };
    let r = match ask(who, c.socket.as_deref(), cfg, &c.cmd, &args, c.json) {
        Ok(r) => r,
        Err(code) => return code,
    };
    match (table_file, r.ok, &r.output) {
        (Some(p), true, Some(text)) => {
            if let Err(e) = mauisched::atomic_write(&p, text.as_bytes()) {
                eprintln!("{who}: {}: {e}", p.display());
                return ExitCode::FAILURE;
            }
            emit(&format!(
                "node table ({} node(s)) written to {}\n",
                text.lines().count(),
                p.display()
            ));
            ExitCode::SUCCESS
        }
        _ => answer(who, c.json, r),
    }
}

/// Sends one request to the running scheduler (the socket: `socket`,
/// else located from `cfg`); no answer is reported here, with the exit
/// status it means.
fn ask(
    who: &str,
    socket: Option<&std::path::Path>,
    cfg: Option<(&Config, &std::path::Path)>,
    cmd: &str,
    args: &[String],
    json: bool,
) -> Result<mauisched::socket::protocol::Response, ExitCode> {
    use mauisched::socket::{client, protocol};
    let at = client::locate(socket, cfg);
    let wait = cfg.map_or(30, |(c, _)| c.params.client_timeout.0.max(1)) as u64 + 5;
    let req = protocol::Request {
        v: protocol::VERSION,
        cmd: cmd.to_string(),
        args: args.to_vec(),
        json,
    };
    let code = match client::call(&at.path, &req, std::time::Duration::from_secs(wait)) {
        Err(client::ClientError::Connect(e))
            if e.kind() == std::io::ErrorKind::PermissionDenied =>
        {
            eprintln!(
                "{who}: permission denied on the scheduler's socket {} (socket from {}): {e}
{who}: the socket (or a directory above it) does not let you in: ask the administrator, or run as a user it admits",
                at.path.display(),
                at.source
            );
            ExitCode::FAILURE
        }
        Err(client::ClientError::Connect(e)) => {
            eprintln!(
                "{who}: no scheduler is answering at {} (socket from {}): {e}
{who}: is the scheduler running? --socket PATH, $MAUISCHED_SOCKET or ADMINSOCKET in maui.cfg (-C FILE) name another socket",
                at.path.display(),
                at.source
            );
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("{who}: {} ({}): {e}", at.path.display(), at.source);
            ExitCode::from(3)
        }
        Ok(r) => return Ok(r),
    };
    Err(code)
}

/// The end of `mauictl --help`: Maui's commands, from their table.
fn overview() -> String {
    let mut out = String::from(
        "Maui's commands (mauictl COMMAND, or the link named after it; COMMAND -h lists its flags):\n",
    );
    for sp in spec::SPECS {
        let note = match sp.support {
            spec::Support::No(_) => " (not supported: see -h)",
            _ => "",
        };
        out.push_str(&format!("  {:<16}{}{note}\n", sp.name, sp.summary));
    }
    out.push_str(
        "\nThey ask the running scheduler through its admin socket: --socket PATH, \
$MAUISCHED_SOCKET, ADMINSOCKET of -C FILE, or run/mauisched.sock in $MAUISCHED_STATE_DIR \
(default /var/lib/mauisched). The reading ones also run offline on an RM snapshot \
(--snapshot FILE, with --fs-dir DIR and --store FILE). --json gives JSON. Exit status: 0 \
done, 1 refused, 2 usage, 3 no scheduler.",
    );
    out
}

fn main() -> ExitCode {
    let mut argv: Vec<String> = std::env::args().collect();
    let prog = argv
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mauictl".into());
    // Installed as `showq`, `setres`, ...: the name is the command.
    if spec::find(&prog).is_some() {
        argv.insert(1, prog.clone());
        argv[0] = "mauictl".into();
    }
    match route(&prog, &argv[1..]) {
        Some(Ok(c)) => return run_maui(c),
        Some(Err(e)) => {
            eprintln!("{prog}: {e}");
            return ExitCode::from(2);
        }
        None => {}
    }
    let cli = {
        use clap::{CommandFactory, FromArgMatches};
        let matches = Cli::command()
            .after_help(overview())
            .get_matches_from(&argv);
        match Cli::from_arg_matches(&matches) {
            Ok(c) => c,
            Err(e) => e.exit(),
        }
    };
    let loaded = match load(&cli.config) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mauictl: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.cmd {
        Cmd::Man { dir } => {
            use clap::CommandFactory;
            match man::write(Cli::command().after_help(overview()), &dir) {
                Ok(files) => {
                    emit(&format!(
                        "wrote {} manual pages in {}\n",
                        files.len(),
                        dir.display()
                    ));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("mauictl man: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Cmd::Check { quiet } => {
            let count = |s| {
                loaded
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == s)
                    .count()
            };
            for d in &loaded.diagnostics {
                if !(quiet && d.severity == Severity::Note) {
                    emit(&format!("{d}\n"));
                }
            }
            let (e, w, n) = (
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Note),
            );
            emit(&format!(
                "{}: {e} error(s), {w} warning(s), {n} note(s)\n",
                loaded.config.source
            ));
            if e > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Cmd::Simulate(a) => print_or_fail(simulate(&loaded, a)),
        Cmd::Sweep(a) => print_or_fail(sweep(&loaded, a)),
        Cmd::SweepPoint { dir, index } => print_or_fail(sweep_point(&dir, index)),
        Cmd::SweepGather { dir } => print_or_fail(sweep_gather(&dir)),
        Cmd::Bench(a) => print_or_fail(bench(&loaded, cli.config.is_some(), a)),
        Cmd::Convert(a) => convert(a),
        Cmd::TraceInfo(a) => print_or_fail(trace_info(a)),
        Cmd::Showconfig { json } => {
            if let Err(e) = usable(&loaded) {
                eprintln!("mauictl: {e}");
                return ExitCode::FAILURE;
            }
            if json {
                let v = render::showconfig_json(&loaded.config);
                emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&v).unwrap_or_default()
                ));
            } else {
                emit(&render::showconfig(&loaded.config));
            }
            ExitCode::SUCCESS
        }
        Cmd::Plan { snapshot, json } => engine_cmd(&loaded, &snapshot, |cfg, e, plan| {
            let _ = e;
            Ok(if json {
                let mut v = serde_json::to_value(plan).unwrap_or_default();
                mauisched::views::with_local_times(&mut v, &cfg.zone);
                format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
            } else {
                plan_text(plan, &cfg.zone)
            })
        }),
        Cmd::Snapshot { output } => {
            let cfg = cli.config.as_deref().map(|p| (&loaded.config, p));
            let r = match ask(
                "mauictl",
                cli.socket.as_deref(),
                cfg,
                "snapshot",
                &[],
                false,
            ) {
                Ok(r) => r,
                Err(code) => return code,
            };
            match (output, r.ok, &r.output) {
                (Some(p), true, Some(text)) => match mauisched::atomic_write(&p, text.as_bytes()) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("mauictl: {}: {e}", p.display());
                        ExitCode::FAILURE
                    }
                },
                _ => answer("mauictl", false, r),
            }
        }
        Cmd::Whatif(a) => whatif(&loaded, cli.config.as_deref(), cli.socket.as_deref(), a),
        Cmd::Params { markdown } => {
            if markdown {
                emit(&mauisched::cfg::doc::parameters_markdown());
            } else {
                let mut out = String::new();
                for d in mauisched::cfg::SCALARS {
                    out.push_str(&format!("{:<32}{}\n", d.name(), d.doc.trim()));
                }
                emit(&out);
            }
            ExitCode::SUCCESS
        }
    }
}

/// `mauictl whatif`: the candidate is -C FILE; the configuration in force
/// and the snapshot come from `--current` and `--snapshot`, or from the
/// running scheduler (`live`). Exit status: 0 compared (whatever differs),
/// 1 a configuration with errors or a refusal, 2 usage or an unreadable
/// file, 3 no scheduler answering.
fn whatif(
    loaded: &Loaded,
    config: Option<&std::path::Path>,
    socket: Option<&std::path::Path>,
    a: WhatifArgs,
) -> ExitCode {
    let fail = |code: u8, e: String| {
        eprintln!("mauictl whatif: {e}");
        ExitCode::from(code)
    };
    let Some(path) = config else {
        return fail(
            2,
            "-C FILE names the candidate configuration to compare with the one in force".into(),
        );
    };
    // A broken candidate is refused; its errors name file and line.
    if let Err(e) = usable(loaded) {
        return fail(1, e);
    }
    let live = a.live.is_some();
    let cfg = Some((&loaded.config, path));
    let ask_text = |cmd: &str| -> Result<String, ExitCode> {
        let r = ask("mauictl whatif", socket, cfg, cmd, &[], false)?;
        match (r.ok, &r.output) {
            (true, Some(t)) => Ok(t.clone()),
            _ => Err(answer("mauictl whatif", false, r)),
        }
    };
    let current = match (&a.current, live) {
        (Some(p), _) => match load(&Some(p.clone())) {
            Ok(l) => match usable(&l) {
                Ok(()) => l.config,
                Err(e) => return fail(1, e),
            },
            Err(e) => return fail(2, e),
        },
        (None, true) => {
            let text = match ask_text("showconfig") {
                Ok(t) => t,
                Err(code) => return code,
            };
            let mut l = Config::parse(&text, "the running configuration (showconfig)");
            l.use_host_zone();
            if let Err(e) = usable(&l) {
                return fail(1, e);
            }
            l.config
        }
        (None, false) => {
            return fail(
                2,
                "--snapshot FILE needs --current FILE, the configuration in force".into(),
            )
        }
    };
    let snap = match (&a.snapshot, live) {
        (Some(p), _) => read_snapshot(p),
        (None, _) => match ask_text("snapshot") {
            Ok(t) => mauisched::Snapshot::from_json(&t)
                .map_err(|e| format!("the running scheduler's snapshot: {e}")),
            Err(code) => return code,
        },
    };
    let mut snap = match snap {
        Ok(s) => s,
        Err(e) => return fail(2, e),
    };
    snap.now = Some(snapshot_now(&snap));
    let report = match mauisched::sim::whatif::compare(&current, &loaded.config, &snap, a.top) {
        Ok(r) => r,
        Err(e) => return fail(2, e),
    };
    let zone = &loaded.config.zone;
    if let Some(p) = &a.html {
        if let Err(e) = mauisched::atomic_write(p, report.html(zone).as_bytes()) {
            return fail(1, format!("{}: {e}", p.display()));
        }
    }
    if a.json {
        emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&report.json(zone)).unwrap_or_default()
        ));
    } else {
        emit(&report.render(zone));
    }
    ExitCode::SUCCESS
}

/// Reads a snapshot file; errors name the file.
fn read_snapshot(path: &std::path::Path) -> Result<mauisched::Snapshot, String> {
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| mauisched::Snapshot::from_json(&t).map_err(|e| e.to_string()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The clock, in epoch seconds.
fn wall_clock() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The snapshot's time, or the clock when it has none.
fn snapshot_now(s: &mauisched::Snapshot) -> i64 {
    s.now.unwrap_or_else(wall_clock)
}

/// Runs one iteration on a snapshot through an in-memory service, then `f`
/// renders from it.
fn engine_cmd(
    loaded: &Loaded,
    snapshot: &std::path::Path,
    f: impl FnOnce(&mauisched::Config, &mauisched::Engine, &mauisched::Plan) -> Result<String, String>,
) -> ExitCode {
    if let Err(e) = usable(loaded) {
        eprintln!("mauictl: {e}");
        return ExitCode::FAILURE;
    }
    let snap = match read_snapshot(snapshot) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mauictl: {e}");
            return ExitCode::from(2);
        }
    };
    let mut snap = snap;
    snap.now = Some(snapshot_now(&snap));
    // The same scheduler as the live one, in memory: it writes nothing,
    // and starts from the memory the snapshot carries, if any.
    let mut svc = mauisched::Service::in_memory_from_snapshot(
        loaded.config.clone(),
        &mut snap,
        Default::default(),
    );
    match svc.iterate(&mut snap) {
        Ok(ran) => print_or_fail(f(&loaded.config, svc.engine(), &ran.plan)),
        Err(e) => {
            eprintln!("mauictl: {}: {e}", snapshot.display());
            ExitCode::from(2)
        }
    }
}

/// The plan as text: starts, then every idle job with its reason.
fn plan_text(plan: &mauisched::Plan, zone: &mauisched::time::Zone) -> String {
    let mut out = format!("plan at {}\n\nstarts:\n", zone.fmt(plan.now));
    if plan.starts.is_empty() {
        out.push_str("  (none)\n");
    }
    for s in &plan.starts {
        let nodes: Vec<String> = s
            .allocation
            .iter()
            .map(|a| format!("{}:{}", a.node, a.tasks))
            .collect();
        out.push_str(&format!(
            "  {:<16} {}{}\n",
            s.job,
            nodes.join(","),
            if s.backfill { "  (backfill)" } else { "" }
        ));
    }
    out.push_str("\nidle jobs in priority order:\n");
    for j in &plan.jobs {
        let what = match (&j.reason, j.started) {
            (_, true) => "started".to_string(),
            (Some(r), _) => r.summary(zone),
            (None, _) => String::new(),
        };
        let est = j
            .estimated_start
            .filter(|_| !j.started)
            .map(|t| format!("  start {}", zone.fmt(t)))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {:<16} {:>12}  {}{}\n",
            j.job, j.priority, what, est
        ));
    }
    out
}
