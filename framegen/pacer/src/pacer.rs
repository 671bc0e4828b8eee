//! The pacer: for each new frame of the game, whether to generate frames in
//! between and how many presents they get.
//!
//! The decision is made from the game's own clock (`ticks`), never from the
//! wall-clock time between presents: see the crate's README.md ("Why ticks")
//! for the feedback loop that timing presents causes.

use core::mem::discriminant;

use heapless::{Deque, HistoryBuf};

use crate::hold::hold_limit;
use crate::num::{floor_u32, round_u32, valid_rate};
use crate::safety_net::{NetChange, SafetyNet};

/// Frames after a start, a load or a reset in which nothing is generated.
pub const WARM_UP_FRAMES: u32 = 8;

/// How many recent frames must have the same tick count for the frame
/// lengths to count as even (all frames since a reset, when fewer).
pub const EVEN_WINDOW: usize = 32;

/// How far (in refreshes) a frame's interval may be from a whole number of
/// refreshes and still count as whole: 60.00 fps on 119.88 Hz is 1.998.
pub const WHOLE_REFRESH_TOLERANCE: f64 = 0.05;

/// The smallest multiplier: one generated frame between two of the game's.
pub const MIN_MULTIPLIER: u8 = 2;
/// The largest multiplier: three generated frames between two of the game's.
pub const MAX_MULTIPLIER: u8 = 4;

/// A first acquire of a frame's generated presents that waited longer than
/// this (seconds) means every image was queued or on screen.
pub const DRAIN_WAIT_S: f64 = 0.002;

/// How many events [`Pacer::take_event`] keeps before dropping the oldest.
pub const EVENT_CAPACITY: usize = 16;

/// What to do with one new frame of the game.
///
/// The caller, for a frame with `engaged`: records the frame in the
/// interpolator (with `reset`), makes `generated` frames in between the last
/// frame and this one, presents them `presents` times in all
/// ([`Decision::presents_of`] says how many each), then presents the game's
/// frame once. Without `engaged` it presents only the game's frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decision {
    /// Generation is on for this frame: record it in the interpolator, so the
    /// next frame can be interpolated from it.
    pub engaged: bool,
    /// The interpolator's history starts over with this frame (the previous
    /// frame was not recorded): record with reset, generate nothing.
    pub reset: bool,
    /// Presents of generated frames before the game's own (0: none this
    /// time). The game's frame follows, presented once.
    pub presents: u32,
    /// Generated frames to make, at 1/(n+1), 2/(n+1) ... of the way from the
    /// last frame to this one (0: none).
    pub generated: u32,
}

impl Decision {
    /// Nothing generated, generation off for this frame.
    pub const NONE: Decision = Decision {
        engaged: false,
        reset: false,
        presents: 0,
        generated: 0,
    };

    /// How many times to present generated frame `i` (0-based, in order):
    /// each generated frame once (one refresh), the last one taking any
    /// presents left over. Only a single generated frame is ever presented
    /// more than once (x2 at 30 fps on 119.88 Hz: twice, the game's frame
    /// the other two refreshes); several generated frames are one refresh
    /// each ([`plan`]). 0 for `i` past `generated`. The counts of all `i`
    /// add up to `presents`.
    pub fn presents_of(&self, i: u32) -> u32 {
        let (p, g) = (self.presents, self.generated);
        if i >= g {
            0
        } else if i + 1 < g {
            u32::from(i < p)
        } else {
            p.saturating_sub(g - 1)
        }
    }

    /// All presents this frame brings: the generated ones and the game's.
    pub fn presents_per_frame(&self) -> u32 {
        self.presents + 1
    }
}

