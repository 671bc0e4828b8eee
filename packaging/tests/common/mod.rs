//! Helpers shared by the packaging tests.
#![allow(dead_code)]

use packaging::assemble::{self, PackageOutput};
use packaging::config::{self, Config};
use std::fs;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// A fresh, empty folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("packaging-tests")
        .join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A dummy x86-64 ELF payload of `len` bytes (a valid header, then a
/// pattern that varies with `seed`).
pub fn dummy_elf(path: &Path, len: usize, seed: u8) {
    let mut b = vec![0u8; len.max(64)];
    b[..4].copy_from_slice(b"\x7fELF");
    b[4] = 2; // 64-bit
    b[5] = 1; // little-endian
    b[6] = 1;
    b[16..18].copy_from_slice(&3u16.to_le_bytes()); // ET_DYN
    b[18..20].copy_from_slice(&62u16.to_le_bytes()); // x86-64
    let mut x = u32::from(seed)
        .wrapping_mul(2_654_435_761)
        .wrapping_add(12345);
    for v in &mut b[64..] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *v = x as u8;
    }
    fs::write(path, b).unwrap();
}

/// The project's packaging config.
pub fn project_config() -> Config {
    config::load(&repo_root().join("packaging/title.json")).unwrap()
}

/// Packages a dummy payload of `len` bytes with the project's config into
/// `dir/out`.
pub fn package_dummy(dir: &Path, len: usize) -> PackageOutput {
    let payload = dir.join("payload.elf");
    dummy_elf(&payload, len, 1);
    assemble::package(&project_config(), &payload, &dir.join("out")).unwrap()
}

/// A copy of the project's sce_sys in `dir/sce_sys` and a config using it
/// (with `extra` JSON fields spliced in), for tests that change them.
pub fn own_config(dir: &Path, refresh_rate: &str, run_time_lists: &[&str]) -> PathBuf {
    let sce = dir.join("sce_sys");
    fs::create_dir_all(&sce).unwrap();
    for f in ["param.json", "icon0.png"] {
        fs::copy(repo_root().join("sce_sys").join(f), sce.join(f)).unwrap();
    }
    let lists: Vec<String> = run_time_lists.iter().map(|l| format!("{l:?}")).collect();
    let text = format!(
        "{{\"sce_sys\": \"sce_sys\", \"payload_name\": \"eboot.elf\", \"refresh_rate\": \
         \"{refresh_rate}\", \"run_time_files\": [{}]}}",
        lists.join(", ")
    );
    let path = dir.join("title.json");
    fs::write(&path, text).unwrap();
    path
}

/// Every file under `dir` as (relative path, bytes), sorted.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn go(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                go(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().to_str().unwrap().to_owned();
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    go(dir, dir, &mut out);
    out.sort();
    out
}
