//! ABI trust at calls and returns (`EmitOptions::abi_trust`): volatile
//! registers the ABI gives no meaning are neither written back nor
//! reloaded, except around functions that read them; `mfcr` reads the
//! volatile CR bits nothing has written since the entry as 0; program facts
//! (XER\[SO\] never set, one thread) shape the code; `--no-abi-trust` is
//! the reference that writes back everything.

mod common;

use common::{BASE, image};
use ppu_lift::analysis;
use ppu_lift::emit::{Callees, EmitOptions, emit_copy, emit_function};

/// Callees with settable answers.
#[derive(Default)]
struct Facts {
    non_abi: Vec<u32>,
    exact_return: Vec<u32>,
    so_never_set: bool,
    single_thread: bool,
    small: Vec<u32>,
}

impl Callees for Facts {
    fn call(&mut self, _: u32) -> Option<String> {
        None
    }
    fn abi_entry(&self, entry: u32) -> bool {
        !self.non_abi.contains(&entry)
    }
    fn exact_return(&self, entry: u32) -> bool {
        self.exact_return.contains(&entry)
    }
    fn summary_overflow_never_set(&self) -> bool {
        self.so_never_set
    }
    fn single_thread(&self) -> bool {
        self.single_thread
    }
    fn inline(&self, entry: u32) -> bool {
        self.small.contains(&entry)
    }
}

const BLR: u32 = 0x4E80_0020;
const LI_R0: u32 = 0x3800_0001; // li r0,1
const LI_R3: u32 = 0x3860_0003; // li r3,3
const LI_R5: u32 = 0x38A0_0005; // li r5,5
const LI_R31: u32 = 0x3BE0_001F; // li r31,31
const CMPWI_CR0: u32 = 0x2C03_0000; // cmpwi r3,0
const CMPWI_CR7: u32 = 0x2F83_0000; // cmpwi cr7,r3,0
const MFCR_R12: u32 = 0x7D80_0026; // mfcr r12
const MFLR_R0: u32 = 0x7C08_02A6; // mflr r0
const MTLR_R0: u32 = 0x7C08_03A6; // mtlr r0
const ADDO: u32 = 0x7C64_2E14; // addo r3,r4,r5

/// The Rust the emitter writes for a function made of `words`.
fn lift(words: &[u32], opts: &EmitOptions, facts: &mut Facts) -> String {
    let img = image(words);
    let (f, _) = analysis::function(&img, BASE, 0, &analysis::Options::default());
    emit_function(&f, facts, opts)
}

fn trust() -> EmitOptions {
    EmitOptions::default()
}

fn exact() -> EmitOptions {
    EmitOptions {
        abi_trust: false,
        ..EmitOptions::default()
    }
}

/// `bl` from `at` to `to`.
fn bl(at: u32, to: u32) -> u32 {
    0x4800_0001 | (to.wrapping_sub(at) & 0x03FF_FFFC)
}

/// The line with the return (`ctx.cia = (lr ...`).
fn return_line(text: &str) -> &str {
    text.lines()
        .find(|l| l.contains("ctx.cia = (lr as u32) & !3;"))
        .unwrap_or_else(|| panic!("no return in\n{text}"))
}

/// The line after the first line containing `marker`.
fn line_after<'a>(text: &'a str, marker: &str) -> &'a str {
    text.lines()
        .skip_while(|l| !l.contains(marker))
        .nth(1)
        .unwrap_or_else(|| panic!("no {marker} in\n{text}"))
}

#[test]
fn returns_write_back_results_and_nonvolatile_registers_only() {
    let words = [LI_R0, LI_R5, LI_R3, LI_R31, CMPWI_CR0, CMPWI_CR7, BLR];
    let text = lift(&words, &trust(), &mut Facts::default());
    let ret = return_line(&text);
    assert!(ret.contains("ctx.gpr[3] = r3;"), "{ret}");
    assert!(ret.contains("ctx.gpr[31] = r31;"), "{ret}");
    for dead in ["ctx.gpr[0]", "ctx.gpr[5]", "ctx.cr[0]", "ctx.cr[28]"] {
        assert!(!ret.contains(dead), "{dead} written back: {ret}");
    }
    // The reference writes back everything it wrote.
    let text = lift(&words, &exact(), &mut Facts::default());
    let ret = return_line(&text);
    for all in [
        "ctx.gpr[0] = r0;",
        "ctx.gpr[5] = r5;",
        "ctx.cr[0] = c0;",
        "ctx.cr[28] = c28;",
    ] {
        assert!(ret.contains(all), "{all} missing: {ret}");
    }
    // A function some caller reads volatile registers after returns them all.
    let mut facts = Facts {
        exact_return: vec![BASE],
        ..Facts::default()
    };
    let text = lift(&words, &trust(), &mut facts);
    assert!(return_line(&text).contains("ctx.gpr[5] = r5;"), "{text}");
}

