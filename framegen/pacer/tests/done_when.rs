//! Issue 4's "Done when" items, one test each, in the simulator.

use framegen_pacer::sim::{self, FrameRecord, RateSwitch, Repeats, SimConfig, Summary};
use framegen_pacer::{Event, State};

const HZ120: f64 = 119.88;
const HZ60: f64 = 59.94;

fn sim(game_fps: f64, display_hz: f64, multiplier: u8) -> Summary {
    let cfg = SimConfig {
        game_fps,
        display_hz,
        multiplier,
        seconds: 20.0,
        ..SimConfig::default()
    };
    sim::run(&cfg).unwrap()
}

/// What a row of the decision table says: `Some((generated per frame,
/// refreshes each generated frame is shown, refreshes the game's frame is
/// shown))`, or `None` with the reason nothing is generated.
type Expect = Result<(u32, u32, u32), &'static str>;

fn check(fps: f64, hz: f64, m: u8, expect: Expect) {
    let s = sim(fps, hz, m);
    let what = format!("{fps} fps on {hz} Hz at x{m}: {s:?}");
    match expect {
        Ok((generated, per_generated, game)) => {
            assert_eq!(
                s.generated_per_frame, generated,
                "generated per frame, {what}"
            );
            assert_eq!(
                s.refreshes_per_generated, per_generated,
                "refreshes per generated, {what}"
            );
            assert_eq!(s.game_refreshes, game, "game refreshes, {what}");
            // Everything but the warm-up and the priming frame generates.
            assert_eq!(s.generating_frames, s.frames - 9, "{what}");
            // Every generated frame and every game frame is shown as long
            // as the row says, not just most of them (the first and last
            // images of the run aside).
            assert!(
                s.refreshes_per_generated_hist.count(per_generated) + 2
                    >= s.refreshes_per_generated_hist.total(),
                "{what}"
            );
            assert_eq!(s.uneven_frames, 0, "{what}");
        }
        Err(reason) => {
            assert_eq!(s.generating_frames, 0, "{what}");
            assert_eq!(s.generated_per_frame, 0, "{what}");
            assert_eq!(s.refreshes_per_generated, 0, "{what}");
            assert_eq!(s.main_reason(), reason, "{what}");
        }
    }
    // With the hold, no row ever queues a present behind another frame's.
    assert_eq!(s.max_queue_depth, 1, "{what}");
}

#[test]
fn decision_table_60_30_40_fps_at_x2_x3_x4() {
    for m in [2, 3, 4] {
        // 60 fps on 120 Hz: generated 1 refresh, the game's 1 (whatever the
        // multiplier: the interval has 2 refreshes, less one).
        check(60.0, HZ120, m, Ok((1, 1, 1)));
        // 60 on 60: no room.
        check(60.0, HZ60, m, Err("no room"));
        // 30 on 60: 1 and 1.
        check(30.0, HZ60, m, Ok((1, 1, 1)));
        // 40 on 60 Hz: 1.5 refreshes a frame, uneven on the display.
        check(40.0, HZ60, m, Err("uneven"));
    }
    // 30 fps on 120 Hz: x2 generated 2, the game's 2 (a single generated
    // frame takes half the interval); x3: two generated frames a refresh
    // each, the game's 2 (issue 5); x4: three a refresh each, the game's 1.
    check(30.0, HZ120, 2, Ok((1, 2, 2)));
    check(30.0, HZ120, 3, Ok((2, 1, 2)));
    check(30.0, HZ120, 4, Ok((3, 1, 1)));
    // 40 fps on 120 Hz: x2 generated 1, the game's 2 (the game's frame one
    // refresh late); x3 and x4: two generated, the game's 1 (two late).
    check(40.0, HZ120, 2, Ok((1, 1, 2)));
    check(40.0, HZ120, 3, Ok((2, 1, 1)));
    check(40.0, HZ120, 4, Ok((2, 1, 1)));
}

