//! `recomp ELF -o BIN`: analyse, lift into a cargo project, build it, copy
//! the executable out.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use ppu_elf::Image;
use ppu_lift::{EmitOptions, Layout, analysis};

/// Where the repository is (the recomp crate sits at `runtime/recomp`).
pub fn repo_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or(here)
}

/// The target directory `./x` builds into.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// Which cargo profile builds the lifted code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BuildProfile {
    /// Optimised (opt-level 3): what to ship and benchmark.
    Release,
    /// Quick to build (opt-level 1, the runtime crates at 3): for tests.
    Quick,
}

/// What to lift and how.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The executable.
    pub elf: PathBuf,
    /// Where the native executable goes.
    pub out: PathBuf,
    /// The generated project's folder.
    pub work: PathBuf,
    /// The shared cargo target folder the project builds into.
    pub build_dir: PathBuf,
    /// The cargo profile.
    pub profile: BuildProfile,
    /// Emitter settings.
    pub emit: EmitOptions,
    /// Guest instructions per generated crate.
    pub insns_per_crate: usize,
    /// Guest instructions per generated file.
    pub insns_per_file: usize,
    /// Only generate the project (no build).
    pub lift_only: bool,
    /// Print less.
    pub quiet: bool,
    /// Lift every function found, not only those reachable from the roots.
    pub lift_all: bool,
    /// Build the lifted code's accessors with recomp-rt's `checked-memory`
    /// feature: each guest access checked, so the program also runs on
    /// guest memory in checked mode (`CELLPORT_MEM_CHECK=checked`), the
    /// reference of trap mode's unchecked accesses.
    pub checked_memory: bool,
}

/// Figures from one lift and build.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    /// Functions lifted.
    pub functions: usize,
    /// Guest instructions lifted.
    pub instructions: usize,
    /// Crates generated.
    pub crates: usize,
    /// Seconds analysing and lifting.
    pub lift_s: f64,
    /// Seconds in cargo.
    pub build_s: f64,
    /// What the analysis could not resolve.
    pub issues: Vec<analysis::Issue>,
    /// Jump tables resolved.
    pub tables: usize,
}

/// The name a program's project gets from its file name.
pub fn program_name(elf: &Path) -> String {
    elf.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into())
}

macro_rules! say {
    ($opts:expr, $($t:tt)*) => {
        if !$opts.quiet {
            let _ = writeln!(std::io::stderr(), $($t)*);
        }
    };
}

/// Lifts `opts.elf` and (unless `lift_only`) builds it.
pub fn build(opts: &BuildOptions) -> Result<BuildReport> {
    let t0 = Instant::now();
    let image: Image = ppu_elf::open(&opts.elf).map_err(anyhow::Error::msg)?;
    let name = program_name(&opts.elf);
    say!(
        opts,
        "recomp: {}: {:?} executable, entry {:#x}",
        opts.elf.display(),
        image.abi,
        image.entry_descriptor().code
    );
    let an = analysis::analyse(&image, &analysis::Options::default());
    let total: usize = an.funcs.values().map(|f| f.len()).sum();
    say!(
        opts,
        "recomp: analysis: {} functions, {} instructions, {} jump tables, {} unresolved",
        an.funcs.len(),
        total,
        an.tables,
        an.issues.len()
    );
    let mut layout = Layout::new(
        repo_root().join("runtime/recomp/rt"),
        repo_root().join("runtime/ppu-linux"),
    );
    layout.insns_per_crate = opts.insns_per_crate;
    layout.insns_per_file = opts.insns_per_file;
    let lv2 = repo_root().join("runtime/hle");
    if lv2.join("Cargo.toml").exists() {
        layout.lv2 = Some(lv2);
    }
    let quiet = opts.quiet;
    let mut last = Instant::now();
    let reachable = an.reachable(&image);
    let keep = |e: u32| opts.lift_all || reachable.contains(&e);
    if !opts.lift_all {
        let n: usize = an
            .funcs
            .values()
            .filter(|f| reachable.contains(&f.entry))
            .map(|f| f.len())
            .sum();
        say!(
            opts,
            "recomp: {} functions ({n} instructions) reachable from the entry point and the function pointers in the image; the rest is left to the interpreter",
            reachable.len()
        );
    }
    let project = ppu_lift::generate(
        &name,
        &image,
        &an,
        &keep,
        &opts.emit,
        &layout,
        |done, all| {
            if !quiet && (last.elapsed().as_millis() > 500 || done == all) {
                last = Instant::now();
                let _ = write!(
                    std::io::stderr(),
                    "\rrecomp: lifting: {done}/{all} functions"
                );
                if done == all {
                    let _ = writeln!(std::io::stderr());
                }
            }
        },
    );
    std::fs::create_dir_all(&opts.work)
        .with_context(|| format!("creating {}", opts.work.display()))?;
    let ws = ppu_lift::write_tree(&opts.work, &project)
        .with_context(|| format!("writing {}", opts.work.display()))?;
    let lock = opts.work.join("Cargo.lock");
    if !lock.exists() {
        let _ = std::fs::copy(repo_root().join("Cargo.lock"), &lock);
    }
    let lift_s = t0.elapsed().as_secs_f64();
    say!(
        opts,
        "recomp: wrote {} ({} crates, {} files changed, {} unchanged, {} removed) in {:.1} s",
        opts.work.display(),
        project.crates,
        ws.written,
        ws.unchanged,
        ws.removed,
        lift_s
    );
    let mut report = BuildReport {
        functions: project.functions,
        instructions: project.instructions,
        crates: project.crates,
        lift_s,
        build_s: 0.0,
        issues: an.issues.clone(),
        tables: an.tables,
    };
    if opts.lift_only {
        if !opts.quiet {
            print_issues(&report.issues);
        }
        return Ok(report);
    }
    let t1 = Instant::now();
    let pkg = ppu_lift::package_name(&name);
    cargo_build(opts, &pkg, project.crates)?;
    report.build_s = t1.elapsed().as_secs_f64();
    let dir = match opts.profile {
        BuildProfile::Release => "release",
        BuildProfile::Quick => "debug",
    };
    let built = opts.build_dir.join(dir).join(&pkg);
    if let Some(p) = opts.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(p)?;
    }
    let tmp = opts.out.with_extension("recomp-tmp");
    std::fs::copy(&built, &tmp).with_context(|| format!("copying {}", built.display()))?;
    std::fs::rename(&tmp, &opts.out)?;
    say!(
        opts,
        "recomp: built {} in {:.1} s ({:.0} guest instructions/s lifted and built)",
        opts.out.display(),
        report.build_s,
        report.instructions as f64 / (report.lift_s + report.build_s)
    );
    if !opts.quiet {
        print_issues(&report.issues);
    }
    Ok(report)
}

