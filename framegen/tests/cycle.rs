//! The frame cycle: reset, scene cuts, the multiplier, frame formats, the
//! still history, the GPU timer, and the memory report.

#![allow(clippy::print_stderr)] // tests print their measurements

mod common;

use ash::vk;
use framegen::synth::{self, Motion};
use framegen::{Config, Path, headless::Options, runner::Runner};

const W: u32 = 128;
const H: u32 = 96;

#[test]
fn reset_makes_no_frame() {
    let mut r = common::runner(W, H);
    let a = synth::render_plane(W, H, &Motion::shift(0.0, 0.0), 1);
    let b = synth::render_plane(W, H, &Motion::shift(3.0, 1.0), 1);
    assert!(
        r.push_frame(&a, true, true).unwrap().is_empty(),
        "first frame (reset) made a frame"
    );
    assert_eq!(r.push_frame(&b, false, true).unwrap().len(), 1);
    assert!(
        r.push_frame(&a, true, true).unwrap().is_empty(),
        "reset made a frame"
    );
    // With the multiplier too: nothing after a reset.
    r.fg_mut().set_generated(3);
    assert!(
        r.push_frame(&b, true, true).unwrap().is_empty(),
        "reset made frames"
    );
    assert_eq!(r.push_frame(&a, false, true).unwrap().len(), 3);
    common::assert_reference_agrees(&r);
}

#[test]
fn hard_cut_is_detected_and_makes_no_frame() {
    let mut r = common::runner(W, H);
    let m = Motion::shift(2.0, 1.0);
    let f0 = synth::render_plane(W, H, &m.at(0.0), 1);
    let f1 = synth::render_plane(W, H, &m.at(1.0), 1);
    let f2 = synth::render_plane(W, H, &m.at(2.0), 1);
    // Another scene: a different texture, darker, then moving on.
    let dark = |m: Motion| -> Vec<u8> {
        synth::render_plane(W, H, &m, 99)
            .chunks_exact(4)
            .flat_map(|p| [p[0] / 3, p[1] / 3, p[2] / 3, 255])
            .collect()
    };
    let cut = dark(Motion::shift(0.0, 0.0));
    let after = dark(Motion::shift(1.0, 1.0));
    let serial_first = r.fg().serial();
    r.push_frame(&f0, true, true).unwrap();
    r.push_frame(&f1, false, true).unwrap();
    r.push_frame(&f2, false, true).unwrap();
    let cut_serial = r.fg().serial();
    let out = r.push_frame(&cut, false, true).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0], f2, "on a cut the output repeats the previous frame");
    let _ = r.push_frame(&after, false, true).unwrap();
    let rep = r.fg_mut().take_scene_cuts();
    assert_eq!(
        rep.frames_checked, 4,
        "scene results of frames 1..4 came back"
    );
    assert!(
        rep.cut_frames.contains(&cut_serial),
        "cut at frame {cut_serial} not detected: {rep:?}"
    );
    assert_eq!(rep.cut_frames, [serial_first + 3], "only the cut is a cut");
}

#[test]
fn multiplier_frames_land_at_their_fractions() {
    let mut r = common::runner(W, H);
    let m = Motion::shift(8.0, -4.0);
    let a = synth::render_plane(W, H, &m.at(0.0), 2);
    let b = synth::render_plane(W, H, &m.at(1.0), 2);
    r.fg_mut().set_generated(3);
    r.push_frame(&a, true, true).unwrap();
    let outs = r.push_frame(&b, false, true).unwrap();
    assert_eq!(outs.len(), 3);
    let truths: Vec<Vec<u8>> = (1..=3)
        .map(|i| synth::render_plane(W, H, &m.at(i as f32 / 4.0), 2))
        .collect();
    for (i, out) in outs.iter().enumerate() {
        let scores: Vec<f64> = truths.iter().map(|t| synth::psnr(out, t)).collect();
        eprintln!(
            "frame {} of 3: PSNR against 1/4, 2/4, 3/4: {scores:.2?}",
            i + 1
        );
        assert!(
            scores[i] >= 30.0,
            "frame {} is {:.2} dB from its truth",
            i + 1,
            scores[i]
        );
        for (j, s) in scores.iter().enumerate() {
            if j != i {
                assert!(
                    scores[i] > s + 3.0,
                    "frame {} is closer to {}/4 than to {}/4",
                    i + 1,
                    j + 1,
                    i + 1
                );
            }
        }
    }
    common::assert_reference_agrees(&r);
}