/// Where the pacer stands after its last frame: generating, or why not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum State {
    /// Generating frames.
    Generating,
    /// Engaged, and this frame starts the interpolator's history (the
    /// decision's `reset`): the next frame gets generated frames.
    Priming,
    /// The first [`WARM_UP_FRAMES`] frames after a start, a load, a reset or a
    /// change of rates: nothing is generated.
    WarmingUp {
        /// Frames still to come before generation can start.
        frames_left: u32,
    },
    /// The game's frame lengths are uneven (the tick counts of recent frames
    /// differ, as with a game between 45 and 58 fps on a 60 Hz clock), or a
    /// frame does not last a whole number of refreshes (50 fps on 119.88 Hz):
    /// generated frames would look worse than none.
    Uneven,
    /// The game's frame lasts one refresh: no room for a generated frame.
    NoRoom,
    /// The safety net paused generation: the game was slow while generating.
    Paused {
        /// When the pause ends, on the caller's `now_s` clock.
        resume_at_s: f64,
    },
    /// Engaged, but this frame's generated frames are left out so the
    /// swapchain queue comes down: the drain ([`Pacer::drain`]), or presents
    /// beyond the refreshes (the renderer's repeats, see `already`) take the
    /// room.
    Draining,
    /// Frame generation is switched off ([`Pacer::set_enabled`]).
    Disabled,
    /// The game's frame limiter is not at its nominal rate (unlocked or set
    /// by the user), so ticks do not map to refreshes.
    LimiterNotNominal,
    /// `source_hz` or `display_hz` was not a finite rate above zero.
    InvalidRates,
}

impl State {
    /// A short name for logs and tables.
    pub fn name(&self) -> &'static str {
        match self {
            State::Generating => "generating",
            State::Priming => "priming",
            State::WarmingUp { .. } => "warming up",
            State::Uneven => "uneven",
            State::NoRoom => "no room",
            State::Paused { .. } => "paused",
            State::Draining => "draining",
            State::Disabled => "disabled",
            State::LimiterNotNominal => "limiter not nominal",
            State::InvalidRates => "invalid rates",
        }
    }

    /// Whether the pacer is engaged in this state (records frames).
    pub fn engaged(&self) -> bool {
        matches!(self, State::Generating | State::Priming | State::Draining)
    }
}

/// Why the pacer started over (warm-up again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetCause {
    /// The caller's [`Pacer::reset`]: a load, a cut, a new game.
    Caller,
    /// `source_hz` or `display_hz` changed.
    RatesChanged,
    /// Generation was switched back on.
    Enabled,
}

/// Something the pacer wants logged; [`Pacer::take_event`] hands them out in
/// order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// The state changed (in kind: a warm-up counting down is not a change).
    StateChanged {
        /// The state before.
        from: State,
        /// The state now.
        to: State,
    },
    /// The pacer started over.
    Reset {
        /// Why.
        cause: ResetCause,
    },
    /// The safety net paused generation: the game was below 95 % speed for
    /// 3 s while generating.
    SafetyNetPaused {
        /// The pause's length in seconds.
        pause_s: f64,
        /// The speed reported when it tripped.
        speed_pct: f64,
    },
    /// A safety-net pause ended.
    SafetyNetResumed {
        /// Whether the game ran at full speed without generation.
        generation_was_cause: bool,
        /// The length the next pause will have.
        next_pause_s: f64,
    },
    /// The first acquire of a frame's generated presents waited: the next
    /// frame's generated frames are left out.
    Drain {
        /// How long the acquire waited, seconds.
        wait_s: f64,
    },
    /// More presents were made since the last new frame than its interval
    /// had refreshes (the renderer repeated the game's frame while
    /// generating): generated presents leave room for them until the display
    /// has caught up.
    ExtraPresents {
        /// Presents beyond the refreshes.
        count: u32,
    },
}

/// A multiplier outside 2..=4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiplierError(pub u8);

impl core::fmt::Display for MultiplierError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "frame generation multiplier {} is not supported: use {MIN_MULTIPLIER} to {MAX_MULTIPLIER} \
             (x2: one generated frame between two of the game's, x4: three)",
            self.0
        )
    }
}

/// The pacer. Fixed-size state, no allocation; one per presenting display.
///
/// Call [`Pacer::frame`] once for each new frame of the game, before
/// presenting it. See the crate's README.md for the semantics.
#[derive(Clone, Debug)]
pub struct Pacer {
    multiplier: u8,
    enabled: bool,
    state: State,
    events: Deque<Event, EVENT_CAPACITY>,
    /// Tick counts of recent frames, since the last reset.
    ticks: HistoryBuf<u32, EVEN_WINDOW>,
    frames_since_reset: u32,
    /// `(source_hz, display_hz)` of the last valid frame.
    rates: Option<(f64, f64)>,
    /// The last decision.
    last: Decision,
    /// Presents a frame brings at the current plan (1 when not engaged),
    /// before the drain or any trim.
    plan_presents_per_frame: u32,
    /// Presents made beyond the refreshes, still to take off.
    backlog: u32,
    drain_pending: bool,
    net: SafetyNet,
}