/// The CPU the lifted code (and the runtime it links) is built for:
/// `RECOMP_TARGET_CPU` if set, else `x86-64-v3` (AVX2, FMA, BMI2: the
/// PS5's Zen 2 has them, and the FPU's exact-error terms become one FMA)
/// when this machine has those features, else the x86-64 baseline.
pub fn target_cpu() -> String {
    if let Ok(cpu) = std::env::var("RECOMP_TARGET_CPU") {
        return cpu;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("movbe")
        {
            return "x86-64-v3".into();
        }
        "x86-64".into()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "generic".into()
    }
}

/// The flags lifted code (and the runtime it links) is built with: the
/// target CPU, and `--cfg cellport_fast_helpers`, which fixes the FPU and
/// VMX helpers to their fast forms at compile time (no switch tested at
/// every operation) unless `RECOMP_HELPER_SWITCH=1` keeps `CELLPORT_FPU` /
/// `CELLPORT_VMX` choosing at run time (`reference`, `both`).
pub fn rustflags() -> Vec<String> {
    let mut f = vec![format!("-Ctarget-cpu={}", target_cpu())];
    if std::env::var_os("RECOMP_HELPER_SWITCH").is_none_or(|v| v != "1") {
        f.extend(["--cfg".into(), "cellport_fast_helpers".into()]);
    }
    f
}

fn cargo_build(opts: &BuildOptions, pkg: &str, crates: usize) -> Result<()> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.arg("build")
        .arg("--manifest-path")
        .arg(opts.work.join("Cargo.toml"))
        .args(["-p", pkg]);
    if opts.profile == BuildProfile::Release {
        cmd.arg("--release");
    }
    if opts.checked_memory {
        cmd.args(["--features", "recomp-rt/checked-memory"]);
    }
    cmd.env("CARGO_TARGET_DIR", &opts.build_dir)
        .env_remove("RUSTFLAGS")
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags().join("\x1f"))
        .stderr(Stdio::piped())
        .stdout(Stdio::null());
    say!(opts, "recomp: building for -C target-cpu={}", target_cpu());
    let mut child = cmd.spawn().context("running cargo")?;
    let stderr = child.stderr.take().expect("piped");
    let mut built = 0usize;
    let mut log = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap_or_default();
        let t = line.trim_start();
        if t.starts_with("Compiling ") && t.contains("-lifted-") {
            built += 1;
            say!(
                opts,
                "recomp: building: {t} ({built}/{crates} lifted crates)"
            );
        } else if t.starts_with("Compiling ") || t.starts_with("Finished") {
            say!(opts, "recomp: building: {t}");
        }
        log.push(line);
    }
    let status = child.wait()?;
    if !status.success() {
        let tail: Vec<&String> = log
            .iter()
            .rev()
            .take(60)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        bail!(
            "cargo failed building the lifted program in {}:\n{}",
            opts.work.display(),
            tail.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    Ok(())
}

/// Prints what the analysis could not resolve, grouped by kind.
pub fn print_issues(issues: &[analysis::Issue]) {
    if issues.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "recomp: the analysis resolved everything"
        );
        return;
    }
    let mut kinds: BTreeMap<String, Vec<&analysis::Issue>> = BTreeMap::new();
    for i in issues {
        let kind = i.what.split(':').next().unwrap_or(&i.what).to_string();
        let kind = if kind.starts_with("jump table") {
            "jump table".to_string()
        } else {
            kind
        };
        let kind = if kind.starts_with("word ") {
            "undecodable word".to_string()
        } else {
            kind
        };
        kinds.entry(kind).or_default().push(i);
    }
    let _ = writeln!(
        std::io::stderr(),
        "recomp: not resolved by the analysis ({} places; the interpreter runs them if they are reached):",
        issues.len()
    );
    for (k, v) in kinds {
        let _ = writeln!(std::io::stderr(), "  {k}: {} places, e.g.", v.len());
        for i in v.iter().take(3) {
            let _ = writeln!(
                std::io::stderr(),
                "    in function {:#010x} at {:#010x}: {}",
                i.func,
                i.pc,
                i.what
            );
        }
    }
}
