//! The title: whatever makes the game's frames. host-sim and the PS5
//! payload run one through the same game loop ([`crate::game_loop`]): the
//! recompiled demo ([`crate::demo::DemoTitle`]) or the built-in scene
//! ([`crate::scene::BuiltinScene`]).

use anyhow::Result;
use ash::vk;
use framegen_present::VideoOutSettings;

/// One new frame of the game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TitleFrame {
    /// A view of the picture, `GENERAL` layout once the recorded commands
    /// ran (sampled by the present loop).
    pub view: vk::ImageView,
    /// Its width.
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// Ticks of the game's clock since its last new frame.
    pub ticks: u32,
    /// The first frame after a cut (a new scene, a load).
    pub cut: bool,
    /// The game's video-out colour settings for this frame.
    pub settings: VideoOutSettings,
}

/// Where a title records a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderSlot {
    /// A primary command buffer, recording; submitted by the caller on the
    /// present loop's queue before the frame is presented.
    pub cmd: vk::CommandBuffer,
    /// Which of the caller's command buffers it is (`0..slots`): the GPU
    /// has finished everything recorded in an earlier `render` with the
    /// same slot, so host memory that work read (a staging buffer) may be
    /// written again.
    pub slot: usize,
    /// How many there are.
    pub slots: usize,
}

/// A game as host-sim and the PS5 payload run it.
pub trait Title {
    /// Its name, for the summary and the dump.
    fn name(&self) -> String;

    /// The rate of the clock that paces it (its game loop's ticks a second;
    /// a PS3 title's vblank clock is 59.94).
    fn tick_hz(&self) -> f64;

    /// Its frame limit (fps) at its nominal rate, if it has one (the latency
    /// hold takes it into account).
    fn frame_limit_fps(&self) -> Option<f64>;

    /// Makes the next frame: records its rendering into `at.cmd` and says
    /// what it is. `Ok(None)`: the game has ended (it quit), nothing was
    /// recorded.
    fn render(&mut self, at: RenderSlot) -> Result<Option<TitleFrame>>;

    /// What it is, for the summary and the dump's header (JSON).
    fn describe(&self) -> serde_json::Value;

    /// Stops it (a game is asked to quit and waited for) and says how it
    /// ended, for the summary (JSON; `null` when there is nothing to say).
    fn end(&mut self) -> serde_json::Value {
        serde_json::Value::Null
    }
}

/// The frame-generation multiplier that fills every refresh of a
/// `display_hz` display with a picture of its own for a game at
/// `game_fps` (30 fps at 119.88 Hz: 4; 60 fps: 2), from 2 to 4.
pub fn multiplier_for(display_hz: f64, game_fps: f64) -> u8 {
    if !(display_hz > 0.0 && game_fps > 0.0) {
        return 2;
    }
    (display_hz / game_fps).round().clamp(2.0, 4.0) as u8
}

/// The game's frame rate as asked for on the command line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GameRate {
    /// A steady rate (30, 40, 60 ...).
    Fixed(f64),
    /// Uneven frame lengths: 2, 3, 2, 2, 3 ticks of a 120 Hz clock (50 fps
    /// on average), as a game that misses its frame time now and then.
    Uneven,
}

impl std::str::FromStr for GameRate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.eq_ignore_ascii_case("uneven") {
            return Ok(GameRate::Uneven);
        }
        match s.parse::<f64>() {
            Ok(f) if f.is_finite() && (1.0..=240.0).contains(&f) => Ok(GameRate::Fixed(f)),
            _ => Err(format!(
                "--game-fps {s}: a rate from 1 to 240 (30, 40, 60 ...) or 'uneven'"
            )),
        }
    }
}

impl std::fmt::Display for GameRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameRate::Fixed(r) => write!(f, "{r}"),
            GameRate::Uneven => f.write_str("uneven"),
        }
    }
}

/// A game loop's clock: its rate and the ticks each frame lasts.
#[derive(Debug, Clone, PartialEq)]
pub struct TickClock {
    /// Ticks a second.
    pub hz: f64,
    pattern: Vec<u32>,
    next: usize,
}

/// The rate of the built-in scene's clock when the game's rate divides it.
pub const SCENE_CLOCK_HZ: f64 = 120.0;

impl TickClock {
    /// The clock for a game at `rate`: a 120 Hz clock when the rate divides
    /// it (60 fps: 2 ticks, 40: 3, 30: 4), otherwise one tick a frame at the
    /// game's own rate; uneven: 2, 3, 2, 2, 3 ticks at 120 Hz.
    pub fn for_rate(rate: GameRate) -> TickClock {
        let (hz, pattern) = match rate {
            GameRate::Uneven => (SCENE_CLOCK_HZ, vec![2, 3, 2, 2, 3]),
            GameRate::Fixed(f) => {
                let n = SCENE_CLOCK_HZ / f;
                if (n - n.round()).abs() < 1e-9 && n >= 1.0 {
                    (SCENE_CLOCK_HZ, vec![n.round() as u32])
                } else {
                    (f, vec![1])
                }
            }
        };
        TickClock {
            hz,
            pattern,
            next: 0,
        }
    }

    /// The ticks of the next frame.
    pub fn next_ticks(&mut self) -> u32 {
        let t = self.pattern[self.next % self.pattern.len()];
        self.next += 1;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_fill_the_refreshes() {
        assert_eq!(multiplier_for(119.88, 30.0), 4);
        assert_eq!(multiplier_for(119.88, 60.0), 2);
        assert_eq!(multiplier_for(119.88, 40.0), 3);
        assert_eq!(multiplier_for(59.94, 30.0), 2);
        assert_eq!(multiplier_for(59.94, 60.0), 2);
        assert_eq!(multiplier_for(119.88, 10.0), 4);
        assert_eq!(multiplier_for(0.0, 30.0), 2);
    }

    #[test]
    fn clocks() {
        let mut c = TickClock::for_rate(GameRate::Fixed(60.0));
        assert_eq!((c.hz, c.next_ticks()), (120.0, 2));
        let mut c = TickClock::for_rate(GameRate::Fixed(40.0));
        assert_eq!(c.next_ticks(), 3);
        let mut c = TickClock::for_rate(GameRate::Fixed(30.0));
        assert_eq!(c.next_ticks(), 4);
        let mut c = TickClock::for_rate(GameRate::Fixed(50.0));
        assert_eq!((c.hz, c.next_ticks()), (50.0, 1));
        let mut c = TickClock::for_rate(GameRate::Uneven);
        let t: Vec<u32> = (0..6).map(|_| c.next_ticks()).collect();
        assert_eq!(t, [2, 3, 2, 2, 3, 2]);
        assert_eq!("uneven".parse::<GameRate>(), Ok(GameRate::Uneven));
        assert!("0".parse::<GameRate>().is_err());
        assert!("fast".parse::<GameRate>().is_err());
    }
}
