//! When each present goes on screen, for the console display.
//!
//! VK_KHR_display on the console reports nothing about when a present was
//! shown, so the console display estimates it with the FIFO rule the
//! display follows (FACTS.md): refreshes happen every period from the
//! display's start, and each present goes on screen at the first refresh
//! after it was made that no earlier present holds. A present whose GPU work
//! is late is shown later than this says; the estimate is what the dumps'
//! timeline shows on the console (host-sim's simulated display knows exactly).

use framegen_present::{Latched, PresentTag};
use std::collections::VecDeque;

/// The FIFO model of one display.
#[derive(Debug, Clone)]
pub struct LatchModel {
    period_s: f64,
    last_refresh: Option<u64>,
    pending: VecDeque<Latched>,
}

impl LatchModel {
    /// A display refreshing every `period_s` seconds from time 0.
    pub fn new(period_s: f64) -> LatchModel {
        LatchModel {
            period_s: period_s.max(1e-6),
            last_refresh: None,
            pending: VecDeque::new(),
        }
    }

    /// The refresh period, seconds.
    pub fn period_s(&self) -> f64 {
        self.period_s
    }

    /// Refreshes that have begun by `now_s` (refresh 0 at time 0 not counted).
    pub fn refreshes(&self, now_s: f64) -> u64 {
        if now_s <= 0.0 {
            0
        } else {
            (now_s / self.period_s).floor() as u64
        }
    }

    /// Records a present made at `now_s`; returns the refresh it goes on
    /// screen at.
    pub fn presented(&mut self, tag: PresentTag, now_s: f64) -> u64 {
        let next = self.refreshes(now_s) + 1;
        let refresh = match self.last_refresh {
            Some(last) => next.max(last + 1),
            None => next,
        };
        self.last_refresh = Some(refresh);
        self.pending.push_back(Latched {
            tag,
            refresh,
            at_s: refresh as f64 * self.period_s,
        });
        refresh
    }

    /// Moves the presents on screen by `now_s` to `out`, in order.
    pub fn take_until(&mut self, now_s: f64, out: &mut Vec<Latched>) {
        while self.pending.front().is_some_and(|l| l.at_s <= now_s) {
            out.extend(self.pending.pop_front());
        }
    }

    /// When the last present made goes on screen (`None`: none made).
    pub fn last_latch_s(&self) -> Option<f64> {
        self.last_refresh.map(|r| r as f64 * self.period_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(n: u64) -> PresentTag {
        PresentTag {
            present: n,
            picture: n,
        }
    }

    #[test]
    fn one_present_a_refresh_at_most() {
        let mut m = LatchModel::new(0.01);
        // Three presents in one refresh interval go on screen at three refreshes.
        assert_eq!(m.presented(tag(0), 0.001), 1);
        assert_eq!(m.presented(tag(1), 0.002), 2);
        assert_eq!(m.presented(tag(2), 0.003), 3);
        // A present after a gap goes at the next refresh.
        assert_eq!(m.presented(tag(3), 0.0555), 6);
        assert_eq!(m.last_latch_s(), Some(0.06));
    }

    #[test]
    fn latched_in_order_when_their_refresh_came() {
        let mut m = LatchModel::new(0.01);
        m.presented(tag(0), 0.0);
        m.presented(tag(1), 0.0);
        let mut out = Vec::new();
        m.take_until(0.015, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].tag.present, out[0].refresh), (0, 1));
        assert!((out[0].at_s - 0.01).abs() < 1e-12);
        m.take_until(0.02, &mut out);
        assert_eq!(out.iter().map(|l| l.refresh).collect::<Vec<_>>(), [1, 2]);
        m.take_until(1.0, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(m.refreshes(0.025), 2);
        assert_eq!(m.refreshes(-1.0), 0);
    }
}
