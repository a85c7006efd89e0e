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
    }
}
