//! The latency hold: a frame-rate limit that keeps the swapchain queue empty.
//!
//! With FIFO presenting and 4 images the application can get three presents
//! ahead of the display. When a game frame brings as many presents as it has
//! refreshes (60 fps on 120 Hz with one generated frame: two presents for two
//! refreshes), nothing drains that queue, and a game a hair faster than the
//! display (60.00 fps against 59.94 Hz) fills it: from then on every frame is
//! shown three refreshes late (25 ms at 119.88 Hz). Holding the game just
//! below the display's rate divided by the presents a frame brings keeps the
//! queue empty; once in a while (every 20 s at 0.05 fps below) a refresh shows
//! an image twice.

use crate::num::valid_rate;

/// The hold applies when the refreshes a frame gets at the frame limit,
/// less the presents it brings, are below this (in refreshes).
pub const HOLD_MARGIN_REFRESHES: f64 = 0.25;

/// How far below `display rate / presents per frame` the hold sits, in fps.
pub const HOLD_BELOW_FPS: f64 = 0.05;

/// The frame-rate limit (fps) to hold the game at so the swapchain queue stays
/// empty, or `None` when the frame limit already leaves enough room.
///
/// - `display_hz`: the display's refresh rate (119.88 or 59.94 on the PS5);
/// - `presents_per_frame`: the presents one game frame brings: its generated
///   presents plus its own (2 at x2 with 60 fps on 120 Hz; the multiplier
///   with several generated frames; 1 without generation);
/// - `frame_limit_fps`: the game's frame limit, `None` for no limit;
/// - `user_second_limit_fps`: the user's own second limit, if any. It is
///   taken into the frame limit first (the lower of the two counts), as
///   RPCS3's limiter does.
///
/// The rule: with an effective limit `L`, when `display_hz / L -
/// presents_per_frame < 0.25`, or with no limit at all, hold at
/// `display_hz / presents_per_frame - 0.05`. The caller applies the result as
/// one more limit: the game then runs at the lowest of its limits.
///
/// Limits that are not finite and positive are treated as absent; an invalid
/// display rate or zero presents give `None`.
pub fn hold_limit(
    display_hz: f64,
    presents_per_frame: u32,
    frame_limit_fps: Option<f64>,
    user_second_limit_fps: Option<f64>,
) -> Option<f64> {
    if !valid_rate(display_hz) || presents_per_frame == 0 {
        return None;
    }
    let frame_limit = frame_limit_fps.filter(|l| valid_rate(*l));
    let user_limit = user_second_limit_fps.filter(|l| valid_rate(*l));
    let limit = match (frame_limit, user_limit) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let presents = f64::from(presents_per_frame);
    match limit {
        Some(l) if display_hz / l - presents >= HOLD_MARGIN_REFRESHES => None,
        _ => Some(display_hz / presents - HOLD_BELOW_FPS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn sixty_on_120_holds_just_below_half_the_display() {
        // 119.88 / 60 - 2 = -0.002 < 0.25.
        assert!(close(hold_limit(119.88, 2, Some(60.0), None), 59.89));
        // No limit at all: the same hold.
        assert!(close(hold_limit(119.88, 2, None, None), 59.89));
    }

    #[test]
    fn thirty_on_120_at_x2_needs_no_hold() {
        // 3 presents for 4 refreshes: the queue empties every frame.
        assert_eq!(hold_limit(119.88, 3, Some(30.0), None), None);
        // At x4 the presents are the multiplier: 4 for 4 refreshes.
        assert!(close(hold_limit(119.88, 4, Some(30.0), None), 29.92));
    }

    #[test]
    fn user_second_limit_is_taken_into_the_limit_first() {
        // The user's 50 fps leaves 2.3976 - 2 refreshes of room: no hold.
        assert_eq!(hold_limit(119.88, 2, Some(60.0), Some(50.0)), None);
        assert_eq!(hold_limit(119.88, 2, None, Some(50.0)), None);
        // A user limit above the frame limit changes nothing.
        assert!(close(hold_limit(119.88, 2, Some(60.0), Some(75.0)), 59.89));
    }

    #[test]
    fn bad_inputs() {
        assert_eq!(hold_limit(0.0, 2, None, None), None);
        assert_eq!(hold_limit(119.88, 0, None, None), None);
        // A NaN limit counts as no limit.
        assert!(close(hold_limit(119.88, 2, Some(f64::NAN), None), 59.89));
    }
}
