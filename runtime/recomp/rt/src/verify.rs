//! `--verify`: lifted code checked against the interpreter.
//!
//! The interpreter runs the same program in lockstep on a second guest
//! memory (the shadow). Each time lifted code enters a function, the shadow
//! runs until it reaches the same address; then every register is compared,
//! and every byte the shadow stored since the last check is compared with
//! the lifted side's memory. At each system call both sides must arrive at
//! the same `sc`; all mapped memory and the page protections are compared,
//! the call runs once (on the lifted side), and its effects (registers,
//! memory, mappings) are copied to the shadow. The first difference ends the
//! run with a report naming the register or address and the guest PCs
//! between which it arose.

use guest_mem::{CheckMode, GuestMemory, PAGE_SHIFT, PAGE_SIZE, Prot};
use ppu_cpu::{Interpreter, PpuContext, Stop, TimeBase};
use ppu_isa::{Instr, Op};

/// Steps the shadow may take to reach the next event before the run is
/// declared diverged.
const MAX_STEPS_PER_EVENT: u64 = 1 << 34;

/// The shadow interpreter and what it has done since the last check.
pub struct Verifier {
    shadow: &'static GuestMemory,
    sctx: PpuContext,
    interp: Interpreter<'static>,
    /// (address, length) stored by the shadow since the last check.
    stores: Vec<(u32, u32)>,
    last_event: u32,
    /// The shadow sits on an address already matched to an event: the
    /// next event needs at least one step first.
    matched: bool,
    events: u64,
    syscalls: u64,
    hle_calls: u64,
    steps: u64,
    /// The lifted code trusts the ABI at calls ([`Compared`]).
    abi: bool,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.summary())
    }
}

/// The bytes of mapped, readable guest page `page` (host pages of mapped
/// readable guest pages are always host-readable).
fn page_bytes(mem: &GuestMemory, page: usize) -> Option<&[u8]> {
    let addr = (page << PAGE_SHIFT) as u32;
    if !mem.prot_at(addr).contains(Prot::READ) {
        return None;
    }
    // SAFETY: the page is mapped and readable (see above) and lies inside
    // the reservation; guest stores to it during the borrow are the
    // guest's own business (the verifier runs while the guest is stopped).
    Some(unsafe {
        std::slice::from_raw_parts(mem.base_ptr().add(page << PAGE_SHIFT), PAGE_SIZE as usize)
    })
}

