//! The scaling and colour shader: committed SPIR-V current, bindings dense
//! (ps5vk), and the GPU result equal to the CPU reference.
#![allow(clippy::print_stderr)] // "skipped: ..." when a tool is missing outside CI

mod common;

use std::path::Path;

use framegen::synth;
use framegen_present::colour::{VideoOutSettings, fit, process_cpu};
use framegen_present::scaler::{PRESENT_SPV, Scaler};

fn have(tool: &str) -> bool {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool} >/dev/null"))
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn spirv_is_current() {
    if !have("glslc") {
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
        "framegen/present/spirv is stale: run ./x regen\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bindings_are_numbered_densely() {
    // ps5vk keeps binding numbers in a byte and sizes tables by the highest.
    let words = framegen::spirv::words_from_bytes(PRESENT_SPV).unwrap();
    let table = framegen::spirv::reflect_bindings(&words).unwrap();
    let mut numbers: Vec<u32> = table.bindings.iter().map(|b| b.original).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, [0, 1]);
}

fn gpu(src: &[u8], sw: u32, sh: u32, dw: u32, dh: u32, settings: VideoOutSettings) -> Vec<u8> {
    let h = common::headless();
    let img = common::upload(&h, sw, sh, src);
    let mut scaler = Scaler::new(&h.device, &common::props(&h), dw, dh).unwrap();
    h.submit_and_wait(|cmd| {
        scaler
            .record(&h.device, cmd, img.view, sw, sh, settings)
            .unwrap()
    })
    .unwrap();
    let out = common::download(&h, scaler.picture.image, dw, dh);
    scaler.destroy(&h.device);
    let mut img = img;
    img.destroy(&h.device);
    out
}

#[test]
fn gpu_matches_the_cpu_reference() {
    let cases = [
        // (source, display, settings): upscale 16:9, 4:3 pillarboxed with
        // GTA IV's gamma and limited range, downscale, a letterbox.
        ((96, 54), (160, 90), VideoOutSettings::default()),
        (
            (128, 96),
            (160, 90),
            VideoOutSettings {
                gamma: 1.2,
                limited_range: true,
            },
        ),
        (
            (320, 180),
            (160, 90),
            VideoOutSettings {
                gamma: 0.8,
                limited_range: false,
            },
        ),
        (
            (200, 60),
            (160, 90),
            VideoOutSettings {
                gamma: 1.0,
                limited_range: true,
            },
        ),
    ];
    for ((sw, sh), (dw, dh), s) in cases {
        let src = synth::render_scene(sw, sh, 0.3, 7);
        let want = process_cpu(&src, sw, sh, dw, dh, s);
        let got = gpu(&src, sw, sh, dw, dh, s);
        let d = common::max_diff(&want, &got, dw, None);
        assert!(
            d <= 1,
            "{sw}x{sh} -> {dw}x{dh} {s:?}: GPU and CPU differ by {d}"
        );
        // The borders are black (16 in limited range), the picture is not.
        let vp = fit(sw, sh, dw, dh);
        let black = if s.limited_range { 16 } else { 0 };
        if vp.x > 0 {
            assert_eq!(&got[0..3], &[black; 3], "{sw}x{sh}: left border");
        }
        if vp.y > 0 {
            assert_eq!(&got[0..3], &[black; 3], "{sw}x{sh}: top border");
        }
        let centre = ((dh / 2 * dw + dw / 2) * 4) as usize;
        assert_ne!(&got[centre..centre + 3], &[black; 3]);
    }
}
