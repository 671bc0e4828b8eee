//! `recomp ELF -o BIN` on a PS3-format executable (built with the guest
//! SDK's `ps3cc`): BIN passes its arguments to the guest as argv, the
//! guest's TTY output is BIN's stdout, BIN's exit status is the guest's,
//! and `--verify` and `--interp` run it too.

use std::path::{Path, PathBuf};
use std::process::Command;

const RECOMP: &str = env!("CARGO_BIN_EXE_recomp");

const HELLO: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv) {
    printf("argc=%d", argc);
    for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);
    char *buf = malloc(64);
    strcpy(buf, "heap ok");
    printf("\n%s fib(20)=%lu\n", buf, fib(20));
    free(buf);
    return argc > 1 ? atoi(argv[1]) : 0;
}
"#;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn build(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("hello.c"), HELLO).unwrap();
    let elf = dir.join("hello.elf");
    let o = Command::new(repo().join("runtime/guest-sdk/ps3cc"))
        .current_dir(dir)
        .args(["-O2", "-o", "hello.elf", "hello.c"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "ps3cc failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    elf
}

#[test]
fn a_recompiled_ps3_executable_runs_with_the_guests_argv_output_and_status() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("recomp-ps3");
    let elf = build(&dir);
    let bin = dir.join("hello");
    let o = Command::new(RECOMP)
        .arg(&elf)
        .arg("-o")
        .arg(&bin)
        .args(["--profile", "quick"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "recomp failed:\n{err}");
    assert!(err.contains("Lv2 executable"), "{err}");
    for mode in [&[][..], &["--verify"][..], &["--interp"][..]] {
        let o = Command::new(&bin)
            .args(mode)
            .args(["42", "two words"])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            out, "argc=3 [42] [two words]\nheap ok fib(20)=6765\n",
            "{mode:?}; stderr:\n{err}"
        );
        assert_eq!(o.status.code(), Some(42), "{mode:?}; stderr:\n{err}");
        if mode == ["--verify"] {
            assert!(err.contains("no difference"), "{err}");
        }
    }
}

#[test]
fn checked_memory_builds_run_where_trap_builds_refuse() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("recomp-ps3-checked");
    let elf = build(&dir);
    let run = |bin: &Path, mode: &[&str]| {
        Command::new(bin)
            .args(mode)
            .arg("7")
            .env("CELLPORT_MEM_CHECK", "checked")
            .output()
            .unwrap()
    };
    // The default build (unchecked trap-mode accesses) refuses checked memory.
    let trap = dir.join("hello-trap");
    let o = Command::new(RECOMP)
        .arg(&elf)
        .arg("-o")
        .arg(&trap)
        .args(["--profile", "quick", "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&trap, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("recomp --checked-memory"),
        "{err}"
    );
    // The checked build (the reference) runs on it, plain and verified.
    let checked = dir.join("hello-checked");
    let o = Command::new(RECOMP)
        .arg(&elf)
        .arg("-o")
        .arg(&checked)
        .args(["--profile", "quick", "--quiet", "--checked-memory"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for mode in [&[][..], &["--verify"][..]] {
        let o = run(&checked, mode);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "argc=2 [7]\nheap ok fib(20)=6765\n",
            "{mode:?}; stderr:\n{err}"
        );
        assert_eq!(o.status.code(), Some(7), "{mode:?}; stderr:\n{err}");
    }
}
