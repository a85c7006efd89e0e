//! `mauictl man DIR`: writes the manual pages from the command-line
//! definition itself (clap_mangen), so they never drift from `--help`.
//!
//! Pages: `mauictl.1`; `mauictl-<command>.1` for each subcommand; and one
//! page per Maui-named command (`showq.1`, `setres.1`, ...), since packages
//! install those names as links to mauictl.

use clap::Command;
use std::path::{Path, PathBuf};

/// Where the manual pages say they come from.
fn source() -> String {
    format!("mauisched {}", env!("CARGO_PKG_VERSION"))
}

fn render(man: clap_mangen::Man) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    man.render(&mut out)?;
    Ok(out)
}

/// The page of a Maui-named command: the subcommand under its own name,
/// with Maui's synopsis where the scheduler parses the arguments, and a
/// pointer back to mauictl(1).
fn maui_page(sub: &Command, name: &str, live_help: &str) -> Command {
    let mut extra = String::new();
    // The commands that change something take Maui's arguments.
    if mauisched::socket::MUTATIONS.contains(&name) {
        extra.push_str(&format!(
            "Usage (as Maui's): {}\n\n",
            mauisched::socket::synopsis(name)
        ));
    }
    extra.push_str(live_help);
    extra.push_str(&format!(
        "\n\n{name} is a link to mauictl and the same as `mauictl {name}`; see mauictl(1)."
    ));
    let mut page = sub.clone();
    if ["setres", "runjob"].contains(&name) {
        // Their own -c is Maui's option, not mauictl's -c FILE.
        page = page.mut_arg("config", |a| a.hide(true));
    }
    page.bin_name(name.to_string())
        .display_name(name.to_string())
        .version(env!("CARGO_PKG_VERSION"))
        .after_help(extra.clone())
        .after_long_help(extra)
}

/// Writes every page into `dir` (created if missing) and returns their
/// paths, sorted. `maui_names` are the commands installed as links.
pub fn write(mut cli: Command, dir: &Path, maui_names: &[&str]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    cli = cli.disable_help_subcommand(true);
    cli.build();
    let live_help = cli
        .get_after_help()
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut pages: Vec<(String, Vec<u8>)> = Vec::new();
    let page = |man: clap_mangen::Man| {
        let man = man.source(source()).manual("mauisched");
        let file = man.get_filename();
        render(man).map(|text| (file, text))
    };
    let io = |e: std::io::Error| e.to_string();
    pages.push(page(clap_mangen::Man::new(cli.clone())).map_err(io)?);
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name().to_string();
        pages.push(page(clap_mangen::Man::new(sub.clone())).map_err(io)?);
        if maui_names.contains(&name.as_str()) {
            let m = clap_mangen::Man::new(maui_page(sub, &name, &live_help));
            pages.push(page(m).map_err(io)?);
        }
    }
    for name in maui_names {
        if !pages.iter().any(|(f, _)| f == &format!("{name}.1")) {
            return Err(format!("{name}: no such mauictl command"));
        }
    }
    let mut written = Vec::new();
    for (file, text) in pages {
        let path = dir.join(file);
        mauisched::atomic_write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    written.sort();
    Ok(written)
}
