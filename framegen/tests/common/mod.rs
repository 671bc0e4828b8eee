//! Helpers shared by the integration tests (lavapipe, small pictures).
#![allow(dead_code, clippy::print_stderr)]

use framegen::{Config, Path, headless::Options, runner::Runner};

/// A runner at `w` x `h` with both pyramid paths (the reference check on).
pub fn runner(w: u32, h: u32) -> Runner {
    let mut cfg = Config::new(w, h);
    cfg.path = Path::Both;
    Runner::new(&Options::default(), &cfg).expect("a Vulkan device (lavapipe: mesa-vulkan-drivers)")
}

/// Asserts the fast luma pyramid matched the reference on every frame so far.
pub fn assert_reference_agrees(r: &Runner) {
    assert_eq!(
        r.fg().reference_mismatches(),
        Some(0),
        "fast and reference passes differ (luma pyramid, flow or interpolation)"
    );
}

/// Whether a tool is on PATH.
pub fn have(tool: &str) -> bool {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool} >/dev/null"))
        .status()
        .is_ok_and(|s| s.success())
}

/// Under CI a missing tool is a failure; elsewhere the check is skipped.
pub fn require(tool: &str) -> bool {
    if have(tool) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{tool} is missing under CI (./x installs it)"
    );
    eprintln!("skipped: {tool} is not installed");
    false
}