#[test]
fn rgba_and_bgra_frames_give_identical_output() {
    let m = Motion::shift(5.5, 2.25);
    let frames: Vec<Vec<u8>> = (0..3)
        .map(|i| synth::render_plane(W, H, &m.at(i as f32), 4))
        .collect();
    let run = |format: vk::Format| {
        let mut cfg = Config::new(W, H);
        cfg.frame_format = format;
        cfg.path = Path::Both;
        let mut r = Runner::new(&Options::default(), &cfg).unwrap();
        r.fg_mut().set_generated(2);
        let mut outs = Vec::new();
        for (k, f) in frames.iter().enumerate() {
            let pic: Vec<u8> = if format == vk::Format::B8G8R8A8_UNORM {
                f.chunks_exact(4)
                    .flat_map(|p| [p[2], p[1], p[0], p[3]])
                    .collect()
            } else {
                f.clone()
            };
            outs.extend(r.push_frame(&pic, k == 0, true).unwrap());
        }
        common::assert_reference_agrees(&r);
        outs
    };
    let rgba = run(vk::Format::R8G8B8A8_UNORM);
    let bgra = run(vk::Format::B8G8R8A8_UNORM);
    assert_eq!(rgba.len(), 4);
    assert!(rgba == bgra, "RGBA and BGRA frames gave different outputs");
}

#[test]
fn static_hud_stays_in_place() {
    let (w, h) = (160u32, 120u32);
    let mut r = common::runner(w, h);
    // Frames of the scene 0, 2, 4, 6, 8: the HUD (top left) never moves.
    let frames: Vec<Vec<u8>> = (0..5)
        .map(|i| synth::render_scene(w, h, 2.0 * i as f32, 9))
        .collect();
    let mut last = Vec::new();
    for (k, f) in frames.iter().enumerate() {
        let out = r.push_frame(f, k == 0, true).unwrap();
        if k > 0 {
            last = out[0].clone();
        }
    }
    // HUD box: (2u, 2u)..(34u, 12u), u = 1.2 px; the inside, off the border.
    let u = 1.2f32;
    let mut diff = 0u32;
    for y in (3.0 * u) as u32..(11.0 * u) as u32 {
        for x in (3.0 * u) as u32..(33.0 * u) as u32 {
            let o = ((y * w + x) * 4) as usize;
            for c in 0..3 {
                diff = diff.max(u32::from(last[o + c].abs_diff(frames[4][o + c])));
            }
        }
    }
    assert!(diff <= 2, "HUD pixels moved: largest difference {diff}");
}

#[test]
fn gpu_timer_and_memory_report() {
    let mut r = common::runner(W, H);
    let m = Motion::shift(1.0, 0.5);
    for k in 0..8 {
        let f = synth::render_plane(W, H, &m.at(k as f32), 3);
        r.push_frame(&f, k == 0, false).unwrap();
    }
    let t = r.fg_mut().take_gpu_time().expect("lavapipe has timestamps");
    assert!(t.count >= 4, "only {} frames timed", t.count);
    assert!(
        t.mean_ms > 0.0
            && t.max_ms >= t.mean_ms
            && t.flow_mean_ms > 0.0
            && t.flow_mean_ms < t.mean_ms,
        "{t:?}"
    );
    assert!(
        r.fg_mut().take_gpu_time().is_none(),
        "take_gpu_time did not reset"
    );
    let mem = r.fg().memory();
    // Two frames and the output: 3 x 128 x 96 x 4 bytes at least.
    assert!(mem.picture_bytes >= 3 * 128 * 96 * 4, "{mem:?}");
    assert!(mem.working_bytes > 128 * 96 * 2, "{mem:?}");
}
