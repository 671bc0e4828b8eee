//! Building the PS3 test programs with the guest SDK, for the test files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The test programs (`runtime/guest-sdk/tests/NAME.c`).
pub const TESTS: [&str; 12] = [
    "hello", "threads", "sync", "events", "tls", "files", "memory", "badptr", "fault", "sysutil",
    "gcm", "pad",
];

/// The guest SDK's folder.
pub fn sdk() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../guest-sdk")
}

/// A folder of this test target's own.
pub fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).expect("create the output folder");
    d
}

static BUILD: Mutex<()> = Mutex::new(());

fn ps3cc(args: &[&std::ffi::OsStr]) {
    let st = Command::new(sdk().join("ps3cc"))
        .args(args)
        .status()
        .expect("run ps3cc (is gcc-powerpc64-linux-gnu installed? ./x setup)");
    assert!(st.success(), "ps3cc {args:?} failed");
}

/// Builds test program `name` into `dir` and returns its path.
pub fn build(dir: &Path, name: &str) -> PathBuf {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let out = dir.join(format!("{name}.elf"));
    let src = sdk().join("tests").join(format!("{name}.c"));
    ps3cc(&[
        "-O2".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        src.as_os_str(),
    ]);
    out
}

/// Builds the whole suite as one executable (`suite NAME` runs test NAME).
pub fn build_suite(dir: &Path) -> PathBuf {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let mut objs = Vec::new();
    for t in TESTS {
        let obj = dir.join(format!("{t}.o"));
        let src = sdk().join("tests").join(format!("{t}.c"));
        let def = format!("-Dmain={t}_main");
        ps3cc(&[
            "-c".as_ref(),
            "-O2".as_ref(),
            def.as_ref(),
            "-o".as_ref(),
            obj.as_os_str(),
            src.as_os_str(),
        ]);
        objs.push(obj);
    }
    let out = dir.join("suite.elf");
    let main = sdk().join("tests/suite.c");
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "-O2".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
        main.as_os_str(),
    ];
    args.extend(objs.iter().map(|o| o.as_os_str()));
    ps3cc(&args);
    out
}

/// What a run printed and how it ended.
pub struct Run {
    /// Exit status.
    pub status: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// The environment each test program needs.
pub fn env_for(name: &str) -> Vec<(&'static str, &'static str)> {
    match name {
        "sysutil" => vec![("CELLPORT_SYS_LANG", "pt-BR")],
        "pad" => vec![("CELLPORT_PAD_SCRIPT", "0:cross+left:0,255")],
        _ => Vec::new(),
    }
}

/// Runs `cmd` with the test's environment and a file system root of its own.
pub fn run(mut cmd: Command, name: &str, fs: &Path) -> Run {
    cmd.env("CELLPORT_FS_ROOT", fs)
        .env_remove("CELLPORT_PAD_SCRIPT")
        .env_remove("CELLPORT_SYS_LANG");
    for (k, v) in env_for(name) {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("run the test program");
    Run {
        status: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Checks a run of test `name` the way the suite defines success.
pub fn check(name: &str, r: &Run) {
    let ok = match name {
        "hello" => r.status == 42 && r.stdout.contains("hello from the PS3 guest") && r.stdout.contains("twice(21)=42"),
        "fault" => {
            r.status == 77
                && r.stdout.contains("about to fault")
                && !r.stdout.contains("not reached")
                && r.stderr.contains("guest address 0xdead0010")
        }
        "sysutil" => {
            r.status == 0
                && r.stdout.contains("PASS sysutil")
                && r.stderr.matches("unimplemented import cellSysutil::cellSysutilGetBgmPlaybackStatus (FNID 0xA11552F6)").count() == 1
        }
        _ => r.status == 0 && r.stdout.contains(&format!("PASS {name}")),
    };
    assert!(
        ok,
        "{name}: status {}\n--- stdout\n{}\n--- stderr\n{}",
        r.status, r.stdout, r.stderr
    );
}
