//! The whole-program proof: real C programs from Debian's source packages,
//! built for the Cell, give the same output (stdout, stderr, exit status)
//! under qemu-ppc64, under the interpreter (`recomp run`) and recompiled
//! (`recomp ELF -o BIN`); the recompiled build also passes `--verify`; and
//! the lifter's output is the same byte for byte when lifted twice.
//!
//! The sources are fetched once (pinned by SHA-256) and cached under
//! `target/recomp-corpus`; the lifted build goes to `target/recomp-work`
//! and `target/recomp-build` (the quick profile: opt-level 1).

#![allow(clippy::print_stderr)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use recomp::build;
use recomp::corpus::{self, Case, Corpus};

const RECOMP: &str = env!("CARGO_BIN_EXE_recomp");

fn corpus() -> Corpus {
    // The tests of this file share the corpus folder: prepare it once at a time.
    static ONCE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = ONCE.lock().unwrap_or_else(|e| e.into_inner());
    corpus::prepare(&build::target_dir().join("recomp-corpus"), &mut |m| {
        eprintln!("corpus: {m}")
    })
    .unwrap_or_else(|e| panic!("{e:#}"))
}

fn show(o: &Output) -> String {
    format!(
        "status {:?}, {} bytes out, stderr: {}",
        o.status,
        o.stdout.len(),
        String::from_utf8_lossy(&o.stderr)
            .chars()
            .take(2000)
            .collect::<String>()
    )
}

fn same(case: &Case, what: &str, want: &Output, got: &Output) -> Option<String> {
    if want.status.code() != got.status.code()
        || want.stdout != got.stdout
        || want.stderr != got.stderr
    {
        let first = want
            .stdout
            .iter()
            .zip(&got.stdout)
            .position(|(a, b)| a != b);
        return Some(format!(
            "{}: {what} differs from qemu-ppc64 (first stdout difference at byte {first:?})\n  qemu: {}\n  {what}: {}",
            case.name,
            show(want),
            show(got)
        ));
    }
    None
}

fn lift_to(c: &Corpus, work: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let o = Command::new(RECOMP)
        .arg("lift")
        .arg(&c.ppc)
        .arg("--work")
        .arg(work)
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut files = Vec::new();
    let mut stack = vec![work.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name() != Some(OsStr::new("Cargo.lock")) {
                files.push((
                    p.strip_prefix(work).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn lifting_is_reproducible() {
    let c = corpus();
    let base = build::target_dir().join("recomp-repro");
    let _ = std::fs::remove_dir_all(&base);
    let a = lift_to(&c, &base.join("a"));
    let b = lift_to(&c, &base.join("b"));
    assert!(a.len() > 10, "{} files", a.len());
    assert_eq!(a.len(), b.len());
    for ((pa, da), (pb, db)) in a.iter().zip(&b) {
        assert_eq!(pa, pb);
        assert!(da == db, "{} differs between two lifts", pa.display());
    }
    // A second lift into the same folder rewrites nothing.
    let o = Command::new(RECOMP)
        .arg("lift")
        .arg(&c.ppc)
        .arg("--work")
        .arg(base.join("a"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(" 0 files changed"), "{err}");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn corpus_output_is_identical_under_qemu_the_interpreter_and_lifted_code() {
    let c = corpus();
    let bin = build::target_dir()
        .join("recomp-test")
        .join("corpus.lifted");
    let o = Command::new(RECOMP)
        .arg(&c.ppc)
        .arg("-o")
        .arg(&bin)
        .args(["--profile", "quick"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "recomp failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let qemu = [OsStr::new("qemu-ppc64"), c.ppc.as_os_str()];
    let interp = [OsStr::new(RECOMP), OsStr::new("run"), c.ppc.as_os_str()];
    let lifted = [bin.as_os_str()];
    let verify = [bin.as_os_str(), OsStr::new("--verify")];
    let mut failures = Vec::new();
    for (k, case) in corpus::test_cases().iter().enumerate() {
        let want = corpus::run_case(&qemu, case, &c.inputs).unwrap();
        for (what, prefix) in [
            ("the interpreter", &interp[..]),
            ("lifted code", &lifted[..]),
        ] {
            let got = corpus::run_case(prefix, case, &c.inputs).unwrap();
            failures.extend(same(case, what, &want, &got));
        }
        // --verify on every other case (it runs the interpreter alongside).
        if k % 2 == 0 {
            let got = corpus::run_case(&verify, case, &c.inputs).unwrap();
            let err = String::from_utf8_lossy(&got.stderr);
            if got.stdout != want.stdout
                || got.status.code() != want.status.code()
                || err.contains("verify: ") && !err.contains("no difference")
            {
                failures.push(format!("{}: --verify: {}", case.name, show(&got)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Lifted code stays lifted: Lua calls memcmp through a PLT stub's
    // `bctr` (586K interpreted instructions on this case when such a jump
    // went to the interpreter, about 20K of start-up and exit code now).
    let stats = [bin.as_os_str(), OsStr::new("--recomp-stats")];
    let case = corpus::test_cases()
        .into_iter()
        .find(|c| c.name == "lua text")
        .expect("the lua text case");
    let got = corpus::run_case(&stats, &case, &c.inputs).unwrap();
    let err = String::from_utf8_lossy(&got.stderr);
    let interpreted: u64 = err
        .lines()
        .find_map(|l| l.split(" times, ").nth(1)?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no interpreter statistics in:\n{err}"));
    // ... and it names where the interpreter ran.
    assert!(
        err.contains(":   from 0x"),
        "no interpreter sites in:\n{err}"
    );
    assert!(
        interpreted < 60_000,
        "{interpreted} instructions interpreted on `lua text`:\n{err}"
    );
}
