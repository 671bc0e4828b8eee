//! Interpreter behaviour outside the qemu cases: stops (sc, branch hooks,
//! budget, faults, unknown words, traps), the Cell-only instructions, the
//! time base, ISA points where qemu differs, and several guest threads
//! sharing memory and reservations.

use std::sync::Arc;

use guest_mem::{CheckMode, FaultKind, GuestMemory, Prot};
use ppu_cpu::helpers::{fpu, vmx};
use ppu_cpu::{BranchKind, Flow, Hooks, Interpreter, NoHooks, PpuContext, Stop, TimeBase, V128};

const CODE: u32 = 0x1_0000;
const DATA: u32 = 0x2_0000;

fn d(op: u32, rt: u32, ra: u32, imm: u32) -> u32 {
    op << 26 | rt << 21 | ra << 16 | (imm & 0xFFFF)
}
fn x(rt: u32, ra: u32, rb: u32, xo: u32, rc: u32) -> u32 {
    31 << 26 | rt << 21 | ra << 16 | rb << 11 | xo << 1 | rc
}
fn addi(rt: u32, ra: u32, si: i32) -> u32 {
    d(14, rt, ra, si as u32)
}
fn vx(vd: u32, va: u32, vb: u32, xo: u32) -> u32 {
    4 << 26 | vd << 21 | va << 16 | vb << 11 | xo
}
const SC: u32 = 0x4400_0002;
const TRAP: u32 = 0x7fe0_0008;

fn setup(code: &[u32]) -> (GuestMemory, PpuContext) {
    let mem = GuestMemory::with_mode(CheckMode::Both).unwrap();
    mem.map(CODE, 0x1_0000, Prot::RX).unwrap();
    mem.map(DATA, 0x1_0000, Prot::RW).unwrap();
    let bytes: Vec<u8> = code.iter().flat_map(|w| w.to_be_bytes()).collect();
    mem.host_write(CODE, &bytes).unwrap();
    let mut ctx = PpuContext::new();
    ctx.cia = CODE;
    (mem, ctx)
}

#[test]
fn sc_stops_with_the_resume_address() {
    let (mem, mut ctx) = setup(&[addi(11, 0, 988), addi(3, 0, 7), SC, addi(3, 3, 1)]);
    let i = Interpreter::new(&mem);
    let e = i.run(&mut ctx, 100, &mut NoHooks);
    assert_eq!(e.stop, Stop::Syscall { addr: CODE + 8 });
    assert_eq!(
        (e.steps, ctx.cia, ctx.gpr[11], ctx.gpr[3]),
        (3, CODE + 12, 988, 7)
    );
    ctx.gpr[3] = 100; // the syscall's result
    assert_eq!(i.run(&mut ctx, 1, &mut NoHooks).stop, Stop::Budget);
    assert_eq!(ctx.gpr[3], 101);
}

#[test]
fn unknown_word_and_fault_stop_at_the_instruction() {
    let (mem, mut ctx) = setup(&[addi(4, 0, 0x40), d(32, 3, 4, 0), 0x7c00_030e]);
    let i = Interpreter::new(&mem);
    ctx.gpr[3] = 55;
    let e = i.run(&mut ctx, 100, &mut NoHooks);
    match e.stop {
        Stop::Fault(f) => {
            assert_eq!(
                (f.addr, f.size, f.kind, f.pc),
                (0x40, 4, FaultKind::Unmapped, Some(CODE + 4))
            );
            assert!(
                e.stop.to_string().contains("guest address 0x00000040"),
                "{}",
                e.stop
            );
        }
        s => panic!("{s:?}"),
    }
    assert_eq!(
        (ctx.cia, ctx.gpr[3]),
        (CODE + 4, 55),
        "the faulting load had no effect"
    );
    ctx.cia = CODE + 8;
    let e = i.run(&mut ctx, 100, &mut NoHooks);
    match e.stop {
        Stop::Decode(err) => assert_eq!((err.addr, err.word), (CODE + 8, 0x7c00_030e)),
        s => panic!("{s:?}"),
    }
    assert!(
        e.stop
            .to_string()
            .contains("unknown instruction at 0x00010008")
    );
    // Executing data: a fetch from a page without execute permission faults.
    ctx.cia = DATA;
    assert!(
        matches!(i.run(&mut ctx, 1, &mut NoHooks).stop, Stop::Fault(f) if f.kind == FaultKind::Unmapped)
    );
}

#[test]
fn trap_and_budget() {
    let (mem, mut ctx) = setup(&[addi(3, 0, 1), addi(3, 3, 1), TRAP]);
    let i = Interpreter::new(&mem);
    assert_eq!(
        i.run(&mut ctx, 2, &mut NoHooks),
        ppu_cpu::Exit {
            stop: Stop::Budget,
            steps: 2
        }
    );
    assert_eq!((ctx.gpr[3], ctx.cia), (2, CODE + 8));
    assert_eq!(
        i.run(&mut ctx, 5, &mut NoHooks).stop,
        Stop::Trap {
            addr: CODE + 8,
            word: TRAP
        }
    );
}

