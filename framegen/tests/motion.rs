//! Known motion: a textured plane translated by sub-pixel and multi-pixel
//! amounts, rotated and zoomed. The flow must recover the motion and the
//! middle frame must be close to the truth (rendered exactly from the same
//! continuous texture).
//!
//! Tolerances (interior blocks, one block of border left out): median
//! end-point error of the forward flow at most 0.35 px, 90th percentile at
//! most 1.0 px; the backward flow likewise, against the inverse motion (for
//! flow at pyramid level L, in pixels of that level: x 2^L in the picture); the
//! middle frame at least 32 dB PSNR against the truth and at least 4 dB above
//! the blend of the two frames.

#![allow(clippy::print_stderr)] // tests print their measurements

mod common;

use framegen::synth::{self, Motion};

const W: u32 = 160;
const H: u32 = 120;

fn percentile(mut v: Vec<f32>, p: f32) -> f32 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f32 * p) as usize]
}

fn check(motion: Motion, what: &str) {
    check_at(motion, what, None);
}

fn check_at(motion: Motion, what: &str, flow_level: Option<u32>) {
    let mut cfg = framegen::Config::new(W, H);
    cfg.path = framegen::Path::Both;
    cfg.flow_level = flow_level;
    let mut r = framegen::runner::Runner::new(&Default::default(), &cfg).unwrap();
    let bp = r.fg().flow_block_pixels() as f32;
    let level = r.fg().flow_level();
    let want_mb = if level >= 2 { 16 } else { 8 };
    assert_eq!(
        r.fg().motion_block_pixels(),
        want_mb,
        "{what}: motion blocks"
    );
    let a = synth::render_plane(W, H, &motion.at(0.0), 5);
    let b = synth::render_plane(W, H, &motion.at(1.0), 5);
    let truth = synth::render_plane(W, H, &motion.at(0.5), 5);
    assert!(r.push_frame(&a, true, true).unwrap().is_empty());
    let out = r.push_frame(&b, false, true).unwrap();
    assert_eq!(out.len(), 1);
    let [fwd, bwd] = r.read_flow().unwrap();
    let (bw, bh) = r.fg().flow_extent();
    let centre = [W as f32 / 2.0, H as f32 / 2.0];
    let (mut ef, mut eb) = (Vec::new(), Vec::new());
    for by in 1..bh - 1 {
        for bx in 1..bw - 1 {
            let c = [(bx as f32 + 0.5) * bp, (by as f32 + 0.5) * bp];
            let i = (by * bw + bx) as usize;
            let to = motion.apply(c, centre);
            ef.push(
                ((fwd[i][0] - (to[0] - c[0])).powi(2) + (fwd[i][1] - (to[1] - c[1])).powi(2))
                    .sqrt(),
            );
            let from = motion.invert(c, centre);
            eb.push(
                ((bwd[i][0] - (from[0] - c[0])).powi(2) + (bwd[i][1] - (from[1] - c[1])).powi(2))
                    .sqrt(),
            );
        }
    }
    let (fm, f9) = (percentile(ef.clone(), 0.5), percentile(ef, 0.9));
    let (bm, b9) = (percentile(eb.clone(), 0.5), percentile(eb, 0.9));
    let ours = synth::psnr(&out[0], &truth);
    let blend = synth::psnr(&synth::blend(&a, &b), &truth);
    eprintln!(
        "{what}: flow fwd median {fm:.2} p90 {f9:.2}, bwd median {bm:.2} p90 {b9:.2}; PSNR ours {ours:.2} blend {blend:.2}"
    );
    let s = (1u32 << r.fg().flow_level()) as f32;
    assert!(
        fm <= 0.35 * s && f9 <= 1.0 * s,
        "{what}: forward flow error median {fm:.2} p90 {f9:.2} px"
    );
    assert!(
        bm <= 0.35 * s && b9 <= 1.0 * s,
        "{what}: backward flow error median {bm:.2} p90 {b9:.2} px"
    );
    assert!(
        ours >= 32.0,
        "{what}: middle frame {ours:.2} dB, want >= 32"
    );
    assert!(
        ours >= blend + 1.0,
        "{what}: middle frame {ours:.2} dB, blend {blend:.2} dB"
    );
    common::assert_reference_agrees(&r);
}

#[test]
fn subpixel_translation() {
    check(Motion::shift(1.25, -0.625), "shift (1.25, -0.625)");
}

#[test]
fn multipixel_translation() {
    check(Motion::shift(9.5, 5.0), "shift (9.5, 5)");
}

#[test]
fn rotation() {
    check(
        Motion {
            shift: [0.0, 0.0],
            angle: 3f32.to_radians(),
            zoom: 1.0,
        },
        "rotation 3 degrees",
    );
}

/// The flow at pyramid level 1 (16x16-pixel blocks), as large pictures use.
#[test]
fn translation_with_flow_at_level_1() {
    check_at(
        Motion::shift(6.5, -3.25),
        "shift (6.5, -3.25), flow at level 1",
        Some(1),
    );
}

/// The flow at pyramid level 2 (32x32-pixel blocks) and 16x16-pixel motion
/// blocks, as 1440p and 2160p pictures use: the tiled interpolation on its
/// 16x16 tiles must still match the per-pixel reference.
#[test]
fn translation_with_flow_at_level_2() {
    check_at(
        Motion::shift(5.5, 2.75),
        "shift (5.5, 2.75), flow at level 2",
        Some(2),
    );
}

#[test]
fn zoom() {
    check(
        Motion {
            shift: [0.0, 0.0],
            angle: 0.0,
            zoom: 1.06,
        },
        "zoom 1.06",
    );
}