impl Verifier {
    /// A verifier whose shadow starts as a copy of `mem` and `ctx`.
    /// `abi`: the lifted code was emitted trusting the ABI at calls
    /// (`ppu_lift::EmitOptions::abi_trust`), which leaves volatile registers
    /// the ABI gives no meaning stale in the context: the comparisons then
    /// cover the nonvolatile registers (and LR at a function's entry, r0 at
    /// a system call, [`Compared`]), the shadow takes the lifted side's
    /// volatile registers at each entry, and a wrong value in one is found
    /// where it reaches memory or a nonvolatile register. Code lifted
    /// without ABI trust is compared register for register.
    pub fn new(
        mem: &GuestMemory,
        ctx: &PpuContext,
        timebase: TimeBase,
        abi: bool,
    ) -> Result<Verifier, String> {
        let shadow: &'static GuestMemory = Box::leak(Box::new(
            GuestMemory::with_mode(CheckMode::Checked)
                .map_err(|e| format!("verify: shadow memory: {e}"))?,
        ));
        let mut v = Verifier {
            shadow,
            sctx: ctx.clone(),
            interp: Interpreter::with_timebase(shadow, timebase),
            stores: Vec::new(),
            last_event: ctx.cia,
            matched: false,
            events: 0,
            syscalls: 0,
            hle_calls: 0,
            steps: 0,
            abi,
        };
        v.sctx.reservation = Default::default();
        v.sync_memory(mem);
        Ok(v)
    }

    /// Whether the lifted code trusts the ABI at calls (see [`Verifier::new`]).
    pub fn abi(&self) -> bool {
        self.abi
    }

    /// What was checked.
    pub fn summary(&self) -> String {
        format!(
            "verify: {} function entries, {} system calls and {} HLE calls checked against the interpreter ({} instructions interpreted); no difference",
            self.events, self.syscalls, self.hle_calls, self.steps
        )
    }

    /// Makes the shadow's mappings and bytes equal to `mem`'s.
    fn sync_memory(&mut self, mem: &GuestMemory) {
        for page in 1..guest_mem::PAGE_COUNT {
            let addr = (page << PAGE_SHIFT) as u32;
            let (pa, pb) = (mem.prot_at(addr), self.shadow.prot_at(addr));
            if pa != pb {
                if pa.is_empty() {
                    let _ = self.shadow.unmap(addr, u64::from(PAGE_SIZE));
                } else {
                    let _ = self.shadow.map(addr, u64::from(PAGE_SIZE), pa);
                }
            }
            if let Some(a) = page_bytes(mem, page)
                && page_bytes(self.shadow, page) != Some(a)
            {
                let _ = self.shadow.host_write(addr, a);
            }
        }
    }

    /// The first difference between all of `mem` and the shadow.
    fn diff_memory(&self, mem: &GuestMemory) -> Option<String> {
        for page in 1..guest_mem::PAGE_COUNT {
            let addr = (page << PAGE_SHIFT) as u32;
            let (pa, pb) = (mem.prot_at(addr), self.shadow.prot_at(addr));
            if pa != pb {
                return Some(format!(
                    "page {addr:#010x}: lifted side {pa:?}, interpreter {pb:?}"
                ));
            }
            if let (Some(a), Some(b)) = (page_bytes(mem, page), page_bytes(self.shadow, page))
                && a != b
            {
                let k = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(0);
                return Some(format!(
                    "memory at {:#010x}: lifted side {:#04x}, interpreter {:#04x}",
                    addr + k as u32,
                    a[k],
                    b[k]
                ));
            }
        }
        None
    }

    /// The first difference in the bytes the shadow stored since the last check.
    fn diff_stores(&mut self, mem: &GuestMemory) -> Option<String> {
        let stores = std::mem::take(&mut self.stores);
        for (addr, len) in stores {
            for k in 0..len {
                let a = addr.wrapping_add(k);
                let (x, y) = (mem.try_read_u8(a).ok(), self.shadow.try_read_u8(a).ok());
                if x != y {
                    return Some(format!(
                        "memory at {a:#010x}: lifted side {x:02x?}, interpreter {y:02x?}"
                    ));
                }
            }
        }
        None
    }

    fn report(&self, what: &str, at: &str, diff: String) -> String {
        format!(
            "verify: {diff}\n  found {at}; the difference arose after the lifted code entered {:#010x} \
             (the last check that passed), interpreter at {:#010x}",
            self.last_event, self.sctx.cia
        ) + what
    }

    /// Runs the shadow until it is about to execute `pc` (an `sc` when
    /// `syscall`). The shadow records its stores on the way.
    fn advance(&mut self, pc: u32, syscall: bool) -> Result<(), String> {
        let mut n = 0u64;
        let mut step_first = std::mem::take(&mut self.matched);
        while step_first || self.sctx.cia != pc {
            step_first = false;
            let at = self.sctx.cia;
            let word = self
                .shadow
                .fetch_u32(at)
                .map_err(|f| format!("verify: the interpreter faulted: {f}"))?;
            let i = ppu_isa::decode_at(at, word)
                .map_err(|e| format!("verify: the interpreter stopped: {e}"))?;
            if i.op == Op::Sc {
                return Err(self.report(
                    "",
                    &format!(
                        "when the lifted code {} {pc:#010x}",
                        if syscall {
                            "made a system call at"
                        } else {
                            "entered"
                        }
                    ),
                    format!("the interpreter reached a system call at {at:#010x} first"),
                ));
            }
            if let Some(st) = store_range(&self.sctx, i) {
                self.stores.push(st);
            }
            match self.interp.step(&mut self.sctx) {
                Ok(()) => {}
                Err(Stop::Fault(f)) => return Err(format!("verify: the interpreter faulted: {f}")),
                Err(e) => {
                    return Err(format!(
                        "verify: the interpreter stopped at {at:#010x}: {e}"
                    ));
                }
            }
            n += 1;
            if n > MAX_STEPS_PER_EVENT {
                return Err(format!(
                    "verify: the interpreter did not reach {pc:#010x} in {n} instructions"
                ));
            }
        }
        self.steps += n;
        Ok(())
    }

    /// The lifted side entered the function at `addr`.
    pub fn at_entry(
        &mut self,
        mem: &GuestMemory,
        ctx: &PpuContext,
        addr: u32,
    ) -> Result<(), String> {
        self.advance(addr, false)?;
        let at = format!("at the entry of {addr:#010x}");
        if let Some(d) = diff_regs(ctx, &self.sctx, self.compared(Compared::entry())) {
            return Err(self.report("", &at, d));
        }
        if let Some(d) = self.diff_stores(mem) {
            return Err(self.report("", &at, d));
        }
        if self.abi {
            adopt_uncompared(&mut self.sctx, ctx, Compared::entry());
        }
        self.events += 1;
        self.last_event = addr;
        self.matched = true;
        Ok(())
    }

    /// The lifted side is about to make the system call at `pc`.
    pub fn before_syscall(
        &mut self,
        mem: &GuestMemory,
        ctx: &PpuContext,
        pc: u32,
    ) -> Result<(), String> {
        self.advance(pc, true)?;
        self.check_all(mem, ctx, pc, &format!("at the system call at {pc:#010x}"))?;
        self.syscalls += 1;
        Ok(())
    }

    /// The lifted side is about to run the HLE function (an import's
    /// implementation in the runtime) at `addr`, outside the executable's
    /// code: the shadow must arrive there with the same state, as at a
    /// system call; the call's effects then reach it by
    /// [`Verifier::after_syscall`].
    pub fn before_hle_call(
        &mut self,
        mem: &GuestMemory,
        ctx: &PpuContext,
        addr: u32,
    ) -> Result<(), String> {
        self.advance(addr, false)?;
        self.check_all(
            mem,
            ctx,
            addr,
            &format!("at the call of the HLE function at {addr:#010x}"),
        )?;
        self.hle_calls += 1;
        Ok(())
    }

    /// Compares every register and all mapped memory (before a call into
    /// the runtime, which the shadow does not run).
    fn check_all(
        &mut self,
        mem: &GuestMemory,
        ctx: &PpuContext,
        pc: u32,
        at: &str,
    ) -> Result<(), String> {
        if let Some(d) = diff_regs(ctx, &self.sctx, self.compared(Compared::call())) {
            return Err(self.report("", at, d));
        }
        self.stores.clear();
        if let Some(d) = self.diff_memory(mem) {
            return Err(self.report("", at, d));
        }
        self.last_event = pc;
        Ok(())
    }

    /// The system call (or HLE call) ran on the lifted side: its effects go
    /// to the shadow.
    pub fn after_syscall(&mut self, mem: &GuestMemory, ctx: &PpuContext) {
        let res = std::mem::take(&mut self.sctx.reservation);
        self.sctx = ctx.clone();
        self.sctx.reservation = res;
        self.matched = false;
        self.sync_memory(mem);
    }
}

