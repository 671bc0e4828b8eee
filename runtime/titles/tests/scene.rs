//! The built-in scene's shader: the committed SPIR-V is current and its
//! bindings are numbered densely (ps5vk sizes tables by the highest).
#![allow(clippy::print_stderr)] // "skipped: ..." when a tool is missing outside CI

use std::path::Path;

use titles::scene::SCENE_SPV;

#[test]
fn spirv_is_current() {
    let have = std::process::Command::new("sh")
        .arg("-c")
        .arg("command -v glslc >/dev/null")
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        assert!(
            std::env::var_os("CI").is_none(),
            "glslc is missing under CI (./x installs it)"
        );
        eprintln!("skipped: glslc is not installed");
        return;
    }
    let out =
        std::process::Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("regen-shaders.sh"))
            .arg("--check")
            .output()
            .unwrap();
    assert!(
        out.status.success(),
        "runtime/titles/spirv is stale: run ./x regen\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn scene_bindings_are_numbered_densely() {
    let words = framegen::spirv::words_from_bytes(SCENE_SPV).unwrap();
    let table = framegen::spirv::reflect_bindings(&words).unwrap();
    let mut n: Vec<u32> = table.bindings.iter().map(|b| b.original).collect();
    n.sort_unstable();
    assert_eq!(n, [0, 1]);
}
