//! A/B benchmark of the semantics helpers lifted code calls most: the FPU's
//! fast paths against its exact reference, and the VMX ops.
//!
//! `cargo bench -p ppu-cpu --bench helpers`. Variants alternate round by
//! round; the median of each is printed in ns per operation.
#![allow(clippy::print_stdout)]

use std::hint::black_box;
use std::time::Instant;

use ppu_cpu::V128;
use ppu_cpu::helpers::{fpu, vmx};

const N: usize = 200_000;
const ROUNDS: usize = 11;

fn inputs() -> Vec<(f64, f64, f64)> {
    let mut x = 0x1234_5678_9ABC_DEF1u64;
    (0..N)
        .map(|_| {
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Moderate exponents, the values games compute with.
                f64::from_bits((x & 0x800F_FFFF_FFFF_FFFF) | (1023 - 20 + (x >> 60)) << 52)
            };
            (next(), next(), next())
        })
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `f` over the inputs in each implementation, alternating.
fn ab(name: &str, xs: &[(f64, f64, f64)], f: impl Fn(&mut u32, f64, f64, f64) -> f64) {
    let mut t = [Vec::new(), Vec::new()];
    for round in 0..ROUNDS {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for v in order {
            fpu::set_impl(if v == 0 {
                fpu::Impl::Fast
            } else {
                fpu::Impl::Reference
            });
            let t0 = Instant::now();
            let mut fpscr = 0u32;
            let mut acc = 0.0;
            for &(a, b, c) in xs {
                acc += f(&mut fpscr, black_box(a), b, c);
            }
            black_box((acc, fpscr));
            t[v].push(t0.elapsed().as_secs_f64() * 1e9 / xs.len() as f64);
        }
    }
    fpu::set_impl(fpu::Impl::Fast);
    let (fast, reference) = (median(&mut t[0]), median(&mut t[1]));
    println!(
        "  {name:<8} fast {fast:6.2} ns   reference {reference:7.2} ns   {:5.1}x",
        reference / fast
    );
}

fn vmx_time(name: &str, f: impl Fn(V128, V128, V128) -> V128) {
    vmx_ab(name, &f);
}

/// Times a VMX op with the SIMD forms and with the scalar reference.
fn vmx_ab(name: &str, f: &impl Fn(V128, V128, V128) -> V128) {
    let mut t = [Vec::new(), Vec::new()];
    for round in 0..ROUNDS {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for v in order {
            vmx::set_impl(if v == 0 {
                vmx::Impl::Fast
            } else {
                vmx::Impl::Reference
            });
            t[v].push(vmx_once(f));
        }
    }
    vmx::set_impl(vmx::Impl::Fast);
    let (fast, reference) = (median(&mut t[0]), median(&mut t[1]));
    println!(
        "  {name:<9} fast {fast:6.2} ns   reference {reference:6.2} ns   {:5.1}x",
        reference / fast
    );
}

fn vmx_once(f: &impl Fn(V128, V128, V128) -> V128) -> f64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u128;
    let vs: Vec<V128> = (0..1024)
        .map(|_| {
            x = x
                .wrapping_mul(0x2545_F491_4F6C_DD1D_2545_F491_4F6C_DD1D)
                .wrapping_add(1);
            // Floats of magnitude 2^-7..2^8, what game math works with.
            let w = |k: u32| {
                ((x >> (32 * k)) as u32 & 0x807F_FFFF)
                    | (120 + (x >> (32 * k + 23)) as u32 % 16) << 23
            };
            vmx::from_words([w(0), w(1), w(2), w(3)])
        })
        .collect();
    let t0 = Instant::now();
    let mut acc = V128(0);
    for _ in 0..(N / 1024) {
        for w in vs.windows(3) {
            // Independent calls (throughput); results folded so none is dead.
            acc = V128(acc.0 ^ f(black_box(w[0]), w[1], w[2]).0);
        }
    }
    black_box(acc);
    t0.elapsed().as_secs_f64() * 1e9 / ((N / 1024) * 1022) as f64
}

fn main() {
    let xs = inputs();
    println!("FPU helpers (ns per op, median of {ROUNDS} alternating rounds, {N} ops each):");
    ab("fadd", &xs, |f, a, b, _| fpu::fadd(f, a, b));
    ab("fadds", &xs, |f, a, b, _| fpu::fadds(f, a, b));
    ab("fmul", &xs, |f, a, b, _| fpu::fmul(f, a, b));
    ab("fmuls", &xs, |f, a, b, _| fpu::fmuls(f, a, b));
    ab("fdivs", &xs, |f, a, b, _| fpu::fdivs(f, a, b));
    ab("fmadds", &xs, |f, a, b, c| fpu::fmadds(f, a, c, b));
    ab("fmadd", &xs, |f, a, b, c| fpu::fmadd(f, a, c, b));
    ab("frsp", &xs, |f, a, _, _| fpu::frsp(f, a));
    ab("fctiwz", &xs, |f, a, _, _| fpu::fctiwz(f, a * 1e3));
    println!("VMX helpers (ns per op, SIMD forms against the scalar reference):");
    vmx_time("vaddfp", |a, b, _| vmx::vaddfp(0x1_0000, a, b));
    vmx_time("vmaddfp", |a, b, c| vmx::vmaddfp(0x1_0000, a, b, c));
    vmx_time("vperm", vmx::vperm);
    vmx_time("vsldoi", |a, b, _| vmx::vsldoi(a, b, 5));
    vmx_time("vadduwm", |a, b, _| vmx::vadduwm(a, b));
    vmx_time("vmrghw", |a, b, _| vmx::vmrghw(a, b));
    vmx_time("vspltw", |a, _, _| vmx::vspltw(a, 2));
    vmx_time("vcmpgtfp", |a, b, _| vmx::vcmpgtfp(0x1_0000, a, b));
    vmx_time("vctsxs", |a, _, _| {
        let mut s = 0;
        vmx::vctsxs(&mut s, a, 0)
    });
    vmx_time("vsel", vmx::vsel);
}
