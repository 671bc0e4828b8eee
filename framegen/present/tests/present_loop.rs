//! The present loop on a FIFO test display in virtual time: generated
//! frames get the game's scaling and colour processing and the overlay,
//! the pacer's plan reaches the display, the dump records what was shown.

mod common;

use framegen::synth::{self, Motion};
use framegen_dump::{DumpReader, DumpWriter, FrameKind, PacerState, Record, WriterConfig};
use framegen_present::colour::{VideoOutSettings, fit, process_cpu};
use framegen_present::{Display, GameFrame, Mode, PresentConfig, PresentLoop};

const DW: u32 = 160;
const DH: u32 = 90;

struct Shown {
    frame: u64,
    kind: FrameKind,
    state: PacerState,
    refreshes: u32,
    rgba: Vec<u8>,
}

/// Runs `frames` frames of a still 4:3 picture at `ticks` ticks of a 120 Hz
/// clock on a display at `mode_mhz`; returns what the dump recorded.
fn run(
    frames: u32,
    ticks: u32,
    mode_mhz: u32,
    multiplier: u8,
    settings: VideoOutSettings,
    src: &[u8],
) -> Vec<Shown> {
    let h = common::headless();
    let mode = Mode {
        width: DW,
        height: DH,
        refresh_mhz: mode_mhz,
    };
    let mut display = common::TestDisplay::new(&h, mode, 4);
    let pic = common::upload(&h, 128, 96, src);
    let dir = std::env::temp_dir().join(format!("present-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Tests run in parallel: one file each.
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("run{n}-t{ticks}-{mode_mhz}-{multiplier}.fgdump"));
    let writer =
        DumpWriter::create(&path, &serde_json::json!({}), WriterConfig::default()).unwrap();
    let config = PresentConfig {
        framegen: true,
        multiplier,
        frame_counter: true,
        dump_scale: 1,
        status_every_s: 0.0,
        flow_level: None,
    };
    let mut pl = PresentLoop::new(&h.context(), &display, config, Some(writer)).unwrap();
    let mut sched = 0.0f64;
    let mut after = 0.0f64;
    for k in 0..frames {
        if k > 0 {
            let mut interval = f64::from(ticks) / 120.0;
            if let Some(hold) = pl.hold_fps(Some(120.0 / f64::from(ticks)), None) {
                interval = interval.max(1.0 / hold);
            }
            sched = (sched + interval).max(after);
        }
        display.wait_until(sched);
        let f = GameFrame {
            view: pic.view,
            width: 128,
            height: 96,
            ticks,
            source_hz: 120.0,
            settings,
            cut: false,
            speed_pct: 100.0,
            limiter_nominal: true,
        };
        pl.present_frame(&mut display, &f).unwrap();
        after = display.now_s();
    }
    let totals = pl.finish(&mut display).unwrap();
    let dump = totals.dump.unwrap();
    assert_eq!(dump.dropped, 0);
    let mut pic = pic;
    pic.destroy(&h.device);
    drop(display);
    let mut r = DumpReader::open(&path).unwrap();
    let mut v = Vec::new();
    while let Some((rec, _)) = r.next_record().unwrap() {
        if let Record::Frame(fr) = rec {
            let img = fr.decode_image().unwrap().unwrap();
            assert_eq!((img.width, img.height), (DW, DH));
            v.push(Shown {
                frame: fr.meta.frame,
                kind: fr.meta.kind,
                state: fr.meta.decision.state,
                refreshes: fr.meta.refreshes,
                rgba: img.rgba,
            });
        }
    }
    v
}

/// The overlay's box, at most: the top-left corner.
const OVERLAY: (u32, u32, u32, u32) = (0, 0, 160, 20);

#[test]
fn generated_frames_look_like_the_game_frames() {
    // A still picture, so the in-between frame is the picture itself: any
    // difference is processing the generated frames missed (the GTA IV
    // flicker: gamma 1.2 on the game's frames only).
    let settings = VideoOutSettings {
        gamma: 1.2,
        limited_range: true,
    };
    let src = synth::render_plane(128, 96, &Motion::shift(0.0, 0.0), 3);
    let shown = run(16, 2, 119_880, 2, settings, &src);
    let want = process_cpu(&src, 128, 96, DW, DH, settings);
    let vp = fit(128, 96, DW, DH);
    assert!(vp.x > 0, "the 4:3 picture is pillarboxed");
    let mut generated = 0;
    for (i, s) in shown.iter().enumerate() {
        let d = common::max_diff(&want, &s.rgba, DW, Some(OVERLAY));
        assert!(
            d <= 2,
            "picture {i} (frame {} {:?}) is {d} from the processed game picture",
            s.frame,
            s.kind
        );
        // The border is limited-range black on every picture.
        let p = ((DH - 1) * DW * 4) as usize;
        assert_eq!(&s.rgba[p..p + 3], &[16, 16, 16], "picture {i}: border");
        // The overlay box (dark, with light text) is on every picture.
        let corner = ((8 * DW + 8) * 4) as usize;
        assert!(
            s.rgba[corner] < 40,
            "picture {i} ({:?}) has no overlay",
            s.kind
        );
        assert!(
            s.rgba[..(20 * DW * 4) as usize]
                .chunks_exact(4)
                .any(|p| p[0] > 200 && p[1] > 200),
            "picture {i} ({:?}): the overlay has no text",
            s.kind
        );
        if s.kind.is_generated() {
            generated += 1;
        }
    }
    assert!(generated >= 5, "only {generated} generated frames");
}

#[test]
fn the_display_shows_what_the_pacer_planned() {
    let src = synth::render_plane(128, 96, &Motion::shift(0.0, 0.0), 5);
    let s = VideoOutSettings::default();
    // 60 fps on 119.88 Hz, x2: after the warm-up, generated 1 refresh, game 1.
    let shown = run(24, 2, 119_880, 2, s, &src);
    let first_gen = shown
        .iter()
        .position(|s| s.kind.is_generated())
        .expect("generated frames");
    assert_eq!(shown[first_gen].frame, 9, "warm-up of 8 frames, 1 priming");
    let tail = &shown[first_gen..shown.len() - 1];
    for (i, s) in tail.iter().enumerate() {
        let want_gen = i % 2 == 0;
        assert_eq!(s.kind.is_generated(), want_gen, "alternation at {i}");
        assert_eq!(s.refreshes, 1, "one refresh each ({i}: {:?})", s.kind);
        if !want_gen {
            assert_eq!(s.state, PacerState::Generating);
        }
    }
    // 30 fps at x4: three generated frames, one refresh each, then the game's.
    let shown = run(16, 4, 119_880, 4, s, &src);
    let first_gen = shown.iter().position(|s| s.kind.is_generated()).unwrap();
    let kinds: Vec<FrameKind> = shown[first_gen..first_gen + 4]
        .iter()
        .map(|s| s.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            FrameKind::Generated { index: 0, of: 3 },
            FrameKind::Generated { index: 1, of: 3 },
            FrameKind::Generated { index: 2, of: 3 },
            FrameKind::Game
        ]
    );
    assert!(
        shown[first_gen..first_gen + 4]
            .iter()
            .all(|s| s.refreshes == 1)
    );
    // 60 fps on 59.94 Hz: no room, nothing generated.
    let shown = run(14, 2, 59_940, 2, s, &src);
    assert!(shown.iter().all(|s| !s.kind.is_generated()));
    assert!(shown.iter().skip(9).all(|s| s.state == PacerState::NoRoom));
}
