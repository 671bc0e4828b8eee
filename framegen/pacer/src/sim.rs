//! The pacing simulator: a game loop at a given rate drives a [`Pacer`] and
//! presents what it decides on a [`FifoDisplay`], in virtual time.
//!
//! Deterministic (jitter comes from a seeded [`XorShift64`]), `no_std`, no
//! allocation: [`run`] returns a [`Summary`], and [`run_observed`] also hands
//! every frame's [`FrameRecord`] to a callback, for tests.
//!
//! The model:
//! - The game's clock ticks at `source_hz` (by default the game's own rate:
//!   one tick a frame). Frame `k` happens at game time `k / game_fps`; its
//!   `ticks` are the clock ticks since frame `k - 1`. Ticks never depend on
//!   when presents returned.
//! - In wall (virtual) time, the loop starts a frame every `1 / rate`
//!   seconds, where the rate is the game's, lowered by `limit_fps` and by the
//!   latency hold, and slowed by `speed_pct`. The frame is ready after a
//!   random delay in `[0, jitter_ms)`, which does not accumulate. A loop that
//!   blocked in an acquire starts its next frame late (no catching up).
//! - At each frame the loop asks the pacer, makes the generated presents
//!   (their first acquire's wait goes to [`Pacer::drain`]), then presents the
//!   game's frame. Generated images become presentable `gen_ms` after the
//!   frame is ready (the interpolation's GPU time).

use crate::fifo::{FifoDisplay, FifoError, Refresh};
use crate::num::{floor_u64, round_u32, valid_rate};
use heapless::Vec;

use crate::pacer::{Decision, EVENT_CAPACITY, Event, MultiplierError, Pacer, State};
use crate::rng::XorShift64;

/// VideoOut's measured refresh period at 119.88 Hz (seconds).
pub const VIDEOOUT_PERIOD_119_88_S: f64 = 8.3416e-3;
/// VideoOut's measured refresh period at 59.94 Hz (seconds).
pub const VIDEOOUT_PERIOD_59_94_S: f64 = 16.6831e-3;

/// The refresh period for a display rate: VideoOut's measured periods for
/// 119.88 and 59.94 Hz, `1 / hz` for any other rate.
pub fn refresh_period_s(display_hz: f64) -> f64 {
    if (display_hz - 119.88).abs() < 1e-9 {
        VIDEOOUT_PERIOD_119_88_S
    } else if (display_hz - 59.94).abs() < 1e-9 {
        VIDEOOUT_PERIOD_59_94_S
    } else {
        1.0 / display_hz
    }
}

/// Where the first refresh falls, as a fraction of the period (so that
/// frames and refreshes do not start at the same instant).
pub const FIRST_REFRESH_PHASE: f64 = 0.37;

/// What the renderer does on a game clock tick that brings no new frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Repeats {
    /// Presents nothing (a port; an emulator that skips duplicate frames).
    #[default]
    None,
    /// Presents the game's last frame again, whatever the pacer says.
    Always,
    /// Presents it again only when [`Pacer::present_repeat`] says so.
    AskPacer,
}

/// A change of the game's frame rate during the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSwitch {
    /// When, in wall-clock (virtual) seconds.
    pub at_s: f64,
    /// The game's frame rate from then on.
    pub game_fps: f64,
}

