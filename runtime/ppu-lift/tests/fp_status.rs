//! FP status elision: the emitter calls `fpu::status_dead` only where a
//! later operation of the same block overwrites FI, FR and FPRF with
//! nothing between that reads the FPSCR, and never when the option is off.

mod common;

use common::{BASE, image};
use ppu_lift::analysis;
use ppu_lift::emit::{Callees, EmitOptions, emit_function};

struct NoCallees;
impl Callees for NoCallees {
    fn call(&mut self, _: u32) -> Option<String> {
        None
    }
}

const FADD: u32 = 0xFC22_182A; // fadd f1,f2,f3
const FMUL: u32 = 0xFC81_0172; // fmul f4,f1,f5
const FADD_RC: u32 = FADD | 1; // fadd. f1,f2,f3
const MFFS: u32 = 0xFCC0_048E; // mffs f6
const FCMPU: u32 = 0xFC01_1000; // fcmpu cr0,f1,f2
const LFD: u32 = 0xC8E3_0000; // lfd f7,0(r3)
const BLR: u32 = 0x4E80_0020;

/// The Rust the emitter writes for a function made of `words`.
fn lift(words: &[u32], opts: &EmitOptions) -> String {
    let img = image(words);
    let (f, _) = analysis::function(&img, BASE, 0, &analysis::Options::default());
    emit_function(&f, &mut NoCallees, opts)
}

fn dead(words: &[u32]) -> usize {
    lift(words, &EmitOptions::default())
        .matches("fpu::status_dead::")
        .count()
}

#[test]
fn only_operations_whose_status_is_overwritten_skip_it() {
    // fadd's status is overwritten by fmul (a load between reads nothing);
    // fmul's reaches the block's end.
    assert_eq!(dead(&[FADD, LFD, FMUL, BLR]), 1);
    let text = lift(&[FADD, FMUL, BLR], &EmitOptions::default());
    assert!(text.contains("fpu::status_dead::fadd("), "{text}");
    assert!(text.contains("fpu::fmul("), "{text}");
    // Something reads the FPSCR, or writes part of it, before the next writer.
    assert_eq!(dead(&[FADD, MFFS, FMUL, BLR]), 0);
    assert_eq!(dead(&[FADD, FCMPU, FMUL, BLR]), 0);
    // Rc=1 copies the status into CR1 itself.
    assert_eq!(dead(&[FADD_RC, FMUL, BLR]), 0);
    // The reference: off.
    let exact = EmitOptions {
        fp_status_elision: false,
        ..EmitOptions::default()
    };
    assert!(!lift(&[FADD, FMUL, BLR], &exact).contains("status_dead"));
}
