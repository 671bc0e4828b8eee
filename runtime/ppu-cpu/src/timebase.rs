//! The time base (`mftb`, `mfspr 268/269`).

use std::time::Instant;

/// The PS3's time base frequency: 79.8 MHz.
pub const PS3_TIMEBASE_HZ: u64 = 79_800_000;

/// A time base counting at a given frequency from when it was made.
///
/// Guest code reads it to measure time, so it advances with the host's
/// monotonic clock. Linux test programs on qemu see another frequency (the
/// host's; qemu's POWER9 reports 512 MHz): make the time base with that.
#[derive(Debug, Clone, Copy)]
pub struct TimeBase {
    hz: u64,
    start: Instant,
    offset: u64,
}

impl Default for TimeBase {
    fn default() -> Self {
        TimeBase::new(PS3_TIMEBASE_HZ)
    }
}

impl TimeBase {
    /// A time base at `hz` ticks a second, starting at 0 now.
    pub fn new(hz: u64) -> TimeBase {
        TimeBase {
            hz,
            start: Instant::now(),
            offset: 0,
        }
    }

    /// A time base at `hz` that reads `value` now.
    pub fn starting_at(hz: u64, value: u64) -> TimeBase {
        TimeBase {
            hz,
            start: Instant::now(),
            offset: value,
        }
    }

    /// Ticks per second.
    pub fn frequency(&self) -> u64 {
        self.hz
    }

    /// The current value.
    #[inline]
    pub fn read(&self) -> u64 {
        let ns = self.start.elapsed().as_nanos();
        self.offset
            .wrapping_add((ns * u128::from(self.hz) / 1_000_000_000) as u64)
    }
}