/// Which registers a comparison covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compared {
    gpr: u32,
    fpr: u32,
    vr: u32,
    /// Of `cr_word()` (CR bit 0 is bit 31).
    cr_word: u32,
    lr: bool,
    ctr: bool,
    /// Of `xer()`.
    xer: u64,
}

impl Compared {
    /// Every register.
    pub const ALL: Compared = Compared {
        gpr: !0,
        fpr: !0,
        vr: !0,
        cr_word: !0,
        lr: true,
        ctr: true,
        xer: !0,
    };

    /// The registers the ABI says a callee preserves (r1, r2, r13-r31,
    /// f14-f31, v20-v31, CR2-CR4, XER\[SO\]; FPSCR, VSCR and VRSAVE are
    /// always compared).
    const NONVOLATILE: Compared = Compared {
        gpr: 0xffff_e006,
        fpr: 0xffff_c000,
        vr: 0xfff0_0000,
        cr_word: 0x00ff_f000,
        lr: false,
        ctr: false,
        xer: 1 << 31,
    };

    /// At a function's entry, in code that trusts the ABI: the nonvolatile
    /// registers and LR. The volatile ones, arguments included, may be
    /// stale on the lifted side (a varargs prologue stores all eight
    /// argument registers, whatever the caller passed).
    pub fn entry() -> Compared {
        Compared {
            lr: true,
            ..Compared::NONVOLATILE
        }
    }

