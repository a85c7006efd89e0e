//! `mauictl man DIR`: writes the manual pages from the command-line
//! definition itself (clap_mangen), so they never drift from `--help`.
//!
//! Pages: `mauictl.1`; `mauictl-<command>.1` for each subcommand; and one
//! page per Maui-named command (`showq.1`, `setres.1`, ...), since packages
//! install those names as links to mauictl.

use clap::Command;
use mauisched::views::spec;
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

/// Escapes text for roff: backslashes, and a leading dot or quote.
fn roff(text: &str) -> String {
    let t = text.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with('.') || t.starts_with('\'') {
        format!("\\&{t}")
    } else {
        t
    }
}

/// The page of a Maui-named command, from its table (the same that `-h`
/// prints and that checks its flags).
fn maui_page(sp: &spec::Spec) -> Vec<u8> {
    let name = sp.name;
    let mut p = format!(
        ".TH {name} 1 \"\" \"{}\" \"mauisched\"\n.SH NAME\n{name} \\- {}\n.SH SYNOPSIS\n.B {}\n",
        source(),
        roff(sp.summary),
        roff(&sp.synopsis()),
    );
    p.push_str(".SH DESCRIPTION\n");
    match sp.support {
        spec::Support::No(why) => p.push_str(&format!(
            "Maui's {name} is not supported by mauisched: {}\n",
            roff(why)
        )),
        spec::Support::Differs(d) => p.push_str(&format!("In mauisched: {}.\n", roff(d))),
        spec::Support::Yes => {}
    }
    let item = |p: &mut String, fl: &spec::Flag| {
        let head = match fl.value {
            Some(v) => format!("\\fB{}\\fR \\fI{v}\\fR", roff(fl.name)),
            None => format!("\\fB{}\\fR", roff(fl.name)),
        };
        let extra = match fl.support {
            spec::Support::Yes => String::new(),
            spec::Support::Differs(d) => format!(" ({})", roff(d)),
            spec::Support::No(why) => format!(": not supported: {}", roff(why)),
        };
        p.push_str(&format!(".TP\n{head}\n{}{extra}\n", roff(fl.help)));
    };
    let (taken, refused): (Vec<&spec::Flag>, Vec<&spec::Flag>) = sp
        .flags
        .iter()
        .partition(|f| !matches!(f.support, spec::Support::No(_)));
    if !taken.is_empty() {
        p.push_str(".SH OPTIONS\n");
        taken.into_iter().for_each(|f| item(&mut p, f));
    }
    if !refused.is_empty() {
        p.push_str(
            ".SH \"MAUI OPTIONS NOT SUPPORTED\"\nThese are refused with the reason given.\n",
        );
        refused.into_iter().for_each(|f| item(&mut p, f));
    }
    p.push_str(
        ".SH \"MAUICTL OPTIONS\"\n.TP\n\\fB\\-\\-json\\fR\nJSON instead of Maui's layout.\n.TP\n\\fB\\-\\-socket\\fR \\fIPATH\\fR\nThe scheduler's admin socket.\n.TP\n\\fB\\-C\\fR, \\fB\\-\\-config\\fR \\fIFILE\\fR\nmaui.cfg (its ADMINSOCKET; offline, the policy).\n"
    );
    if sp.reads {
        p.push_str(".TP\n\\fB\\-\\-snapshot\\fR \\fIFILE\\fR\nOffline: one iteration on this RM snapshot, shown as the running scheduler would.\n.TP\n\\fB\\-\\-fs\\-dir\\fR \\fIDIR\\fR\nOffline: fairshare usage from these FS.<epoch> files.\n.TP\n\\fB\\-\\-store\\fR \\fIFILE\\fR\nOffline: administrative reservations from this store.\n");
    }
    p.push_str(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nThe same list.\n");
    p.push_str(&format!(
        ".SH \"ADMIN LEVEL\"\n{}\n.SH \"EXIT STATUS\"\n0 done, 1 refused, 2 usage, 3 no scheduler answering.\n.SH \"SEE ALSO\"\nmauictl(1); docs/commands.md. {name} is a link to mauictl and the same as \\fBmauictl {name}\\fR.\n",
        sp.level
    ));
    p.into_bytes()
}

/// Writes every page into `dir` (created if missing) and returns their
/// paths, sorted: mauictl's, one per own subcommand, and one per Maui
/// command mauisched supports (packages install those names as links).
pub fn write(mut cli: Command, dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    cli = cli.disable_help_subcommand(true);
    cli.build();
    let mut pages: Vec<(String, Vec<u8>)> = Vec::new();
    let page = |man: clap_mangen::Man| {
        let man = man.source(source()).manual("mauisched");
        let file = man.get_filename();
        render(man).map(|text| (file, text))
    };
    let io = |e: std::io::Error| e.to_string();
    pages.push(page(clap_mangen::Man::new(cli.clone())).map_err(io)?);
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push(page(clap_mangen::Man::new(sub.clone())).map_err(io)?);
    }
    for sp in spec::SPECS {
        if !matches!(sp.support, spec::Support::No(_)) {
            pages.push((format!("{}.1", sp.name), maui_page(sp)));
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