/// Stops at calls into a "lifted" region and counts returns.
struct Calls {
    lifted: u32,
    returns: usize,
}
impl Hooks for Calls {
    fn branch(&mut self, _: &PpuContext, _from: u32, to: u32, kind: BranchKind) -> Flow {
        if kind == BranchKind::Return {
            self.returns += 1;
        }
        if to == self.lifted {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

#[test]
fn hooks_take_over_branches() {
    // 0: bl +12 (to 12); 4: bl +0x100 (lifted); 8: sc; 12: blr
    let (mem, mut ctx) = setup(&[0x4800_000d, 0x4800_0101, SC, 0x4e80_0020]);
    let i = Interpreter::new(&mem);
    let mut h = Calls {
        lifted: CODE + 0x104,
        returns: 0,
    };
    let e = i.run(&mut ctx, 100, &mut h);
    assert_eq!(
        e.stop,
        Stop::Branch {
            from: CODE + 4,
            to: CODE + 0x104,
            kind: BranchKind::Call
        }
    );
    assert_eq!(
        (ctx.cia, ctx.lr, h.returns),
        (CODE + 0x104, u64::from(CODE + 8), 1)
    );
    // The lifted function "returns": continue at LR.
    ctx.cia = ctx.lr as u32;
    assert_eq!(
        i.run(&mut ctx, 100, &mut h).stop,
        Stop::Syscall { addr: CODE + 8 }
    );
}

#[test]
fn time_base_counts_at_the_given_frequency() {
    // mftb r3; mfspr r4,269 (TBU); mftb r5
    let (mem, mut ctx) = setup(&[0x7c6c_42e6, 0x7c8d_42a6, 0x7cac_42e6]);
    let tb = TimeBase::starting_at(ppu_cpu::PS3_TIMEBASE_HZ, 5 << 32);
    assert_eq!(tb.frequency(), 79_800_000);
    let i = Interpreter::with_timebase(&mem, tb);
    i.run(&mut ctx, 3, &mut NoHooks);
    assert!(
        ctx.gpr[3] >= 5 << 32 && ctx.gpr[5] >= ctx.gpr[3],
        "{:#x} {:#x}",
        ctx.gpr[3],
        ctx.gpr[5]
    );
    assert_eq!(ctx.gpr[4], 5);
}

#[test]
fn lvlx_lvrx_load_an_unaligned_quadword_and_stvlx_stvrx_store_one() {
    let (mem, _) = setup(&[]);
    let bytes: Vec<u8> = (0u8..64).collect();
    mem.write_bytes(DATA, &bytes).unwrap();
    for off in 0..16u32 {
        // lvlx v1,0,r3; lvrx v2,r3,r4 (r4 = 16); vor v3,v1,v2;
        // stvlx v3,0,r5; stvrx v3,r5,r4
        let code = [
            x(1, 0, 3, 519, 0),
            x(2, 3, 4, 551, 0),
            vx(3, 1, 2, 1156),
            x(3, 0, 5, 647, 0),
            x(3, 5, 4, 679, 0),
        ];
        let (m2, mut ctx) = setup(&code);
        m2.write_bytes(DATA, &bytes).unwrap();
        ctx.gpr[3] = u64::from(DATA + off);
        ctx.gpr[4] = 16;
        ctx.gpr[5] = u64::from(DATA + 0x100 + (15 - off));
        Interpreter::new(&m2).run(&mut ctx, 5, &mut NoHooks);
        let want = u128::from_be_bytes(bytes[off as usize..off as usize + 16].try_into().unwrap());
        assert_eq!(ctx.vr[3].0, want, "offset {off}");
        let mut out = [0u8; 16];
        m2.read_bytes(DATA + 0x100 + (15 - off), &mut out).unwrap();
        assert_eq!(
            u128::from_be_bytes(out),
            want,
            "store at offset {}",
            15 - off
        );
    }
    // lvrx at an aligned address loads nothing (zeros), lvlx the whole quadword.
    assert_eq!(vmx::load_right(V128(u128::MAX), 0x20), V128(0));
    assert_eq!(vmx::load_left(V128(7), 0x20), V128(7));
}

#[test]
fn dcbz_clears_128_bytes() {
    let (mem, mut ctx) = setup(&[x(0, 3, 4, 1014, 0)]);
    mem.fill(DATA, 0x200, 0xFF).unwrap();
    ctx.gpr[3] = u64::from(DATA);
    ctx.gpr[4] = 0x90;
    Interpreter::new(&mem).run(&mut ctx, 1, &mut NoHooks);
    let mut b = [0u8; 0x200];
    mem.read_bytes(DATA, &mut b).unwrap();
    assert!(b[..0x80].iter().all(|&v| v == 0xFF));
    assert!(b[0x80..0x100].iter().all(|&v| v == 0));
    assert!(b[0x100..].iter().all(|&v| v == 0xFF));
}

#[test]
fn fpscr_points_where_the_isa_and_qemu_differ() {
    // mtfsb1 of an exception bit sets FX (ISA; qemu does not).
    let mut f = 0;
    fpu::mtfsb1(&mut f, 5); // ZX
    assert_eq!(f, fpu::bits::FX | fpu::bits::ZX);
    // mtfsb1 cannot set FEX or VX.
    let mut f = 0;
    fpu::mtfsb1(&mut f, 1);
    fpu::mtfsb1(&mut f, 2);
    assert_eq!(f, 0);
    // fres(±0) = ±inf with ZX (qemu returns ±0.5).
    let mut f = 0;
    assert_eq!(fpu::fres(&mut f, -0.0), f64::NEG_INFINITY);
    assert_ne!(f & fpu::bits::ZX, 0);
    // FR: set when rounding incremented the fraction (qemu never sets it).
    for imp in [fpu::Impl::Reference, fpu::Impl::Fast] {
        fpu::set_impl(imp);
        let mut f = 0;
        let r = fpu::fadd(&mut f, 1.0, f64::from_bits(0x3CA8_0000_0000_0000)); // 1 + 1.5 ulp/2
        assert_eq!(r, f64::from_bits(0x3FF0_0000_0000_0001));
        assert_eq!(
            f & (fpu::bits::FR | fpu::bits::FI | fpu::bits::XX),
            fpu::bits::FR | fpu::bits::FI | fpu::bits::XX
        );
        let mut f = 0;
        fpu::fadd(&mut f, 1.0, f64::from_bits(0x3C90_0000_0000_0000)); // rounds down
        assert_eq!(f & (fpu::bits::FR | fpu::bits::FI), fpu::bits::FI);
    }
}

#[test]
fn mffs_variants_do_not_change_the_rounding_mode() {
    // mffscrni f1,3 (an ISA 3.0 encoding): on the Cell, mffs.
    let (mem, mut ctx) = setup(&[0xfc37_1c8e]);
    ctx.fpscr = 0x0000_1001;
    Interpreter::new(&mem).run(&mut ctx, 1, &mut NoHooks);
    assert_eq!((ctx.fpscr, ctx.fpr_bits(1)), (0x0000_1001, 0x0000_1001));
}

#[test]
fn vmx_estimates_are_within_the_architected_accuracy() {
    let w = |v: V128| vmx::words(v).map(f32::from_bits);
    let v = vmx::from_words([3.0f32, -1.0, 0.5, 10.25].map(f32::to_bits));
    let e = w(vmx::vexptefp(0, v));
    for (got, x) in e.iter().zip([3.0f32, -1.0, 0.5, 10.25]) {
        let want = x.exp2();
        assert!(((got - want) / want).abs() < 1.0 / 16.0, "2^{x}: {got}");
    }
    let l = w(vmx::vlogefp(
        0,
        vmx::from_words([8.0f32, 0.25, 3.0, 1.0].map(f32::to_bits)),
    ));
    assert_eq!(l[0], 3.0);
    assert_eq!(l[1], -2.0);
    assert!((l[2] - 3f32.log2()).abs() < 1.0 / 32.0);
    assert_eq!(l[3], 0.0);
    // NaN in, quiet NaN out.
    assert_eq!(
        vmx::words(vmx::vexptefp(0, vmx::from_words([0x7F80_0001; 4])))[0],
        0x7FC0_0001
    );
}

#[test]
fn nj_mode_flushes_denormals() {
    let tiny = vmx::from_words([0x0000_0001, 0x8000_0001, 0x3F80_0000, 0x0040_0000]);
    let one = vmx::from_words([0; 4]);
    let nj = vmx::words(vmx::vaddfp(ppu_cpu::VSCR_NJ, tiny, one));
    // -denormal flushes to -0, and -0 + +0 is +0.
    assert_eq!(nj, [0, 0, 0x3F80_0000, 0]);
    let java = vmx::words(vmx::vaddfp(0, tiny, one));
    assert_eq!(java, [1, 0x8000_0001, 0x3F80_0000, 0x0040_0000]);
}

#[test]
fn guest_threads_share_memory_and_reservations() {
    // loop: lwarx r5,0,r3; addi r5,r5,1; stwcx. r5,0,r3; bne- loop;
    //       addi r4,r4,-1; cmpwi r4,0; bne loop; sc
    let code = [
        x(5, 0, 3, 20, 0),
        addi(5, 5, 1),
        x(5, 0, 3, 150, 1),
        0x40c2_fff4, // bne- -12
        addi(4, 4, -1),
        0x2c04_0000, // cmpwi r4,0
        0x4082_ffe8, // bne -24
        SC,
    ];
    let (mem, _) = setup(&code);
    let mem = Arc::new(mem);
    mem.write_u32(DATA, 0);
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let mem = Arc::clone(&mem);
            std::thread::spawn(move || {
                let mut ctx = PpuContext::new();
                ctx.cia = CODE;
                ctx.gpr[3] = u64::from(DATA);
                ctx.gpr[4] = 2000;
                let e = Interpreter::new(&mem).run(&mut ctx, u64::MAX, &mut NoHooks);
                assert_eq!(e.stop, Stop::Syscall { addr: CODE + 28 });
                mem.clear_reservation(&mut ctx.reservation);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(mem.read_u32(DATA), 6000);
}
