//! The safety net: pauses generation when an emulated game falls behind.
//!
//! When the game runs below [`SLOW_SPEED_PCT`] of its speed for
//! [`SLOW_FOR_S`] seconds while frames are generated, generation pauses for
//! [`FIRST_PAUSE_S`]. At the end of a pause the net judges whether generation
//! was the cause: if the game ran at full speed for at least half of the pause
//! (without generation), it was, and the next pause is twice as long, up to
//! [`MAX_PAUSE_S`]. If it was not (the game is slow on its own), the next pause
//! is back to [`FIRST_PAUSE_S`] and the net stays disarmed until the game is
//! back at full speed, so a game that is slow anyway is not switched on and
//! off every few seconds for nothing. A native port passes 100 % and never
//! trips it.
//!
//! Time here is the caller's `now_s` (a monotonic clock in seconds); it is
//! the only thing in the pacer that looks at time.

/// Below this speed (percent of the game's nominal speed) the game is slow.
pub const SLOW_SPEED_PCT: f64 = 95.0;
/// How long the game must stay slow while generating before a pause.
pub const SLOW_FOR_S: f64 = 3.0;
/// The first pause, and the pause after one that showed generation was not
/// the cause.
pub const FIRST_PAUSE_S: f64 = 10.0;
/// The longest pause: doubling stops here.
pub const MAX_PAUSE_S: f64 = 160.0;

/// A pause in progress.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pause {
    until_s: f64,
    length_s: f64,
    /// Seconds of the pause so far with the game at full speed.
    fast_s: f64,
    /// Seconds of the pause so far.
    total_s: f64,
}

/// What one update of the net did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NetChange {
    /// Nothing changed.
    None,
    /// A pause began, lasting this long.
    Paused {
        /// The pause's length in seconds.
        pause_s: f64,
    },
    /// A pause ended with this verdict.
    Resumed {
        /// Whether the game ran at full speed during the pause.
        generation_was_cause: bool,
        /// The length the next pause will have.
        next_pause_s: f64,
    },
}

/// The safety net's state: fixed size, no allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SafetyNet {
    armed: bool,
    slow_since_s: Option<f64>,
    pause: Option<Pause>,
    next_pause_s: f64,
    last_now_s: Option<f64>,
}

impl Default for SafetyNet {
    fn default() -> Self {
        Self::new()
    }
}

impl SafetyNet {
    /// An armed net with no pause behind it.
    pub const fn new() -> Self {
        Self {
            armed: true,
            slow_since_s: None,
            pause: None,
            next_pause_s: FIRST_PAUSE_S,
            last_now_s: None,
        }
    }

    /// When the pause in progress ends, if one is.
    pub fn paused_until_s(&self) -> Option<f64> {
        self.pause.map(|p| p.until_s)
    }

    /// The length the next pause will have.
    pub fn next_pause_s(&self) -> f64 {
        self.next_pause_s
    }

