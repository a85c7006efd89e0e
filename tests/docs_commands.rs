//! Every `mauictl ...` command shown in a code block of README.md or
//! docs/*.md must parse: its subcommand exists and its options are known
//! and take the values written. The docs cannot drift from the CLI.
//!
//! How: each command line is run with `--help` appended. clap reads the
//! arguments in order, so an unknown option or a bad value fails before it
//! reaches `--help`, while missing files and required arguments do not
//! matter. Maui's commands (showq, setres, ...) take Maui's own flags: for
//! them the flags are checked against the command's table
//! (`mauisched::views::spec`), as the scheduler checks them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documentation files: README.md and every docs/*.md.
fn doc_files() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

/// Lines inside fenced code blocks, continuation lines joined, with their
/// 1-based line numbers.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if !fence {
            continue;
        }
        let (n, mut acc) = pending.take().unwrap_or((i + 1, String::new()));
        let t = line.trim_end();
        if let Some(head) = t.strip_suffix('\\') {
            acc.push_str(head);
            acc.push(' ');
            pending = Some((n, acc));
        } else {
            acc.push_str(t);
            out.push((n, acc));
        }
    }
    out
}

/// Shell-like words of a command (quotes removed); stops at a comment.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '#') if !in_word => break,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// The mauictl invocations of a code line: its arguments, for every
/// pipeline or `&&`/`;` segment whose command is `mauictl` (any path).
fn invocations(line: &str) -> Vec<Vec<String>> {
    let line = line.trim_start_matches('$').trim();
    let mut out = Vec::new();
    let w = words(line);
    let mut seg: Vec<String> = Vec::new();
    let mut flush = |seg: &mut Vec<String>| {
        // Leading VAR=value assignments and `time` are not the command.
        let mut it = seg
            .iter()
            .skip_while(|x| (x.contains('=') && !x.starts_with('-')) || *x == "time");
        if let Some(cmd) = it.next() {
            if cmd == "mauictl" || cmd.ends_with("/mauictl") {
                let args: Vec<String> = it
                    .take_while(|a| !a.starts_with('>') && !a.starts_with('<') && *a != "2>&1")
                    .cloned()
                    .collect();
                out.push(args);
            }
        }
        seg.clear();
    };
    // Synopsis lines write optional parts as `[-c maui.cfg]`: left out.
    let mut depth = 0usize;
    let w: Vec<String> = w
        .into_iter()
        .filter(|x| {
            let opens = x.starts_with("[-");
            if opens {
                depth += 1;
            }
            let keep = depth == 0;
            if depth > 0 && x.ends_with(']') {
                depth -= 1;
            }
            keep
        })
        .collect();
    for x in w {
        if x == "|" || x == "&&" || x == "||" || x == ";" {
            flush(&mut seg);
        } else {
            seg.push(x);
        }
    }
    flush(&mut seg);
    out
}

/// The subcommand: the first word that is not mauictl's own `-c FILE`,
/// `--config FILE`, `--socket PATH` or `--json`.
fn subcommand(args: &[String]) -> Option<&str> {
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-c" | "-C" | "--config" | "--socket" => i += 2,
            "--json" => i += 1,
            a if a.starts_with("--config=") || a.starts_with("--socket=") => i += 1,
            a => return Some(a),
        }
    }
    None
}

fn check(bin: &Path, file: &Path, n: usize, args: &[String]) -> Result<(), String> {
    let Some(sub) = subcommand(args) else {
        return Ok(()); // `mauictl --help` and the like
    };
    if let Some(sp) = mauisched::views::spec::find(sub) {
        // mauictl's own options out, Maui's flags checked by the table.
        let mut maui: Vec<&str> = Vec::new();
        let mut it = args.iter().skip_while(|a| a.as_str() != sub).skip(1);
        while let Some(a) = it.next() {
            match a.as_str() {
                "-C" | "--config" | "--socket" | "--snapshot" | "--fs-dir" | "--store" => {
                    it.next();
                }
                "--json" | "--live" | "-h" | "--help" => {}
                x => maui.push(x),
            }
        }
        return sp
            .check_args(&maui)
            .map_err(|e| format!("{}:{n}: `mauictl {}`: {e}", file.display(), args.join(" ")));
    }
    let argv: Vec<String> = args.iter().cloned().chain(["--help".to_string()]).collect();
    let out = Command::new(bin).args(&argv).output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}:{n}: `mauictl {}` does not parse: {}",
            file.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

#[test]
fn every_documented_mauictl_command_parses() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mauictl"));
    let mut errors = Vec::new();
    let mut checked = 0;
    let mut subs = std::collections::BTreeSet::new();
    for f in doc_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in code_lines(&text) {
            for args in invocations(&line) {
                if let Some(s) = subcommand(&args) {
                    subs.insert(s.to_string());
                }
                checked += 1;
                if let Err(e) = check(&bin, &f, n, &args) {
                    errors.push(e);
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The guides use these; a parser that found none would pass vacuously.
    for s in ["convert", "simulate", "check", "params"] {
        assert!(subs.contains(s), "no documented `mauictl {s}` found");
    }
    assert!(checked >= 20, "only {checked} commands found");
}

#[test]
fn the_checker_catches_drift() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mauictl"));
    let f = Path::new("x.md");
    let doc = "```sh\nmauictl convert sacct a.txt --bogus -o x.swf   # no such option\nmauictl simulate x.swf \\\n  --scale-load zero\nmauictl frobnicate\nFOO=1 mauictl -c m.cfg simulate x.swf --jobs 10 | tail\n```\n";
    let lines = code_lines(doc);
    let results: Vec<Result<(), String>> = lines
        .iter()
        .flat_map(|(n, l)| {
            invocations(l)
                .into_iter()
                .map(|a| check(&bin, f, *n, &a))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(results.len(), 4);
    assert!(results[0].as_ref().unwrap_err().contains("x.md:2:"));
    assert!(results[0].as_ref().unwrap_err().contains("--bogus"));
    assert!(results[1].as_ref().unwrap_err().contains("x.md:3:"));
    assert!(results[2].is_err());
    assert!(results[3].is_ok());
}