/// What to simulate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// The game's frame rate (fps).
    pub game_fps: f64,
    /// The rate of the game's clock; `None`: the game's rate (a tick a frame).
    pub source_hz: Option<f64>,
    /// The display's refresh rate, as the pacer is told.
    pub display_hz: f64,
    /// The actual refresh period; `None`: [`refresh_period_s`].
    pub refresh_period_s: Option<f64>,
    /// The multiplier, 2 to 4.
    pub multiplier: u8,
    /// Frame generation on (false: the pacer is disabled).
    pub framegen: bool,
    /// Swapchain images, 2 to 8 (RADV: 4, ps5vk: 2 or 3).
    pub images: u8,
    /// Virtual seconds to run.
    pub seconds: f64,
    /// Each frame is ready a random `[0, jitter_ms)` after its start.
    pub jitter_ms: f64,
    /// Seed of the jitter.
    pub seed: u64,
    /// The game's frame limit (fps), `None` for none.
    pub limit_fps: Option<f64>,
    /// The user's own second limit (fps), `None` for none.
    pub user_limit_fps: Option<f64>,
    /// Apply the latency hold.
    pub hold: bool,
    /// Report first-acquire waits to the pacer's drain.
    pub drain: bool,
    /// The game's speed without generation, percent (an emulator's).
    pub speed_pct: f64,
    /// Speed lost while generating, percentage points (the safety net's
    /// cause).
    pub gen_speed_cost_pct: f64,
    /// GPU time of the generated frames, milliseconds.
    pub gen_ms: f64,
    /// What the renderer does on ticks without a new frame.
    pub repeats: Repeats,
    /// A change of the game's rate during the run.
    pub switch: Option<RateSwitch>,
    /// The broken reference: ticks measured from the wall-clock time between
    /// frames (`round(dt * source_hz)`) instead of the game's clock.
    pub ticks_from_wall_clock: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            game_fps: 60.0,
            source_hz: None,
            display_hz: 119.88,
            refresh_period_s: None,
            multiplier: 2,
            framegen: true,
            images: 4,
            seconds: 60.0,
            jitter_ms: 0.0,
            seed: 1,
            limit_fps: None,
            user_limit_fps: None,
            hold: true,
            drain: true,
            speed_pct: 100.0,
            gen_speed_cost_pct: 0.0,
            gen_ms: 0.0,
            repeats: Repeats::None,
            switch: None,
            ticks_from_wall_clock: false,
        }
    }
}

/// A bad simulation setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SimError {
    /// A setting out of range.
    Config {
        /// The [`SimConfig`] field.
        field: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// The display refused (image count, period).
    Fifo(FifoError),
    /// The multiplier is not 2 to 4.
    Multiplier(MultiplierError),
}

impl core::fmt::Display for SimError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SimError::Config {
                field,
                value,
                expected,
            } => {
                write!(f, "{field} = {value}: must be {expected}")
            }
            SimError::Fifo(e) => write!(f, "display: {e}"),
            SimError::Multiplier(e) => e.fmt(f),
        }
    }
}

impl From<FifoError> for SimError {
    fn from(e: FifoError) -> Self {
        SimError::Fifo(e)
    }
}

/// What the simulator saw of one game frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameRecord {
    /// The frame's number, from 0.
    pub index: u64,
    /// When it was ready, virtual seconds.
    pub ready_s: f64,
    /// The ticks passed to the pacer.
    pub ticks: u32,
    /// The `already` passed to the pacer.
    pub already: u32,
    /// `ticks * display_hz / source_hz`: the refreshes the frame's interval
    /// has.
    pub refreshes: f64,
    /// The pacer's decision.
    pub decision: Decision,
    /// The pacer's state after it.
    pub state: State,
    /// How long the first acquire of the generated presents waited.
    pub first_acquire_wait_s: Option<f64>,
    /// Presents queued right after the frame's first present, itself
    /// included: 1 means the queue was empty when the frame began.
    pub queue_depth: u32,
    /// The hold in effect for the next frame (fps).
    pub hold_fps: Option<f64>,
    /// The speed reported to the pacer.
    pub speed_pct: f64,
    /// The pacer's events during this frame (its decision and the drain).
    pub events: Vec<Event, EVENT_CAPACITY>,
}

/// A count of small whole numbers (0 to 31, larger ones in the last bin).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    counts: [u64; 32],
}

impl Histogram {
    /// Counts one `v`.
    pub fn add(&mut self, v: u32) {
        let i = (v as usize).min(self.counts.len() - 1);
        self.counts[i] += 1;
    }