impl Default for Pacer {
    fn default() -> Self {
        Self::new()
    }
}

impl Pacer {
    /// A pacer at x2 (one generated frame between two of the game's),
    /// enabled, warming up.
    pub const fn new() -> Self {
        Self {
            multiplier: MIN_MULTIPLIER,
            enabled: true,
            state: State::WarmingUp {
                frames_left: WARM_UP_FRAMES,
            },
            events: Deque::new(),
            ticks: HistoryBuf::new(),
            frames_since_reset: 0,
            rates: None,
            last: Decision::NONE,
            plan_presents_per_frame: 1,
            backlog: 0,
            drain_pending: false,
            net: SafetyNet::new(),
        }
    }

    /// A pacer with the given multiplier (2, 3 or 4).
    pub fn with_multiplier(multiplier: u8) -> Result<Self, MultiplierError> {
        let mut p = Self::new();
        p.set_multiplier(multiplier)?;
        Ok(p)
    }

    /// Sets the multiplier: at most `multiplier - 1` generated frames between
    /// two of the game's (and never more than the game's frame interval has
    /// refreshes, less one). Takes effect on the next frame.
    pub fn set_multiplier(&mut self, multiplier: u8) -> Result<(), MultiplierError> {
        if !(MIN_MULTIPLIER..=MAX_MULTIPLIER).contains(&multiplier) {
            return Err(MultiplierError(multiplier));
        }
        self.multiplier = multiplier;
        Ok(())
    }

    /// The multiplier (2 to 4).
    pub fn multiplier(&self) -> u8 {
        self.multiplier
    }

    /// Switches frame generation on or off. Switching it on starts over
    /// (warm-up), as at a start.
    pub fn set_enabled(&mut self, enabled: bool) {
        if enabled && !self.enabled {
            self.restart(ResetCause::Enabled);
        }
        self.enabled = enabled;
    }

    /// Whether frame generation is switched on.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Starts over: call it after a load, at a cut, or when the game starts.
    /// Nothing is generated for the next [`WARM_UP_FRAMES`] frames. A
    /// safety-net pause in progress carries on.
    pub fn reset(&mut self) {
        self.restart(ResetCause::Caller);
    }

    /// Where the pacer stands after the last frame: generating, or why not.
    pub fn state(&self) -> State {
        self.state
    }

    /// The oldest event not taken yet (state changes, resets, safety-net
    /// pauses, drains). Log them: they say why nothing is generated.
    pub fn take_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The last decision.
    pub fn last_decision(&self) -> Decision {
        self.last
    }

    /// Presents one game frame brings at the current plan, the game's
    /// included (1 when not engaged). The drain and trims do not change it.
    pub fn presents_per_frame(&self) -> u32 {
        self.plan_presents_per_frame
    }

