//! Iteration latency on the synthetic scenario of `mauictl bench`
//! (`src/sim/synth.rs`: heterogeneous nodes, a deep queue, three standing
//! reservations, RESERVATIONDEPTH 10, FIRSTFIT over the whole queue), and
//! simulation throughput on the bundled demo workload.
//!
//! `cargo bench --bench iteration` runs them all; pass a filter to choose,
//! e.g. `cargo bench --bench iteration -- 10000n`. The 100,000-job case
//! takes a while per sample, so criterion is told to take few.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use mauisched::sim::synth::{self, SynthSpec};
use mauisched::sim::{demo, run};
use mauisched::Config;
use mauisched::Engine;
use std::time::Duration;

// As in mauictl (`mauictl bench` reports the same scenario).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn iteration(c: &mut Criterion) {
    let mut g = c.benchmark_group("iteration");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    let cfg = Config::parse(&synth::config_text(), "<bench scenario>").config;
    for (nodes, idle, running) in [
        (10_000, 1_000, 8_000),
        (10_000, 50_000, 8_000),
        (10_000, 100_000, 8_000),
    ] {
        let spec = SynthSpec {
            nodes,
            idle,
            running,
            seed: 1,
            gpus: 0,
        };
        let snap = synth::snapshot(&spec);
        let mut engine = Engine::new(cfg.clone());
        engine.iterate(&snap, synth::NOW);
        g.bench_function(format!("{nodes}n_{idle}idle_{running}run"), |b| {
            b.iter(|| engine.iterate(&snap, synth::NOW))
        });
    }
    g.finish();
}

fn simulation(c: &mut Criterion) {
    let mut g = c.benchmark_group("simulation");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(30));
    let cfg = Config::parse(
        mauisched::cfg::DEFAULT_CONFIG,
        mauisched::cfg::DEFAULT_CONFIG_LABEL,
    )
    .config;
    let nodes = demo::cluster();
    let w = demo::workload();
    g.bench_function("demo_3000_jobs", |b| {
        b.iter_batched(
            || (),
            |_| run::simulate(&cfg, &nodes, &w.jobs, &run::SimOptions::default(), |_| {}),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, iteration, simulation);
criterion_main!(benches);
