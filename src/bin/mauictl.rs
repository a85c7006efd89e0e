//! mauictl: the command-line front end of mauisched.
//!
//! `mauictl <command> [options]` asks the running scheduler through its
//! admin socket (see `mauisched::socket`); links named after Maui's commands
//! (`showq`, `setres`, ...) run the same code. The offline forms read a
//! snapshot (`--snapshot FILE`) or fairshare files (`--fs-dir DIR`)
//! instead; `mauictl showconfig` shows a configuration file (or the
//! embedded default) unless `--live` or `--socket` asks the scheduler.

use clap::{Parser, Subcommand};
use mauisched::cfg::{render, Severity, DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL};
use mauisched::socket::MUTATIONS;
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

#[derive(Parser)]
#[command(
    name = "mauictl",
    version,
    about = "Maui-compatible scheduling policy engine: commands",
    after_help = "Without --snapshot or --fs-dir, showq, showbf, showstart, checkjob, checknode, \
showres, diagnose, showstats, setres, releaseres, runjob, sethold, releasehold, setspri and \
schedctl ask the running scheduler through its admin socket: --socket PATH, \
$MAUISCHED_SOCKET, ADMINSOCKET of -c FILE, or run/mauisched.sock in $MAUISCHED_STATE_DIR \
(default /var/lib/mauisched). --json gives JSON. Links named after these commands run them \
directly (ln -s mauictl showq). Exit status: 0 done, 1 refused, 2 usage, 3 no scheduler."
)]
struct Cli {
    /// maui.cfg to use (default: the embedded default configuration).
    #[arg(short = 'c', long = "config", global = true, value_name = "FILE")]
    config: Option<PathBuf>,
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
    /// Maui's diagnose: -p job priorities, -f fairshare usage.
    #[command(group(clap::ArgGroup::new("what").required(true).args(["priority", "fairshare"])))]
    Diagnose {
        /// Job priority: weights and each idle job's components (diagnose -p).
        #[arg(short = 'p')]
        priority: bool,
        /// Fairshare: targets and usage per window for every credential (diagnose -f).
        #[arg(short = 'f')]
        fairshare: bool,
        /// JSON snapshot of nodes and jobs (docs/snapshot.md); needed by -p.
        #[arg(long, value_name = "FILE")]
        snapshot: Option<PathBuf>,
        /// Directory of FS.<epoch> fairshare window files (default: no history).
        #[arg(long = "fs-dir", value_name = "DIR")]
        fs_dir: Option<PathBuf>,
        /// Print JSON instead of Maui's layout.
        #[arg(long)]
        json: bool,
    },
    /// Trace-driven what-if simulation: run a workload through the engine.
    Simulate(SimulateArgs),
    /// Time scheduling iterations on a large synthetic cluster, under the scenario's configuration or -c FILE (see docs/simulator.md).
    Bench(BenchArgs),
    /// Summarise a workload trace (SWF or Maui workload trace, plain or gzip).
    TraceInfo(TraceInfoArgs),
    /// Convert accounting data (sacct -P output, Torque accounting files) to SWF for simulate.
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
    /// Show idle resources available for immediate use (backfill windows).
    Showbf {
        /// RM snapshot (JSON).
        #[arg(long, value_name = "FILE")]
        snapshot: PathBuf,
        /// Only windows lasting at least this long ([[DD:]HH:]MM:SS).
        #[arg(short = 'd', value_name = "DURATION")]
        duration: Option<String>,
        /// Only this partition.
        #[arg(short = 'p', value_name = "PARTITION")]
        partition: Option<String>,
        /// Only windows with at least this many nodes.
        #[arg(short = 'n', value_name = "NODES")]
        nodes: Option<usize>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Estimated start of a job.
    Showstart {
        /// Job id.
        job: String,
        /// RM snapshot (JSON).
        #[arg(long, value_name = "FILE")]
        snapshot: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// A job's state, priority, reservation and why it is not running.
    Checkjob {
        /// Job id.
        job: String,
        /// RM snapshot (JSON).
        #[arg(long, value_name = "FILE")]
        snapshot: PathBuf,
        /// Node by node availability.
        #[arg(short = 'v')]
        verbose: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show reservations (running jobs, admin and standing reservations) of a snapshot.
    Showres {
        /// One line per reserved node.
        #[arg(short = 'n')]
        nodes: bool,
        /// Print JSON instead of Maui's layout.
        #[arg(long)]
        json: bool,
        /// RM snapshot (JSON) to show; its "now" is the current time.
        #[arg(long, value_name = "FILE")]
        snapshot: PathBuf,
        /// Administrative reservation store (JSON) to include.
        #[arg(long, value_name = "FILE")]
        store: Option<PathBuf>,
        /// Only this reservation.
        reservation: Option<String>,
    },
    /// Show the queue: active, eligible and blocked jobs (live).
    Showq(LiveArgs),
    /// A node's state, resources, reservations and jobs (live).
    Checknode(LiveArgs),
    /// Scheduler statistics since the scheduler started (live).
    Showstats(LiveArgs),
    /// Create an administrative reservation (live).
    Setres(LiveArgs),
    /// Release administrative reservations (live).
    Releaseres(LiveArgs),
    /// Start a job now, on given nodes, bypassing policies (live).
    Runjob(LiveArgs),
    /// Place a system hold on jobs through the resource manager (live).
    Sethold(LiveArgs),
    /// Release the system hold of jobs through the resource manager (live).
    Releasehold(LiveArgs),
    /// Set a job's system priority (live).
    Setspri(LiveArgs),
    /// Reconfigure (-r), stop (-s) or resume (-R) scheduling (live).
    Schedctl(LiveArgs),
    /// Write the manual pages (mauictl.1, one per subcommand and per
    /// Maui-named command) into DIR; packaging runs it.
    #[command(hide = true)]
    Man {
        /// Output directory (created if missing).
        dir: PathBuf,
    },
}

/// Arguments of a command that only exists live, passed to the scheduler
/// as Maui spells them.
#[derive(clap::Args)]
struct LiveArgs {
    /// The command's arguments, as Maui's command takes them.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// The workload and cluster of `simulate` and `trace-info`, and how the
/// trace's records become jobs.
#[derive(clap::Args)]
struct WorkloadArgs {
    /// Workload trace: SWF or Maui workload trace, plain or gzip (omit with --demo).
    #[arg(required_unless_present = "demo")]
    file: Option<PathBuf>,
    /// The bundled demo: 3,000 KTH-SP2 jobs on a 100-node cluster.
    #[arg(long, conflicts_with = "file")]
    demo: bool,
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

impl WorkloadArgs {
    /// The selected workload (the demo's without a file).
    fn load(&self) -> Result<mauisched::sim::workload::Workload, String> {
        use mauisched::sim::{demo, workload, MapOptions, ReadOptions};
        let map = MapOptions {
            no_request: self.no_request,
            partitions: self.partitions,
            ..MapOptions::default()
        };
        let mut w = match &self.file {
            Some(p) => workload::load_path(
                p,
                ReadOptions {
                    lenient: self.lenient,
                },
                &map,
            )
            .map_err(|e| e.to_string())?,
            None => demo::workload_with(&map),
        };
        w.select(&workload::Selection {
            start_at: self.start_at.clone(),
            jobs: self.jobs,
            scale_load: self.scale_load,
        })?;
        Ok(w)
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
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
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

fn simulate(loaded: &Loaded, a: SimulateArgs) -> Result<String, String> {
    use mauisched::sim::{cluster, demo, report, run};
    use std::io::IsTerminal;
    usable(loaded)?;
    let chart = report::ChartChoice {
        start: duration_arg("chart-start", &a.chart_start)?,
        span: duration_arg("chart-span", &a.chart_span)?,
        nodes: a.chart_nodes,
    };
    let w = a.workload.load()?;
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
    let (nodes, cluster_label) = match (&a.workload.cluster, a.workload.demo) {
        (Some(p), _) => (
            cluster::load_cluster(p).map_err(|e| e.to_string())?,
            p.display().to_string(),
        ),
        (None, true) => (demo::cluster(), demo::CLUSTER_LABEL.to_string()),
        (None, false) => (
            cluster::synthesize(&w.header, &w.jobs).ok_or_else(|| {
                format!(
                    "{}: the header gives neither MaxNodes nor MaxProcs; use --cluster FILE",
                    w.source
                )
            })?,
            "<synthesised from the SWF header>".to_string(),
        ),
    };
    let cfg = &loaded.config;
    let first_submit = w.jobs.first().map_or(0, |j| j.job.submit_time);
    let (op_lines, op_events): (Vec<String>, Vec<run::OperatorEvent>) = match &a.operators {
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
    };
    let opts = run::SimOptions {
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
    };
    let total = w.jobs.len() as u64;
    let bar = if a.quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} jobs done {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b
    };
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
        let files = report::write_dir(dir, &s, &w.jobs, &nodes, &res, &chart, a.hosts)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        if !a.json {
            text.push_str("\nwrote ");
            text.push_str(
                &files
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            text.push('\n');
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
    use mauisched::sim::{cluster, demo, info};
    let a = a.workload;
    let w = a.load()?;
    let c = match (&a.cluster, a.demo) {
        (Some(p), _) => info::ClusterInfo::File {
            source: p.display().to_string(),
            nodes: cluster::load_cluster(p).map_err(|e| e.to_string())?,
        },
        (None, true) => info::ClusterInfo::File {
            source: demo::CLUSTER_LABEL.into(),
            nodes: demo::cluster(),
        },
        (None, false) => match cluster::synth_spec(&w.header, &w.jobs) {
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

#[derive(clap::Args)]
struct ConvertArgs {
    /// Format of the input.
    #[arg(value_enum)]
    format: ConvertFormat,
    /// Input files, plain or gzip (`-`: standard input); Torque: every day's file.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the SWF to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the number-to-name table (users, groups, queues, job ids) to FILE.
    #[arg(long, value_name = "FILE")]
    map: Option<PathBuf>,
    /// Skip malformed lines and count them instead of stopping at the first.
    #[arg(long)]
    lenient: bool,
    /// MaxNodes for the SWF header (Torque: default from exec_host).
    #[arg(long, value_name = "N")]
    max_nodes: Option<u64>,
    /// MaxProcs for the SWF header (Torque: default from exec_host).
    #[arg(long, value_name = "N")]
    max_procs: Option<u64>,
}

/// `mauictl convert`: exit 1 on unreadable or malformed input.
fn convert(a: ConvertArgs) -> ExitCode {
    use mauisched::sim::convert::{self, ConvertOptions, Source};
    let source = match a.format {
        ConvertFormat::Sacct => Source::Sacct,
        ConvertFormat::TorqueAcct => Source::TorqueAcct,
    };
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
        let swf = c.swf();
        let write = |p: &PathBuf, text: &str| {
            mauisched::atomic_write(p, text.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))
        };
        if let Some(p) = &a.map {
            write(p, &c.map_text())?;
        }
        eprint!("{}", c.summary());
        match &a.output {
            Some(p) => write(p, &swf).map(|_| String::new()),
            None => Ok(swf),
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

/// Commands that read from the running scheduler (when not given an
/// offline input); with [`MUTATIONS`], those that change something, the
/// commands installed under Maui's names.
const READS: [&str; 9] = [
    "showq",
    "showbf",
    "showstart",
    "checkjob",
    "checknode",
    "showres",
    "diagnose",
    "showstats",
    "showconfig",
];

/// A command for the running scheduler, named as Maui names it.
fn is_live(cmd: &str) -> bool {
    READS.contains(&cmd) || MUTATIONS.contains(&cmd)
}

/// Commands whose own `-c` option is not mauictl's `-c FILE`.
const OWNS_C: [&str; 2] = ["setres", "runjob"];

/// A command for the running scheduler.
struct Live {
    /// What the user typed the command as (`mauictl` or a Maui name).
    prog: String,
    cmd: String,
    args: Vec<String>,
    json: bool,
    socket: Option<PathBuf>,
    config: Option<PathBuf>,
}

/// Decides between the live client and the offline forms. `args` excludes
/// the program name. `None`: clap handles it (offline forms, other
/// commands, help).
fn route(prog: &str, args: &[String]) -> Option<Live> {
    let mut live = Live {
        prog: prog.to_string(),
        cmd: String::new(),
        args: Vec::new(),
        json: false,
        socket: None,
        config: None,
    };
    let mut it = args.iter().peekable();
    // mauictl's own options before the command.
    while let Some(a) = it.peek() {
        match a.as_str() {
            "-c" | "--config" | "--socket" => {
                let flag = it.next()?.clone();
                let v = PathBuf::from(it.next()?);
                if flag == "--socket" {
                    live.socket = Some(v);
                } else {
                    live.config = Some(v);
                }
            }
            "--json" => {
                live.json = true;
                it.next();
            }
            x if x.starts_with("--config=") => {
                live.config = Some(PathBuf::from(&x["--config=".len()..]));
                it.next();
            }
            x if x.starts_with("--socket=") => {
                live.socket = Some(PathBuf::from(&x["--socket=".len()..]));
                it.next();
            }
            _ => break,
        }
    }
    live.cmd = it.next()?.clone();
    if !is_live(&live.cmd) {
        return None;
    }
    let rest: Vec<String> = it.cloned().collect();
    let offline = |a: &String| {
        a == "--snapshot"
            || a.starts_with("--snapshot=")
            || a == "--fs-dir"
            || a.starts_with("--fs-dir=")
            || a == "-h"
            || a == "--help"
    };
    if rest.iter().any(offline) {
        return None;
    }
    let owns_c = OWNS_C.contains(&live.cmd.as_str());
    let mut r = rest.into_iter();
    while let Some(a) = r.next() {
        match a.as_str() {
            "--json" => live.json = true,
            "--socket" => live.socket = Some(PathBuf::from(r.next()?)),
            "--config" => live.config = Some(PathBuf::from(r.next()?)),
            "-c" if !owns_c => live.config = Some(PathBuf::from(r.next()?)),
            x if x.starts_with("--socket=") => {
                live.socket = Some(PathBuf::from(&x["--socket=".len()..]))
            }
            x if x.starts_with("--config=") => {
                live.config = Some(PathBuf::from(&x["--config=".len()..]))
            }
            _ => live.args.push(a),
        }
    }
    // `mauictl showconfig` is the configuration tool: it shows FILE (-c)
    // or the embedded default. The running scheduler's configuration is
    // what the `showconfig` name, `--live` or `--socket` ask for.
    if live.cmd == "showconfig" {
        let asked = live.args.iter().any(|a| a == "--live");
        live.args.retain(|a| a != "--live");
        if !(asked || live.prog == "showconfig" || live.socket.is_some()) {
            return None;
        }
    }
    Some(live)
}

/// Runs a command on the running scheduler. Exit status: 0 done, 1 refused
/// (permission, not found, no room...), 2 usage, 3 no scheduler answering.
fn live(l: Live) -> ExitCode {
    use mauisched::socket::{client, protocol};
    let who = if l.prog == "mauictl" {
        "mauictl".to_string()
    } else {
        l.prog.clone()
    };
    let loaded = match &l.config {
        Some(p) => match Config::load(p) {
            Ok(loaded) => match usable(&loaded) {
                Ok(()) => Some(loaded),
                Err(e) => {
                    eprintln!("{who}: {e}");
                    return ExitCode::FAILURE;
                }
            },
            Err(e) => {
                eprintln!("{who}: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let cfg = loaded
        .as_ref()
        .zip(l.config.as_deref())
        .map(|(c, p)| (&c.config, p));
    let at = client::locate(l.socket.as_deref(), cfg);
    let wait = cfg.map_or(30, |(c, _)| c.params.client_timeout.0.max(1)) as u64 + 5;
    let req = protocol::Request {
        v: protocol::VERSION,
        cmd: l.cmd.clone(),
        args: l.args,
        json: l.json,
    };
    match client::call(&at.path, &req, std::time::Duration::from_secs(wait)) {
        Err(client::ClientError::Connect(e)) => {
            eprintln!(
                "{who}: no scheduler is answering at {} (socket from {}): {e}
{who}: is the scheduler running? --socket PATH, $MAUISCHED_SOCKET or ADMINSOCKET in maui.cfg (-c FILE) name another socket",
                at.path.display(),
                at.source
            );
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("{who}: {} ({}): {e}", at.path.display(), at.source);
            ExitCode::from(3)
        }
        Ok(r) if r.ok => {
            match (r.output, r.data) {
                (Some(t), _) => emit(&t),
                (None, Some(v)) => emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&v).unwrap_or_default()
                )),
                (None, None) => {}
            }
            ExitCode::SUCCESS
        }
        Ok(r) => {
            let e = r.error.unwrap_or(protocol::ErrorBody {
                code: protocol::ErrorCode::Internal,
                message: "the scheduler refused without saying why".into(),
                needs: None,
            });
            if l.json {
                emit(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&e).unwrap_or_default()
                ));
            }
            eprintln!("{who}: {}", e.message);
            match e.code {
                protocol::ErrorCode::Usage | protocol::ErrorCode::UnknownCommand => {
                    ExitCode::from(2)
                }
                _ => ExitCode::FAILURE,
            }
        }
    }
}

fn main() -> ExitCode {
    let mut argv: Vec<String> = std::env::args().collect();
    let prog = argv
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "mauictl".into());
    // Installed as `showq`, `setres`, ...: the name is the command.
    if is_live(&prog) {
        argv.insert(1, prog.clone());
        argv[0] = "mauictl".into();
    }
    if let Some(l) = route(&prog, &argv[1..]) {
        return live(l);
    }
    let cli = Cli::parse_from(&argv);
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
            let maui_names: Vec<&str> = READS.iter().chain(&MUTATIONS).copied().collect();
            match man::write(Cli::command(), &dir, &maui_names) {
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
        Cmd::Showbf {
            snapshot,
            duration,
            partition,
            nodes,
            json,
        } => {
            let duration = match duration.as_deref().map(mauisched::time::parse_duration) {
                None => None,
                Some(Ok(d)) => d,
                Some(Err(e)) => {
                    eprintln!("mauictl: -d: {e}");
                    return ExitCode::from(2);
                }
            };
            let opts = render_engine::ShowbfOpts {
                duration,
                partition,
                nodes,
            };
            engine_cmd(&loaded, &snapshot, |_, e, _| {
                let last = e.last().ok_or("no iteration")?;
                Ok(if json {
                    format!(
                        "{}\n",
                        serde_json::to_string_pretty(&render_engine::showbf_json(last, &opts))
                            .unwrap_or_default()
                    )
                } else {
                    render_engine::showbf(last, &opts)
                })
            })
        }
        Cmd::Showstart {
            job,
            snapshot,
            json,
        } => engine_cmd(&loaded, &snapshot, |cfg, e, _| {
            let last = e.last().ok_or("no iteration")?;
            if json {
                render_engine::showstart_json(cfg, last, &job)
                    .map(|v| format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()))
            } else {
                render_engine::showstart(cfg, last, &job)
            }
        }),
        Cmd::Checkjob {
            job,
            snapshot,
            verbose,
            json,
        } => engine_cmd(&loaded, &snapshot, |cfg, e, _| {
            let last = e.last().ok_or("no iteration")?;
            if json {
                render_engine::checkjob_json(cfg, last, &job)
                    .map(|v| format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()))
            } else {
                render_engine::checkjob(cfg, last, &job, verbose)
            }
        }),
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
        Cmd::Diagnose {
            priority,
            fairshare: _,
            snapshot,
            fs_dir,
            json,
        } => diagnose(&loaded, priority, snapshot, fs_dir, json),
        Cmd::Showres {
            nodes,
            json,
            snapshot,
            store,
            reservation,
        } => print_or_fail(showres(
            &loaded,
            nodes,
            json,
            &snapshot,
            store.as_deref(),
            reservation.as_deref(),
        )),
        Cmd::Showq(_)
        | Cmd::Checknode(_)
        | Cmd::Showstats(_)
        | Cmd::Setres(_)
        | Cmd::Releaseres(_)
        | Cmd::Runjob(_)
        | Cmd::Sethold(_)
        | Cmd::Releasehold(_)
        | Cmd::Setspri(_)
        | Cmd::Schedctl(_) => {
            // Reached only with an offline option (route() sends the rest
            // to the scheduler).
            eprintln!("mauictl: this command asks the running scheduler; it has no offline form (--snapshot, --fs-dir)");
            ExitCode::from(2)
        }
    }
}

/// `mauictl diagnose -p|-f`: exit 1 on a configuration with errors, 2 when
/// an input cannot be read.
use mauisched::views::render as render_engine;

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
    // The same scheduler as the live one, in memory: it writes nothing.
    let mut svc = mauisched::Service::in_memory(loaded.config.clone(), Default::default());
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

fn diagnose(
    loaded: &Loaded,
    priority: bool,
    snapshot: Option<PathBuf>,
    fs_dir: Option<PathBuf>,
    json: bool,
) -> ExitCode {
    use mauisched::views::offline::{self, Fairshare};
    use mauisched::Snapshot;
    if let Err(e) = usable(loaded) {
        eprintln!("mauictl: {e}");
        return ExitCode::FAILURE;
    }
    let cfg = &loaded.config;
    let fs = match &fs_dir {
        None => Fairshare::new(),
        Some(dir) => match Fairshare::load_dir(dir, cfg, wall_clock()) {
            Ok((fs, issues)) => {
                for i in issues {
                    eprintln!("mauictl: {i}");
                }
                fs
            }
            Err(e) => {
                eprintln!("mauictl: {}: {e}", dir.display());
                return ExitCode::from(2);
            }
        },
    };
    let text = if priority {
        let Some(path) = snapshot else {
            eprintln!("mauictl: diagnose -p needs --snapshot FILE");
            return ExitCode::from(2);
        };
        let snap = match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| Snapshot::from_json(&t).map_err(|e| e.to_string()))
        {
            Ok(s) => s,
            Err(e) => {
                eprintln!("mauictl: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        // A snapshot without "now" is taken as describing the present.
        let now = snapshot_now(&snap);
        let rows = offline::diagnose_p_rows(cfg, &snap, &fs, now);
        if json {
            let v = offline::diagnose_p_json(cfg, &rows);
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        } else {
            offline::render_diagnose_p(cfg, &rows)
        }
    } else if json {
        let r = offline::diagnose_f_report(cfg, &fs);
        format!("{}\n", serde_json::to_string_pretty(&r).unwrap_or_default())
    } else {
        offline::render_diagnose_f(cfg, &fs)
    };
    emit(&text);
    ExitCode::SUCCESS
}

/// Builds the snapshot's reservations and renders them.
fn showres(
    loaded: &Loaded,
    per_node: bool,
    json: bool,
    snapshot: &std::path::Path,
    store: Option<&std::path::Path>,
    id: Option<&str>,
) -> Result<String, String> {
    use mauisched::views::offline::{view, AdminStore, RmOrder};
    use mauisched::views::showres;
    if !loaded.is_ok() {
        return Err(format!(
            "{} has errors; run `mauictl check`",
            loaded.config.source
        ));
    }
    let text =
        std::fs::read_to_string(snapshot).map_err(|e| format!("{}: {e}", snapshot.display()))?;
    let snap = mauisched::Snapshot::from_json(&text)
        .map_err(|e| format!("{}: {e}", snapshot.display()))?;
    let admin = match store {
        Some(p) => Some(AdminStore::load(p).map_err(|e| e.to_string())?),
        None => None,
    };
    let v = view::build(&loaded.config, &snap, admin.as_ref(), &RmOrder)
        .map_err(|e| format!("{}: {e}", snapshot.display()))?;
    if let Some(i) = id {
        if !v.reservations.iter().any(|r| r.id == i) {
            return Err(format!("no reservation \"{i}\""));
        }
    }
    Ok(if json {
        let mut j = showres::showres_json(&v.reservations, &v.cluster, v.now, id);
        mauisched::views::with_local_times(&mut j, &loaded.config.zone);
        format!("{}\n", serde_json::to_string_pretty(&j).unwrap_or_default())
    } else if per_node {
        showres::showres_nodes(&v.reservations, &v.cluster, v.now, &loaded.config.zone, id)
    } else {
        showres::showres(&v.reservations, &v.cluster, v.now, &loaded.config.zone, id)
    })
}
