//! The `fg` tool: a pair, a folder with --count, and bad input.

use std::path::Path;
use std::process::Command;

use framegen::synth::{self, Motion};

fn write_png(path: &Path, rgba: &[u8], w: u32, h: u32) {
    let f = std::fs::File::create(path).unwrap();
    let mut e = png::Encoder::new(std::io::BufWriter::new(f), w, h);
    e.set_color(png::ColorType::Rgba);
    e.set_depth(png::BitDepth::Eight);
    e.write_header().unwrap().write_image_data(rgba).unwrap();
}

fn fg(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fg"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn interpolates_a_pair_and_a_folder() {
    let dir = std::env::temp_dir().join(format!("framegen-cli-{}", std::process::id()));
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let (w, h) = (128, 96);
    let m = Motion::shift(4.0, 2.0);
    let a = synth::render_plane(w, h, &m.at(0.0), 3);
    let b = synth::render_plane(w, h, &m.at(1.0), 3);
    write_png(&input.join("clip_a.png"), &a, w, h);
    write_png(&input.join("clip_b.png"), &b, w, h);
    write_png(
        &input.join("small_b.png"),
        &synth::render_plane(64, 48, &m, 3),
        64,
        48,
    );

    let mid = dir.join("mid.png");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let out = fg(&[
        "interpolate",
        &s(&input.join("clip_a.png")),
        &s(&input.join("clip_b.png")),
        "-o",
        &s(&mid),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(mid.exists());

    let outdir = dir.join("out");
    let out = fg(&[
        "interpolate",
        "--dir",
        &s(&input),
        "--out",
        &s(&outdir),
        "--count",
        "2",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(outdir.join("clip_1.png").exists() && outdir.join("clip_2.png").exists());

    // Pictures of different sizes: an error that names both files.
    let out = fg(&[
        "interpolate",
        &s(&input.join("clip_a.png")),
        &s(&input.join("small_b.png")),
        "-o",
        &s(&mid),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("small_b.png") && err.contains("clip_a.png") && err.contains("64x48"),
        "{err}"
    );
    // Not a PNG.
    std::fs::write(input.join("bad_a.png"), b"not a png").unwrap();
    let out = fg(&[
        "interpolate",
        &s(&input.join("bad_a.png")),
        &s(&input.join("clip_b.png")),
        "-o",
        &s(&mid),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad_a.png: not a PNG"));
    let _ = std::fs::remove_dir_all(&dir);
}
