//! A/B benchmark of the guest memory accessors.
//!
//! `cargo bench -p guest-mem --bench accessors` (release build). Runs the
//! same guest-like workloads through memories in trap mode and checked mode
//! and through raw host pointers (the floor), alternating the variants round
//! by round, and prints the median time of each and the ratios.
#![allow(clippy::print_stdout)]

use std::hint::black_box;
use std::time::Instant;

use guest_mem::{CheckMode, GuestMemory, Prot};

const BASE: u32 = 0x1000_0000;
const LEN: u32 = 1 << 20; // 1 MiB working set
const ROUNDS: usize = 15;
const REPEAT: usize = 20;

/// Loads and stores as lifted code does them: a strided sum and a copy.
fn work_accessors(m: &GuestMemory) -> u64 {
    let mut sum = 0u64;
    let mut a = BASE;
    for _ in 0..(LEN / 16) {
        let x = m.read_u32(a);
        let y = m.read_u64(a + 4);
        sum = sum.wrapping_add(u64::from(x)).wrapping_add(y);
        m.write_u32(a + 12, x ^ (y as u32));
        a += 16;
    }
    // Dependent loads (a linked walk through the buffer).
    let mut p = BASE;
    for _ in 0..(LEN / 64) {
        p = BASE + (m.read_u32(p) & (LEN - 64));
        sum = sum.wrapping_add(u64::from(p));
    }
    sum
}

/// The same through raw host pointers: no check at all.
fn work_raw(base: *mut u8) -> u64 {
    // SAFETY: every address used is inside the mapped buffer.
    let rd32 = |a: u32| unsafe {
        u32::from_be(std::ptr::read_unaligned(base.add(a as usize) as *const u32))
    };
    // SAFETY: as above.
    let rd64 = |a: u32| unsafe {
        u64::from_be(std::ptr::read_unaligned(base.add(a as usize) as *const u64))
    };
    // SAFETY: as above.
    let wr32 = |a: u32, v: u32| unsafe {
        std::ptr::write_unaligned(base.add(a as usize) as *mut u32, v.to_be())
    };
    let mut sum = 0u64;
    let mut a = BASE;
    for _ in 0..(LEN / 16) {
        let x = rd32(a);
        let y = rd64(a + 4);
        sum = sum.wrapping_add(u64::from(x)).wrapping_add(y);
        wr32(a + 12, x ^ (y as u32));
        a += 16;
    }
    let mut p = BASE;
    for _ in 0..(LEN / 64) {
        p = BASE + (rd32(p) & (LEN - 64));
        sum = sum.wrapping_add(u64::from(p));
    }
    sum
}

fn setup(mode: CheckMode) -> GuestMemory {
    let m = GuestMemory::with_mode(mode).expect("reserve");
    m.map(BASE, u64::from(LEN) + 0x1_0000, Prot::RW)
        .expect("map");
    let mut x = 0x1234_5678u32;
    for a in (BASE..BASE + LEN).step_by(4) {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        m.write_u32(a, x);
    }
    m
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let trap = setup(CheckMode::Trap);
    let checked = setup(CheckMode::Checked);
    let raw = setup(CheckMode::Trap);
    let (mut t_trap, mut t_checked, mut t_raw) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        // Alternate the order each round so drift hits all variants alike.
        let order: [u8; 3] = if round % 2 == 0 { [0, 1, 2] } else { [2, 1, 0] };
        for v in order {
            let t0 = Instant::now();
            let mut s = 0u64;
            for _ in 0..REPEAT {
                s = s.wrapping_add(match v {
                    0 => work_accessors(black_box(&trap)),
                    1 => work_accessors(black_box(&checked)),
                    _ => work_raw(black_box(raw.base_ptr())),
                });
            }
            black_box(s);
            let dt = t0.elapsed().as_secs_f64() * 1e3;
            [&mut t_trap, &mut t_checked, &mut t_raw][v as usize].push(dt);
        }
    }
    let (a, b, c) = (
        median(&mut t_trap),
        median(&mut t_checked),
        median(&mut t_raw),
    );
    println!(
        "guest-mem accessors, {ROUNDS} alternating rounds of {REPEAT} passes, 1 MiB working set (median ms per round):"
    );
    println!("  raw pointers (floor)          {c:8.3} ms");
    println!(
        "  trap mode (default)           {a:8.3} ms   {:.2}x raw",
        a / c
    );
    println!(
        "  checked mode (page table)     {b:8.3} ms   {:.2}x raw, {:.2}x trap",
        b / c,
        b / a
    );
}