    /// At a system call or a call into the runtime, in code that trusts the
    /// ABI: the nonvolatile registers and r0 (the system call number); the
    /// call's register effects come from the lifted side anyway.
    pub fn call() -> Compared {
        Compared {
            gpr: Compared::NONVOLATILE.gpr | 1,
            ..Compared::NONVOLATILE
        }
    }
}

impl Verifier {
    fn compared(&self, abi: Compared) -> Compared {
        if self.abi { abi } else { Compared::ALL }
    }
}

/// In code that trusts the ABI, the registers a check leaves out may be
/// stale on the lifted side (never written back) and are still stored by
/// code that saves them wholesale (a varargs prologue, `mfcr`): the shadow
/// takes the lifted side's values for them, so both go on from the same
/// state, except the volatile CR bits, which the shadow clears (lifted
/// `mfcr` reads those as 0 until they are written; a lifted read of one
/// that the ABI gives no meaning then shows as a difference).
fn adopt_uncompared(shadow: &mut PpuContext, lifted: &PpuContext, c: Compared) {
    for i in 0..32 {
        if c.gpr & (1 << i) == 0 {
            shadow.gpr[i] = lifted.gpr[i];
        }
        if c.fpr & (1 << i) == 0 {
            shadow.fpr[i] = lifted.fpr[i];
        }
        if c.vr & (1 << i) == 0 {
            shadow.vr[i] = lifted.vr[i];
        }
        if c.cr_word & (1 << (31 - i)) == 0 {
            shadow.cr[i] = 0;
        }
    }
    if !c.ctr {
        shadow.ctr = lifted.ctr;
    }
    if c.xer & (1 << 29) == 0 {
        shadow.xer_ca = lifted.xer_ca;
    }
    if c.xer & (1 << 30) == 0 {
        shadow.xer_ov = lifted.xer_ov;
    }
}

/// The first register that differs, of those `c` covers.
pub fn diff_regs(a: &PpuContext, b: &PpuContext, c: Compared) -> Option<String> {
    let d = |what: String, x: &dyn std::fmt::Debug, y: &dyn std::fmt::Debug| {
        Some(format!("{what}: lifted side {x:x?}, interpreter {y:x?}"))
    };
    for i in 0..32 {
        if a.gpr[i] != b.gpr[i] && c.gpr & (1 << i) != 0 {
            return d(format!("r{i}"), &a.gpr[i], &b.gpr[i]);
        }
    }
    for i in 0..32 {
        if a.fpr_bits(i) != b.fpr_bits(i) && c.fpr & (1 << i) != 0 {
            return d(format!("f{i} (bits)"), &a.fpr_bits(i), &b.fpr_bits(i));
        }
    }
    for i in 0..32 {
        if a.vr[i] != b.vr[i] && c.vr & (1 << i) != 0 {
            return d(format!("v{i}"), &a.vr[i], &b.vr[i]);
        }
    }
    if (c == Compared::ALL && a.cr != b.cr) || a.cr_word() & c.cr_word != b.cr_word() & c.cr_word {
        return d("cr".into(), &a.cr_word(), &b.cr_word());
    }
    if a.lr != b.lr && c.lr {
        return d("lr".into(), &a.lr, &b.lr);
    }
    if a.ctr != b.ctr && c.ctr {
        return d("ctr".into(), &a.ctr, &b.ctr);
    }
    if a.xer() & c.xer != b.xer() & c.xer {
        return d("xer".into(), &a.xer(), &b.xer());
    }
    if a.fpscr != b.fpscr {
        return d("fpscr".into(), &a.fpscr, &b.fpscr);
    }
    if a.vscr != b.vscr {
        return d("vscr".into(), &a.vscr, &b.vscr);
    }
    if a.vrsave != b.vrsave {
        return d("vrsave".into(), &a.vrsave, &b.vrsave);
    }
    None
}

