//! Property tests of the pacer and the simulator.

use framegen_pacer::pacer::{MAX_MULTIPLIER, WARM_UP_FRAMES, WHOLE_REFRESH_TOLERANCE};
use framegen_pacer::sim::{self, FrameRecord, SimConfig};
use framegen_pacer::{Decision, Pacer};
use proptest::prelude::*;

/// One call on the pacer.
#[derive(Clone, Debug)]
enum Op {
    Frame {
        ticks: u32,
        already: u32,
        rates: usize,
        speed: f64,
    },
    Reset,
    Enable(bool),
    Multiplier(u8),
    Drain(f64),
}

/// (source_hz, display_hz) pairs the ops pick from: the console's and some
/// odd ones.
const RATES: [(f64, f64); 8] = [
    (60.0, 119.88),
    (59.94, 119.88),
    (60.0, 59.94),
    (50.0, 119.88),
    (30.0, 119.88),
    (120.0, 119.88),
    (40.0, 59.94),
    (24.0, 144.0),
];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        20 => (0u32..7, 0u32..4, 0usize..RATES.len(), prop_oneof![Just(100.0), 50.0f64..110.0])
            .prop_map(|(ticks, already, rates, speed)| Op::Frame { ticks, already, rates, speed }),
        // Runs of the same rates, so the pacer gets to generate.
        10 => (1u32..5, 0usize..3).prop_map(|(ticks, rates)| Op::Frame {
            ticks,
            already: 1,
            rates,
            speed: 100.0
        }),
        1 => Just(Op::Reset),
        1 => any::<bool>().prop_map(Op::Enable),
        1 => (2u8..=MAX_MULTIPLIER).prop_map(Op::Multiplier),
        2 => (0.0f64..0.01).prop_map(Op::Drain),
    ]
}

/// Repeats each frame op a few times so long even stretches happen.
fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec((op(), 1usize..40), 1..40).prop_map(|v| {
        v.into_iter()
            .flat_map(|(o, n)| std::iter::repeat_n(o, n))
            .collect()
    })
}

