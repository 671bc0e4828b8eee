//! `./x bench recomp`: the corpus lifted and built (guest instructions per
//! second), then lifted code against the same C compiled natively and
//! against `qemu-ppc64`, in alternating runs, as ratios.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::build::{self, BuildOptions, BuildProfile};
use crate::corpus::{self, Case, Corpus};

/// Benchmark settings.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Alternating rounds per case.
    pub rounds: usize,
    /// Skip the lift-and-build measurement (use the lifted executable as built last).
    pub no_build: bool,
    /// Only the cases whose name contains this.
    pub filter: Option<String>,
}

/// CPU seconds (user + system) used by children so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage fills the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// One timed run: (wall seconds, CPU seconds, output).
fn timed(
    prefix: &[&OsStr],
    case: &Case,
    inputs: &Path,
) -> Result<(f64, f64, std::process::Output)> {
    let c0 = children_cpu();
    let t0 = Instant::now();
    let out = corpus::run_case(prefix, case, inputs)?;
    Ok((t0.elapsed().as_secs_f64(), children_cpu() - c0, out))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// Runs the benchmark; returns the report (markdown).
pub fn run(opts: &BenchOptions) -> Result<String> {
    let target = build::target_dir();
    let corpus: Corpus = corpus::prepare(&target.join("recomp-corpus"), &mut |m| {
        say!("recomp bench: corpus: {m}")
    })?;
    corpus::prepare_native(&corpus, &mut |m| say!("recomp bench: corpus: {m}"))?;
    corpus::prepare_bench_inputs(&corpus)?;
    let lifted: PathBuf = target.join("recomp-bench").join("corpus.lifted");
    let bopts = BuildOptions {
        elf: corpus.ppc.clone(),
        out: lifted.clone(),
        work: target.join("recomp-work").join("corpus-ppc"),
        build_dir: target.join("recomp-build"),
        profile: BuildProfile::Release,
        emit: ppu_lift::EmitOptions::default(),
        insns_per_crate: 30_000,
        insns_per_file: 6_000,
        lift_only: false,
        quiet: false,
        lift_all: false,
        checked_memory: false,
    };
    let mut report = String::new();
    if !opts.no_build || !lifted.exists() {
        // Throughput: lift, then build the lifted crates from scratch (the
        // runtime crates they share are built once and kept).
        let _ = build::build(&BuildOptions {
            lift_only: true,
            quiet: true,
            ..bopts.clone()
        })?;
        clean_lifted(&bopts)?;
        let cpu0 = children_cpu();
        let r = build::build(&bopts)?;
        let cpu = children_cpu() - cpu0;
        let total = r.lift_s + r.build_s;
        let _ = writeln!(
            report,
            "## Lift and build (release profile, {} crates)\n",
            r.crates
        );
        let _ = writeln!(
            report,
            "| guest instructions | functions | lift | build (wall) | build (CPU, all cores) | guest instructions/s (wall) |"
        );
        let _ = writeln!(report, "|---|---|---|---|---|---|");
        let _ = writeln!(
            report,
            "| {} | {} | {:.1} s | {:.0} s | {:.0} s | {:.0} |\n",
            r.instructions,
            r.functions,
            r.lift_s,
            r.build_s,
            cpu,
            r.instructions as f64 / total
        );
    }

    let qemu = [OsStr::new("qemu-ppc64"), corpus.ppc.as_os_str()];
    let native = [corpus.native.as_os_str()];
    let lift = [lifted.as_os_str()];
    let cases: Vec<Case> = corpus::bench_cases()
        .into_iter()
        .filter(|c| {
            opts.filter
                .as_ref()
                .is_none_or(|f| c.name.contains(f.as_str()))
        })
        .collect();
    let _ = writeln!(
        report,
        "## Run time (median of {} alternating rounds; CPU seconds, user + system)\n",
        opts.rounds
    );
    let _ = writeln!(
        report,
        "| case | native x86-64 | lifted | qemu-ppc64 | lifted / native | qemu / native | lifted / qemu |"
    );
    let _ = writeln!(report, "|---|---|---|---|---|---|---|");
    let (mut rl, mut rq, mut rlq) = (Vec::new(), Vec::new(), Vec::new());
    for case in &cases {
        let (mut tn, mut tl, mut tq) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..opts.rounds {
            // Alternate the order so drift in the machine's load hits all three.
            let order: [usize; 3] = if round % 2 == 0 { [0, 1, 2] } else { [2, 1, 0] };
            let mut outs: [Option<std::process::Output>; 3] = [None, None, None];
            for k in order {
                let prefix: &[&OsStr] = match k {
                    0 => &native,
                    1 => &lift,
                    _ => &qemu,
                };
                let (_, cpu, out) =
                    timed(prefix, case, &corpus.inputs).with_context(|| case.name.clone())?;
                [&mut tn, &mut tl, &mut tq][k].push(cpu);
                outs[k] = Some(out);
            }
            let (l, q) = (
                outs[1].as_ref().expect("ran"),
                outs[2].as_ref().expect("ran"),
            );
            if l.stdout != q.stdout || l.status.code() != q.status.code() {
                bail!(
                    "{}: the lifted executable's output differs from qemu-ppc64's",
                    case.name
                );
            }
        }
        let (n, l, q) = (median(&mut tn), median(&mut tl), median(&mut tq));
        say!(
            "recomp bench: {}: native {n:.3} s, lifted {l:.3} s, qemu {q:.3} s",
            case.name
        );
        rl.push(l / n);
        rq.push(q / n);
        rlq.push(l / q);
        let _ = writeln!(
            report,
            "| {} | {n:.3} s | {l:.3} s | {q:.3} s | {:.2}× | {:.2}× | {:.2}× |",
            case.name,
            l / n,
            q / n,
            l / q
        );
    }
    if !cases.is_empty() {
        let _ = writeln!(
            report,
            "| **overall (geometric mean)** | | | | **{:.2}×** | **{:.2}×** | **{:.2}×** |",
            geomean(&rl),
            geomean(&rq),
            geomean(&rlq)
        );
    }
    Ok(report)
}

/// Removes the build output of the lifted crates (not of the runtime crates
/// they share), so the next build measures them from scratch.
fn clean_lifted(b: &BuildOptions) -> Result<()> {
    let name = ppu_lift::package_name(&build::program_name(&b.elf));
    let mut pkgs = vec![name.clone()];
    for e in std::fs::read_dir(b.work.join("lifted"))?.flatten() {
        pkgs.push(e.file_name().to_string_lossy().into_owned());
    }
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.arg("clean")
        .arg("--manifest-path")
        .arg(b.work.join("Cargo.toml"))
        .arg("--release");
    for p in &pkgs {
        cmd.args(["-p", p]);
    }
    let o = cmd.env("CARGO_TARGET_DIR", &b.build_dir).output()?;
    if !o.status.success() {
        bail!("cargo clean: {}", String::from_utf8_lossy(&o.stderr));
    }
    Ok(())
}