#[test]
fn calls_write_back_possible_inputs_and_reload_results_only() {
    // mflr r0; li r5; li r0; bl callee; mtlr r0 (reads r0 after the call,
    // where the ABI gives it no meaning); blr.
    let callee = BASE + 0x100;
    let words = [MFLR_R0, LI_R5, LI_R0, bl(BASE + 12, callee), MTLR_R0, BLR];
    let text = lift(&words, &trust(), &mut Facts::default());
    let flush = line_after(&text, "lr = 0x10010;");
    assert!(
        flush.contains("ctx.gpr[5] = r5;"),
        "argument r5 not written back: {flush}"
    );
    assert!(
        !flush.contains("ctx.gpr[0]"),
        "r0 written back before the call: {flush}"
    );
    let after = line_after(&text, "rt.call(ctx, 0x10100)");
    assert!(
        !after.contains("r0 = ctx.gpr[0]"),
        "r0 reloaded after the call: {after}"
    );
    // A callee that reads r0 on entry (millicode) gets everything.
    let mut facts = Facts {
        non_abi: vec![callee],
        ..Facts::default()
    };
    let text = lift(&words, &trust(), &mut facts);
    let flush = line_after(&text, "lr = 0x10010;");
    assert!(flush.contains("ctx.gpr[0] = r0;"), "{flush}");
    // The reference reloads r0.
    let text = lift(&words, &exact(), &mut Facts::default());
    assert!(text.contains("r0 = ctx.gpr[0]"), "{text}");
}

#[test]
fn mfcr_reads_unwritten_volatile_cr_bits_as_zero() {
    // cmpwi cr7 writes CR7; CR0 and CR1 hold nothing since the entry.
    let words = [CMPWI_CR7, MFCR_R12, BLR];
    let text = lift(&words, &trust(), &mut Facts::default());
    let line = text.lines().find(|l| l.starts_with("r12 =")).expect("mfcr");
    assert!(line.contains("u64::from(c28) << 3"), "{line}");
    assert!(
        line.contains("u64::from(c8) << 23"),
        "CR2 (nonvolatile) not read: {line}"
    );
    assert!(!line.contains("u64::from(c0)"), "CR0 read: {line}");
    // The reference reads every bit.
    let text = lift(&words, &exact(), &mut Facts::default());
    let line = text.lines().find(|l| l.starts_with("r12 =")).expect("mfcr");
    assert!(line.contains("u64::from(c0) << 31"), "{line}");
}

#[test]
fn summary_overflow_is_constant_where_nothing_sets_it() {
    assert!(!analysis::may_set_summary_overflow(&image(&[
        CMPWI_CR0, BLR
    ])));
    assert!(analysis::may_set_summary_overflow(&image(&[ADDO, BLR])));
    let mut facts = Facts {
        so_never_set: true,
        ..Facts::default()
    };
    let text = lift(&[CMPWI_CR0, BLR], &trust(), &mut facts);
    assert!(text.contains("= 0u8; }"), "{text}");
    assert!(!text.contains("ctx.xer_so"), "{text}");
    let text = lift(&[CMPWI_CR0, BLR], &trust(), &mut Facts::default());
    assert!(text.contains("let mut so = ctx.xer_so;"), "{text}");
}

#[test]
fn single_threaded_programs_use_the_single_threaded_view() {
    let mut facts = Facts {
        single_thread: true,
        ..Facts::default()
    };
    assert!(lift(&[BLR], &trust(), &mut facts).contains("let m = rt.view().single_threaded();"));
    assert!(lift(&[BLR], &trust(), &mut Facts::default()).contains("let m = rt.view();"));
}

#[test]
fn small_functions_inline_and_copies_are_private() {
    let img = image(&[LI_R3, BLR]);
    let (f, _) = analysis::function(&img, BASE, 0, &analysis::Options::default());
    let mut facts = Facts {
        small: vec![BASE],
        ..Facts::default()
    };
    let text = emit_function(&f, &mut facts, &trust());
    assert!(
        text.contains("#[inline]\n#[unsafe(no_mangle)]\npub fn p_00010000("),
        "{text}"
    );
    let text = emit_function(&f, &mut Facts::default(), &trust());
    assert!(!text.contains("#[inline]"), "{text}");
    let copy = emit_copy(&f, &mut facts, &trust());
    assert!(
        copy.contains("#[inline]\nfn c_00010000(ctx: &mut PpuContext, rt: &Rt) {"),
        "{copy}"
    );
    assert!(!copy.contains("no_mangle"), "{copy}");
}