fn refreshes(ticks: u32, (source, display): (f64, f64)) -> f64 {
    f64::from(ticks) * display / source
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A frame's presents (the generated ones and the game's) never exceed
    /// the refreshes its interval has, and the decision is self-consistent.
    #[test]
    fn presents_never_exceed_the_refreshes(ops in ops()) {
        let mut p = Pacer::new();
        let mut now = 0.0;
        for op in ops {
            match op {
                Op::Frame { ticks, already, rates, speed } => {
                    now += 1.0 / 60.0;
                    let (s, d) = RATES[rates];
                    let dec = p.frame(ticks, already, s, d, now, speed, true);
                    let available = (refreshes(ticks, RATES[rates]) + WHOLE_REFRESH_TOLERANCE).floor();
                    if dec.presents > 0 {
                        prop_assert!(f64::from(dec.presents + 1) <= available, "{dec:?} ticks {ticks} rates {:?}", RATES[rates]);
                    }
                    prop_assert!(dec.generated <= u32::from(p.multiplier() - 1));
                    prop_assert!(dec.generated <= dec.presents);
                    prop_assert_eq!(dec.generated == 0, dec.presents == 0);
                    prop_assert!(!dec.reset || (dec.engaged && dec.presents == 0));
                    prop_assert!(dec.engaged || dec == Decision::NONE);
                    prop_assert_eq!(dec.engaged, p.state().engaged());
                    // Several generated frames: one refresh each; the
                    // per-frame counts add up to the presents.
                    if dec.generated >= 2 {
                        prop_assert_eq!(dec.presents, dec.generated, "{:?}", dec);
                    }
                    let per: Vec<u32> = (0..=dec.generated).map(|i| dec.presents_of(i)).collect();
                    prop_assert_eq!(per.iter().sum::<u32>(), dec.presents, "{:?}", dec);
                    prop_assert!(per[..dec.generated as usize].iter().all(|n| *n >= 1), "{:?}", dec);
                }
                Op::Reset => p.reset(),
                Op::Enable(e) => p.set_enabled(e),
                Op::Multiplier(m) => p.set_multiplier(m).unwrap(),
                Op::Drain(w) => { p.drain(w); }
            }
        }
    }

    /// After any reset (the caller's, switching generation back on, or a
    /// change of rates) the next 8 frames generate nothing.
    #[test]
    fn nothing_generated_in_the_8_frames_after_any_reset(ops in ops()) {
        let mut p = Pacer::new();
        let mut since_reset = 0u32;
        let mut last_rates: Option<usize> = None;
        let mut enabled = true;
        for op in ops {
            match op {
                Op::Frame { ticks, already, rates, speed } => {
                    if last_rates.is_some_and(|r| RATES[r] != RATES[rates]) {
                        since_reset = 0;
                    }
                    last_rates = Some(rates);
                    let (s, d) = RATES[rates];
                    let dec = p.frame(ticks, already, s, d, 0.0, speed, true);
                    since_reset += 1;
                    if since_reset <= WARM_UP_FRAMES {
                        prop_assert_eq!(dec, Decision::NONE, "frame {} after a reset", since_reset);
                    }
                }
                Op::Reset => since_reset = 0,
                Op::Enable(e) => {
                    if e && !enabled {
                        since_reset = 0;
                    }
                    enabled = e;
                    p.set_enabled(e);
                }
                Op::Multiplier(m) => p.set_multiplier(m).unwrap(),
                Op::Drain(w) => { p.drain(w); }
            }
            if matches!(op, Op::Reset) {
                p.reset();
            }
        }
    }

    /// The decision depends on the ticks, not on how long presents took:
    /// the same ticks with any gaps between the calls give the same
    /// decisions (at full speed, where the safety net has nothing to say).
    #[test]
    fn decisions_depend_on_ticks_not_on_present_times(
        ops in ops(),
        gaps in prop::collection::vec(0.0f64..0.2, 64),
    ) {
        let mut a = Pacer::new();
        let mut b = Pacer::new();
        let (mut ta, mut tb) = (0.0, 0.0);
        for (i, op) in ops.into_iter().enumerate() {
            match op {
                Op::Frame { ticks, already, rates, .. } => {
                    ta += 1.0 / 60.0;
                    tb += gaps[i % gaps.len()];
                    let (s, d) = RATES[rates];
                    let da = a.frame(ticks, already, s, d, ta, 100.0, true);
                    let db = b.frame(ticks, already, s, d, tb, 100.0, true);
                    prop_assert_eq!(da, db);
                    prop_assert_eq!(a.state(), b.state());
                }
                Op::Reset => { a.reset(); b.reset(); }
                Op::Enable(e) => { a.set_enabled(e); b.set_enabled(e); }
                Op::Multiplier(m) => { a.set_multiplier(m).unwrap(); b.set_multiplier(m).unwrap(); }
                // The drain is the one input that is about time, by design.
                Op::Drain(_) => {}
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// In the simulator, jitter in when frames are ready (how long the
    /// game's work and the presents took) changes no decision.
    #[test]
    fn simulated_decisions_ignore_jitter(
        fps in prop_oneof![Just(60.0), Just(30.0), Just(40.0), Just(59.94), 20.0f64..130.0],
        display_hz in prop_oneof![Just(119.88), Just(59.94)],
        multiplier in 2u8..=4,
        jitter_ms in 0.0f64..12.0,
        seed in any::<u64>(),
    ) {
        let cfg = SimConfig { game_fps: fps, display_hz, multiplier, seconds: 4.0, drain: false, ..SimConfig::default() };
        let collect = |cfg: &SimConfig| {
            let mut v = Vec::new();
            sim::run_observed(cfg, &mut |r: &FrameRecord| v.push((r.ticks, r.decision))).unwrap();
            v
        };
        let still = collect(&cfg);
        let shaky = collect(&SimConfig { jitter_ms, seed, ..cfg });
        // Jitter can make the loop wait in acquires and run fewer frames in
        // the time: compare the frames both runs have (at least half).
        let n = still.len().min(shaky.len());
        prop_assert!(2 * n >= still.len());
        prop_assert_eq!(&still[..n], &shaky[..n]);
    }

    /// With the hold and no jitter, whatever the rates, multiplier and
    /// images, no frame begins presenting behind another frame's presents,
    /// and the display never gets more presents than refreshes (beyond what
    /// the swapchain holds).
    #[test]
    fn with_the_hold_the_queue_stays_empty(
        fps in prop_oneof![Just(60.0), Just(30.0), Just(40.0), Just(59.94), 20.0f64..130.0],
        display_hz in prop_oneof![Just(119.88), Just(59.94)],
        multiplier in 2u8..=4,
        images in 2u8..=4,
    ) {
        let cfg = SimConfig { game_fps: fps, display_hz, multiplier, images, seconds: 8.0, ..SimConfig::default() };
        let s = sim::run(&cfg).unwrap();
        prop_assert_eq!(s.max_queue_depth, 1, "{:?}", s);
        prop_assert!(s.presents <= s.refreshes + u64::from(images), "{:?}", s);
    }
}