#[test]
fn decision_table_59_94_60_and_50_fps_games() {
    for m in [2, 3, 4] {
        check(59.94, HZ120, m, Ok((1, 1, 1)));
        check(60.0, HZ120, m, Ok((1, 1, 1)));
        check(59.94, HZ60, m, Err("no room"));
        check(60.0, HZ60, m, Err("no room"));
        // 50 fps: 2.4 refreshes a frame on 119.88 Hz, 1.2 on 59.94 Hz.
        check(50.0, HZ120, m, Err("uneven"));
        check(50.0, HZ60, m, Err("uneven"));
    }
}

#[test]
fn uneven_45_to_58_fps_generates_nothing() {
    // On a 60 Hz game clock a game between 45 and 58 fps has frames of 1 and
    // 2 ticks.
    for fps in [45.0, 50.0, 55.0, 58.0] {
        for hz in [HZ120, HZ60] {
            let cfg = SimConfig {
                game_fps: fps,
                source_hz: Some(60.0),
                display_hz: hz,
                seconds: 20.0,
                ..SimConfig::default()
            };
            let mut seen_uneven = false;
            let mut generated_after = 0;
            let s = sim::run_observed(&cfg, &mut |r: &FrameRecord| {
                seen_uneven |= r.state == State::Uneven;
                if seen_uneven && r.decision.generated > 0 {
                    generated_after += 1;
                }
            })
            .unwrap();
            // Frames may be generated before the first 2-tick frame (58 fps
            // has one every 29 frames), never after it.
            assert!(seen_uneven, "{fps} fps on {hz} Hz: {s:?}");
            assert_eq!(generated_after, 0, "{fps} fps on {hz} Hz: {s:?}");
            assert!(
                s.uneven_frames * 10 >= s.frames * 9,
                "{fps} fps on {hz} Hz: {s:?}"
            );
        }
    }
}

#[test]
fn the_first_8_frames_after_a_start_generate_nothing() {
    let cfg = SimConfig {
        game_fps: 30.0,
        display_hz: HZ120,
        seconds: 1.0,
        ..SimConfig::default()
    };
    let mut decisions = Vec::new();
    sim::run_observed(&cfg, &mut |r: &FrameRecord| {
        decisions.push((r.decision, r.state))
    })
    .unwrap();
    for (d, state) in &decisions[..8] {
        assert_eq!(d.generated + d.presents, 0);
        assert!(!d.engaged);
        assert!(matches!(state, State::WarmingUp { .. }));
    }
    assert!(decisions[8].0.reset);
    assert_eq!(decisions[9].0.generated, 1);
}

/// Queue depth at each frame's first present, over a run.
fn depths(cfg: &SimConfig) -> (Summary, Vec<(f64, u32)>) {
    let mut d = Vec::new();
    let s = sim::run_observed(cfg, &mut |r: &FrameRecord| {
        d.push((r.ready_s, r.queue_depth))
    })
    .unwrap();
    (s, d)
}