    /// Decides for one new frame of the game.
    ///
    /// - `ticks`: ticks of the clock that paces the game since its last new
    ///   frame: in an emulator the emulated machine's vblanks (1 at 60 fps, 2
    ///   at 30); in a port, the game loop's own ticks. Never wall-clock time.
    /// - `already`: presents made since the last new frame: the last frame's
    ///   own present (1) plus any repeat the renderer made. While generating,
    ///   repeats should not happen ([`Pacer::present_repeat`]); any that do
    ///   take room from the generated presents.
    /// - `source_hz`: the rate of that clock (59.94 or 50 for an emulated
    ///   console's vblanks; the loop's tick rate in a port).
    /// - `display_hz`: the display's refresh rate (119.88 or 59.94).
    /// - `now_s`: a monotonic clock in seconds; only the safety net reads it.
    /// - `speed_pct`: the game's speed, percent of nominal (an emulator's
    ///   speed); a native port passes 100.
    /// - `limiter_nominal`: whether the game's frame limiter runs at its
    ///   nominal rate (false when the user unlocked it or set another limit).
    pub fn frame(
        &mut self,
        ticks: u32,
        already: u32,
        source_hz: f64,
        display_hz: f64,
        now_s: f64,
        speed_pct: f64,
        limiter_nominal: bool,
    ) -> Decision {
        let prev = self.last;
        if !valid_rate(source_hz) || !valid_rate(display_hz) {
            return self.conclude(State::InvalidRates, Decision::NONE, 1);
        }
        if self.rates.is_some_and(|r| r != (source_hz, display_hz)) {
            self.restart(ResetCause::RatesChanged);
        }
        self.rates = Some((source_hz, display_hz));
        self.ticks.write(ticks);
        self.frames_since_reset = self.frames_since_reset.saturating_add(1);

        let exact = f64::from(ticks) * display_hz / source_hz;
        let refreshes = round_u32(exact);
        let whole = ticks > 0 && (exact - f64::from(refreshes)).abs() <= WHOLE_REFRESH_TOLERANCE;

        // The ledger: the interval that just ended (this frame's ticks) held
        // the last frame's generated presents and `already`. Presents beyond
        // its refreshes are queue the display has not caught up with; repeats
        // made while engaged will likely come again and take room too.
        let repeats = if prev.engaged && self.frames_since_reset > 1 {
            let elapsed = floor_u32(exact + WHOLE_REFRESH_TOLERANCE);
            let presented = prev.presents.saturating_add(already);
            if presented > elapsed {
                let extra = presented - elapsed;
                self.backlog = self.backlog.saturating_add(extra);
                self.push_event(Event::ExtraPresents { count: extra });
            } else {
                self.backlog = self.backlog.saturating_sub(elapsed - presented);
            }
            already.saturating_sub(1)
        } else {
            self.backlog = 0;
            0
        };

        let speed = if speed_pct.is_finite() {
            speed_pct
        } else {
            100.0
        };
        match self.net.update(now_s, speed, prev.engaged) {
            NetChange::None => {}
            NetChange::Paused { pause_s } => self.push_event(Event::SafetyNetPaused {
                pause_s,
                speed_pct: speed,
            }),
            NetChange::Resumed {
                generation_was_cause,
                next_pause_s,
            } => self.push_event(Event::SafetyNetResumed {
                generation_was_cause,
                next_pause_s,
            }),
        }
        let drain = core::mem::take(&mut self.drain_pending);

        let state = if !self.enabled {
            State::Disabled
        } else if !limiter_nominal {
            State::LimiterNotNominal
        } else if self.frames_since_reset <= WARM_UP_FRAMES {
            State::WarmingUp {
                frames_left: WARM_UP_FRAMES + 1 - self.frames_since_reset,
            }
        } else if let Some(resume_at_s) = self.net.paused_until_s() {
            State::Paused { resume_at_s }
        } else if !whole || !self.ticks_even() {
            State::Uneven
        } else if refreshes < 2 {
            State::NoRoom
        } else if !prev.engaged {
            State::Priming
        } else if drain {
            State::Draining
        } else {
            State::Generating
        };

        let (plan_generated, plan_presents) = if state.engaged() {
            plan(refreshes, u32::from(self.multiplier - 1))
        } else {
            (0, 0)
        };
        let decision = match state {
            State::Priming => Decision {
                engaged: true,
                reset: true,
                presents: 0,
                generated: 0,
            },
            State::Draining => Decision {
                engaged: true,
                reset: false,
                presents: 0,
                generated: 0,
            },
            State::Generating => {
                // The game's frame, the renderer's repeats and the backlog
                // come first; generated presents get what is left.
                let taken = 1u32.saturating_add(repeats).saturating_add(self.backlog);
                let presents = plan_presents.min(refreshes.saturating_sub(taken));
                Decision {
                    engaged: true,
                    reset: false,
                    presents,
                    generated: plan_generated.min(presents),
                }
            }
            _ => Decision::NONE,
        };
        // Taking every present off leaves nothing generated: say so.
        let state = if state == State::Generating && decision.generated == 0 {
            State::Draining
        } else {
            state
        };
        self.conclude(state, decision, plan_presents + 1)
    }

    /// Reports how long the first acquire of this frame's generated presents
    /// waited (`vkAcquireNextImageKHR`, seconds). Over [`DRAIN_WAIT_S`] it
    /// waited for a refresh: every image was queued or on screen, and the
    /// next frame's generated frames are left out so the queue comes down by
    /// one. Only the first acquire of a frame counts (with 4 images, x4's
    /// third acquire always waits). Returns whether the next frame is drained.
    pub fn drain(&mut self, first_acquire_wait_s: f64) -> bool {
        if self.last.engaged && first_acquire_wait_s > DRAIN_WAIT_S {
            if !self.drain_pending {
                self.push_event(Event::Drain {
                    wait_s: first_acquire_wait_s,
                });
            }
            self.drain_pending = true;
        }
        self.drain_pending
    }

