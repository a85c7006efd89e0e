//! Byte fuzzing of every reader that takes input from outside: maui.cfg,
//! SWF traces, Maui workload and resource traces, cluster files,
//! snapshots, and the admin socket's request lines.
//!
//! `cargo-fuzz` needs a nightly compiler, which the build machines do not
//! have; proptest drives the mutations instead. Each target starts from
//! its corpus, checked in under `tests/fuzz/<target>/` (real inputs, and
//! every input that once failed), runs each file as it is, then
//! `FUZZ_CASES` mutated inputs (default 2,000, the bounded run the suite
//! makes): bytes flipped, inserted, deleted, repeated, spliced from
//! another seed, and tokens that readers find hard (huge and negative
//! numbers, NaN, brackets, NUL, very long names). A reader must return,
//! with a value or an error, and never panic, abort or run away with
//! memory. A longer run: `FUZZ_CASES=100000 cargo test --release --test
//! fuzz`; a failure prints the input, to be added to the corpus.

use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestRunner};
use std::path::{Path, PathBuf};

/// Inputs that are hard for readers, inserted whole.
const TOKENS: &[&str] = &[
    "\n",
    "\r\n",
    "=",
    "[",
    "]",
    "[]",
    ":",
    ",",
    ";",
    "\"",
    "{",
    "}",
    "\0",
    "-1",
    "0",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e300",
    "-1e300",
    "NaN",
    "inf",
    "4294967295",
    "00:00:00",
    "99:99:99:99",
    "ALL",
    "NONE",
    "DEFAULT",
    "n[1-999999999]",
    "n[0009-1]",
    "PROCS:-1",
    "GRES=gpu:99999999",
    "\u{feff}",
    "\u{7f}",
    "é",
];

/// One change to an input.
#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Token(usize, usize),
    Delete(usize, usize),
    Repeat(usize, usize, usize),
    Splice(usize, usize, usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Insert(p, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(p, t)| Mutation::Token(p, t)),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), 1usize..64, 1usize..200).prop_map(|(p, n, k)| Mutation::Repeat(p, n, k)),
        (any::<usize>(), any::<usize>(), any::<usize>(), 1usize..256)
            .prop_map(|(s, from, to, n)| Mutation::Splice(s, from, to, n)),
    ]
}

fn apply(mut b: Vec<u8>, muts: &[Mutation], seeds: &[Vec<u8>]) -> Vec<u8> {
    for m in muts {
        let at = |p: usize, len: usize| if len == 0 { 0 } else { p % (len + 1) };
        match *m {
            Mutation::Flip(p, x) if !b.is_empty() => {
                let i = p % b.len();
                b[i] ^= x.max(1);
            }
            Mutation::Flip(..) => {}
            Mutation::Insert(p, x) => {
                let i = at(p, b.len());
                b.insert(i, x);
            }
            Mutation::Token(p, t) => {
                let i = at(p, b.len());
                let tok = TOKENS[t % TOKENS.len()].as_bytes();
                b.splice(i..i, tok.iter().copied());
            }
            Mutation::Delete(p, n) => {
                let i = at(p, b.len());
                let end = (i + n).min(b.len());
                b.drain(i..end);
            }
            Mutation::Repeat(p, n, k) => {
                let i = at(p, b.len());
                let end = (i + n).min(b.len());
                let chunk: Vec<u8> = b[i..end].to_vec();
                for _ in 0..k {
                    b.splice(end..end, chunk.iter().copied());
                }
            }
            Mutation::Splice(s, from, to, n) => {
                let other = &seeds[s % seeds.len()];
                let i = at(from, other.len());
                let end = (i + n).min(other.len());
                let j = at(to, b.len());
                b.splice(j..j, other[i..end].iter().copied());
            }
        }
        // Bound the input: readers are fuzzed, not the allocator.
        b.truncate(1 << 20);
    }
    b
}

/// The corpus of `target`: every file of `tests/fuzz/<target>/`, and
/// each line of it as a seed of its own when `lines`.
fn corpus(target: &str, lines: bool) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut seeds = Vec::new();
    for f in files {
        let b = std::fs::read(&f).unwrap();
        if lines {
            seeds.extend(
                b.split(|c| *c == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec),
            );
        }
        seeds.push(b);
    }
    assert!(!seeds.is_empty(), "{}: no corpus", dir.display());
    seeds
}

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// Runs `read` on every seed of `target`'s corpus, then on mutations.
fn fuzz(target: &str, lines: bool, read: impl Fn(&[u8])) {
    let seeds = corpus(target, lines);
    for s in &seeds {
        read(s);
    }
    let mut runner = TestRunner::new(RunnerConfig {
        cases: cases(),
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let n = seeds.len();
    let strategy = (0..n, proptest::collection::vec(mutation(), 1..12));
    let result = runner.run(&strategy, |(i, muts)| {
        let input = apply(seeds[i].clone(), &muts, &seeds);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&input)));
        r.map_err(|_| {
            TestCaseError::fail(format!(
                "{target}: the reader panicked on {:?}",
                String::from_utf8_lossy(&input)
            ))
        })
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

fn text(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

#[test]
fn config_reader() {
    fuzz("config", false, |b| {
        let l = mauisched::Config::parse(&text(b), "fuzz.cfg");
        // Whatever it read renders back.
        for d in &l.diagnostics {
            let _ = d.to_string();
        }
    });
}

#[test]
fn swf_reader() {
    use mauisched::sim::input::{from_bytes, ReadOptions};
    use mauisched::sim::workload::{load_swf, MapOptions};
    fuzz("swf", true, |b| {
        for lenient in [false, true] {
            let _ = load_swf(
                from_bytes(b),
                "fuzz.swf",
                ReadOptions { lenient },
                &MapOptions::default(),
            )
            .map_err(|e| e.to_string());
        }
    });
}

#[test]
fn maui_workload_trace_reader() {
    use mauisched::sim::input::{from_bytes, ReadOptions};
    use mauisched::sim::workload::{load_maui_workload, MapOptions};
    fuzz("maui-workload", true, |b| {
        for lenient in [false, true] {
            let _ = load_maui_workload(
                from_bytes(b),
                "fuzz.trace",
                ReadOptions { lenient },
                &MapOptions::default(),
            )
            .map_err(|e| e.to_string());
        }
    });
}

#[test]
fn maui_resource_trace_reader() {
    use mauisched::sim::input::{from_bytes, ReadOptions};
    use mauisched::sim::mauitrace::{read_resources, resource_nodes};
    fuzz("maui-resource", true, |b| {
        if let Ok((recs, _)) =
            read_resources(from_bytes(b), "fuzz.trace", ReadOptions { lenient: true })
        {
            let _ = resource_nodes(&recs);
        }
    });
}

#[test]
fn cluster_file_reader() {
    fuzz("cluster", true, |b| {
        let _ =
            mauisched::sim::cluster::parse_cluster(&text(b), "fuzz.txt").map_err(|e| e.to_string());
    });
}

#[test]
fn snapshot_reader() {
    fuzz("snapshot", false, |b| {
        if let Ok(mut s) = mauisched::Snapshot::from_json(&text(b)) {
            let _ = s.normalize().map_err(|e| e.to_string());
        }
    });
}

#[test]
fn admin_request_parser() {
    fuzz("admin-request", true, |b| {
        let _ = mauisched::socket::protocol::parse_request(b).map_err(|e| e.message);
    });
}