    /// Takes one frame's report: the time, the game's speed, and whether
    /// frames were being generated since the last report.
    ///
    /// A speed that is not finite counts as full speed; a clock that goes
    /// backwards counts as no time passing.
    pub fn update(&mut self, now_s: f64, speed_pct: f64, generating: bool) -> NetChange {
        let speed = if speed_pct.is_finite() {
            speed_pct
        } else {
            100.0
        };
        let reported = if now_s.is_finite() {
            now_s
        } else {
            f64::NEG_INFINITY
        };
        let now = match self.last_now_s {
            Some(last) => last.max(reported),
            None if reported.is_finite() => reported,
            None => 0.0,
        };
        let dt = self.last_now_s.map_or(0.0, |last| now - last);
        self.last_now_s = Some(now);
        let fast = speed >= SLOW_SPEED_PCT;

        if let Some(pause) = &mut self.pause {
            pause.total_s += dt;
            if fast {
                pause.fast_s += dt;
            }
            if now < pause.until_s {
                return NetChange::None;
            }
            let cause = pause.total_s > 0.0 && pause.fast_s * 2.0 >= pause.total_s;
            self.next_pause_s = if cause {
                (pause.length_s * 2.0).min(MAX_PAUSE_S)
            } else {
                FIRST_PAUSE_S
            };
            self.armed = cause || fast;
            self.pause = None;
            self.slow_since_s = None;
            return NetChange::Resumed {
                generation_was_cause: cause,
                next_pause_s: self.next_pause_s,
            };
        }

        if fast {
            self.armed = true;
            self.slow_since_s = None;
            return NetChange::None;
        }
        if !generating || !self.armed {
            self.slow_since_s = None;
            return NetChange::None;
        }
        let since = *self.slow_since_s.get_or_insert(now);
        if now - since < SLOW_FOR_S {
            return NetChange::None;
        }
        let length = self.next_pause_s;
        self.pause = Some(Pause {
            until_s: now + length,
            length_s: length,
            fast_s: 0.0,
            total_s: 0.0,
        });
        self.slow_since_s = None;
        NetChange::Paused { pause_s: length }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the net one report every 1/60 s from `from` to `to`.
    fn feed(
        net: &mut SafetyNet,
        from: f64,
        to: f64,
        speed: f64,
        generating: bool,
    ) -> heapless::Vec<(f64, NetChange), 16> {
        let mut changes = heapless::Vec::new();
        let mut i = 0u32;
        loop {
            let t = from + f64::from(i) / 60.0;
            if t >= to {
                return changes;
            }
            let gen_now = generating && net.paused_until_s().is_none();
            let c = net.update(t, speed, gen_now);
            if c != NetChange::None {
                changes.push((t, c)).unwrap();
            }
            i += 1;
        }
    }

    #[test]
    fn three_slow_seconds_pause_for_ten() {
        let mut net = SafetyNet::new();
        let c = feed(&mut net, 0.0, 2.9, 90.0, true);
        assert!(c.is_empty());
        let c = feed(&mut net, 2.9, 3.1, 90.0, true);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].1, NetChange::Paused { pause_s: 10.0 });
    }

    #[test]
    fn a_fast_moment_restarts_the_three_seconds() {
        let mut net = SafetyNet::new();
        assert!(feed(&mut net, 0.0, 2.0, 90.0, true).is_empty());
        assert!(feed(&mut net, 2.0, 2.1, 100.0, true).is_empty());
        assert!(feed(&mut net, 2.1, 5.0, 90.0, true).is_empty());
        assert!(!feed(&mut net, 5.0, 5.2, 90.0, true).is_empty());
    }

    #[test]
    fn not_generating_never_pauses() {
        let mut net = SafetyNet::new();
        assert!(feed(&mut net, 0.0, 30.0, 50.0, false).is_empty());
    }

    #[test]
    fn pauses_double_to_160_when_generation_was_the_cause() {
        let mut net = SafetyNet::new();
        let mut t = 0.0;
        let mut lengths = heapless::Vec::<f64, 8>::new();
        for _ in 0..6 {
            // Slow while generating until the net pauses.
            let c = feed(&mut net, t, t + 3.5, 90.0, true);
            let NetChange::Paused { pause_s } = c[0].1 else {
                panic!("{c:?}")
            };
            lengths.push(pause_s).unwrap();
            t = c[0].0;
            // Full speed during the pause: generation was the cause.
            let c = feed(&mut net, t, t + pause_s + 0.1, 100.0, true);
            assert!(matches!(
                c[0].1,
                NetChange::Resumed {
                    generation_was_cause: true,
                    ..
                }
            ));
            t = c[0].0;
        }
        assert_eq!(lengths.as_slice(), &[10.0, 20.0, 40.0, 80.0, 160.0, 160.0]);
    }

    #[test]
    fn slow_anyway_resets_the_pause_and_disarms_until_full_speed() {
        let mut net = SafetyNet::new();
        let c = feed(&mut net, 0.0, 3.5, 90.0, true);
        let t = c[0].0;
        // Still slow without generation: not the cause.
        let c = feed(&mut net, t, t + 10.1, 90.0, true);
        assert_eq!(
            c[0].1,
            NetChange::Resumed {
                generation_was_cause: false,
                next_pause_s: 10.0
            }
        );
        let t = c[0].0;
        // Disarmed: slow generating for a long time does not pause again.
        assert!(feed(&mut net, t, t + 20.0, 90.0, true).is_empty());
        // Back at full speed, then slow again: armed, pauses for 10 s.
        assert!(feed(&mut net, t + 20.0, t + 21.0, 100.0, true).is_empty());
        let c = feed(&mut net, t + 21.0, t + 25.0, 90.0, true);
        assert_eq!(c[0].1, NetChange::Paused { pause_s: 10.0 });
    }

    #[test]
    fn odd_clocks_and_speeds() {
        let mut net = SafetyNet::new();
        // NaN speed is full speed, a clock going back is no time.
        assert_eq!(net.update(5.0, f64::NAN, true), NetChange::None);
        assert_eq!(net.update(1.0, 90.0, true), NetChange::None);
        assert_eq!(net.update(f64::NAN, 90.0, true), NetChange::None);
        assert_eq!(net.update(7.9, 90.0, true), NetChange::None);
        assert_eq!(
            net.update(8.1, 90.0, true),
            NetChange::Paused { pause_s: 10.0 }
        );
    }
}