    /// How many were counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// How many of value `v` were counted.
    pub fn count(&self, v: u32) -> u64 {
        self.counts.get(v as usize).copied().unwrap_or(0)
    }

    /// The most common value (the smaller one on a tie; 0 when empty).
    pub fn mode(&self) -> u32 {
        let mut best = 0;
        for (i, c) in self.counts.iter().enumerate() {
            if *c > self.counts[best] {
                best = i;
            }
        }
        best as u32
    }
}

/// What a run showed.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Summary {
    /// Virtual seconds simulated.
    pub seconds: f64,
    /// Game frames.
    pub frames: u64,
    /// Game frames a second, as run (holds and back-pressure included).
    pub game_fps_measured: f64,
    /// Frames the pacer was engaged for.
    pub engaged_frames: u64,
    /// Frames that got generated frames.
    pub generating_frames: u64,
    /// Generated frames per game frame: how often each count came.
    pub generated: Histogram,
    /// Refreshes each generated image was on screen.
    pub refreshes_per_generated_hist: Histogram,
    /// Refreshes each game frame was on screen.
    pub game_refreshes_hist: Histogram,
    /// The most common count of generated frames per game frame.
    pub generated_per_frame: u32,
    /// The most common count of refreshes a generated image was on screen
    /// (0: none shown).
    pub refreshes_per_generated: u32,
    /// The most common count of refreshes a game frame was on screen.
    pub game_refreshes: u32,
    /// The most presents queued right after a frame's first present, itself
    /// included ([`FrameRecord::queue_depth`]).
    pub max_queue_depth: u32,
    /// The most presents queued at any time.
    pub max_queued: u32,
    /// Mean time from a game frame ready to its first refresh on screen, ms.
    pub mean_latency_ms: f64,
    /// The longest such time, ms.
    pub max_latency_ms: f64,
    /// Frames the pacer found uneven.
    pub uneven_frames: u64,
    /// Frames with no room for a generated frame.
    pub no_room_frames: u64,
    /// Frames in the warm-up.
    pub warming_up_frames: u64,
    /// Frames while the safety net paused generation.
    pub paused_frames: u64,
    /// Frames drained (engaged, generated frames left out).
    pub draining_frames: u64,
    /// Frames with generation disabled or otherwise off.
    pub other_frames: u64,
    /// Safety-net pauses.
    pub safety_pauses: u32,
    /// Refreshes run.
    pub refreshes: u64,
    /// Presents made (generated, game, repeats).
    pub presents: u64,
    /// The hold in effect at the end (fps).
    pub hold_fps: Option<f64>,
}

impl Summary {
    /// Why frames were not generated, the most common reason ("-" when most
    /// frames were).
    pub fn main_reason(&self) -> &'static str {
        let reasons = [
            (self.uneven_frames, "uneven"),
            (self.no_room_frames, "no room"),
            (self.paused_frames, "paused"),
            (self.draining_frames, "draining"),
            (self.warming_up_frames, "warming up"),
            (self.other_frames, "off"),
        ];
        if self.generating_frames * 2 >= self.frames {
            return "-";
        }
        let mut best = reasons[0];
        for r in reasons {
            if r.0 > best.0 {
                best = r;
            }
        }
        best.1
    }
}

/// What a present shows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Image {
    frame: u64,
    /// `Some(i)`: generated frame `i`; `None`: the game's frame.
    generated: Option<u32>,
    ready_s: f64,
}

/// Per-refresh accounting.
#[derive(Default)]
struct RefreshStats {
    refreshes: u64,
    run: Option<(Image, u32)>,
    per_generated: Histogram,
    per_game: Histogram,
    latency_sum_s: f64,
    latency_max_s: f64,
    latency_n: u64,
}