    /// The latency hold for the current plan: the frame-rate limit to hold
    /// the game at so the swapchain queue stays empty, or `None` when none is
    /// needed (see [`hold_limit`] for the rule). Uses the presents per frame
    /// of the current plan and the display rate of the last frame; `None`
    /// while disabled or before the first frame.
    pub fn hold(
        &self,
        frame_limit_fps: Option<f64>,
        user_second_limit_fps: Option<f64>,
    ) -> Option<f64> {
        let (_, display_hz) = self.rates?;
        if !self.enabled {
            return None;
        }
        hold_limit(
            display_hz,
            self.plan_presents_per_frame,
            frame_limit_fps,
            user_second_limit_fps,
        )
    }

    /// Whether a tick that only repeats the game's last frame (no new frame)
    /// should present it again: never while engaged, because the generated
    /// frames used those refreshes.
    pub fn present_repeat(&self) -> bool {
        !self.last.engaged
    }

    /// Presents made beyond the refreshes since the pacer engaged that the
    /// display has not caught up with, counted from the ticks: generated
    /// presents leave room for them first.
    pub fn backlog(&self) -> u32 {
        self.backlog
    }

    fn ticks_even(&self) -> bool {
        let mut it = self.ticks.oldest_ordered();
        match it.next() {
            Some(first) => it.all(|t| t == first),
            None => false,
        }
    }

    fn restart(&mut self, cause: ResetCause) {
        self.ticks.clear();
        self.frames_since_reset = 0;
        self.backlog = 0;
        self.drain_pending = false;
        self.push_event(Event::Reset { cause });
    }

    fn conclude(&mut self, state: State, decision: Decision, plan_ppf: u32) -> Decision {
        if discriminant(&state) != discriminant(&self.state) {
            self.push_event(Event::StateChanged {
                from: self.state,
                to: state,
            });
        }
        self.state = state;
        self.last = decision;
        self.plan_presents_per_frame = if decision.engaged { plan_ppf } else { 1 };
        decision
    }

    fn push_event(&mut self, e: Event) {
        if self.events.is_full() {
            self.events.pop_front();
        }
        // Cannot fail: there is room now.
        let _ = self.events.push_back(e);
    }
}

