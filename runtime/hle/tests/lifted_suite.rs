//! The PS3 test suite recompiled: the whole suite is built as one PS3
//! executable (`suite NAME` runs test NAME), lifted to Rust by `ppu-lift`
//! as `./x recomp` does, built against the LV2 personality
//! (`hle::personality::with_functions`: every thread and callback runs
//! lifted code) and run test by test.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Lifts and builds the suite once; returns the native executable.
fn lifted() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = out_dir("lifted-suite");
        let elf = build_suite(&dir);
        let image = ppu_elf::open(&elf).expect("parse the suite");
        let an = ppu_lift::analysis::analyse(&image, &ppu_lift::analysis::Options::default());
        let root = repo().canonicalize().expect("repository");
        let mut layout = ppu_lift::Layout::new(
            root.join("runtime/recomp/rt"),
            root.join("runtime/ppu-linux"),
        );
        layout.lv2 = Some(root.join("runtime/hle"));
        let project = ppu_lift::generate(
            "suite",
            &image,
            &an,
            &|_| true,
            &ppu_lift::EmitOptions::default(),
            &layout,
            |_, _| {},
        );
        let work = dir.join("work");
        ppu_lift::write_tree(&work, &project).expect("write the project");
        let lock = work.join("Cargo.lock");
        if !lock.exists() {
            std::fs::copy(root.join("Cargo.lock"), &lock).expect("copy Cargo.lock");
        }
        let build = dir.join("build");
        let st = Command::new(env!("CARGO"))
            .args(["build", "-q", "--manifest-path"])
            .arg(work.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &build)
            .env_remove("RUSTFLAGS")
            .status()
            .expect("run cargo");
        assert!(st.success(), "building the lifted suite failed");
        build.join("debug/suite")
    })
}

fn run_lifted(name: &str, extra: &[&str]) -> Run {
    let mut cmd = Command::new(lifted());
    cmd.args(extra).arg(name).env("RECOMP_STATS", "1");
    run(
        cmd,
        name,
        &out_dir("lifted-suite").join(format!("fs-{name}")),
    )
}

macro_rules! suite {
    ($($t:ident),*) => {$(
        #[test]
        fn $t() {
            let name = stringify!($t);
            check(name, &run_lifted(name, &[]));
        }
    )*};
}

suite!(
    hello, threads, sync, events, tls, files, memory, badptr, fault, sysutil, gcm, pad
);

/// Every thread runs lifted code: the main thread on the runner's
/// runtime, the others (and the flip handler) on the personality's.
#[test]
fn every_thread_runs_lifted_code() {
    for name in ["threads", "gcm"] {
        let mut cmd = Command::new(lifted());
        cmd.arg(name)
            .env("RECOMP_STATS", "1")
            .env("RUST_LOG", "hle::personality=info");
        let r = run(
            cmd,
            name,
            &out_dir("lifted-suite").join(format!("fs-stats-{name}")),
        );
        check(name, &r);
        let counts: Vec<u64> = r
            .stderr
            .lines()
            .filter(|l| l.contains("instructions interpreted"))
            .filter_map(|l| l.split(", ").last()?.split(' ').next()?.parse().ok())
            .collect();
        assert_eq!(
            counts.len(),
            2,
            "{name}: both runtimes report:\n{}",
            r.stderr
        );
        assert!(
            counts.iter().all(|&n| n < 1000),
            "{name}: lifted code runs, not the interpreter: {counts:?}"
        );
    }
}

/// `--verify` (lifted code checked against the interpreter at every
/// function entry, system call and HLE call) on the single-threaded
/// programs (the verifier follows one thread).
#[test]
fn lifted_code_matches_the_interpreter() {
    for name in ["hello", "memory", "files", "sysutil"] {
        let r = run_lifted(name, &["--verify"]);
        check(name, &r);
        assert!(r.stderr.contains("no difference"), "{name}: {}", r.stderr);
        // The program's imports were checked too, not only its functions.
        let hle: u64 = r
            .stderr
            .split(" system calls and ")
            .nth(1)
            .and_then(|t| t.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no verifier summary in {}", r.stderr));
        assert!(hle > 0, "{name}: no HLE call verified: {}", r.stderr);
    }
}
