//! How late `sys_timer_usleep` wakes: the exact mode (short sleeps spin,
//! long ones sleep to 60 µs before the deadline and spin the rest)
//! against the reference (one plain host sleep), in alternating A/B
//! pairs. Prints, per requested duration, the median and 90th-percentile
//! overshoot of each and their ratio.
//!
//!   cargo bench -p lv2 --bench usleep [-- ROUNDS]
#![allow(clippy::print_stdout)]

use lv2::time::{SleepMode, sleep_us};
use platform::Platform;
use platform::host::HostPlatform;

fn overshoot(p: &HostPlatform, us: u64, mode: SleepMode) -> f64 {
    let t0 = p.monotonic_ns();
    sleep_us(p, us, mode);
    (p.monotonic_ns() - t0) as f64 / 1000.0 - us as f64
}

fn pct(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(400);
    let p = HostPlatform::capturing();
    let exact = SleepMode::Exact { spin_us: 20 };
    println!("usleep overshoot, µs ({rounds} alternating A/B pairs each; A exact, B plain)");
    println!(
        "{:>8} {:>12} {:>12} {:>12} {:>12} {:>10}",
        "asked", "exact p50", "exact p90", "plain p50", "plain p90", "p50 ratio"
    );
    for us in [1u64, 5, 10, 20, 50, 100, 1000] {
        let (mut a, mut b) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
        for _ in 0..rounds {
            a.push(overshoot(&p, us, exact));
            b.push(overshoot(&p, us, SleepMode::Plain));
        }
        let (a50, a90, b50, b90) = (
            pct(&mut a, 0.5),
            pct(&mut a, 0.9),
            pct(&mut b, 0.5),
            pct(&mut b, 0.9),
        );
        println!(
            "{us:>8} {a50:>12.1} {a90:>12.1} {b50:>12.1} {b90:>12.1} {:>10.1}",
            b50 / a50.max(0.01)
        );
    }
}