/// The plan for a frame lasting `refreshes` refreshes with at most
/// `max_generated` generated frames: `(generated, presents of generated
/// frames)`.
///
/// Generated frames: `min(max_generated, refreshes - 1)` (issue 4: "at most
/// `n` generated frames, and never more than the game's frame interval has
/// refreshes, less one"). Several generated frames are presented once each
/// (one refresh), as the seed's multiplier section says ("Present each
/// generated frame for one refresh, then the game's frame"); the game's frame
/// takes the rest of the interval. A single generated frame gets half the
/// interval, rounded down (the seed's pacing table: at 30 fps on 120 Hz
/// "generated 2, the game's 2"; at 40 fps the game's frame the longer part).
pub fn plan(refreshes: u32, max_generated: u32) -> (u32, u32) {
    let generated = max_generated.min(refreshes.saturating_sub(1));
    let presents = if generated == 1 {
        refreshes / 2
    } else {
        generated
    };
    (generated, presents)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HZ120: f64 = 119.88;

    fn run(p: &mut Pacer, n: u32, ticks: u32, source: f64, display: f64) -> Decision {
        let mut d = Decision::NONE;
        for i in 0..n {
            let already = u32::from(i > 0);
            d = p.frame(
                ticks,
                already,
                source,
                display,
                f64::from(i) / 60.0,
                100.0,
                true,
            );
        }
        d
    }

    #[test]
    fn plan_table() {
        // (refreshes, max generated) -> (generated, presents)
        assert_eq!(plan(0, 3), (0, 0));
        assert_eq!(plan(1, 1), (0, 0));
        assert_eq!(plan(1, 3), (0, 0));
        assert_eq!(plan(2, 1), (1, 1));
        assert_eq!(plan(2, 3), (1, 1), "60 fps on 120 Hz: room for 1");
        assert_eq!(plan(3, 1), (1, 1), "x2 at 40 fps: the game's frame 2");
        assert_eq!(plan(3, 2), (2, 2));
        assert_eq!(plan(3, 3), (2, 2));
        assert_eq!(plan(4, 1), (1, 2), "x2 at 30 fps on 120 Hz: 2 and 2");
        assert_eq!(
            plan(4, 2),
            (2, 2),
            "x3 at 30 fps on 120 Hz: two generated, 1 refresh each, the game's 2"
        );
        assert_eq!(plan(4, 3), (3, 3));
        assert_eq!(plan(5, 3), (3, 3));
        assert_eq!(plan(6, 1), (1, 3));
        assert_eq!(plan(6, 2), (2, 2));
        assert_eq!(plan(6, 3), (3, 3));
    }

    #[test]
    fn plan_follows_the_multiplier_rule() {
        for refreshes in 0..=16u32 {
            for max_generated in 1..=u32::from(MAX_MULTIPLIER - 1) {
                let (g, p) = plan(refreshes, max_generated);
                assert_eq!(g, max_generated.min(refreshes.saturating_sub(1)));
                // The game's frame keeps at least one refresh, and at least
                // as many as a single generated frame.
                assert!(
                    p < refreshes || refreshes == 0,
                    "{refreshes} {max_generated}"
                );
                if g >= 2 {
                    assert_eq!(p, g, "one refresh each: {refreshes} {max_generated}");
                }
                if g == 1 {
                    assert_eq!(p, refreshes / 2);
                }
            }
        }
    }

    #[test]
    fn presents_of_one_refresh_each_a_single_frame_takes_its_share() {
        let d = |presents, generated| Decision {
            engaged: true,
            reset: false,
            presents,
            generated,
        };
        let of = |d: Decision| -> [u32; 4] { core::array::from_fn(|i| d.presents_of(i as u32)) };
        assert_eq!(of(d(2, 2)), [1, 1, 0, 0], "x3 at 30 fps on 120 Hz");
        assert_eq!(of(d(3, 3)), [1, 1, 1, 0], "x4 at 30 fps on 120 Hz");
        assert_eq!(of(d(2, 1)), [2, 0, 0, 0], "x2 at 30 fps on 120 Hz");
        assert_eq!(of(d(1, 1)), [1, 0, 0, 0]);
        assert_eq!(of(d(0, 0)), [0, 0, 0, 0]);
        // Not made by the pacer, but still adding up to `presents`.
        assert_eq!(of(d(4, 2)), [1, 3, 0, 0]);
        assert_eq!(of(d(1, 3)), [1, 0, 0, 0]);
    }

    #[test]
    fn warm_up_then_priming_then_generating() {
        let mut p = Pacer::new();
        for i in 1..=WARM_UP_FRAMES {
            let d = p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, true);
            assert_eq!(d, Decision::NONE);
            assert_eq!(
                p.state(),
                State::WarmingUp {
                    frames_left: WARM_UP_FRAMES + 1 - i
                }
            );
        }
        let d = p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, true);
        assert_eq!(
            d,
            Decision {
                engaged: true,
                reset: true,
                presents: 0,
                generated: 0
            }
        );
        assert_eq!(p.state(), State::Priming);
        let d = p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, true);
        assert_eq!(
            d,
            Decision {
                engaged: true,
                reset: false,
                presents: 1,
                generated: 1
            }
        );
        assert_eq!(p.state(), State::Generating);
        assert_eq!(p.presents_per_frame(), 2);
    }

    #[test]
    fn uneven_ticks_stop_generation_for_a_window() {
        let mut p = Pacer::new();
        run(&mut p, 20, 1, 60.0, HZ120);
        assert_eq!(p.state(), State::Generating);
        let d = p.frame(2, 1, 60.0, HZ120, 0.0, 100.0, true);
        assert_eq!(d, Decision::NONE);
        assert_eq!(p.state(), State::Uneven);
        for _ in 0..EVEN_WINDOW - 1 {
            p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, true);
            assert_eq!(p.state(), State::Uneven);
        }
        p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, true);
        assert_eq!(p.state(), State::Priming);
    }

    #[test]
    fn repeats_while_generating_are_taken_off() {
        let mut p = Pacer::new();
        // 30 fps on 60 Hz, 2 ticks of a 60 Hz clock: 1 generated present.
        let d = run(&mut p, 12, 2, 60.0, 59.94);
        assert_eq!((d.presents, d.generated), (1, 1));
        assert!(!p.present_repeat());
        // The renderer repeated anyway: 1 + 2 presents for 2 refreshes.
        let d = p.frame(2, 2, 60.0, 59.94, 1.0, 100.0, true);
        assert_eq!(
            d,
            Decision {
                engaged: true,
                reset: false,
                presents: 0,
                generated: 0
            }
        );
        assert_eq!(p.state(), State::Draining);
        assert_eq!(p.backlog(), 1);
        let mut saw = false;
        while let Some(e) = p.take_event() {
            saw |= e == Event::ExtraPresents { count: 1 };
        }
        assert!(saw);
        // It keeps repeating: the game's frame and the repeat fill the two
        // refreshes, nothing is generated, the queue grows no further.
        for _ in 0..5 {
            let d = p.frame(2, 2, 60.0, 59.94, 1.0, 100.0, true);
            assert_eq!((d.engaged, d.presents), (true, 0));
            assert_eq!(p.backlog(), 1);
        }
        // It stops: the interval just ended had fewer presents than
        // refreshes, the display caught up, generation is back.
        let d = p.frame(2, 1, 60.0, 59.94, 1.1, 100.0, true);
        assert_eq!((d.presents, d.generated), (1, 1));
        assert_eq!(p.backlog(), 0);
    }

    #[test]
    fn drain_leaves_out_the_next_frame_only() {
        let mut p = Pacer::new();
        run(&mut p, 12, 1, 60.0, HZ120);
        assert!(!p.drain(0.001));
        assert!(p.drain(0.004));
        let d = p.frame(1, 1, 60.0, HZ120, 1.0, 100.0, true);
        assert_eq!(
            d,
            Decision {
                engaged: true,
                reset: false,
                presents: 0,
                generated: 0
            }
        );
        assert_eq!(p.state(), State::Draining);
        let d = p.frame(1, 1, 60.0, HZ120, 1.0, 100.0, true);
        assert_eq!(d.generated, 1);
        // The hold follows the plan, not the drained frame.
        assert_eq!(p.presents_per_frame(), 2);
    }

    #[test]
    fn rates_change_restarts_warm_up() {
        let mut p = Pacer::new();
        run(&mut p, 12, 1, 60.0, HZ120);
        let d = p.frame(1, 1, 60.0, 59.94, 0.0, 100.0, true);
        assert_eq!(d, Decision::NONE);
        assert!(matches!(p.state(), State::WarmingUp { .. }));
    }

    #[test]
    fn disabled_limiter_and_bad_rates() {
        let mut p = Pacer::new();
        run(&mut p, 12, 1, 60.0, HZ120);
        assert_eq!(
            p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, false),
            Decision::NONE
        );
        assert_eq!(p.state(), State::LimiterNotNominal);
        assert_eq!(
            p.frame(1, 1, f64::NAN, HZ120, 0.0, 100.0, true),
            Decision::NONE
        );
        assert_eq!(p.state(), State::InvalidRates);
        p.set_enabled(false);
        assert_eq!(p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, true), Decision::NONE);
        assert_eq!(p.state(), State::Disabled);
        assert_eq!(p.hold(None, None), None);
        p.set_enabled(true);
        assert_eq!(p.frame(1, 1, 60.0, HZ120, 0.0, 100.0, true), Decision::NONE);
        assert!(matches!(p.state(), State::WarmingUp { .. }));
        assert_eq!(Pacer::with_multiplier(5).unwrap_err(), MultiplierError(5));
        assert_eq!(Pacer::with_multiplier(1).unwrap_err(), MultiplierError(1));
    }

    #[test]
    fn events_keep_the_newest() {
        let mut p = Pacer::new();
        for _ in 0..EVENT_CAPACITY + 5 {
            p.reset();
        }
        let mut n = 0;
        while p.take_event().is_some() {
            n += 1;
        }
        assert_eq!(n, EVENT_CAPACITY);
    }

    #[test]
    fn safety_net_pauses_and_says_so() {
        let mut p = Pacer::new();
        let mut t = 0.0;
        for _ in 0..12 {
            p.frame(1, 1, 60.0, HZ120, t, 100.0, true);
            t += 1.0 / 60.0;
        }
        while p.take_event().is_some() {}
        while t < 3.3 {
            p.frame(1, 1, 60.0, HZ120, t, 90.0, true);
            t += 1.0 / 60.0;
        }
        assert!(matches!(p.state(), State::Paused { .. }), "{:?}", p.state());
        let mut paused = false;
        while let Some(e) = p.take_event() {
            paused |= matches!(e, Event::SafetyNetPaused { pause_s, .. } if pause_s == 10.0);
        }
        assert!(paused);
    }
}