/// The bytes instruction `i` may store when run in state `ctx` (a superset).
fn store_range(ctx: &PpuContext, i: Instr) -> Option<(u32, u32)> {
    use Op::*;
    let base = if i.ra() == 0 { 0 } else { ctx.gpr[i.ra()] };
    let d = base.wrapping_add(i.simm() as u64) as u32;
    let ds = base.wrapping_add(i.ds() as u64) as u32;
    let x = base.wrapping_add(ctx.gpr[i.rb()]) as u32;
    let du = ctx.gpr[i.ra()].wrapping_add(i.simm() as u64) as u32;
    let dsu = ctx.gpr[i.ra()].wrapping_add(i.ds() as u64) as u32;
    let xu = ctx.gpr[i.ra()].wrapping_add(ctx.gpr[i.rb()]) as u32;
    Some(match i.op {
        Stb => (d, 1),
        Sth => (d, 2),
        Stw | Stfs => (d, 4),
        Stfd => (d, 8),
        Std => (ds, 8),
        Stbu => (du, 1),
        Sthu => (du, 2),
        Stwu | Stfsu => (du, 4),
        Stfdu => (du, 8),
        Stdu => (dsu, 8),
        Stbx => (x, 1),
        Sthx | Sthbrx => (x, 2),
        Stwx | Stwbrx | Stfsx | Stfiwx | Stwcx => (x, 4),
        Stdx | Stfdx | Stdcx => (x, 8),
        Stbux => (xu, 1),
        Sthux => (xu, 2),
        Stwux | Stfsux => (xu, 4),
        Stdux | Stfdux => (xu, 8),
        Stmw => (d, 4 * (32 - i.rt() as u32)),
        Stswi => (base as u32, 32),
        Stswx => (x, 128),
        Stvx | Stvxl | Stvebx | Stvehx | Stvewx | Stvlx | Stvlxl | Stvrx | Stvrxl => (x & !15, 16),
        Dcbz => (x & !127, 128),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (PpuContext, PpuContext) {
        let mut a = PpuContext::new();
        for i in 0..32 {
            a.gpr[i] = i as u64;
        }
        (a.clone(), a)
    }

    #[test]
    fn abi_entry_checks_compare_nonvolatile_registers() {
        let at_entry = Compared::entry();
        // Argument and scratch registers, CR0, CTR: not compared.
        let (a, mut b) = pair();
        b.gpr[6] = 70;
        b.gpr[0] = 1;
        b.cr[0] = 1;
        b.ctr = 9;
        assert_eq!(diff_regs(&a, &b, at_entry), None);
        assert!(diff_regs(&a, &b, Compared::ALL).is_some());
        // A nonvolatile register, CR2, LR, the stack pointer: compared.
        for change in [
            |c: &mut PpuContext| c.gpr[31] = 99,
            |c: &mut PpuContext| c.gpr[1] = 99,
            |c: &mut PpuContext| c.cr[9] = 1,
            |c: &mut PpuContext| c.lr = 4,
            |c: &mut PpuContext| c.fpr[14] = 1.5,
        ] {
            let (a, mut b) = pair();
            change(&mut b);
            assert!(diff_regs(&a, &b, at_entry).is_some());
        }
        // At a system call r0 is compared, r3 not.
        let (a, mut b) = pair();
        b.gpr[3] = 99;
        assert_eq!(diff_regs(&a, &b, Compared::call()), None);
        b.gpr[0] = 99;
        assert!(diff_regs(&a, &b, Compared::call()).is_some());
    }

    #[test]
    fn the_shadow_adopts_what_an_entry_check_leaves_out() {
        let (mut lifted, mut shadow) = pair();
        lifted.gpr[6] = 70;
        lifted.gpr[3] = 33;
        lifted.ctr = 5;
        lifted.gpr[31] = 1;
        shadow.cr[0] = 1;
        shadow.cr[9] = 1;
        adopt_uncompared(&mut shadow, &lifted, Compared::entry());
        assert_eq!(shadow.gpr[6], 70, "uncompared register adopted");
        assert_eq!(shadow.gpr[3], 33);
        assert_eq!(shadow.gpr[31], 31, "compared register kept");
        assert_eq!(shadow.ctr, 5);
        assert_eq!(shadow.cr[0], 0, "volatile CR bit cleared");
        assert_eq!(shadow.cr[9], 1, "CR2 kept");
    }
}