impl RefreshStats {
    fn on_refresh(&mut self, r: Refresh<Image>) {
        self.refreshes += 1;
        let Some(shown) = r.shown else { return };
        match &mut self.run {
            Some((img, n)) if *img == shown => *n += 1,
            run => {
                if let Some((img, n)) = *run {
                    if img.generated.is_some() {
                        self.per_generated.add(n);
                    } else {
                        self.per_game.add(n);
                    }
                }
                *run = Some((shown, 1));
                if shown.generated.is_none() {
                    let latency = r.at_s - shown.ready_s;
                    self.latency_sum_s += latency;
                    self.latency_max_s = self.latency_max_s.max(latency);
                    self.latency_n += 1;
                }
            }
        }
    }
}

/// The game's clock: tick index of each frame from the game's time.
struct GameClock {
    source_hz: f64,
    fps: f64,
    base_frame: u64,
    base_time: f64,
}

impl GameClock {
    fn time_of(&self, frame: u64) -> f64 {
        self.base_time + (frame - self.base_frame) as f64 / self.fps
    }

    fn tick_index(&self, frame: u64) -> u64 {
        floor_u64(self.time_of(frame) * self.source_hz + 1e-6)
    }

    /// Ticks between frame `k - 1` and frame `k` (for frame 0: the nominal).
    fn ticks(&self, k: u64) -> u32 {
        let (a, b) = if k == 0 || k == self.base_frame {
            // At a rate change the interval is the new rate's.
            let t0 = self.time_of(k);
            (
                floor_u64(t0 * self.source_hz + 1e-6),
                floor_u64((t0 + 1.0 / self.fps) * self.source_hz + 1e-6),
            )
        } else {
            (self.tick_index(k - 1), self.tick_index(k))
        };
        u32::try_from(b.saturating_sub(a)).unwrap_or(u32::MAX)
    }

    fn switch(&mut self, at_frame: u64, fps: f64) {
        self.base_time = self.time_of(at_frame);
        self.base_frame = at_frame;
        self.fps = fps;
    }
}

fn check(
    field: &'static str,
    value: f64,
    ok: bool,
    expected: &'static str,
) -> Result<(), SimError> {
    if ok {
        Ok(())
    } else {
        Err(SimError::Config {
            field,
            value,
            expected,
        })
    }
}

fn check_rate(field: &'static str, v: Option<f64>) -> Result<(), SimError> {
    match v {
        Some(x) => check(field, x, valid_rate(x), "a finite rate above 0"),
        None => Ok(()),
    }
}

impl SimConfig {
    /// Checks every setting, naming the first bad one.
    pub fn validate(&self) -> Result<(), SimError> {
        check_rate("game_fps", Some(self.game_fps))?;
        check_rate("source_hz", self.source_hz)?;
        check_rate("display_hz", Some(self.display_hz))?;
        check_rate("refresh_period_s", self.refresh_period_s)?;
        check_rate("limit_fps", self.limit_fps)?;
        check_rate("user_limit_fps", self.user_limit_fps)?;
        check_rate("switch.game_fps", self.switch.map(|s| s.game_fps))?;
        check(
            "seconds",
            self.seconds,
            self.seconds.is_finite() && self.seconds > 0.0 && self.seconds <= 86_400.0,
            "above 0 and at most a day",
        )?;
        check(
            "jitter_ms",
            self.jitter_ms,
            self.jitter_ms.is_finite() && self.jitter_ms >= 0.0,
            "0 or more",
        )?;
        check(
            "gen_ms",
            self.gen_ms,
            self.gen_ms.is_finite() && self.gen_ms >= 0.0,
            "0 or more",
        )?;
        check(
            "speed_pct",
            self.speed_pct,
            self.speed_pct.is_finite() && self.speed_pct > 0.0 && self.speed_pct <= 1000.0,
            "above 0 and at most 1000",
        )?;
        check(
            "gen_speed_cost_pct",
            self.gen_speed_cost_pct,
            self.gen_speed_cost_pct >= 0.0 && self.gen_speed_cost_pct < self.speed_pct,
            "0 or more and below speed_pct",
        )?;
        if let Some(s) = self.switch {
            check(
                "switch.at_s",
                s.at_s,
                s.at_s.is_finite() && s.at_s >= 0.0,
                "0 or more",
            )?;
        }
        Pacer::with_multiplier(self.multiplier).map_err(SimError::Multiplier)?;
        Ok(())
    }
}

