//! The PS3 test suite on the interpreter: C programs built with the guest
//! SDK (`runtime/guest-sdk/tests/*.c`, by `ps3cc`) into PS3-format
//! executables, run by `ps3-run`. Each prints `PASS <name>` and exits 0
//! when all its checks hold; `fault` must die of its guest memory fault
//! with status 77 and a message naming the address. `lifted_suite.rs`
//! runs the same programs recompiled.

mod common;

use std::process::Command;

use common::*;

fn interp(name: &str) -> Run {
    let dir = out_dir("ps3-suite");
    let elf = build(&dir, name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ps3-run"));
    cmd.arg(elf);
    run(cmd, name, &dir.join(format!("fs-{name}")))
}

macro_rules! suite {
    ($($t:ident),*) => {$(
        #[test]
        fn $t() {
            let name = stringify!($t);
            check(name, &interp(name));
        }
    )*};
}

suite!(
    hello, threads, sync, events, tls, files, memory, badptr, fault, sysutil, gcm, pad
);

#[test]
fn hello_sees_its_arguments() {
    let dir = out_dir("ps3-suite");
    let elf = build(&dir, "hello");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ps3-run"));
    cmd.arg(elf).args(["x", "y"]);
    let r = run(cmd, "hello", &dir.join("fs-hello"));
    assert!(
        r.stdout.contains("argc=3 argv[0]=/app_home/EBOOT.BIN"),
        "{}",
        r.stdout
    );
}

#[test]
fn bad_executables_are_refused_naming_the_file_and_offset() {
    let o = Command::new(env!("CARGO_BIN_EXE_ps3-run"))
        .arg("/bin/sh")
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("/bin/sh") && e.contains("file offset"), "{e}");
    // A PS3 executable cut short: its program headers are missing.
    let dir = out_dir("ps3-suite");
    let whole = std::fs::read(build(&dir, "hello")).expect("read");
    let cut = dir.join("hello-cut.elf");
    std::fs::write(&cut, &whole[..100]).expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_ps3-run"))
        .arg(&cut)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("hello-cut.elf") && e.contains("offset"), "{e}");
}
