//! mauictl: the command-line front end of mauisched.

use clap::{Parser, Subcommand};
use mauisched::config::{render, Config, Loaded, Severity, DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "mauictl",
    version,
    about = "Maui-compatible scheduling policy engine: commands"
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
    /// Print every parameter with its effective value, defaults included.
    Showconfig {
        /// Print JSON instead of Maui's layout.
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

fn load(path: &Option<PathBuf>) -> Result<Loaded, String> {
    match path {
        Some(p) => Config::load(p).map_err(|e| e.to_string()),
        None => Ok(Config::parse(DEFAULT_CONFIG, DEFAULT_CONFIG_LABEL)),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let loaded = match load(&cli.config) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mauictl: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.cmd {
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
        Cmd::Showconfig { json } => {
            if !loaded.is_ok() {
                for d in loaded.errors() {
                    eprintln!("{d}");
                }
                eprintln!(
                    "mauictl: {} has errors; run `mauictl check`",
                    loaded.config.source
                );
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
        Cmd::Showres {
            nodes,
            json,
            snapshot,
            store,
            reservation,
        } => match showres(
            &loaded,
            nodes,
            json,
            &snapshot,
            store.as_deref(),
            reservation.as_deref(),
        ) {
            Ok(text) => {
                emit(&text);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("mauictl: {e}");
                ExitCode::FAILURE
            }
        },
    }
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
    use mauisched::reservation::{showres, view, AdminStore, RmOrder};
    if !loaded.is_ok() {
        return Err(format!(
            "{} has errors; run `mauictl check`",
            loaded.config.source
        ));
    }
    let text =
        std::fs::read_to_string(snapshot).map_err(|e| format!("{}: {e}", snapshot.display()))?;
    let snap = mauisched::model::Snapshot::from_json(&text)
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
        let j = showres::showres_json(&v.reservations, &v.cluster, v.now, id);
        format!("{}\n", serde_json::to_string_pretty(&j).unwrap_or_default())
    } else if per_node {
        showres::showres_nodes(&v.reservations, &v.cluster, v.now, id)
    } else {
        showres::showres(&v.reservations, v.now, id)
    })
}
