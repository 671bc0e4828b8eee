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
    pub fn new(
        mem: &GuestMemory,
        ctx: &PpuContext,
        timebase: TimeBase,
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
        };
        v.sctx.reservation = Default::default();
        v.sync_memory(mem);
        Ok(v)
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
        if let Some(d) = diff_regs(ctx, &self.sctx) {
            return Err(self.report("", &at, d));
        }
        if let Some(d) = self.diff_stores(mem) {
            return Err(self.report("", &at, d));
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
        if let Some(d) = diff_regs(ctx, &self.sctx) {
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

/// The first register that differs.
pub fn diff_regs(a: &PpuContext, b: &PpuContext) -> Option<String> {
    let d = |what: String, x: &dyn std::fmt::Debug, y: &dyn std::fmt::Debug| {
        Some(format!("{what}: lifted side {x:x?}, interpreter {y:x?}"))
    };
    for i in 0..32 {
        if a.gpr[i] != b.gpr[i] {
            return d(format!("r{i}"), &a.gpr[i], &b.gpr[i]);
        }
    }
    for i in 0..32 {
        if a.fpr_bits(i) != b.fpr_bits(i) {
            return d(format!("f{i} (bits)"), &a.fpr_bits(i), &b.fpr_bits(i));
        }
    }
    for i in 0..32 {
        if a.vr[i] != b.vr[i] {
            return d(format!("v{i}"), &a.vr[i], &b.vr[i]);
        }
    }
    if a.cr != b.cr {
        return d("cr".into(), &a.cr_word(), &b.cr_word());
    }
    if a.lr != b.lr {
        return d("lr".into(), &a.lr, &b.lr);
    }
    if a.ctr != b.ctr {
        return d("ctr".into(), &a.ctr, &b.ctr);
    }
    if a.xer() != b.xer() {
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