#[test]
fn hold_keeps_the_queue_empty_for_ten_minutes_and_without_it_the_queue_grows() {
    let with = SimConfig {
        game_fps: 60.0,
        display_hz: HZ120,
        seconds: 600.0,
        hold: true,
        ..SimConfig::default()
    };
    let (s, d) = depths(&with);
    assert_eq!(s.max_queue_depth, 1, "{s:?}");
    assert!(d.iter().all(|(_, q)| *q == 1));
    assert_eq!(s.generating_frames, s.frames - 9, "{s:?}");
    // Held just below half the display's 119.88 Hz.
    assert!((s.hold_fps.unwrap() - 59.89).abs() < 1e-9);
    assert!((s.game_fps_measured - 59.89).abs() < 0.01, "{s:?}");

    let without = SimConfig {
        hold: false,
        drain: false,
        ..with
    };
    let (s2, d2) = depths(&without);
    assert_eq!(s2.max_queue_depth, 3, "{s2:?}");
    // It grows: empty at first, one present behind after a few seconds,
    // full (three ahead with 4 images) after a quarter of a minute, and it
    // stays full.
    let at = |t: f64| d2.iter().find(|(r, _)| *r >= t).unwrap().1;
    assert_eq!(at(1.0), 1);
    assert!(d2.iter().any(|(r, q)| *r < 10.0 && *q == 2));
    assert_eq!(at(30.0), 3);
    assert!(d2.iter().filter(|(r, _)| *r > 30.0).all(|(_, q)| *q == 3));
    // Three refreshes (25 ms) more latency and more.
    assert!(
        s2.mean_latency_ms > s.mean_latency_ms + 25.0,
        "{s:?} {s2:?}"
    );

    // The drain alone does not keep it empty (the game is faster than the
    // display), but it keeps the loop from also waiting in the first acquire.
    let drained = SimConfig {
        hold: false,
        drain: true,
        ..with
    };
    let s3 = sim::run(&drained).unwrap();
    assert!(s3.draining_frames > 0, "{s3:?}");
    assert!(s3.mean_latency_ms < s2.mean_latency_ms, "{s3:?} {s2:?}");
}

#[test]
fn ps5vk_three_images_hold_keeps_the_queue_empty_too() {
    let cfg = SimConfig {
        game_fps: 60.0,
        display_hz: HZ120,
        images: 3,
        seconds: 120.0,
        ..SimConfig::default()
    };
    assert_eq!(sim::run(&cfg).unwrap().max_queue_depth, 1);
    let s = sim::run(&SimConfig {
        hold: false,
        drain: false,
        ..cfg
    })
    .unwrap();
    assert_eq!(s.max_queue_depth, 2, "{s:?}");
}

#[test]
fn ticks_not_the_wall_clock_avoid_the_half_speed_trap() {
    // A game at 30 fps that switches to 60 on a 59.94 Hz display, its clock
    // at 60 Hz. With ticks, 60 fps has no room: the pacer stops and the game
    // runs at (held) 60. Timing the presents instead, the generated frame's
    // refresh makes every frame look two ticks long: generation never stops
    // and the game runs at half speed.
    let cfg = SimConfig {
        game_fps: 30.0,
        source_hz: Some(60.0),
        display_hz: HZ60,
        seconds: 30.0,
        switch: Some(RateSwitch {
            at_s: 5.0,
            game_fps: 60.0,
        }),
        ..SimConfig::default()
    };
    let mut late = Vec::new();
    let s = sim::run_observed(&cfg, &mut |r: &FrameRecord| {
        if r.ready_s > 6.0 {
            late.push(r.decision.generated);
        }
    })
    .unwrap();
    assert!(late.iter().all(|g| *g == 0));
    // 5 s at 30 fps and 25 s at 59.89.
    assert!(
        (s.frames as f64 - (150.0 + 25.0 * 59.89)).abs() < 3.0,
        "{s:?}"
    );

    let broken = SimConfig {
        ticks_from_wall_clock: true,
        ..cfg
    };
    let s = sim::run(&broken).unwrap();
    assert!((s.game_fps_measured - 29.95).abs() < 0.1, "{s:?}");
    assert!(s.generating_frames * 10 > s.frames * 9, "{s:?}");
}

#[test]
fn a_repeat_tick_presents_nothing_while_generating() {
    // 30 fps on a 60 Hz clock (2 ticks a frame) on 59.94 Hz: the tick
    // between two frames is a repeat.
    let base = SimConfig {
        game_fps: 30.0,
        source_hz: Some(60.0),
        display_hz: HZ60,
        seconds: 20.0,
        ..SimConfig::default()
    };
    // A renderer that asks the pacer: no repeats while generating.
    let asks = sim::run(&SimConfig {
        repeats: Repeats::AskPacer,
        ..base
    })
    .unwrap();
    assert_eq!(asks.generating_frames, asks.frames - 9, "{asks:?}");
    assert_eq!(asks.max_queue_depth, 1);
    // During the warm-up it repeats (8 frames): presents = game frames +
    // generated + those repeats.
    assert_eq!(
        asks.presents,
        asks.frames + asks.generating_frames + 8,
        "{asks:?}"
    );
    // A renderer that repeats regardless: `already` shows it, the pacer
    // leaves the generated frames out and the queue does not grow.
    let always = sim::run(&SimConfig {
        repeats: Repeats::Always,
        ..base
    })
    .unwrap();
    assert_eq!(always.generating_frames, 0, "{always:?}");
    assert_eq!(always.max_queue_depth, 1, "{always:?}");
}

