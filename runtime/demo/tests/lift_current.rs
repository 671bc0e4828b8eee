//! The committed generated files are current: `guest/demo.elf` is what
//! ps3cc builds from `guest/demo.c`, and `lifted/` what ppu-lift makes of
//! it (as `recomp lift` does). Regenerate both with `./x regen`
//! (runtime/demo/regen.sh).

use std::path::{Path, PathBuf};
use std::process::Command;

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_committed_executable_is_current() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-current");
    std::fs::create_dir_all(&out).expect("mkdir");
    let elf = out.join("demo.elf");
    let st = Command::new(here().join("../guest-sdk/ps3cc"))
        .current_dir(here().join("guest"))
        .args(["-O2", "-o"])
        .arg(&elf)
        .arg("demo.c")
        .status()
        .expect("run ps3cc");
    assert!(st.success());
    let built = std::fs::read(&elf).expect("read");
    let committed = std::fs::read(here().join("guest/demo.elf")).expect("read");
    assert!(
        built == committed,
        "guest/demo.elf is not what guest/demo.c builds into: run ./x regen"
    );
}

#[test]
fn the_committed_lift_is_current() {
    let image = ppu_elf::open(&here().join("guest/demo.elf")).expect("parse");
    let an = ppu_lift::analysis::analyse(&image, &ppu_lift::analysis::Options::default());
    let layout = ppu_lift::Layout::new(PathBuf::from("RT"), PathBuf::from("LINUX"));
    let project = ppu_lift::generate(
        "demo.elf",
        &image,
        &an,
        &|_| true,
        &ppu_lift::EmitOptions::default(),
        &layout,
        |_, _| {},
    );
    let mut expected = 0;
    for (rel, data) in &project.files {
        let Ok(rest) = rel.strip_prefix("lifted") else {
            continue;
        };
        expected += 1;
        let mut want = data.clone();
        if rel.ends_with("Cargo.toml") {
            want = String::from_utf8(want)
                .expect("utf-8")
                .replace(
                    "recomp-rt = { path = \"RT\" }",
                    "recomp-rt = { path = \"../../../recomp/rt\" }",
                )
                .into_bytes();
        }
        let path = here().join("lifted").join(rest);
        let have = std::fs::read(&path).unwrap_or_default();
        assert!(
            have == want,
            "{} is not current: run ./x regen",
            path.display()
        );
    }
    let committed = count_files(&here().join("lifted")) - 1; // rustfmt.toml
    assert_eq!(
        committed, expected,
        "lifted/ holds files the lifter no longer makes: run ./x regen"
    );
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| {
            let e = e.expect("entry");
            if e.file_type().expect("type").is_dir() {
                count_files(&e.path())
            } else {
                1
            }
        })
        .sum()
}
