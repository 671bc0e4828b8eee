//! Time and sleeping (system calls 141..147).
//!
//! `usleep` is held to the microsecond: games poll flags with
//! `usleep(1..10)` thousands of times a second, and Linux holds a sleeping
//! thread to its timer slack (50 µs), which made each turn ~60 µs in the
//! seed port. Sleeps up to `CELLPORT_USLEEP_SPIN_US` (default 20) spin to
//! the deadline with the CPU's pause hint; longer ones sleep to 60 µs
//! before it and spin the rest. `CELLPORT_USLEEP=plain` is the reference:
//! one plain host sleep (`./x bench usleep` compares the two).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use platform::Platform;

use crate::error::{CELL_OK, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;

/// The time base frequency LV2 reports (79.8 MHz).
pub const TIMEBASE_FREQUENCY: u64 = ppu_cpu::PS3_TIMEBASE_HZ;

/// How `usleep` waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SleepMode {
    /// Spin short sleeps and the tail of long ones to the deadline.
    Exact {
        /// Sleeps up to this many µs only spin.
        spin_us: u64,
    },
    /// One host sleep (the reference).
    Plain,
}

/// The tail of a long sleep that is spun rather than slept.
const TAIL_US: u64 = 60;

impl SleepMode {
    /// The mode from `CELLPORT_USLEEP` (`exact`, the default, or `plain`)
    /// and `CELLPORT_USLEEP_SPIN_US`.
    pub fn from_env() -> SleepMode {
        match std::env::var("CELLPORT_USLEEP").as_deref() {
            Ok("plain") => SleepMode::Plain,
            _ => SleepMode::Exact {
                spin_us: std::env::var("CELLPORT_USLEEP_SPIN_US")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(20),
            },
        }
    }

    /// The mode this process uses (read once).
    pub fn current() -> SleepMode {
        static MODE: OnceLock<SleepMode> = OnceLock::new();
        *MODE.get_or_init(SleepMode::from_env)
    }
}

/// Sleeps `us` microseconds on `platform` in `mode`; 0 yields.
pub fn sleep_us(platform: &dyn Platform, us: u64, mode: SleepMode) {
    if us == 0 {
        platform.yield_now();
        return;
    }
    match mode {
        SleepMode::Plain => platform.sleep(Duration::from_micros(us)),
        SleepMode::Exact { spin_us } => {
            let deadline = platform
                .monotonic_ns()
                .saturating_add(us.saturating_mul(1000));
            if us > spin_us && us > TAIL_US {
                platform.sleep(Duration::from_micros(us - TAIL_US));
            }
            while platform.monotonic_ns() < deadline {
                platform.spin_hint();
            }
        }
    }
}

/// 141 `sys_timer_usleep(usec)`.
pub fn sys_timer_usleep(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    sleep_us(&*p.platform, t.arg_u64(0), SleepMode::current());
    CELL_OK
}

/// 142 `sys_timer_sleep(sec)`.
pub fn sys_timer_sleep(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    sleep_us(
        &*p.platform,
        t.arg_u64(0).saturating_mul(1_000_000),
        SleepMode::current(),
    );
    CELL_OK
}

/// 144 `sys_time_get_timezone(int* timezone, int* summertime)` (minutes).
pub fn sys_time_get_timezone(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (tz, dst) = p.platform.timezone();
    let vm = t.vm();
    vm.write_u32(t.arg_u32(0), tz as u32)?;
    vm.write_u32(t.arg_u32(1), if dst { 60 } else { 0 })?;
    CELL_OK
}

/// 145 `sys_time_get_current_time(s64* sec, s64* nsec)` (UTC).
pub fn sys_time_get_current_time(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (s, ns) = p.platform.wall_clock();
    let vm = t.vm();
    vm.check_writable(t.arg_u32(0), 8)?;
    vm.check_writable(t.arg_u32(1), 8)?;
    vm.write_u64(t.arg_u32(0), s as u64)?;
    vm.write_u64(t.arg_u32(1), u64::from(ns))?;
    CELL_OK
}

/// 147 `sys_time_get_timebase_frequency()`.
pub fn sys_time_get_timebase_frequency(_p: &Arc<Process>, _t: &mut GuestThread) -> SysResult {
    Ok(TIMEBASE_FREQUENCY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::host::HostPlatform;

    #[test]
    fn exact_sleeps_never_end_early() {
        let p = HostPlatform::capturing();
        for us in [1, 5, 30, 200] {
            let t0 = p.monotonic_ns();
            sleep_us(&p, us, SleepMode::Exact { spin_us: 20 });
            assert!(p.monotonic_ns() - t0 >= us * 1000, "{us} µs");
        }
    }
}