/// Runs a simulation and summarises it.
pub fn run(cfg: &SimConfig) -> Result<Summary, SimError> {
    run_observed(cfg, &mut |_| {})
}

/// Runs a simulation, handing each frame's record to `observe`.
pub fn run_observed(
    cfg: &SimConfig,
    observe: &mut impl FnMut(&FrameRecord),
) -> Result<Summary, SimError> {
    cfg.validate()?;
    let period = cfg
        .refresh_period_s
        .unwrap_or_else(|| refresh_period_s(cfg.display_hz));
    let mut display = FifoDisplay::<Image>::new(period, period * FIRST_REFRESH_PHASE, cfg.images)?;
    let mut pacer = Pacer::with_multiplier(cfg.multiplier).map_err(SimError::Multiplier)?;
    pacer.set_enabled(cfg.framegen);
    let mut rng = XorShift64::new(cfg.seed);
    let mut rs = RefreshStats::default();
    let mut s = Summary::default();

    let limited = |fps: f64| cfg.limit_fps.map_or(fps, |l| fps.min(l));
    let fps0 = limited(cfg.game_fps);
    let source_hz = cfg.source_hz.unwrap_or(fps0);
    let mut clock = GameClock {
        source_hz,
        fps: fps0,
        base_frame: 0,
        base_time: 0.0,
    };
    let mut switched = false;
    let jitter_s = cfg.jitter_ms / 1000.0;
    let gen_s = cfg.gen_ms / 1000.0;

    let mut sched = 0.0f64;
    let mut prev_ready: Option<f64> = None;
    let mut already = 0u32;
    let mut speed = cfg.speed_pct;
    let mut ticks = clock.ticks(0);
    let mut k = 0u64;
    loop {
        let ready = sched + jitter_s * rng.next_f64();
        if ready >= cfg.seconds {
            break;
        }
        let mut on_refresh = |r: Refresh<Image>| rs.on_refresh(r);
        display.advance_to(ready, &mut on_refresh);
        if cfg.ticks_from_wall_clock {
            ticks = match prev_ready {
                Some(p) => round_u32((ready - p) * source_hz).max(1),
                None => round_u32(source_hz / clock.fps).max(1),
            };
        }
        prev_ready = Some(ready);
        let already_in = already;
        let d = pacer.frame(
            ticks,
            already,
            source_hz,
            cfg.display_hz,
            ready,
            speed,
            true,
        );
        let state = pacer.state();
        count_state(&mut s, d, state);

        let gpu_ready = if d.generated > 0 {
            ready + gen_s
        } else {
            ready
        };
        let mut t = ready;
        let mut first_wait = None;
        let mut depth = None;
        for i in 0..d.generated {
            for _ in 0..d.presents_of(i) {
                let a = display.acquire(t, &mut on_refresh)?;
                t = a.at_s;
                first_wait.get_or_insert(a.waited_s);
                let img = Image {
                    frame: k,
                    generated: Some(i),
                    ready_s: ready,
                };
                display.present(a.image, t.max(gpu_ready), img)?;
                s.presents += 1;
                depth.get_or_insert(display.queued() as u32);
                s.max_queued = s.max_queued.max(display.queued() as u32);
            }
        }
        if cfg.drain
            && let Some(w) = first_wait
        {
            pacer.drain(w);
        }
        let game = Image {
            frame: k,
            generated: None,
            ready_s: ready,
        };
        let a = display.acquire(t, &mut on_refresh)?;
        t = a.at_s;
        display.present(a.image, t.max(gpu_ready), game)?;
        s.presents += 1;
        let depth = depth.unwrap_or(display.queued() as u32);
        s.max_queued = s.max_queued.max(display.queued() as u32);
        s.max_queue_depth = s.max_queue_depth.max(depth);
        already = 1;

        let hold = if cfg.hold {
            pacer.hold(cfg.limit_fps, cfg.user_limit_fps)
        } else {
            None
        };
        let cost = if d.generated > 0 {
            cfg.gen_speed_cost_pct
        } else {
            0.0
        };
        let frame_speed = speed;
        speed = cfg.speed_pct - cost;
        if let Some(sw) = cfg.switch
            && !switched
            && sched >= sw.at_s
        {
            clock.switch(k + 1, limited(sw.game_fps));
            switched = true;
        }
        let rate = hold.map_or(clock.fps, |h| clock.fps.min(h));
        let interval = 100.0 / (rate * speed);
        let next_ticks = clock.ticks(k + 1);

        // Ticks without a new frame before the next one.
        if cfg.repeats != Repeats::None && !cfg.ticks_from_wall_clock {
            for j in 1..next_ticks {
                let at = sched + f64::from(j) * interval / f64::from(next_ticks);
                let repeat = match cfg.repeats {
                    Repeats::Always => true,
                    Repeats::AskPacer => pacer.present_repeat(),
                    Repeats::None => false,
                };
                if repeat {
                    let a = display.acquire(t.max(at), &mut on_refresh)?;
                    t = a.at_s;
                    display.present(a.image, t, game)?;
                    s.presents += 1;
                    s.max_queued = s.max_queued.max(display.queued() as u32);
                    already += 1;
                }
            }
        }

        let mut record = FrameRecord {
            index: k,
            ready_s: ready,
            ticks,
            already: already_in,
            refreshes: f64::from(ticks) * cfg.display_hz / source_hz,
            decision: d,
            state,
            first_acquire_wait_s: first_wait,
            queue_depth: depth,
            hold_fps: hold,
            speed_pct: frame_speed,
            events: Vec::new(),
        };
        let mut events = Vec::new();
        while let Some(e) = pacer.take_event() {
            if matches!(e, Event::SafetyNetPaused { .. }) {
                s.safety_pauses += 1;
            }
            // Cannot fail: the pacer keeps at most EVENT_CAPACITY.
            let _ = events.push(e);
        }
        record.events = events;
        observe(&record);
        s.hold_fps = hold;
        sched = (sched + interval).max(t);
        ticks = next_ticks;
        k += 1;
    }
    display.advance_to(cfg.seconds, &mut |r| rs.on_refresh(r));

    s.seconds = cfg.seconds;
    s.frames = k;
    s.game_fps_measured = k as f64 / cfg.seconds;
    s.refreshes = rs.refreshes;
    s.refreshes_per_generated_hist = rs.per_generated;
    s.game_refreshes_hist = rs.per_game;
    s.generated_per_frame = s.generated.mode();
    s.refreshes_per_generated = rs.per_generated.mode();
    s.game_refreshes = rs.per_game.mode();
    if rs.latency_n > 0 {
        s.mean_latency_ms = rs.latency_sum_s / rs.latency_n as f64 * 1000.0;
        s.max_latency_ms = rs.latency_max_s * 1000.0;
    }
    Ok(s)
}

fn count_state(s: &mut Summary, d: Decision, state: State) {
    s.generated.add(d.generated);
    if d.engaged {
        s.engaged_frames += 1;
    }
    if d.generated > 0 {
        s.generating_frames += 1;
    }
    match state {
        State::Generating | State::Priming => {}
        State::Uneven => s.uneven_frames += 1,
        State::NoRoom => s.no_room_frames += 1,
        State::WarmingUp { .. } => s.warming_up_frames += 1,
        State::Paused { .. } => s.paused_frames += 1,
        State::Draining => s.draining_frames += 1,
        State::Disabled | State::LimiterNotNominal | State::InvalidRates => s.other_frames += 1,
    }
}