#[test]
fn safety_net_pauses_for_10_s_doubling_while_generation_is_the_cause() {
    // An emulator that loses 10 % speed while generating.
    let cfg = SimConfig {
        game_fps: 60.0,
        display_hz: HZ120,
        seconds: 340.0,
        gen_speed_cost_pct: 10.0,
        ..SimConfig::default()
    };
    let mut pauses = Vec::new();
    let s = sim::run_observed(&cfg, &mut |r: &FrameRecord| {
        for e in &r.events {
            if let Event::SafetyNetPaused { pause_s, .. } = e {
                pauses.push((r.ready_s, *pause_s));
            }
        }
    })
    .unwrap();
    let lengths: Vec<f64> = pauses.iter().map(|p| p.1).collect();
    // 3 s of generating, then pauses of 10, 20, 40, 80 and 160 s, and 160
    // again: each pause showed the game at full speed without generation.
    assert_eq!(lengths, [10.0, 20.0, 40.0, 80.0, 160.0, 160.0], "{s:?}");
    // The first comes 3 s after generation starts (frame 9, 0.15 s).
    assert!((pauses[0].0 - 3.17).abs() < 0.05, "{pauses:?}");
    // A native port passes 100 % and is never paused.
    let port = sim::run(&SimConfig {
        gen_speed_cost_pct: 0.0,
        ..cfg
    })
    .unwrap();
    assert_eq!(port.safety_pauses, 0);
    assert_eq!(port.paused_frames, 0);
}

#[test]
fn x4_at_30_fps_waits_only_in_later_acquires_and_is_not_drained() {
    // With 4 images, x4 has one image too few: a later acquire of the frame
    // waits a refresh. Only the first acquire counts, so nothing is drained.
    let cfg = SimConfig {
        game_fps: 30.0,
        display_hz: HZ120,
        multiplier: 4,
        ..SimConfig::default()
    };
    let mut first_waits = 0;
    let s = sim::run_observed(&cfg, &mut |r: &FrameRecord| {
        if r.first_acquire_wait_s.is_some_and(|w| w > 0.0) {
            first_waits += 1;
        }
    })
    .unwrap();
    assert_eq!(first_waits, 0);
    assert_eq!(s.draining_frames, 0, "{s:?}");
    assert_eq!(s.generated_per_frame, 3);
}

#[test]
fn bad_settings_name_the_field() {
    let bad = SimConfig {
        game_fps: -1.0,
        ..SimConfig::default()
    };
    let e = sim::run(&bad).unwrap_err().to_string();
    assert!(e.contains("game_fps = -1"), "{e}");
    let bad = SimConfig {
        images: 9,
        ..SimConfig::default()
    };
    let e = sim::run(&bad).unwrap_err().to_string();
    assert!(e.contains("images: 9"), "{e}");
    let bad = SimConfig {
        multiplier: 5,
        ..SimConfig::default()
    };
    let e = sim::run(&bad).unwrap_err().to_string();
    assert!(e.contains("multiplier 5"), "{e}");
    let bad = SimConfig {
        gen_speed_cost_pct: 100.0,
        ..SimConfig::default()
    };
    assert!(
        sim::run(&bad)
            .unwrap_err()
            .to_string()
            .contains("gen_speed_cost_pct")
    );
}
