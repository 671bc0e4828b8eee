//! The Rust emitter: one Rust function per guest function.
//!
//! A lifted function is `fn(ctx: &mut PpuContext, rt: &Rt)`. The guest
//! registers it touches live in Rust locals (loaded on entry, written back
//! before anything that reads the context: calls, system calls, returns,
//! the interpreter), so LLVM keeps them in host registers; guest memory is
//! reached through guest-mem's accessors on a separate reservation, which
//! cannot alias the context. Blocks with one predecessor are emitted inline
//! in it; the others become arms of a `match` inside a loop (LLVM threads
//! the constant block numbers into direct jumps). Every instruction computes
//! with the same `ppu_cpu::helpers` the interpreter uses; the few rare ones
//! the emitter does not translate run through the interpreter in place.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;

use ppu_isa::{Instr, Op, spr};

use crate::analysis::{Block, Edge, Func, Insn, Term};

/// Emitter settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmitOptions {
    /// r1-based loads skip guest-mem's check (the seed's "stack accesses
    /// skip the checks"; `--stack-checks` turns it off).
    pub stack_fast: bool,
    /// Store `ctx.cia` at every block start (precise guest PCs in fault
    /// reports, at a cost); without it only at function entry.
    pub block_pcs: bool,
    /// Call the verifier at function entry when `--verify` is on.
    pub verify_hooks: bool,
    /// Trust the PowerPC ABI: a callee returns with the nonvolatile
    /// registers (r1, r14-r31, f14-f31, v20-v31, CR2-CR4) as it found them,
    /// so a caller keeps them in host registers across the call instead of
    /// reloading them. `--verify` catches a callee that breaks the rule.
    pub abi_trust: bool,
    /// Double-precision arithmetic whose FI/FR/FPRF a later operation of
    /// the same block overwrites uses `fpu::status_dead` (the host result
    /// alone in the common case); `--exact-fp-status` turns it off.
    pub fp_status_elision: bool,
    /// Small functions inline into their callers (`#[inline]`, and a
    /// private copy in each other crate that calls them); `--no-inline`
    /// turns it off.
    pub inline_small: bool,
    /// Jump tables through a dense index, dispatch shortcuts and the
    /// dispatch's most selected entry tested first; `--plain-dispatch`
    /// turns them off (a `match` on target addresses and on `ent`).
    pub dense_dispatch: bool,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            stack_fast: true,
            block_pcs: false,
            verify_hooks: true,
            abi_trust: true,
            fp_status_elision: true,
            inline_small: true,
            dense_dispatch: true,
        }
    }
}

/// How the emitter calls another lifted function, and what it knows about
/// the whole program.
pub trait Callees {
    /// The Rust expression that calls the lifted function at `entry` with
    /// `ctx` and `rt`, from the file being emitted (`None`: it is not
    /// lifted; the call goes through the runtime).
    fn call(&mut self, entry: u32) -> Option<String>;

    /// Whether the function at `entry` reads only what the ABI gives it
    /// (no volatile register that carries no argument), so a call writes
    /// back only its possible inputs (with `EmitOptions::abi_trust`).
    fn abi_entry(&self, entry: u32) -> bool {
        let _ = entry;
        true
    }

    /// Whether some caller of the function at `entry` reads volatile
    /// registers after the call, so its returns write back everything.
    fn exact_return(&self, entry: u32) -> bool {
        let _ = entry;
        false
    }

    /// Whether no instruction of the program can set XER\[SO\]
    /// ([`crate::analysis::may_set_summary_overflow`]): reads of it are
    /// the constant 0.
    fn summary_overflow_never_set(&self) -> bool {
        false
    }

    /// Whether the program runs one guest thread for certain (a Linux test
    /// program): its stores need not notice other threads' reservations.
    fn single_thread(&self) -> bool {
        false
    }

    /// Whether the function at `entry` is small enough to inline into its
    /// callers (`#[inline]`).
    fn inline(&self, entry: u32) -> bool {
        let _ = entry;
        false
    }
}

/// The symbol of the lifted function at `entry`.
pub fn symbol(entry: u32) -> String {
    format!("p_{entry:08x}")
}

/// Which registers a function touches.
#[derive(Default, Debug, Clone)]
struct Regs {
    used: BTreeSet<Reg>,
    written: BTreeSet<Reg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reg {
    G(usize),
    F(usize),
    V(usize),
    C(usize),
    Lr,
    Ctr,
    Ca,
    So,
    Ov,
    Bc,
    Fpscr,
    Vscr,
    Vrsave,
}

impl Reg {
    fn local(self) -> String {
        match self {
            Reg::G(n) => format!("r{n}"),
            Reg::F(n) => format!("f{n}"),
            Reg::V(n) => format!("v{n}"),
            Reg::C(n) => format!("c{n}"),
            Reg::Lr => "lr".into(),
            Reg::Ctr => "ctr".into(),
            Reg::Ca => "ca".into(),
            Reg::So => "so".into(),
            Reg::Ov => "ov".into(),
            Reg::Bc => "xbc".into(),
            Reg::Fpscr => "fpscr".into(),
            Reg::Vscr => "vscr".into(),
            Reg::Vrsave => "vrsave".into(),
        }
    }

    fn field(self) -> String {
        match self {
            Reg::G(n) => format!("ctx.gpr[{n}]"),
            Reg::F(n) => format!("ctx.fpr[{n}]"),
            Reg::V(n) => format!("ctx.vr[{n}]"),
            Reg::C(n) => format!("ctx.cr[{n}]"),
            Reg::Lr => "ctx.lr".into(),
            Reg::Ctr => "ctx.ctr".into(),
            Reg::Ca => "ctx.xer_ca".into(),
            Reg::So => "ctx.xer_so".into(),
            Reg::Ov => "ctx.xer_ov".into(),
            Reg::Bc => "ctx.xer_bc".into(),
            Reg::Fpscr => "ctx.fpscr".into(),
            Reg::Vscr => "ctx.vscr".into(),
            Reg::Vrsave => "ctx.vrsave".into(),
        }
    }
}

/// Emits one function; returns its Rust source.
pub fn emit_function(f: &Func, callees: &mut dyn Callees, opts: &EmitOptions) -> String {
    let mut e = FnEmitter::new(f, callees, opts);
    e.dataflow();
    e.body();
    e.finish()
}

/// Emits a private copy of `f` named [`copy_symbol`]`(f.entry)`, for a
/// file whose functions call it from another crate: a small function
/// inlines into its callers only from a copy in their own crate.
pub fn emit_copy(f: &Func, callees: &mut dyn Callees, opts: &EmitOptions) -> String {
    let mut e = FnEmitter::new(f, callees, opts);
    e.copy = true;
    e.dataflow();
    e.body();
    e.finish()
}

/// The symbol of a file's private copy of the lifted function at `entry`.
pub fn copy_symbol(entry: u32) -> String {
    format!("c_{entry:08x}")
}

/// What trusting the ABI at calls needs to know about one function, from
/// its own code (see `EmitOptions::abi_trust` and [`Callees`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AbiProfile {
    /// It reads a volatile register that carries no argument before
    /// writing it (millicode such as `_savegpr0_*` reads r0 or r12).
    pub reads_dead_at_entry: bool,
    /// The callees after whose return it reads a volatile register that
    /// carries no result (`None`: through an indirect call).
    pub reads_dead_after: Vec<Option<u32>>,
    /// The functions it tail-calls (they return to its callers).
    pub tail_calls: Vec<u32>,
}

/// The ABI profile of `f`.
pub fn abi_profile(f: &Func, opts: &EmitOptions) -> AbiProfile {
    struct NoCallees;
    impl Callees for NoCallees {
        fn call(&mut self, _: u32) -> Option<String> {
            None
        }
    }
    let mut callees = NoCallees;
    let mut e = FnEmitter::new(f, &mut callees, opts);
    let items = e.traces();
    let live_in = read_before_write(f, &items);
    let mut p = AbiProfile {
        reads_dead_at_entry: live_in
            .get(&f.entry)
            .is_some_and(|l| l.iter().any(|r| abi_entry_dead(*r))),
        ..AbiProfile::default()
    };
    for b in f.blocks.values() {
        let after = |next: &Edge| match next {
            Edge::Block(n) => live_in
                .get(n)
                .is_some_and(|l| l.iter().any(|r| abi_exit_dead(*r))),
            _ => false,
        };
        match &b.term {
            Term::Call { target, next, .. } | Term::CondCall { target, next, .. }
                if after(next) =>
            {
                p.reads_dead_after.push(Some(*target));
            }
            Term::IndirectCall { next, .. } if after(next) => p.reads_dead_after.push(None),
            Term::Fall(Edge::TailCall(t)) | Term::Jump(Edge::TailCall(t)) => p.tail_calls.push(*t),
            Term::Cond { taken, fall, .. } => {
                for e in [taken, fall] {
                    if let Edge::TailCall(t) = e {
                        p.tail_calls.push(*t);
                    }
                }
            }
            _ => {}
        }
    }
    p
}

struct FnEmitter<'a> {
    f: &'a Func,
    opts: &'a EmitOptions,
    callees: &'a mut dyn Callees,
    regs: Regs,
    out: String,
    heads: BTreeSet<u32>,
    index: BTreeMap<u32, u32>,
    queue: VecDeque<u32>,
    needs_loop: bool,
    needs_entry: bool,
    /// The structured control flow, when the function's CFG is reducible.
    cfg: Option<Cfg>,
    /// The CFG node being emitted (structured mode).
    cur: usize,
    /// What to write back and reload at each point (register liveness and
    /// dirtiness), once computed.
    flow: Option<Flow>,
    /// Where emission is: (block start, instruction index, or [`TERM`] / [`VERIFY`]).
    point: (u32, usize),
    /// Register use of the instruction being traced (the dataflow pre-pass).
    trace: Option<Trace>,
    /// With ABI trust: per `mfcr`/`mfocrf` point, the volatile CR bits that
    /// may have been written since the entry or the last call (the others
    /// hold nothing the ABI gives meaning, and read as 0).
    cr_reached: Option<BTreeMap<(u32, usize), BTreeSet<usize>>>,
    /// Emitting a private copy ([`emit_copy`]).
    copy: bool,
    /// Dispatch shortcuts being followed (see `dispatch_shortcut`).
    shortcuts: usize,
}

/// The point of a block's terminator.
const TERM: usize = usize::MAX;
/// The point of the verifier hook at the entry block's start.
const VERIFY: usize = usize::MAX - 1;

/// One instruction's register use, as its emission shows it.
#[derive(Debug, Default, Clone)]
struct Trace {
    uses: BTreeSet<Reg>,
    defs: BTreeSet<Reg>,
    /// It writes the context back (a trap, a fault, the interpreter).
    flush: bool,
    /// It reloads the context (the interpreter ran it).
    reload: bool,
    /// It is `mfcr` or `mfocrf`.
    mfcr: bool,
}

/// Per point: the locals to write back to the context (those written since
/// the last reload) and to reload after a call (those read later).
#[derive(Debug, Default)]
struct Flow {
    flush: BTreeMap<(u32, usize), BTreeSet<Reg>>,
    reload: BTreeMap<(u32, usize), BTreeSet<Reg>>,
}

/// Most instructions of a dispatch entry's block run at the branch to it.
const SHORTCUT_MAX_INSNS: usize = 4;
/// Most dispatch shortcuts followed one after another.
const MAX_SHORTCUTS: usize = 2;

/// How deep blocks nest inline before one becomes a match arm of its own.
const MAX_INLINE_DEPTH: usize = 24;

impl<'a> FnEmitter<'a> {
    fn new(f: &'a Func, callees: &'a mut dyn Callees, opts: &'a EmitOptions) -> FnEmitter<'a> {
        FnEmitter {
            f,
            opts,
            callees,
            regs: Regs::default(),
            out: String::new(),
            heads: BTreeSet::new(),
            index: BTreeMap::new(),
            queue: VecDeque::new(),
            needs_loop: false,
            needs_entry: false,
            cfg: None,
            cur: 0,
            flow: None,
            point: (0, 0),
            trace: None,
            cr_reached: None,
            copy: false,
            shortcuts: 0,
        }
    }
}

impl FnEmitter<'_> {
    // ------------------------------------------------------- registers --

    fn r(&mut self, r: Reg) -> String {
        if r == Reg::So && self.callees.summary_overflow_never_set() {
            return "0u8".into();
        }
        self.regs.used.insert(r);
        if let Some(t) = &mut self.trace
            && !t.defs.contains(&r)
        {
            t.uses.insert(r);
        }
        r.local()
    }
    fn w(&mut self, r: Reg) -> String {
        // FPSCR and VSCR are only ever updated in place (sticky bits).
        if matches!(r, Reg::Fpscr | Reg::Vscr) {
            self.r(r);
        }
        self.regs.used.insert(r);
        self.regs.written.insert(r);
        if let Some(t) = &mut self.trace {
            t.defs.insert(r);
        }
        r.local()
    }
    fn g(&mut self, n: usize) -> String {
        self.r(Reg::G(n))
    }
    fn gw(&mut self, n: usize) -> String {
        self.w(Reg::G(n))
    }
    /// `(rA|0)`.
    fn g0(&mut self, n: usize) -> String {
        if n == 0 { "0u64".into() } else { self.g(n) }
    }
    fn fr(&mut self, n: usize) -> String {
        self.r(Reg::F(n))
    }
    fn fw(&mut self, n: usize) -> String {
        self.w(Reg::F(n))
    }
    fn vr(&mut self, n: usize) -> String {
        self.r(Reg::V(n))
    }
    fn vw(&mut self, n: usize) -> String {
        self.w(Reg::V(n))
    }

    fn line(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// Sets CR field `f` from a nibble expression.
    fn set_field(&mut self, f: usize, nibble: &str) {
        let c: Vec<String> = (0..4).map(|k| self.w(Reg::C(4 * f + k))).collect();
        self.line(&format!(
            "{{ let [a, b, c, d] = nibble_bits({nibble}); {} = a; {} = b; {} = c; {} = d; }}",
            c[0], c[1], c[2], c[3]
        ));
    }

    /// CR0 from a 64-bit result.
    fn record(&mut self, v: &str) {
        let so = self.r(Reg::So);
        self.set_field(0, &format!("int::cr0({v}, {so})"));
    }

    fn record_if(&mut self, i: Instr, v: &str) {
        if i.rc() {
            self.record(v);
        }
    }

    fn ov_if(&mut self, i: Instr, o: &str) {
        if i.oe() {
            self.r(Reg::So);
            let ov = self.w(Reg::Ov);
            let so = self.w(Reg::So);
            self.line(&format!("{ov} = {o}; {so} |= {ov};"));
        }
    }

    /// Whether the FPSCR bits FI, FR and FPRF that the floating-point
    /// instruction `i` (at the current point) sets are overwritten, in the
    /// same block, before anything can read them: a later instruction of
    /// the block sets all three (an arithmetic operation, `frsp`, `fsqrt`,
    /// `fcfid`), with nothing between that touches the FPSCR (other
    /// floating-point operations, compares, `mffs`, `mtfs*`, `mcrfs`; moves,
    /// loads and stores do not). The block's end, a call or a system call
    /// counts as a read. `Rc=1` forms read the FPSCR themselves.
    fn fp_status_dead(&self, i: Instr) -> bool {
        use Op::*;
        if i.rc() || !self.opts.fp_status_elision {
            return false;
        }
        let (start, k) = self.point;
        let Some(b) = self.f.blocks.get(&start) else {
            return false;
        };
        if k >= b.insns.len() {
            return false;
        }
        for next in &b.insns[k + 1..] {
            let Some(n) = next.instr else {
                return false;
            };
            match n.op {
                Fadd | Fadds | Fsub | Fsubs | Fmul | Fmuls | Fdiv | Fdivs | Fmadd | Fmadds
                | Fmsub | Fmsubs | Fnmadd | Fnmadds | Fnmsub | Fnmsubs | Fsqrt | Fsqrts | Frsp
                | Fcfid => return true,
                Fmr | Fneg | Fabs | Fnabs | Fsel => {}
                Mffs | Mtfsf | Mtfsfi | Mtfsb0 | Mtfsb1 | Mcrfs | Sc => return false,
                op if format!("{op:?}").starts_with('F') => return false,
                _ => {}
            }
        }
        false
    }

    fn cr1_if(&mut self, i: Instr) {
        if i.rc() {
            let fpscr = self.r(Reg::Fpscr);
            self.set_field(1, &format!("fpu::cr1({fpscr})"));
        }
    }

    // ---------------------------------------------------------- memory --

    fn ea_d(&mut self, i: Instr) -> String {
        let b = self.g0(i.ra());
        format!("({b}.wrapping_add({}u64) as u32)", i.simm() as u64)
    }
    fn ea_ds(&mut self, i: Instr) -> String {
        let b = self.g0(i.ra());
        format!("({b}.wrapping_add({}u64) as u32)", i.ds() as u64)
    }
    fn ea_x(&mut self, i: Instr) -> String {
        let b = self.g0(i.ra());
        let x = self.g(i.rb());
        format!("({b}.wrapping_add({x}) as u32)")
    }

    /// A load of type `t` (u8..u128) at `ea`; r1-based loads may take the
    /// stack path.
    fn load(&mut self, t: &str, ea: &str, ra: usize) -> String {
        if self.opts.stack_fast && ra == 1 && t != "u128" {
            format!("m.stack_read_{t}({ea})")
        } else {
            format!("m.read_{t}({ea})")
        }
    }

    // --------------------------------------------------------- control --

    /// Statements that write back what the context lacks at this point.
    fn flush_code(&mut self) -> String {
        self.flush_code_for(Exit::Exact)
    }

    /// Statements that write back what the context lacks at this point, for
    /// an exit of `kind` (with ABI trust, a call or a return leaves out
    /// what the ABI gives no meaning there).
    fn flush_code_for(&mut self, kind: Exit) -> String {
        if let Some(t) = &mut self.trace {
            t.flush = true;
            return String::new();
        }
        let Some(flow) = &self.flow else {
            return "flush!();".into();
        };
        let set = flow
            .flush
            .get(&self.point)
            .cloned()
            .unwrap_or_else(|| self.regs.written.clone());
        let mut s = String::new();
        for r in set {
            if kind.writes_back(r, self.opts.abi_trust) {
                let _ = write!(s, "{} = {}; ", r.field(), r.local());
            }
        }
        s
    }

    /// Statements that reload what is read after this point.
    fn reload_code(&mut self) -> String {
        if let Some(t) = &mut self.trace {
            t.reload = true;
            return String::new();
        }
        let Some(flow) = &self.flow else {
            return "reload!();".into();
        };
        let set = flow
            .reload
            .get(&self.point)
            .cloned()
            .unwrap_or_else(|| self.regs.used.clone());
        let mut s = String::new();
        for r in set {
            let _ = write!(s, "{} = {}; ", r.local(), r.field());
        }
        s
    }

    fn flush(&mut self) {
        let c = self.flush_code();
        self.line(&c);
    }
    /// The write-back before a call (or, `tail`, a tail call) to `callee`
    /// (`None`: through the runtime): everything when the callee reads
    /// volatile registers that carry no argument, or when a tail call
    /// returns to a caller that reads them.
    fn flush_call(&mut self, callee: Option<u32>, tail: bool) {
        let kind = if callee.is_none_or(|t| self.callees.abi_entry(t))
            && !(tail && self.callees.exact_return(self.f.entry))
        {
            Exit::Call
        } else {
            Exit::Exact
        };
        let c = self.flush_code_for(kind);
        self.line(&c);
    }
    fn reload(&mut self) {
        let c = self.reload_code();
        self.line(&c);
    }

    /// The kind of this function's returns: exact when a caller reads
    /// volatile registers after calling it.
    fn return_exit(&self) -> Exit {
        if self.callees.exact_return(self.f.entry) {
            Exit::Exact
        } else {
            Exit::Return
        }
    }

    fn arm_index(&mut self, b: u32) -> u32 {
        if let Some(&i) = self.index.get(&b) {
            return i;
        }
        let i = self.index.len() as u32;
        self.index.insert(b, i);
        self.queue.push_back(b);
        i
    }

    /// The code that follows `edge` (ends in a jump, return or divergence).
    fn edge(&mut self, edge: Edge, depth: usize) {
        match edge {
            Edge::Block(b) if self.cfg.is_some() && self.f.blocks.contains_key(&b) => {
                let (to, sel) = self.cfg.as_ref().expect("checked").target(self.cur, b);
                self.branch_sel(to, sel);
            }
            Edge::Block(b) => {
                if !self.f.blocks.contains_key(&b) {
                    let fl = self.flush_code();
                    self.line(&format!(
                        "ctx.cia = {b:#x}; {fl}rt.jump_rest(ctx, entry_lr, entry_sp); return;"
                    ));
                    self.needs_entry = true;
                } else if self.heads.contains(&b) || depth >= MAX_INLINE_DEPTH {
                    self.heads.insert(b);
                    let idx = self.arm_index(b);
                    self.needs_loop = true;
                    self.line(&format!("blk = {idx}; continue;"));
                } else {
                    self.block(b, depth + 1);
                }
            }
            Edge::TailCall(t) => {
                self.flush_call(Some(t), true);
                let call = self.call_expr(t);
                self.line(&format!("{call}; return;"));
            }
            Edge::Return => {
                let lr = self.r(Reg::Lr);
                let kind = self.return_exit();
                let fl = self.flush_code_for(kind);
                self.line(&format!("ctx.cia = ({lr} as u32) & !3; {fl}return;"));
            }
            Edge::Indirect => {
                let ctr = self.r(Reg::Ctr);
                self.needs_entry = true;
                let fl = self.flush_code();
                self.line(&format!("ctx.cia = ({ctr} as u32) & !3; {fl}rt.jump_rest(ctx, entry_lr, entry_sp); return;"));
            }
        }
    }

    /// A call to the lifted function at `t` (context flushed before).
    fn call_expr(&mut self, t: u32) -> String {
        match self.callees.call(t) {
            Some(c) => c,
            None => format!("rt.call(ctx, {t:#x})"),
        }
    }

    /// The condition of a conditional branch (emits the CTR decrement).
    fn branch_cond(&mut self, i: Instr) -> String {
        let bo = i.bo();
        let mut parts = Vec::new();
        if bo & 4 == 0 && i.op != Op::Bcctr {
            let ctr = self.w(Reg::Ctr);
            self.line(&format!("{ctr} = {ctr}.wrapping_sub(1);"));
            parts.push(format!("{ctr} {} 0", if bo & 2 != 0 { "==" } else { "!=" }));
        }
        if bo & 0x10 == 0 {
            let c = self.r(Reg::C(i.bi()));
            parts.push(format!("{c} {} 0", if bo & 8 != 0 { "!=" } else { "==" }));
        }
        if parts.is_empty() {
            "true".into()
        } else {
            parts.join(" && ")
        }
    }

    fn block(&mut self, start: u32, depth: usize) {
        let b: &Block = &self.f.blocks[&start];
        if self.opts.block_pcs || start == self.f.entry {
            self.line(&format!("ctx.cia = {start:#x};"));
        }
        if start == self.f.entry && self.opts.verify_hooks {
            let saved = self.point;
            self.point = (start, VERIFY);
            let fl = self.flush_code();
            self.point = saved;
            self.line(&format!(
                "if rt.verify_on {{ {fl}rt.verify_enter(ctx, {start:#x}); }}"
            ));
        }
        let saved = self.point;
        for k in 0..b.insns.len() {
            let insn = self.f.blocks[&start].insns[k];
            self.point = (start, k);
            self.insn(insn);
        }
        let term = self.f.blocks[&start].term.clone();
        self.point = (start, TERM);
        self.term(&term, depth);
        self.point = saved;
    }

    fn term(&mut self, term: &Term, depth: usize) {
        match *term {
            Term::Fall(e) | Term::Jump(e) => self.edge(e, depth),
            Term::Cond { insn, taken, fall } => {
                let i = insn.instr.expect("branch decodes");
                // bclr/bcctr read their target before the CTR decrement.
                if i.op == Op::Bcctr {
                    let ctr = self.r(Reg::Ctr);
                    self.line(&format!("let target = ({ctr} as u32) & !3;"));
                } else if i.op == Op::Bclr {
                    let lr = self.r(Reg::Lr);
                    self.line(&format!("let target = ({lr} as u32) & !3;"));
                }
                let c = self.branch_cond(i);
                self.line(&format!("if {c} {{"));
                match taken {
                    Edge::Return => {
                        let kind = self.return_exit();
                        let fl = self.flush_code_for(kind);
                        self.line(&format!("ctx.cia = target; {fl}return;"));
                    }
                    Edge::Indirect => {
                        self.needs_entry = true;
                        let fl = self.flush_code();
                        self.line(&format!(
                            "ctx.cia = target; {fl}rt.jump_rest(ctx, entry_lr, entry_sp); return;"
                        ));
                    }
                    e => self.edge(e, depth),
                }
                self.line("}");
                self.edge(fall, depth);
            }
            Term::Call { insn, target, next } => {
                let ret = insn.pc.wrapping_add(4);
                let lr = self.w(Reg::Lr);
                self.line(&format!("{lr} = {ret:#x};"));
                self.flush_call(Some(target), false);
                let call = self.call_expr(target);
                self.line(&format!(
                    "let sp = ctx.gpr[1]; {call}; if ctx.cia != {ret:#x} || ctx.gpr[1] != sp {{ return; }}"
                ));
                self.reload();
                self.edge(next, depth);
            }
            Term::CondCall { insn, target, next } => {
                let i = insn.instr.expect("branch decodes");
                let ret = insn.pc.wrapping_add(4);
                let c = self.branch_cond(i);
                let lr = self.w(Reg::Lr);
                self.line(&format!("let taken = {c}; {lr} = {ret:#x};"));
                self.line("if taken {");
                self.flush_call(Some(target), false);
                let call = self.call_expr(target);
                self.line(&format!(
                    "let sp = ctx.gpr[1]; {call}; if ctx.cia != {ret:#x} || ctx.gpr[1] != sp {{ return; }}"
                ));
                self.reload();
                self.line("}");
                self.edge(next, depth);
            }
            Term::IndirectCall { insn, next } => {
                let i = insn.instr.expect("branch decodes");
                let ret = insn.pc.wrapping_add(4);
                let src = if i.op == Op::Bcctr {
                    self.r(Reg::Ctr)
                } else {
                    self.r(Reg::Lr)
                };
                self.line(&format!("let target = ({src} as u32) & !3;"));
                let always = i.bo() & 0x14 == 0x14;
                let c = if always {
                    "true".to_string()
                } else {
                    self.branch_cond(i)
                };
                let lr = self.w(Reg::Lr);
                self.line(&format!("let taken = {c}; {lr} = {ret:#x};"));
                if !always {
                    self.line("if taken {");
                }
                self.flush_call(None, false);
                self.line(&format!(
                    "let sp = ctx.gpr[1]; rt.call(ctx, target); if ctx.cia != {ret:#x} || ctx.gpr[1] != sp {{ return; }}"
                ));
                self.reload();
                if !always {
                    self.line("}");
                }
                self.edge(next, depth);
            }
            Term::Return(_) => self.edge(Edge::Return, depth),
            Term::Switch { insn, ref targets } => {
                let ctr = self.r(Reg::Ctr);
                self.line(&format!("let t = ({ctr} as u32) & !3;"));
                // When every target is one value of `ent` (entries of one
                // dispatch node) or of `blk` (the state machine), the table
                // holds that value and one branch follows: one host jump.
                let inside = targets.iter().all(|t| self.f.blocks.contains_key(t));
                let mut via: Option<(String, Vec<u32>, Option<usize>)> = None;
                if inside && let Some(cfg) = &self.cfg {
                    let ts: Vec<(usize, Option<u32>)> =
                        targets.iter().map(|&t| cfg.target(self.cur, t)).collect();
                    if ts.iter().all(|&(to, sel)| to == ts[0].0 && sel.is_some()) {
                        let values = ts.iter().map(|&(_, sel)| sel.expect("checked")).collect();
                        via = Some(("ent".into(), values, Some(ts[0].0)));
                    }
                } else if inside && self.cfg.is_none() {
                    let values = targets
                        .iter()
                        .map(|&t| {
                            self.heads.insert(t);
                            self.arm_index(t)
                        })
                        .collect();
                    self.needs_loop = true;
                    via = Some(("blk".into(), values, None));
                }
                let values: Vec<u32> = match &via {
                    Some((_, v, _)) => v.clone(),
                    None => (0..targets.len() as u32).collect(),
                };
                let dense = if self.opts.dense_dispatch {
                    switch_table(targets, &values, insn.pc)
                } else {
                    None
                };
                match (&dense, &via) {
                    (Some(table), Some((var, _, to))) => {
                        self.line(&table.decl);
                        self.line(&format!("match {} {{", table.index("t")));
                        self.line(&format!("v @ 1.. => {{ {var} = u32::from(v) - 1;"));
                        match to {
                            Some(to) => self.branch(*to),
                            None => self.line("continue;"),
                        }
                        self.line("}");
                    }
                    _ => {
                        if let Some(table) = &dense {
                            self.line(&table.decl);
                            self.line(&format!("match {} {{", table.index("t")));
                        } else {
                            self.line("match t {");
                        }
                        for (k, &t) in targets.iter().enumerate() {
                            let key = match &dense {
                                Some(_) => format!("{}", values[k] + 1),
                                None => format!("{t:#x}"),
                            };
                            if self.cfg.is_some() && self.f.blocks.contains_key(&t) {
                                self.line(&format!("{key} => {{"));
                                let (to, sel) =
                                    self.cfg.as_ref().expect("checked").target(self.cur, t);
                                self.branch_sel(to, sel);
                                self.line("}");
                            } else if self.f.blocks.contains_key(&t) {
                                self.heads.insert(t);
                                let idx = self.arm_index(t);
                                self.needs_loop = true;
                                self.line(&format!("{key} => {{ blk = {idx}; continue; }}"));
                            }
                        }
                    }
                }
                self.needs_entry = true;
                let fl = self.flush_code();
                self.line(&format!(
                    "_ => {{ ctx.cia = t; {fl}rt.jump_rest(ctx, entry_lr, entry_sp); return; }}"
                ));
                self.line("}");
            }
            Term::IndirectJump(_) => self.edge(Edge::Indirect, depth),
            Term::Syscall { insn, next } => {
                let pc = insn.pc;
                let ret = pc.wrapping_add(4);
                self.line(&format!("ctx.cia = {ret:#x};"));
                self.flush();
                self.line(&format!(
                    "rt.syscall(ctx, {pc:#x}); if ctx.cia != {ret:#x} {{ return; }}"
                ));
                self.reload();
                self.edge(next, depth);
            }
            Term::Trap(insn) => {
                self.flush();
                self.line(&format!("rt.trap({:#x}, {:#x});", insn.pc, insn.word));
            }
            Term::Interpret(insn) => {
                self.needs_entry = true;
                let fl = self.flush_code();
                self.line(&format!(
                    "ctx.cia = {:#x}; {fl}rt.interpret_rest(ctx, entry_lr, entry_sp); return;",
                    insn.pc
                ));
            }
            Term::OffEnd(pc) => {
                self.needs_entry = true;
                let fl = self.flush_code();
                self.line(&format!(
                    "ctx.cia = {pc:#x}; {fl}rt.interpret_rest(ctx, entry_lr, entry_sp); return;"
                ));
            }
        }
    }

    fn body(&mut self) {
        if let Some(cfg) = Cfg::build(self.f) {
            if cfg.order.contains(&Node::Dispatch) {
                self.line("let mut ent: u32 = 0;");
            }
            self.cfg = Some(cfg);
            self.tree(0);
            return;
        }
        // Irreducible control flow: a state machine over block numbers.
        // Heads: the entry, blocks with other than one predecessor, switch targets.
        let mut preds: BTreeMap<u32, usize> = BTreeMap::new();
        for b in self.f.blocks.values() {
            let mut add = |e: Edge| {
                if let Edge::Block(t) = e {
                    *preds.entry(t).or_default() += 1;
                }
            };
            match &b.term {
                Term::Fall(e) | Term::Jump(e) => add(*e),
                Term::Cond { taken, fall, .. } => {
                    add(*taken);
                    add(*fall);
                }
                Term::Call { next, .. }
                | Term::IndirectCall { next, .. }
                | Term::Syscall { next, .. }
                | Term::CondCall { next, .. } => add(*next),
                Term::Switch { targets, .. } => {
                    for &t in targets {
                        *preds.entry(t).or_default() += 2;
                    }
                }
                _ => {}
            }
        }
        self.heads.insert(self.f.entry);
        for &b in self.f.blocks.keys() {
            if preds.get(&b).copied().unwrap_or(0) != 1 {
                self.heads.insert(b);
            }
        }
        self.arm_index(self.f.entry);
        let mut arms = Vec::new();
        while let Some(b) = self.queue.pop_front() {
            let saved = std::mem::take(&mut self.out);
            self.block(b, 0);
            let code = std::mem::replace(&mut self.out, saved);
            arms.push((self.index[&b], code));
        }
        if self.needs_loop {
            self.line("let mut blk: u32 = 0;");
            self.line("loop {");
            self.line("match blk {");
            for (idx, code) in arms {
                let _ = writeln!(self.out, "{idx} => {{\n{code}}}");
            }
            self.line("_ => unreachable!(),");
            self.line("}");
            self.line("}");
        } else {
            let code = arms.pop().map(|a| a.1).unwrap_or_default();
            self.out.push_str(&code);
        }
    }

    // -------------------------------------------------------- dataflow --

    /// Traces every instruction's register use, then computes which locals
    /// are live (read later) and which are dirty (written since the context
    /// last had them) at each point, so calls write back and reload only
    /// what they must.
    /// Every instruction's register use, per block; with ABI trust, `mfcr`
    /// reads only the volatile CR bits that may hold something (see
    /// `cr_reached`), which takes a second pass.
    fn traces(&mut self) -> BTreeMap<u32, Vec<Trace>> {
        let items = self.trace_pass();
        if !self.opts.abi_trust || !items.values().flatten().any(|t| t.mfcr) {
            return items;
        }
        self.cr_reached = Some(cr_reached(self.f, &items));
        self.trace_pass()
    }

    fn trace_pass(&mut self) -> BTreeMap<u32, Vec<Trace>> {
        let saved_out = std::mem::take(&mut self.out);
        let mut items: BTreeMap<u32, Vec<Trace>> = BTreeMap::new();
        for (&start, b) in &self.f.blocks {
            let mut v = Vec::with_capacity(b.insns.len());
            for (k, &insn) in b.insns.iter().enumerate() {
                self.trace = Some(Trace::default());
                self.point = (start, k);
                self.insn(insn);
                v.push(self.trace.take().expect("tracing"));
            }
            items.insert(start, v);
        }
        self.out = saved_out;
        self.out.clear();
        items
    }

    /// The exits `term` takes out of lifted code, with what the callees
    /// need: a call to a function that reads volatile registers carrying no
    /// argument, and the return of a function whose callers read volatile
    /// registers after it, write back everything.
    fn exits(&self, term: &Term) -> Vec<Exit> {
        let mut v = term_exits(term, self.f);
        if !self.opts.abi_trust {
            return v;
        }
        let (callee, tail) = match *term {
            Term::Call { target, .. } | Term::CondCall { target, .. } => (Some(target), false),
            Term::Fall(Edge::TailCall(t)) | Term::Jump(Edge::TailCall(t)) => (Some(t), true),
            Term::Cond { taken, fall, .. } => match (taken, fall) {
                (Edge::TailCall(t), _) | (_, Edge::TailCall(t)) => (Some(t), true),
                _ => (None, false),
            },
            _ => (None, false),
        };
        let exact_return = self.callees.exact_return(self.f.entry);
        let abi_callee = callee.is_none_or(|t| self.callees.abi_entry(t));
        for k in &mut v {
            if (*k == Exit::Call && (!abi_callee || (tail && exact_return)))
                || (*k == Exit::Return && exact_return)
            {
                *k = Exit::Exact;
            }
        }
        v
    }

    fn dataflow(&mut self) {
        let items = self.traces();
        let all: BTreeSet<Reg> = self.regs.used.clone();
        let f = self.f;
        let edge_block = |e: Edge| match e {
            Edge::Block(b) if f.blocks.contains_key(&b) => Some(b),
            _ => None,
        };
        // Dirtiness, forward to a fixpoint.
        let mut dirty_in: BTreeMap<u32, BTreeSet<Reg>> =
            f.blocks.keys().map(|&b| (b, BTreeSet::new())).collect();
        let mut flush: BTreeMap<(u32, usize), BTreeSet<Reg>> = BTreeMap::new();
        let mut changed = true;
        while changed {
            changed = false;
            for (&start, b) in &f.blocks {
                let mut d = dirty_in[&start].clone();
                if start == f.entry {
                    flush.insert((start, VERIFY), d.clone());
                }
                for (k, t) in items[&start].iter().enumerate() {
                    if t.flush || t.reload {
                        flush.insert((start, k), d.clone());
                    }
                    if t.reload {
                        d.clear();
                    } else {
                        d.extend(t.defs.iter().copied());
                    }
                }
                let (_tu, td, call_next) = term_regs(&b.term);
                d.extend(td);
                flush.insert((start, TERM), d.clone());
                let out = if call_next.is_some() {
                    BTreeSet::new()
                } else {
                    d
                };
                for t in successors(b) {
                    if let Some(di) = dirty_in.get_mut(&t) {
                        let before = di.len();
                        di.extend(out.iter().copied());
                        if di.len() != before {
                            changed = true;
                        }
                    }
                }
            }
        }
        // Liveness, backward to a fixpoint.
        let mut live_in: BTreeMap<u32, BTreeSet<Reg>> =
            f.blocks.keys().map(|&b| (b, BTreeSet::new())).collect();
        let mut reload: BTreeMap<(u32, usize), BTreeSet<Reg>> = BTreeMap::new();
        let mut changed = true;
        while changed {
            changed = false;
            for (&start, b) in f.blocks.iter().rev() {
                let (tu, _td, call_next) = term_regs(&b.term);
                // After a callee whose callers read volatile registers, reload them.
                let dead_after = match b.term {
                    Term::Call { target, .. } | Term::CondCall { target, .. } => {
                        !self.callees.exact_return(target)
                    }
                    _ => true,
                };
                let conditional_call = match &b.term {
                    Term::CondCall { next, .. } => Some(*next),
                    Term::IndirectCall { insn, next }
                        if insn.instr.is_some_and(|i| i.bo() & 0x14 != 0x14) =>
                    {
                        Some(*next)
                    }
                    _ => None,
                };
                if let Some(next) = &conditional_call {
                    let mut after = edge_block(*next)
                        .map(|n| live_in[&n].clone())
                        .unwrap_or_default();
                    if self.opts.abi_trust && dead_after {
                        after.retain(|r| !abi_exit_dead(*r));
                    }
                    reload.insert((start, TERM), after);
                }
                let trust = self.opts.abi_trust
                    && matches!(b.term, Term::Call { .. } | Term::IndirectCall { .. });
                let mut live: BTreeSet<Reg> = match call_next {
                    Some(next) => {
                        let mut after = edge_block(next)
                            .map(|n| live_in[&n].clone())
                            .unwrap_or_default();
                        if trust && dead_after {
                            // Dead after a call by the ABI: neither reloaded
                            // nor kept.
                            after.retain(|r| !abi_exit_dead(*r));
                        }
                        let (kept, reloaded): (BTreeSet<Reg>, BTreeSet<Reg>) =
                            after.into_iter().partition(|r| trust && preserved(*r));
                        reload.insert((start, TERM), reloaded);
                        // What the callee preserves is live across the call.
                        kept
                    }
                    None => successors(b)
                        .into_iter()
                        .filter_map(|t| live_in.get(&t).cloned())
                        .flatten()
                        .collect(),
                };
                if call_next.is_none() {
                    // Terminator defs (CTR decrement) are also uses; keep it simple.
                }
                live.extend(tu.iter().copied());
                // Every write-back reads the locals it writes, so a local that
                // may be written back later is live (and reloaded after a call,
                // so the write-back never stores a stale value).
                let exits = self.exits(&b.term);
                for &r in flush.get(&(start, TERM)).into_iter().flatten() {
                    if exits.iter().any(|k| k.writes_back(r, self.opts.abi_trust)) {
                        live.insert(r);
                    }
                }
                for (k, t) in items[&start].iter().enumerate().rev() {
                    if t.reload {
                        reload.insert((start, k), live.clone());
                        live.clear();
                    } else {
                        for d in &t.defs {
                            live.remove(d);
                        }
                    }
                    live.extend(t.uses.iter().copied());
                    if t.flush || t.reload {
                        live.extend(flush.get(&(start, k)).into_iter().flatten().copied());
                    }
                }
                if start == f.entry {
                    live.extend(flush.get(&(start, VERIFY)).into_iter().flatten().copied());
                }
                if live_in[&start] != live {
                    live_in.insert(start, live);
                    changed = true;
                }
            }
        }
        let _ = all;
        self.flow = Some(Flow { flush, reload });
    }

    // ------------------------------------------- structured control flow --
    //
    // Ramsey's translation ("Beyond Relooper", 2022) into Rust's labeled
    // blocks and loops: a node's code is followed by its dominator-tree
    // children that are merge points (two or more forward predecessors),
    // each after a labeled block that forward branches break out of; a
    // loop header's code is wrapped in a labeled loop that back edges
    // continue.

    /// The node `n` and the dominator subtree below it.
    fn tree(&mut self, n: usize) {
        let cfg = self.cfg.as_ref().expect("structured");
        let mut ys: Vec<usize> = cfg.children[n]
            .iter()
            .copied()
            .filter(|&c| cfg.merge[c])
            .collect();
        ys.sort_by(|a, b| b.cmp(a)); // decreasing reverse-postorder number
        if cfg.header[n] {
            self.line(&format!("'l{n}: loop {{"));
            self.within(n, &ys);
            self.line("}");
        } else {
            self.within(n, &ys);
        }
    }

    fn within(&mut self, n: usize, ys: &[usize]) {
        match ys.split_first() {
            Some((&y, rest)) => {
                self.line(&format!("'b{y}: {{"));
                self.within(n, rest);
                self.line("}");
                self.tree(y);
            }
            None => {
                let saved = self.cur;
                self.cur = n;
                match self.cfg.as_ref().expect("structured").order[n] {
                    Node::Block(start) => self.block(start, 0),
                    Node::Dispatch => {
                        let entries: Vec<usize> = self.cfg.as_ref().expect("structured").succ[n]
                            .iter()
                            .map(|e| e.1)
                            .collect();
                        // The entry most branches select (after shortcuts)
                        // is tested first: a compare, not a jump table.
                        let hot = if self.opts.dense_dispatch {
                            Some(self.hot_entry(n, entries.len()))
                        } else {
                            None
                        };
                        if let Some(hot) = hot {
                            self.line(&format!("if ent == {hot} {{"));
                            self.branch(entries[hot]);
                            self.line("} else {");
                        }
                        self.line("match ent {");
                        for (k, e) in entries.into_iter().enumerate() {
                            if Some(k) != hot {
                                self.line(&format!("{k} => {{"));
                                self.branch(e);
                                self.line("}");
                            }
                        }
                        self.line("_ => unreachable!(),");
                        self.line("}");
                        if hot.is_some() {
                            self.line("}");
                        }
                    }
                }
                self.cur = saved;
            }
        }
    }

    /// A branch to node `to`, through a dispatch node when `sel` says which
    /// of its entries.
    fn branch_sel(&mut self, to: usize, sel: Option<u32>) {
        if let Some(k) = sel {
            if let Some((b, next)) = self.dispatch_shortcut(to, k) {
                // The entry's block is a few instructions that go on to
                // another entry of the same dispatch: run them here and
                // select that entry, one pass through the dispatch
                // instead of two.
                let saved = self.point;
                let insns = self.f.blocks[&b].insns.clone();
                for (i, insn) in insns.into_iter().enumerate() {
                    self.point = (b, i);
                    self.insn(insn);
                }
                self.point = saved;
                self.shortcuts += 1;
                self.branch_sel(to, Some(next));
                self.shortcuts -= 1;
                return;
            }
            self.line(&format!("ent = {k};"));
        }
        self.branch(to);
    }

    /// The entry of dispatch node `n` (with `count` entries) that the most
    /// branches select, following shortcuts as `branch_sel` does.
    fn hot_entry(&self, n: usize, count: usize) -> usize {
        let cfg = self.cfg.as_ref().expect("structured");
        let mut hits = vec![0usize; count];
        for &(_, to, sel) in cfg.succ.iter().flatten() {
            let Some(mut k) = sel.filter(|_| to == n) else {
                continue;
            };
            for _ in 0..MAX_SHORTCUTS {
                match self.dispatch_shortcut(n, k) {
                    Some((_, next)) => k = next,
                    None => break,
                }
            }
            if let Some(h) = hits.get_mut(k as usize) {
                *h += 1;
            }
        }
        (0..count)
            .max_by_key(|&k| (hits[k], std::cmp::Reverse(k)))
            .unwrap_or(0)
    }

    /// For a branch to entry `k` of dispatch node `to`: the entry's block
    /// and the entry it goes on to, when that block is a few plain
    /// instructions ending in a jump to another entry of the same dispatch.
    fn dispatch_shortcut(&self, to: usize, k: u32) -> Option<(u32, u32)> {
        let cfg = self.cfg.as_ref()?;
        if self.opts.block_pcs || !self.opts.dense_dispatch || self.shortcuts >= MAX_SHORTCUTS {
            return None;
        }
        let node = cfg.succ.get(to)?.get(k as usize)?.1;
        let Node::Block(b) = cfg.order[node] else {
            return None;
        };
        let block = &self.f.blocks[&b];
        if b == self.f.entry || block.insns.len() > SHORTCUT_MAX_INSNS {
            return None;
        }
        let (Term::Fall(Edge::Block(n)) | Term::Jump(Edge::Block(n))) = block.term else {
            return None;
        };
        match cfg.target(node, n) {
            (t, Some(next)) if t == to && next != k => Some((b, next)),
            _ => None,
        }
    }

    /// A branch from the current node to node `to`.
    fn branch(&mut self, to: usize) {
        let cfg = self.cfg.as_ref().expect("structured");
        if to <= self.cur {
            self.line(&format!("continue 'l{to};"));
        } else if cfg.merge[to] {
            self.line(&format!("break 'b{to};"));
        } else {
            self.tree(to);
        }
    }

    fn finish(self) -> String {
        let mut s = String::new();
        let f = self.f;
        if let Some(n) = &f.name {
            let clean: String = n.chars().filter(|c| !c.is_control()).collect();
            let _ = writeln!(s, "/// `{}` at {:#010x}", clean.replace('`', "'"), f.entry);
        } else {
            let _ = writeln!(s, "/// {:#010x}", f.entry);
        }
        if let Some(imp) = &f.import {
            let _ = writeln!(
                s,
                "/// Import stub: {} FNID {:#010x}",
                imp.library, imp.fnid
            );
        }
        if self.copy {
            let _ = writeln!(s, "#[inline]");
            let _ = writeln!(
                s,
                "fn {}(ctx: &mut PpuContext, rt: &Rt) {{",
                copy_symbol(f.entry)
            );
        } else {
            if self.callees.inline(f.entry) {
                let _ = writeln!(s, "#[inline]");
            }
            let _ = writeln!(s, "#[unsafe(no_mangle)]");
            let _ = writeln!(
                s,
                "pub fn {}(ctx: &mut PpuContext, rt: &Rt) {{",
                symbol(f.entry)
            );
        }
        if self.callees.single_thread() {
            s.push_str("let m = rt.view().single_threaded();\n");
        } else {
            s.push_str("let m = rt.view();\n");
        }
        if self.needs_entry {
            s.push_str("let entry_lr = ctx.lr; let entry_sp = ctx.gpr[1];\n");
        }
        for &r in &self.regs.used {
            let _ = writeln!(s, "let mut {} = {};", r.local(), r.field());
        }
        if self.flow.is_none() {
            s.push_str("macro_rules! flush { () => {");
            for &r in &self.regs.written {
                let _ = write!(s, " {} = {};", r.field(), r.local());
            }
            s.push_str(" } }\nmacro_rules! reload { () => {");
            for &r in &self.regs.used {
                let _ = write!(s, " {} = {};", r.local(), r.field());
            }
            s.push_str(" } }\n");
        }
        s.push_str(&self.out);
        s.push_str("}\n");
        s
    }

    // ---------------------------------------------------- instructions --

    /// Runs the instruction through the interpreter in place.
    fn via_interp(&mut self, insn: Insn) {
        let fl = self.flush_code();
        let rl = self.reload_code();
        self.line(&format!(
            "{fl}rt.exec_one(ctx, {:#x}, {:#x}); {rl}",
            insn.pc, insn.word
        ));
    }

    #[allow(clippy::cognitive_complexity)]
    fn insn(&mut self, insn: Insn) {
        use Op::*;
        let Some(i) = insn.instr else {
            // Cannot happen: undecodable words end blocks.
            self.via_interp(insn);
            return;
        };
        let pc = insn.pc;
        let (rt, ra, rb) = (i.rt(), i.ra(), i.rb());
        macro_rules! l {
            ($($t:tt)*) => { self.line(&format!($($t)*)) };
        }
        match i.op {
            // ------------------------------------------------ integer
            Addi | Addis => {
                let imm = if i.op == Addis {
                    (i.simm() << 16) as u64
                } else {
                    i.simm() as u64
                };
                let b = self.g0(ra);
                let d = self.gw(rt);
                l!("{d} = {b}.wrapping_add({imm:#x}u64);");
            }
            Addic | AddicRc => {
                let a = self.g(ra);
                let d = self.gw(rt);
                let ca = self.w(Reg::Ca);
                l!(
                    "{{ let (r, c) = int::add_carry({a}, {:#x}u64); {d} = r; {ca} = c; }}",
                    i.simm() as u64
                );
                if i.op == AddicRc {
                    self.record(&d);
                }
            }
            Subfic => {
                let a = self.g(ra);
                let d = self.gw(rt);
                let ca = self.w(Reg::Ca);
                l!(
                    "{{ let (r, c) = int::subf_carry({a}, {:#x}u64); {d} = r; {ca} = c; }}",
                    i.simm() as u64
                );
            }
            Mulli => {
                let a = self.g(ra);
                let d = self.gw(rt);
                l!("{d} = ({a} as i64).wrapping_mul({}i64) as u64;", i.simm());
            }
            Cmpi | Cmpli | Cmp | Cmpl => {
                let a = self.g(ra);
                let signed = matches!(i.op, Cmpi | Cmp);
                let b = match i.op {
                    Cmpi => format!("{}i64", i.simm()),
                    Cmpli => format!("{}u64", i.uimm()),
                    _ => self.g(rb),
                };
                let (x, y) = match (signed, i.l()) {
                    (true, true) => (
                        format!("({a} as i64)"),
                        if i.op == Cmp {
                            format!("({b} as i64)")
                        } else {
                            b
                        },
                    ),
                    (true, false) => (
                        format!("i64::from({a} as i32)"),
                        if i.op == Cmp {
                            format!("i64::from({b} as i32)")
                        } else {
                            b
                        },
                    ),
                    (false, true) => (a, b),
                    (false, false) => (
                        format!("u64::from({a} as u32)"),
                        if i.op == Cmpl {
                            format!("u64::from({b} as u32)")
                        } else {
                            b
                        },
                    ),
                };
                let f = i.bf();
                let so = self.r(Reg::So);
                let c: Vec<String> = (0..4).map(|k| self.w(Reg::C(4 * f + k))).collect();
                l!(
                    "{{ let (x, y) = ({x}, {y}); {} = (x < y) as u8; {} = (x > y) as u8; {} = (x == y) as u8; {} = {so}; }}",
                    c[0],
                    c[1],
                    c[2],
                    c[3]
                );
            }
            Twi | Tdi | Tw | Td => {
                let a = self.g(ra);
                let b = if matches!(i.op, Twi | Tdi) {
                    format!("{}i64", i.simm())
                } else {
                    format!("({} as i64)", self.g(rb))
                };
                let (x, y) = if matches!(i.op, Twi | Tw) {
                    (
                        format!("i64::from({a} as i32)"),
                        format!("i64::from({b} as i32)"),
                    )
                } else {
                    (format!("({a} as i64)"), b)
                };
                let fl = self.flush_code();
                l!(
                    "if int::trap_taken({rt}, {x}, {y}) {{ {fl}rt.trap({pc:#x}, {:#x}); }}",
                    insn.word
                );
            }
            Add | Addc | Adde | Addme | Addze | Subf | Subfc | Subfe | Subfme | Subfze | Neg => {
                let a = self.g(ra);
                let needs_b = matches!(i.op, Add | Addc | Adde | Subf | Subfc | Subfe);
                let b = if needs_b { self.g(rb) } else { "0u64".into() };
                let reads_ca = matches!(i.op, Adde | Addme | Addze | Subfe | Subfme | Subfze);
                let cin = if reads_ca {
                    self.r(Reg::Ca)
                } else {
                    String::new()
                };
                let (x, y, c) = match i.op {
                    Add | Addc => (a.clone(), b, "0".to_string()),
                    Adde => (a.clone(), b, cin),
                    Addme => (a.clone(), "u64::MAX".into(), cin),
                    Addze => (a.clone(), "0u64".into(), cin),
                    Subf | Subfc => (format!("!{a}"), b, "1".into()),
                    Subfe => (format!("!{a}"), b, cin),
                    Subfme => (format!("!{a}"), "u64::MAX".into(), cin),
                    Subfze => (format!("!{a}"), "0u64".into(), cin),
                    _ => (format!("!{a}"), "0u64".into(), "1".into()),
                };
                let d = self.gw(rt);
                let sets_ca = !matches!(i.op, Add | Subf | Neg);
                if !sets_ca && !i.oe() && matches!(i.op, Add | Subf) {
                    // The common cases, without the carry plumbing.
                    let b = self.g(rb);
                    if i.op == Add {
                        l!("{d} = {a}.wrapping_add({b});");
                    } else {
                        l!("{d} = {b}.wrapping_sub({a});");
                    }
                } else {
                    l!(
                        "let (x, y) = ({x}, {y}); let (r, c) = int::add_extended(x, y, {c}); {d} = r;"
                    );
                    if sets_ca {
                        let ca = self.w(Reg::Ca);
                        l!("{ca} = c;");
                    } else {
                        l!("let _ = c;");
                    }
                    if i.oe() {
                        self.ov_if(i, "int::add_overflow(x, y, r)");
                    }
                }
                self.record_if(i, &d);
            }
            Mullw | Mulld | Divw | Divwu | Divd | Divdu => {
                let (a, b) = (self.g(ra), self.g(rb));
                let h = match i.op {
                    Mullw => "mullw",
                    Mulld => "mulld",
                    Divw => "divw",
                    Divwu => "divwu",
                    Divd => "divd",
                    _ => "divdu",
                };
                let d = self.gw(rt);
                l!("let (r, o) = int::{h}({a}, {b}); {d} = r; let _ = o;");
                self.ov_if(i, "o");
                self.record_if(i, &d);
            }
            Mulhw | Mulhwu | Mulhd | Mulhdu => {
                let (a, b) = (self.g(ra), self.g(rb));
                let h = format!("{:?}", i.op).to_lowercase();
                let d = self.gw(rt);
                l!("{d} = int::{h}({a}, {b});");
                self.record_if(i, &d);
            }
            // ------------------------------------------------ logical
            // `nop` (`ori 0,0,0`, the TOC-restore slot after each call) reads
            // and writes nothing.
            Ori if rt == 0 && ra == 0 && i.uimm() == 0 => {}
            Andi | Andis | Ori | Oris | Xori | Xoris => {
                let s = self.g(rt);
                let (opr, imm) = match i.op {
                    Andi => ("&", i.uimm()),
                    Andis => ("&", i.uimm() << 16),
                    Ori => ("|", i.uimm()),
                    Oris => ("|", i.uimm() << 16),
                    Xori => ("^", i.uimm()),
                    _ => ("^", i.uimm() << 16),
                };
                let d = self.gw(ra);
                l!("{d} = {s} {opr} {imm:#x}u64;");
                if matches!(i.op, Andi | Andis) {
                    self.record(&d);
                }
            }
            // `xor r,s,s` reads nothing.
            Xor if rt == rb => {
                let d = self.gw(ra);
                l!("{d} = 0;");
                self.record_if(i, &d);
            }
            And | Andc | Or | Orc | Xor | Nand | Nor | Eqv | Slw | Srw | Sld | Srd => {
                let (s, b) = (self.g(rt), self.g(rb));
                let e = match i.op {
                    And => format!("{s} & {b}"),
                    Andc => format!("{s} & !{b}"),
                    Or => format!("{s} | {b}"),
                    Orc => format!("{s} | !{b}"),
                    Xor => format!("{s} ^ {b}"),
                    Nand => format!("!({s} & {b})"),
                    Nor => format!("!({s} | {b})"),
                    Eqv => format!("!({s} ^ {b})"),
                    Slw => format!("int::slw({s}, {b})"),
                    Srw => format!("int::srw({s}, {b})"),
                    Sld => format!("int::sld({s}, {b})"),
                    _ => format!("int::srd({s}, {b})"),
                };
                let d = self.gw(ra);
                l!("{d} = {e};");
                self.record_if(i, &d);
            }
            Sraw | Srawi | Srad | Sradi => {
                let s = self.g(rt);
                let n = match i.op {
                    Sraw | Srad => self.g(rb),
                    Srawi => format!("{}u64", i.sh32()),
                    _ => format!("{}u64", i.sh64()),
                };
                let h = if matches!(i.op, Sraw | Srawi) {
                    "sraw"
                } else {
                    "srad"
                };
                let d = self.gw(ra);
                let ca = self.w(Reg::Ca);
                l!("{{ let (r, c) = int::{h}({s}, {n}); {d} = r; {ca} = c; }}");
                self.record_if(i, &d);
            }
            Cntlzw | Cntlzd | Extsb | Extsh | Extsw => {
                let s = self.g(rt);
                let e = match i.op {
                    Cntlzw => format!("u64::from(({s} as u32).leading_zeros())"),
                    Cntlzd => format!("u64::from({s}.leading_zeros())"),
                    Extsb => format!("{s} as i8 as u64"),
                    Extsh => format!("{s} as i16 as u64"),
                    _ => format!("{s} as i32 as u64"),
                };
                let d = self.gw(ra);
                l!("{d} = {e};");
                self.record_if(i, &d);
            }
            Rlwinm | Rlwimi | Rlwnm => {
                let s = self.g(rt);
                let n = if i.op == Rlwnm {
                    format!("({} & 31) as u32", self.g(rb))
                } else {
                    format!("{}", i.sh32())
                };
                let mask = ppu_cpu::helpers::int::mask32(i.mb32(), i.me32());
                let e = if i.op == Rlwimi {
                    let a = self.g(ra);
                    format!(
                        "(int::rotl32_dup({s}, {n}) & {mask:#x}u64) | ({a} & {:#x}u64)",
                        !mask
                    )
                } else {
                    format!("int::rotl32_dup({s}, {n}) & {mask:#x}u64")
                };
                let d = self.gw(ra);
                l!("{d} = {e};");
                self.record_if(i, &d);
            }
            Rldicl | Rldicr | Rldic | Rldimi | Rldcl | Rldcr => {
                let s = self.g(rt);
                let (n, mask) = match i.op {
                    Rldcl | Rldcr => {
                        let b = self.g(rb);
                        let mb = i.mb64();
                        (
                            format!("({b} & 63) as u32"),
                            if i.op == Rldcl {
                                ppu_cpu::helpers::int::mask64(mb, 63)
                            } else {
                                ppu_cpu::helpers::int::mask64(0, mb)
                            },
                        )
                    }
                    _ => {
                        let n = i.sh64();
                        let mb = i.mb64();
                        let mask = match i.op {
                            Rldicl => ppu_cpu::helpers::int::mask64(mb, 63),
                            Rldicr => ppu_cpu::helpers::int::mask64(0, mb),
                            _ => ppu_cpu::helpers::int::mask64(mb, 63 - n),
                        };
                        (format!("{n}"), mask)
                    }
                };
                let e = if i.op == Rldimi {
                    let a = self.g(ra);
                    format!(
                        "(int::rotl64({s}, {n}) & {mask:#x}u64) | ({a} & {:#x}u64)",
                        !mask
                    )
                } else {
                    format!("int::rotl64({s}, {n}) & {mask:#x}u64")
                };
                let d = self.gw(ra);
                l!("{d} = {e};");
                self.record_if(i, &d);
            }
            // ------------------------------------------------ CR logic
            // `crclr`/`crset` (crxor/creqv of a bit with itself) read nothing.
            Crxor | Creqv if ra == rb => {
                let d = self.w(Reg::C(rt));
                l!("{d} = {};", u8::from(i.op == Creqv));
            }
            Crand | Crandc | Cror | Crorc | Crxor | Crnand | Crnor | Creqv => {
                let (a, b) = (self.r(Reg::C(ra)), self.r(Reg::C(rb)));
                let e = match i.op {
                    Crand => format!("{a} & {b}"),
                    Crandc => format!("{a} & !{b} & 1"),
                    Cror => format!("{a} | {b}"),
                    Crorc => format!("({a} | !{b}) & 1"),
                    Crxor => format!("{a} ^ {b}"),
                    Crnand => format!("!({a} & {b}) & 1"),
                    Crnor => format!("!({a} | {b}) & 1"),
                    _ => format!("!({a} ^ {b}) & 1"),
                };
                let d = self.w(Reg::C(rt));
                l!("{d} = {e};");
            }
            Mcrf => {
                let src: Vec<String> = (0..4).map(|k| self.r(Reg::C(4 * i.bfa() + k))).collect();
                l!("let t = [{}, {}, {}, {}];", src[0], src[1], src[2], src[3]);
                for k in 0..4 {
                    let d = self.w(Reg::C(4 * i.bf() + k));
                    l!("{d} = t[{k}];");
                }
            }
            Mfcr | Mfocrf => {
                if let Some(t) = &mut self.trace {
                    t.mfcr = true;
                }
                let mask: u32 = if i.op == Mfcr {
                    u32::MAX
                } else {
                    (0..8)
                        .filter(|f| i.crm() & (0x80 >> f) != 0)
                        .map(|f| 0xF000_0000u32 >> (4 * f))
                        .fold(0, |a, b| a | b)
                };
                let mut terms = Vec::new();
                let reached = self
                    .cr_reached
                    .as_ref()
                    .and_then(|m| m.get(&self.point))
                    .cloned();
                for bit in 0..32 {
                    let meaningless = abi_entry_dead(Reg::C(bit))
                        && reached.as_ref().is_some_and(|r| !r.contains(&bit));
                    if mask & (1 << (31 - bit)) != 0 && !meaningless {
                        let c = self.r(Reg::C(bit));
                        terms.push(format!("(u64::from({c}) << {})", 31 - bit));
                    }
                }
                let d = self.gw(rt);
                if terms.is_empty() {
                    l!("{d} = 0;");
                } else {
                    l!("{d} = {};", terms.join(" | "));
                }
            }
            Mtcrf | Mtocrf => {
                let s = self.g(rt);
                for f in 0..8 {
                    if i.crm() & (0x80 >> f) != 0 {
                        for k in 0..4 {
                            let bit = 4 * f + k;
                            let c = self.w(Reg::C(bit));
                            l!("{c} = (({s} >> {}) & 1) as u8;", 31 - bit);
                        }
                    }
                }
            }
            // ------------------------------------------------ SPRs
            Mfspr | Mftb => {
                let e = match i.spr() {
                    spr::XER => {
                        let (so, ov, ca, bc) = (
                            self.r(Reg::So),
                            self.r(Reg::Ov),
                            self.r(Reg::Ca),
                            self.r(Reg::Bc),
                        );
                        format!(
                            "u64::from({so}) << 31 | u64::from({ov}) << 30 | u64::from({ca}) << 29 | u64::from({bc} & 0x7F)"
                        )
                    }
                    spr::LR => self.r(Reg::Lr),
                    spr::CTR => self.r(Reg::Ctr),
                    spr::VRSAVE => format!("u64::from({})", self.r(Reg::Vrsave)),
                    spr::TBL => "rt.timebase.read()".into(),
                    _ => "(rt.timebase.read() >> 32)".into(),
                };
                let d = self.gw(rt);
                l!("{d} = {e};");
            }
            Mtspr => {
                let v = self.g(rt);
                match i.spr() {
                    spr::XER => {
                        let (so, ov, ca, bc) = (
                            self.w(Reg::So),
                            self.w(Reg::Ov),
                            self.w(Reg::Ca),
                            self.w(Reg::Bc),
                        );
                        l!(
                            "{so} = (({v} >> 31) & 1) as u8; {ov} = (({v} >> 30) & 1) as u8; {ca} = (({v} >> 29) & 1) as u8; {bc} = ({v} & 0x7F) as u8;"
                        );
                    }
                    spr::LR => {
                        let d = self.w(Reg::Lr);
                        l!("{d} = {v};");
                    }
                    spr::CTR => {
                        let d = self.w(Reg::Ctr);
                        l!("{d} = {v};");
                    }
                    _ => {
                        let d = self.w(Reg::Vrsave);
                        l!("{d} = {v} as u32;");
                    }
                }
            }
            // ------------------------------------------------ loads
            Lbz | Lbzx | Lhz | Lhzx | Lha | Lhax | Lwz | Lwzx | Lwa | Lwax | Ld | Ldx | Lhbrx
            | Lwbrx | Lbzu | Lbzux | Lhzu | Lhzux | Lhau | Lhaux | Lwzu | Lwzux | Lwaux | Ldu
            | Ldux => {
                let update = matches!(
                    i.op,
                    Lbzu | Lbzux | Lhzu | Lhzux | Lhau | Lhaux | Lwzu | Lwzux | Lwaux | Ldu | Ldux
                );
                let ea = match i.op {
                    Lbz | Lhz | Lha | Lwz | Lbzu | Lhzu | Lhau | Lwzu => self.ea_d(i),
                    Lwa | Ld | Ldu => self.ea_ds(i),
                    _ => self.ea_x(i),
                };
                // Update forms use the full 64-bit EA for rA.
                let ea64 = if update {
                    let a = self.g(ra);
                    let off = match i.op {
                        Lbzu | Lhzu | Lhau | Lwzu => format!("{:#x}u64", i.simm() as u64),
                        Ldu => format!("{:#x}u64", i.ds() as u64),
                        _ => self.g(rb),
                    };
                    Some(format!("{a}.wrapping_add({off})"))
                } else {
                    None
                };
                let ea = if update {
                    "(ea as u32)".to_string()
                } else {
                    ea
                };
                if let Some(e) = &ea64 {
                    l!("let ea = {e};");
                }
                let v = match i.op {
                    Lbz | Lbzx | Lbzu | Lbzux => format!("u64::from({})", self.load("u8", &ea, ra)),
                    Lhz | Lhzx | Lhzu | Lhzux => {
                        format!("u64::from({})", self.load("u16", &ea, ra))
                    }
                    Lha | Lhax | Lhau | Lhaux => {
                        format!("{} as i16 as u64", self.load("u16", &ea, ra))
                    }
                    Lwz | Lwzx | Lwzu | Lwzux => {
                        format!("u64::from({})", self.load("u32", &ea, ra))
                    }
                    Lwa | Lwax | Lwaux => format!("{} as i32 as u64", self.load("u32", &ea, ra)),
                    Lhbrx => format!("u64::from({}.swap_bytes())", self.load("u16", &ea, ra)),
                    Lwbrx => format!("u64::from({}.swap_bytes())", self.load("u32", &ea, ra)),
                    _ => self.load("u64", &ea, ra),
                };
                let d = self.gw(rt);
                l!("{d} = {v};");
                if update {
                    let a = self.gw(ra);
                    l!("{a} = ea;");
                }
            }
            // ------------------------------------------------ stores
            Stb | Stbx | Sth | Sthx | Stw | Stwx | Std | Stdx | Sthbrx | Stwbrx | Stbu | Stbux
            | Sthu | Sthux | Stwu | Stwux | Stdu | Stdux => {
                let update = matches!(
                    i.op,
                    Stbu | Stbux | Sthu | Sthux | Stwu | Stwux | Stdu | Stdux
                );
                let s = self.g(rt);
                if update {
                    let a = self.g(ra);
                    let off = match i.op {
                        Stbu | Sthu | Stwu => format!("{:#x}u64", i.simm() as u64),
                        Stdu => format!("{:#x}u64", i.ds() as u64),
                        _ => self.g(rb),
                    };
                    l!("let ea = {a}.wrapping_add({off}); let v = {s};");
                } else {
                    let ea = match i.op {
                        Stb | Sth | Stw => self.ea_d(i),
                        Std => self.ea_ds(i),
                        _ => self.ea_x(i),
                    };
                    l!("let ea = {ea} as u64; let v = {s};");
                }
                let w = match i.op {
                    Stb | Stbx | Stbu | Stbux => "m.write_u8(ea as u32, v as u8);",
                    Sth | Sthx | Sthu | Sthux => "m.write_u16(ea as u32, v as u16);",
                    Stw | Stwx | Stwu | Stwux => "m.write_u32(ea as u32, v as u32);",
                    Sthbrx => "m.write_u16(ea as u32, (v as u16).swap_bytes());",
                    Stwbrx => "m.write_u32(ea as u32, (v as u32).swap_bytes());",
                    _ => "m.write_u64(ea as u32, v);",
                };
                self.line(w);
                if update {
                    let a = self.gw(ra);
                    l!("{a} = ea;");
                }
            }
            Lwarx | Ldarx => {
                let ea = self.ea_x(i);
                let (f, conv) = if i.op == Lwarx {
                    ("load_reserved_u32", "u64::from(v)")
                } else {
                    ("load_reserved_u64", "v")
                };
                let fl = self.flush_code();
                let d = self.gw(rt);
                l!(
                    "match m.{f}(&mut ctx.reservation, {ea}) {{ Ok(v) => {d} = {conv}, Err(e) => {{ {fl}rt.fault({pc:#x}, e) }} }}"
                );
            }
            Stwcx | Stdcx => {
                let ea = self.ea_x(i);
                let s = self.g(rt);
                let (f, v) = if i.op == Stwcx {
                    ("store_conditional_u32", format!("{s} as u32"))
                } else {
                    ("store_conditional_u64", s)
                };
                let so = self.r(Reg::So);
                let fl = self.flush_code();
                l!(
                    "let ok = match m.{f}(&mut ctx.reservation, {ea}, {v}) {{ Ok(ok) => ok, Err(e) => {{ {fl}rt.fault({pc:#x}, e) }} }};"
                );
                self.set_field(0, &format!("(u32::from(ok) << 1) | u32::from({so})"));
            }
            Dcbz => {
                let ea = self.ea_x(i);
                let fl = self.flush_code();
                l!("if let Err(e) = m.zero_line({ea}) {{ {fl}rt.fault({pc:#x}, e) }}");
            }
            Dcbst | Dcbf | Dcbt | Dcbtst | Icbi | Dst | Dstt | Dstst | Dststt | Dss | Dssall => {}
            Sync => {
                if i.sync_l() == 1 {
                    l!("std::sync::atomic::fence(std::sync::atomic::Ordering::AcqRel);");
                } else {
                    l!("std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);");
                }
            }
            Eieio => l!("std::sync::atomic::fence(std::sync::atomic::Ordering::Release);"),
            Isync => l!("std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);"),
            // ------------------------------------------------ FP memory
            Lfs | Lfsx | Lfsu | Lfsux | Lfd | Lfdx | Lfdu | Lfdux => {
                let update = matches!(i.op, Lfsu | Lfsux | Lfdu | Lfdux);
                if update {
                    let a = self.g(ra);
                    let off = if matches!(i.op, Lfsu | Lfdu) {
                        format!("{:#x}u64", i.simm() as u64)
                    } else {
                        self.g(rb)
                    };
                    l!("let ea = {a}.wrapping_add({off});");
                } else {
                    let ea = if matches!(i.op, Lfs | Lfd) {
                        self.ea_d(i)
                    } else {
                        self.ea_x(i)
                    };
                    l!("let ea = {ea} as u64;");
                }
                let single = matches!(i.op, Lfs | Lfsx | Lfsu | Lfsux);
                let bits = if single {
                    format!(
                        "fpu::single_to_double_bits({})",
                        self.load("u32", "(ea as u32)", ra)
                    )
                } else {
                    self.load("u64", "(ea as u32)", ra)
                };
                let d = self.fw(rt);
                l!("{d} = f64::from_bits({bits});");
                if update {
                    let a = self.gw(ra);
                    l!("{a} = ea;");
                }
            }
            Stfs | Stfsx | Stfsu | Stfsux | Stfd | Stfdx | Stfdu | Stfdux | Stfiwx => {
                let update = matches!(i.op, Stfsu | Stfsux | Stfdu | Stfdux);
                let s = self.fr(rt);
                if update {
                    let a = self.g(ra);
                    let off = if matches!(i.op, Stfsu | Stfdu) {
                        format!("{:#x}u64", i.simm() as u64)
                    } else {
                        self.g(rb)
                    };
                    l!("let ea = {a}.wrapping_add({off});");
                } else {
                    let ea = if matches!(i.op, Stfs | Stfd) {
                        self.ea_d(i)
                    } else {
                        self.ea_x(i)
                    };
                    l!("let ea = {ea} as u64;");
                }
                match i.op {
                    Stfs | Stfsx | Stfsu | Stfsux => {
                        l!("m.write_u32(ea as u32, fpu::double_to_single_bits({s}.to_bits()));")
                    }
                    Stfiwx => l!("m.write_u32(ea as u32, {s}.to_bits() as u32);"),
                    _ => l!("m.write_u64(ea as u32, {s}.to_bits());"),
                }
                if update {
                    let a = self.gw(ra);
                    l!("{a} = ea;");
                }
            }
            // ------------------------------------------------ FPU
            Fadd | Fadds | Fsub | Fsubs | Fdiv | Fdivs | Fmul | Fmuls => {
                let x = self.fr(ra);
                let y = if matches!(i.op, Fmul | Fmuls) {
                    self.fr(i.rc_reg())
                } else {
                    self.fr(rb)
                };
                let h = format!("{:?}", i.op).to_lowercase();
                let m = if matches!(i.op, Fadd | Fsub | Fmul | Fdiv) && self.fp_status_dead(i) {
                    "fpu::status_dead"
                } else {
                    "fpu"
                };
                let fpscr = self.w(Reg::Fpscr);
                let d = self.fw(rt);
                l!("{d} = {m}::{h}(&mut {fpscr}, {x}, {y});");
                self.cr1_if(i);
            }
            Fsqrt | Fsqrts | Fres | Frsqrte | Frsp | Fctiw | Fctiwz | Fctid | Fctidz | Fcfid => {
                let b = self.fr(rb);
                let h = format!("{:?}", i.op).to_lowercase();
                let m = if i.op == Fcfid && self.fp_status_dead(i) {
                    "fpu::status_dead"
                } else {
                    "fpu"
                };
                let fpscr = self.w(Reg::Fpscr);
                let d = self.fw(rt);
                l!("{d} = {m}::{h}(&mut {fpscr}, {b});");
                self.cr1_if(i);
            }
            Fmadd | Fmadds | Fmsub | Fmsubs | Fnmadd | Fnmadds | Fnmsub | Fnmsubs => {
                let (a, c, b) = (self.fr(ra), self.fr(i.rc_reg()), self.fr(rb));
                let h = format!("{:?}", i.op).to_lowercase();
                let fpscr = self.w(Reg::Fpscr);
                let d = self.fw(rt);
                l!("{d} = fpu::{h}(&mut {fpscr}, {a}, {c}, {b});");
                self.cr1_if(i);
            }
            Fsel => {
                let (a, c, b) = (self.fr(ra), self.fr(i.rc_reg()), self.fr(rb));
                let d = self.fw(rt);
                l!("{d} = fpu::fsel({a}, {c}, {b});");
                self.cr1_if(i);
            }
            Fmr | Fneg | Fabs | Fnabs => {
                let b = self.fr(rb);
                let e = match i.op {
                    Fmr => format!("{b}.to_bits()"),
                    Fneg => format!("{b}.to_bits() ^ (1 << 63)"),
                    Fabs => format!("{b}.to_bits() & !(1 << 63)"),
                    _ => format!("{b}.to_bits() | (1 << 63)"),
                };
                let d = self.fw(rt);
                l!("{d} = f64::from_bits({e});");
                self.cr1_if(i);
            }
            Fcmpu | Fcmpo => {
                let (a, b) = (self.fr(ra), self.fr(rb));
                let fpscr = self.w(Reg::Fpscr);
                self.set_field(
                    i.bf(),
                    &format!("fpu::fcmp(&mut {fpscr}, {a}, {b}, {})", i.op == Fcmpo),
                );
            }
            Mffs => {
                let fpscr = self.r(Reg::Fpscr);
                let d = self.fw(rt);
                l!("{d} = f64::from_bits(u64::from({fpscr}));");
                self.cr1_if(i);
            }
            // ------------------------------------------------ VMX memory
            Lvx | Lvxl | Lvebx | Lvehx | Lvewx => {
                let ea = self.ea_x(i);
                let d = self.vw(rt);
                l!("{d} = V128(m.read_u128({ea} & !15));");
            }
            Stvx | Stvxl => {
                let ea = self.ea_x(i);
                let s = self.vr(rt);
                l!("m.write_u128({ea} & !15, {s}.0);");
            }
            Stvebx => {
                let ea = self.ea_x(i);
                let s = self.vr(rt);
                l!("{{ let ea = {ea}; m.write_u8(ea, vmx::byte({s}, (ea & 15) as usize)); }}");
            }
            Stvehx => {
                let ea = self.ea_x(i);
                let s = self.vr(rt);
                l!(
                    "{{ let ea = {ea} & !1; m.write_u16(ea, vmx::half({s}, ((ea & 15) >> 1) as usize)); }}"
                );
            }
            Stvewx => {
                let ea = self.ea_x(i);
                let s = self.vr(rt);
                l!(
                    "{{ let ea = {ea} & !3; m.write_u32(ea, vmx::word({s}, ((ea & 15) >> 2) as usize)); }}"
                );
            }
            Lvsl | Lvsr => {
                let ea = self.ea_x(i);
                let h = if i.op == Lvsl { "lvsl" } else { "lvsr" };
                let d = self.vw(rt);
                l!("{d} = vmx::{h}({ea});");
            }
            Lvlx | Lvlxl => {
                let ea = self.ea_x(i);
                let d = self.vw(rt);
                l!("{{ let ea = {ea}; {d} = vmx::load_left(V128(m.read_u128(ea & !15)), ea); }}");
            }
            Lvrx | Lvrxl => {
                let ea = self.ea_x(i);
                let d = self.vw(rt);
                l!(
                    "{{ let ea = {ea}; {d} = if ea & 15 == 0 {{ V128(0) }} else {{ vmx::load_right(V128(m.read_u128(ea & !15)), ea) }}; }}"
                );
            }
            Mfvscr => {
                let s = self.r(Reg::Vscr);
                let d = self.vw(rt);
                l!("{d} = V128(u128::from({s}));");
            }
            Mtvscr => {
                let b = self.vr(rb);
                let d = self.w(Reg::Vscr);
                l!("{d} = {b}.0 as u32;");
            }
            // ------------------------------------------------ VMX arithmetic
            // `vxor v,a,a` (the usual way to clear a register) reads nothing.
            Vxor if i.ra() == i.rb() => {
                let d = self.vw(rt);
                l!("{d} = V128(0);");
            }
            op if vmx_kind(op).is_some() => self.vmx(i, vmx_kind(op).expect("checked")),
            // ------------------------------------------------ the rest: the interpreter, in place
            _ => self.via_interp(insn),
        }
    }

    fn vmx(&mut self, i: Instr, kind: VKind) {
        let name = format!("{:?}", i.op).to_lowercase();
        let (ra, rb, rc) = (i.ra(), i.rb(), i.rc_reg());
        let e = match kind {
            VKind::Two => format!("vmx::{name}({}, {})", self.vr(ra), self.vr(rb)),
            VKind::TwoSat => {
                let (a, b) = (self.vr(ra), self.vr(rb));
                format!("vmx::{name}(&mut {}, {a}, {b})", self.w(Reg::Vscr))
            }
            VKind::OneB => format!("vmx::{name}({})", self.vr(rb)),
            VKind::OneFloat => {
                let b = self.vr(rb);
                format!("vmx::{name}({}, {b})", self.r(Reg::Vscr))
            }
            VKind::TwoFloat => {
                let (a, b) = (self.vr(ra), self.vr(rb));
                format!("vmx::{name}({}, {a}, {b})", self.r(Reg::Vscr))
            }
            VKind::Three => format!(
                "vmx::{name}({}, {}, {})",
                self.vr(ra),
                self.vr(rb),
                self.vr(rc)
            ),
            VKind::ThreeSat => {
                let (a, b, c) = (self.vr(ra), self.vr(rb), self.vr(rc));
                format!("vmx::{name}(&mut {}, {a}, {b}, {c})", self.w(Reg::Vscr))
            }
            VKind::MaddFloat => {
                let (a, c, b) = (self.vr(ra), self.vr(rc), self.vr(rb));
                format!("vmx::{name}({}, {a}, {c}, {b})", self.r(Reg::Vscr))
            }
            VKind::Sldoi => format!("vmx::vsldoi({}, {}, {})", self.vr(ra), self.vr(rb), i.shb()),
            VKind::Splat => format!("vmx::{name}({}, {})", self.vr(rb), i.vuimm()),
            VKind::SplatImm => format!("vmx::{name}({})", i.vsimm()),
            VKind::ConvSat => {
                let b = self.vr(rb);
                format!(
                    "vmx::{name}(&mut {}, {b}, {})",
                    self.w(Reg::Vscr),
                    i.vuimm()
                )
            }
            VKind::Cmp | VKind::CmpFloat | VKind::Cmpb => {
                let (a, b) = (self.vr(ra), self.vr(rb));
                let call = if kind == VKind::Cmp {
                    format!("vmx::{name}({a}, {b})")
                } else {
                    format!("vmx::{name}({}, {a}, {b})", self.r(Reg::Vscr))
                };
                let d = self.vw(i.rt());
                self.line(&format!("{d} = {call};"));
                if i.rc() {
                    if kind == VKind::Cmpb {
                        self.set_field(6, &format!("if {d}.0 == 0 {{ 2 }} else {{ 0 }}"));
                    } else {
                        self.set_field(6, &format!("vmx::cr6({d})"));
                    }
                }
                return;
            }
        };
        let d = self.vw(i.rt());
        self.line(&format!("{d} = {e};"));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VKind {
    Two,
    TwoSat,
    OneB,
    OneFloat,
    TwoFloat,
    Three,
    ThreeSat,
    MaddFloat,
    Sldoi,
    Splat,
    SplatImm,
    ConvSat,
    Cmp,
    CmpFloat,
    Cmpb,
}

/// How a VMX op is called (mirrors the interpreter's table).
fn vmx_kind(op: Op) -> Option<VKind> {
    use Op::*;
    use VKind::*;
    Some(match op {
        Vaddubm | Vadduhm | Vadduwm | Vaddcuw | Vsububm | Vsubuhm | Vsubuwm | Vsubcuw | Vmaxub
        | Vmaxuh | Vmaxuw | Vmaxsb | Vmaxsh | Vmaxsw | Vminub | Vminuh | Vminuw | Vminsb
        | Vminsh | Vminsw | Vavgub | Vavguh | Vavguw | Vavgsb | Vavgsh | Vavgsw | Vand | Vandc
        | Vor | Vnor | Vxor | Vrlb | Vrlh | Vrlw | Vslb | Vslh | Vslw | Vsrb | Vsrh | Vsrw
        | Vsrab | Vsrah | Vsraw | Vsl | Vsr | Vslo | Vsro | Vmrghb | Vmrghh | Vmrghw | Vmrglb
        | Vmrglh | Vmrglw | Vpkuhum | Vpkuwum | Vpkpx | Vmuleub | Vmuleuh | Vmulesb | Vmulesh
        | Vmuloub | Vmulouh | Vmulosb | Vmulosh => Two,
        Vaddubs | Vadduhs | Vadduws | Vaddsbs | Vaddshs | Vaddsws | Vsububs | Vsubuhs | Vsubuws
        | Vsubsbs | Vsubshs | Vsubsws | Vpkuhus | Vpkuwus | Vpkshus | Vpkswus | Vpkshss
        | Vpkswss | Vsumsws | Vsum2sws | Vsum4ubs | Vsum4sbs | Vsum4shs => TwoSat,
        Vupkhsb | Vupkhsh | Vupklsb | Vupklsh | Vupkhpx | Vupklpx => OneB,
        Vrefp | Vrsqrtefp | Vexptefp | Vlogefp | Vrfin | Vrfiz | Vrfip | Vrfim => OneFloat,
        Vaddfp | Vsubfp | Vmaxfp | Vminfp => TwoFloat,
        Vmladduhm | Vmsumubm | Vmsummbm | Vmsumuhm | Vmsumshm | Vsel | Vperm => Three,
        Vmhaddshs | Vmhraddshs | Vmsumuhs | Vmsumshs => ThreeSat,
        Vmaddfp | Vnmsubfp => MaddFloat,
        Vsldoi => Sldoi,
        Vspltb | Vsplth | Vspltw | Vcfux | Vcfsx => Splat,
        Vspltisb | Vspltish | Vspltisw => SplatImm,
        Vctuxs | Vctsxs => ConvSat,
        Vcmpequb | Vcmpequh | Vcmpequw | Vcmpgtub | Vcmpgtuh | Vcmpgtuw | Vcmpgtsb | Vcmpgtsh
        | Vcmpgtsw => VKind::Cmp,
        Vcmpeqfp | Vcmpgefp | Vcmpgtfp => CmpFloat,
        Vcmpbfp => Cmpb,
        _ => return None,
    })
}

/// A node of the structured CFG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    /// A block of the function.
    Block(u32),
    /// The single entry made for a loop the code enters at several blocks
    /// (irreducible control flow, which gcc's loop rotation produces): it
    /// jumps to the entry the incoming edge chose (`ent`).
    Dispatch,
}

/// A function's control-flow graph in reverse postorder, with dominators.
#[derive(Debug)]
struct Cfg {
    /// Each node, in reverse postorder (node 0 is the entry block).
    order: Vec<Node>,
    /// Successors of each node: (target block, node, dispatch selector).
    succ: Vec<Vec<(u32, usize, Option<u32>)>>,
    /// Dominator-tree children.
    children: Vec<Vec<usize>>,
    /// Loop headers (targets of back edges).
    header: Vec<bool>,
    /// Merge nodes (two or more forward predecessors).
    merge: Vec<bool>,
}

/// Most dispatch nodes made to remove irreducible control flow from one
/// function before it falls back to a state machine.
const MAX_DISPATCH: usize = 64;

/// The shape of a graph: reverse postorder and immediate dominators.
struct Shape {
    /// Nodes in reverse postorder.
    rpo: Vec<usize>,
    /// RPO number of each node (`usize::MAX`: unreachable).
    num: Vec<usize>,
    /// Immediate dominator of each RPO number, as an RPO number.
    idom: Vec<usize>,
}

fn shape(succ: &[Vec<(u32, usize, Option<u32>)>]) -> Shape {
    let n = succ.len();
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (u, k) = *top;
        if k < succ[u].len() {
            top.1 += 1;
            let v = succ[u][k].1;
            if !seen[v] {
                seen[v] = true;
                stack.push((v, 0));
            }
        } else {
            post.push(u);
            stack.pop();
        }
    }
    post.reverse();
    let rpo = post;
    let mut num = vec![usize::MAX; n];
    for (i, &u) in rpo.iter().enumerate() {
        num[u] = i;
    }
    let m = rpo.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); m];
    for &u in &rpo {
        for &(_, v, _) in &succ[u] {
            preds[num[v]].push(num[u]);
        }
    }
    // Dominators (Cooper, Harvey, Kennedy) over RPO numbers.
    let mut idom: Vec<Option<usize>> = vec![None; m];
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while a > b {
                a = idom[a].expect("processed");
            }
            while b > a {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for v in 1..m {
            let mut new: Option<usize> = None;
            for &p in &preds[v] {
                if idom[p].is_some() {
                    new = Some(match new {
                        None => p,
                        Some(x) => intersect(&idom, p, x),
                    });
                }
            }
            if new.is_some() && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    Shape {
        rpo,
        num,
        idom: idom.into_iter().map(|d| d.expect("reachable")).collect(),
    }
}

/// Whether a terminator writes locals back on some path (a call, a
/// return, a jump out of lifted code).
/// A jump table's dense index: a static array over the targets' address
/// range, one entry per instruction, holding 1 + the target's value (its
/// position in the table, or the block or dispatch entry it leads to; 0:
/// not a target). A `match` on the entry compiles to one host
/// jump table; a `match` on the sparse target addresses would be a
/// binary search of compares.
struct SwitchTable {
    /// The array's declaration.
    decl: String,
    /// Its name.
    name: String,
    /// The lowest target.
    lo: u32,
}

/// Most entries a dense switch index may have.
const MAX_SWITCH_SPAN: u32 = 1 << 16;
/// Fewest targets for which a dense index pays.
const MIN_SWITCH_TARGETS: usize = 5;

impl SwitchTable {
    /// The expression reading the index for the target address in `t`.
    fn index(&self, t: &str) -> String {
        format!(
            "{}.get(({t}.wrapping_sub({:#x}) >> 2) as usize).copied().unwrap_or(0)",
            self.name, self.lo
        )
    }
}

/// The dense index of the jump table with `targets` (in table order, no
/// duplicates) whose `bctr` is at `pc`, each target's entry holding 1 + its
/// value in `values`, when one is worth it.
fn switch_table(targets: &[u32], values: &[u32], pc: u32) -> Option<SwitchTable> {
    let lo = *targets.iter().min()?;
    let hi = *targets.iter().max()?;
    let span = (hi - lo) / 4 + 1;
    let top = values.iter().copied().max()?;
    if targets.len() < MIN_SWITCH_TARGETS || span > MAX_SWITCH_SPAN || top >= 0xffff {
        return None;
    }
    let mut slots = vec![0u32; span as usize];
    for (&t, &v) in targets.iter().zip(values) {
        slots[((t - lo) / 4) as usize] = v + 1;
    }
    let ty = if top < 255 { "u8" } else { "u16" };
    let name = format!("SWITCH_{pc:08X}");
    let body: Vec<String> = slots.iter().map(|v| v.to_string()).collect();
    let decl = format!("static {name}: [{ty}; {span}] = [{}];", body.join(","));
    Some(SwitchTable { decl, name, lo })
}

/// Per `mfcr`/`mfocrf` point of `f` (`items`: each block's traced
/// instructions), the volatile CR bits that may have been written since the
/// entry or the last call returned (a system call or the interpreter may
/// write all of them).
fn cr_reached(
    f: &Func,
    items: &BTreeMap<u32, Vec<Trace>>,
) -> BTreeMap<(u32, usize), BTreeSet<usize>> {
    let volatile = |r: &Reg| match *r {
        Reg::C(n) if abi_entry_dead(*r) => Some(n),
        _ => None,
    };
    let all: BTreeSet<usize> = (0..32).filter(|&n| abi_entry_dead(Reg::C(n))).collect();
    let mut at_in: BTreeMap<u32, BTreeSet<usize>> =
        f.blocks.keys().map(|&b| (b, BTreeSet::new())).collect();
    let mut points = BTreeMap::new();
    let mut changed = true;
    while changed {
        changed = false;
        for (&start, b) in &f.blocks {
            let mut w = at_in[&start].clone();
            for (k, t) in items[&start].iter().enumerate() {
                if t.mfcr {
                    points.insert((start, k), w.clone());
                }
                if t.reload {
                    w.clone_from(&all);
                }
                w.extend(t.defs.iter().filter_map(volatile));
            }
            let (_, td, _) = term_regs(&b.term);
            w.extend(td.iter().filter_map(volatile));
            match &b.term {
                Term::Call { .. } => w.clear(),
                Term::IndirectCall { insn, .. }
                    if insn.instr.is_some_and(|i| i.bo() & 0x14 == 0x14) =>
                {
                    w.clear()
                }
                Term::Syscall { .. } => w.clone_from(&all),
                _ => {}
            }
            for t in successors(b) {
                if let Some(i) = at_in.get_mut(&t) {
                    let before = i.len();
                    i.extend(w.iter().copied());
                    changed |= i.len() != before;
                }
            }
        }
    }
    points
}

/// Per block, the registers read before they are written, from its start on, by the
/// instructions and branches themselves (`items`: each block's traced
/// instructions): what a caller must have set. Calls and system calls read
/// nothing here and clobber what the ABI says they may; write-backs read
/// nothing.
fn read_before_write(f: &Func, items: &BTreeMap<u32, Vec<Trace>>) -> BTreeMap<u32, BTreeSet<Reg>> {
    let mut live_in: BTreeMap<u32, BTreeSet<Reg>> =
        f.blocks.keys().map(|&b| (b, BTreeSet::new())).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (&start, b) in f.blocks.iter().rev() {
            let mut live: BTreeSet<Reg> = successors(b)
                .into_iter()
                .filter_map(|t| live_in.get(&t).cloned())
                .flatten()
                .collect();
            if matches!(
                b.term,
                Term::Call { .. }
                    | Term::CondCall { .. }
                    | Term::IndirectCall { .. }
                    | Term::Syscall { .. }
            ) {
                live.retain(|r| !abi_exit_dead(*r));
            }
            let (tu, td, _) = term_regs(&b.term);
            for d in &td {
                live.remove(d);
            }
            live.extend(tu);
            for t in items[&start].iter().rev() {
                for d in &t.defs {
                    live.remove(d);
                }
                live.extend(t.uses.iter().copied());
            }
            if live_in[&start] != live {
                live_in.insert(start, live);
                changed = true;
            }
        }
    }
    live_in
}

/// The exits a terminator takes out of lifted code (each writes back the
/// dirty registers its kind needs); none when all its edges stay inside.
fn term_exits(t: &Term, f: &Func) -> Vec<Exit> {
    let edge = |e: &Edge| match e {
        Edge::Block(b) if f.blocks.contains_key(b) => None,
        Edge::Block(_) | Edge::Indirect => Some(Exit::Exact),
        Edge::TailCall(_) => Some(Exit::Call),
        Edge::Return => Some(Exit::Return),
    };
    match t {
        Term::Fall(e) | Term::Jump(e) => edge(e).into_iter().collect(),
        Term::Cond { taken, fall, .. } => edge(taken).into_iter().chain(edge(fall)).collect(),
        Term::Call { .. } | Term::IndirectCall { .. } | Term::CondCall { .. } => vec![Exit::Call],
        Term::Return(_) => vec![Exit::Return],
        Term::Syscall { .. }
        | Term::Switch { .. }
        | Term::IndirectJump(_)
        | Term::Trap(_)
        | Term::Interpret(_)
        | Term::OffEnd(_) => vec![Exit::Exact],
    }
}

/// Where control leaves lifted code, for what a write-back must include.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// Code that may read any register: the interpreter, the runtime's
    /// jumps, system calls, traps, the verifier.
    Exact,
    /// A call or tail call: the callee's inputs are its arguments, the
    /// nonvolatile registers (which it may save) and the link register.
    Call,
    /// A return: the caller reads the return values and the nonvolatile
    /// registers.
    Return,
}

impl Exit {
    /// Whether a dirty `r` is written back at this exit (`abi`: trust the
    /// ABI, see `EmitOptions::abi_trust`).
    fn writes_back(self, r: Reg, abi: bool) -> bool {
        match self {
            Exit::Exact => true,
            _ if !abi => true,
            Exit::Call => !abi_entry_dead(r),
            Exit::Return => !abi_exit_dead(r),
        }
    }
}

/// Registers the ABI gives no meaning at a function's entry (volatile and
/// no argument: r0, r11, r12, f0, v0, v1, v14-v19, CR0, CR1, CR5-CR7, CTR,
/// XER\[CA, OV\]). r3-r10, f1-f13 and v2-v13 carry arguments.
fn abi_entry_dead(r: Reg) -> bool {
    match r {
        Reg::G(n) => matches!(n, 0 | 11 | 12),
        Reg::F(n) => n == 0,
        Reg::V(n) => n < 2 || (14..20).contains(&n),
        Reg::C(n) => !(8..20).contains(&n),
        Reg::Ctr | Reg::Ca | Reg::Ov => true,
        _ => false,
    }
}

/// Registers the ABI gives no meaning after a call returns (volatile and no
/// return value: r0, r5-r12, f0, f5-f13, v0, v1, v3-v19, CR0, CR1,
/// CR5-CR7, LR, CTR, XER\[CA, OV\]). r3-r4, f1-f4 and v2 carry results.
fn abi_exit_dead(r: Reg) -> bool {
    match r {
        Reg::G(n) => n == 0 || (5..13).contains(&n),
        Reg::F(n) => n == 0 || (5..14).contains(&n),
        Reg::V(n) => n < 2 || (3..20).contains(&n),
        Reg::C(n) => !(8..20).contains(&n),
        Reg::Lr | Reg::Ctr | Reg::Ca | Reg::Ov => true,
        _ => false,
    }
}

/// Registers the ABI says a callee preserves (see `EmitOptions::abi_trust`);
/// r2, the TOC pointer, too: a call that changes it (through a stub to
/// another module) is followed by the caller's own reload of it.
fn preserved(r: Reg) -> bool {
    match r {
        Reg::G(n) => n == 1 || n == 2 || n >= 14,
        Reg::F(n) => n >= 14,
        Reg::V(n) => n >= 20,
        Reg::C(n) => (8..20).contains(&n),
        _ => false,
    }
}

/// A terminator's register reads and writes (before its branch or call),
/// and, for a call, where it goes on afterwards.
fn term_regs(t: &Term) -> (Vec<Reg>, Vec<Reg>, Option<Edge>) {
    let mut uses = Vec::new();
    let mut defs = Vec::new();
    let mut call = None;
    match t {
        Term::Cond { insn, .. } => {
            let i = insn.instr.expect("branch decodes");
            if i.bo() & 0x10 == 0 {
                uses.push(Reg::C(i.bi()));
            }
            if i.bo() & 4 == 0 && i.op != Op::Bcctr {
                uses.push(Reg::Ctr);
                defs.push(Reg::Ctr);
            }
            match i.op {
                Op::Bcctr => uses.push(Reg::Ctr),
                Op::Bclr => uses.push(Reg::Lr),
                _ => {}
            }
        }
        Term::Call { next, .. } => {
            defs.push(Reg::Lr);
            call = Some(*next);
        }
        Term::CondCall { insn, .. } => {
            // Like a conditional branch for the dataflow (the call is on one
            // path only): its reload is what the continuation reads.
            let i = insn.instr.expect("branch decodes");
            if i.bo() & 0x10 == 0 {
                uses.push(Reg::C(i.bi()));
            }
            if i.bo() & 4 == 0 {
                uses.push(Reg::Ctr);
                defs.push(Reg::Ctr);
            }
            defs.push(Reg::Lr);
        }
        Term::IndirectCall { insn, next } => {
            let i = insn.instr.expect("branch decodes");
            uses.push(if i.op == Op::Bcctr { Reg::Ctr } else { Reg::Lr });
            defs.push(Reg::Lr);
            if i.bo() & 0x14 == 0x14 {
                call = Some(*next);
            } else {
                // Conditional: like `CondCall` for the dataflow.
                if i.bo() & 0x10 == 0 {
                    uses.push(Reg::C(i.bi()));
                }
                if i.bo() & 4 == 0 && i.op != Op::Bcctr {
                    uses.push(Reg::Ctr);
                    defs.push(Reg::Ctr);
                }
            }
        }
        Term::Syscall { next, .. } => call = Some(*next),
        Term::Return(_) => uses.push(Reg::Lr),
        Term::Switch { .. } | Term::IndirectJump(_) => uses.push(Reg::Ctr),
        Term::Fall(_) | Term::Jump(_) | Term::Trap(_) | Term::Interpret(_) | Term::OffEnd(_) => {}
    }
    (uses, defs, call)
}

fn successors(b: &Block) -> Vec<u32> {
    let mut v = Vec::new();
    let mut add = |e: Edge| {
        if let Edge::Block(t) = e {
            v.push(t);
        }
    };
    match &b.term {
        Term::Fall(e) | Term::Jump(e) => add(*e),
        Term::Cond { taken, fall, .. } => {
            add(*taken);
            add(*fall);
        }
        Term::Call { next, .. } | Term::IndirectCall { next, .. } | Term::Syscall { next, .. } => {
            add(*next)
        }
        Term::CondCall { next, .. } => add(*next),
        Term::Switch { targets, .. } => v.extend(targets.iter().copied()),
        _ => {}
    }
    v
}

/// Strongly connected components (Tarjan) of the nodes in `nodes`, over
/// the edges `succ` restricted to them minus `skip` edges; only components
/// with a cycle.
fn cycles(
    nodes: &[usize],
    succ: &[Vec<(u32, usize, Option<u32>)>],
    skip: &dyn Fn(usize, usize) -> bool,
) -> Vec<Vec<usize>> {
    let n = succ.len();
    let inside: Vec<bool> = {
        let mut v = vec![false; n];
        for &u in nodes {
            v[u] = true;
        }
        v
    };
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for &root in nodes {
        if index[root] != usize::MAX {
            continue;
        }
        // Iterative Tarjan: (node, next edge).
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (u, ref mut k)) = call.last_mut() {
            if *k < succ[u].len() {
                let v = succ[u][*k].1;
                *k += 1;
                if !inside[v] || skip(u, v) {
                    continue;
                }
                if index[v] == usize::MAX {
                    index[v] = next;
                    low[v] = next;
                    next += 1;
                    stack.push(v);
                    on[v] = true;
                    call.push((v, 0));
                } else if on[v] {
                    low[u] = low[u].min(index[v]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[u]);
                }
                if low[u] == index[u] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("on stack");
                        on[w] = false;
                        comp.push(w);
                        if w == u {
                            break;
                        }
                    }
                    let cyclic = comp.len() > 1 || succ[u].iter().any(|e| e.1 == u && !skip(u, u));
                    if cyclic {
                        comp.sort_unstable();
                        out.push(comp);
                    }
                }
            }
        }
    }
    out
}

impl Cfg {
    /// The successor node of `node` for the edge to block `b`, and the
    /// dispatch selector the edge sets.
    fn target(&self, node: usize, b: u32) -> (usize, Option<u32>) {
        self.succ[node]
            .iter()
            .find(|e| e.0 == b)
            .map(|e| (e.1, e.2))
            .expect("edge of the CFG")
    }

    /// The CFG of `f`, made reducible with dispatch nodes; `None` when that
    /// takes too many.
    fn build(f: &Func) -> Option<Cfg> {
        let mut nodes: Vec<Node> = vec![Node::Block(f.entry)];
        nodes.extend(
            f.blocks
                .keys()
                .copied()
                .filter(|&b| b != f.entry)
                .map(Node::Block),
        );
        let node_of: BTreeMap<u32, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (if let Node::Block(b) = n { *b } else { 0 }, i))
            .collect();
        let mut succ: Vec<Vec<(u32, usize, Option<u32>)>> = nodes
            .iter()
            .map(|n| {
                let Node::Block(b) = n else { return Vec::new() };
                let mut v: Vec<(u32, usize, Option<u32>)> = Vec::new();
                for t in successors(&f.blocks[b]) {
                    if let Some(&k) = node_of.get(&t)
                        && !v.iter().any(|e| e.0 == t)
                    {
                        v.push((t, k, None));
                    }
                }
                v
            })
            .collect();
        // Nodes already treated as the single entry of a cycle: edges into
        // them from inside their cycle do not count when looking for cycles
        // further in.
        let mut headers: BTreeSet<usize> = BTreeSet::new();
        let mut made = 0;
        loop {
            let sh = shape(&succ);
            let dominates = |a: usize, mut b: usize| loop {
                if a == b {
                    return true;
                }
                if b == 0 {
                    return false;
                }
                b = sh.idom[b];
            };
            let bad = sh.rpo.iter().enumerate().any(|(i, &u)| {
                succ[u].iter().any(|&(_, v, _)| {
                    let j = sh.num[v];
                    j <= i && !dominates(j, i)
                })
            });
            if !bad {
                let m = sh.rpo.len();
                let order: Vec<Node> = sh.rpo.iter().map(|&u| nodes[u]).collect();
                let rsucc: Vec<Vec<(u32, usize, Option<u32>)>> = sh
                    .rpo
                    .iter()
                    .map(|&u| succ[u].iter().map(|&(b, v, s)| (b, sh.num[v], s)).collect())
                    .collect();
                let mut header = vec![false; m];
                let mut forward = vec![0usize; m];
                for (i, ss) in rsucc.iter().enumerate() {
                    for &(_, j, _) in ss {
                        if j <= i {
                            header[j] = true;
                        } else {
                            forward[j] += 1;
                        }
                    }
                }
                let mut children = vec![Vec::new(); m];
                for v in 1..m {
                    children[sh.idom[v]].push(v);
                }
                let merge = forward.iter().map(|&c| c >= 2).collect();
                return Some(Cfg {
                    order,
                    succ: rsucc,
                    children,
                    header,
                    merge,
                });
            }
            // Cycles left once the edges into proper loop headers (and into
            // the entries already given a dispatch) are ignored.
            let reachable: Vec<usize> = sh.rpo.clone();
            let skip = |u: usize, v: usize| {
                let (i, j) = (sh.num[u], sh.num[v]);
                headers.contains(&v) || (j <= i && dominates(j, i))
            };
            let comps = cycles(&reachable, &succ, &skip);
            let mut progress = false;
            for comp in comps {
                let in_comp = |x: usize| comp.binary_search(&x).is_ok();
                let mut entries: Vec<usize> = comp
                    .iter()
                    .copied()
                    .filter(|&x| {
                        x == 0
                            || sh
                                .rpo
                                .iter()
                                .any(|&p| !in_comp(p) && succ[p].iter().any(|e| e.1 == x))
                    })
                    .collect();
                entries.sort_by_key(|&x| sh.num[x]);
                if entries.len() == 1 {
                    // One way in: that node heads the cycle; look inside it next.
                    progress |= headers.insert(entries[0]);
                    continue;
                }
                made += 1;
                if made > MAX_DISPATCH
                    || entries.contains(&0)
                    || entries.iter().any(|&e| nodes[e] == Node::Dispatch)
                {
                    log::debug!(
                        "function {:#x}: irreducible control flow left as a state machine",
                        f.entry
                    );
                    return None;
                }
                // A dispatch node in front of every entry: all edges into an
                // entry (from outside the cycle and from inside) go through it.
                let d = nodes.len();
                nodes.push(Node::Dispatch);
                let dsucc: Vec<(u32, usize, Option<u32>)> = entries
                    .iter()
                    .map(|&e| (if let Node::Block(b) = nodes[e] { b } else { 0 }, e, None))
                    .collect();
                for edges in succ.iter_mut() {
                    for edge in edges.iter_mut() {
                        if let Some(k) = entries.iter().position(|&e| e == edge.1) {
                            *edge = (edge.0, d, Some(k as u32));
                        }
                    }
                }
                succ.push(dsucc);
                headers.insert(d);
                progress = true;
            }
            if !progress {
                log::debug!(
                    "function {:#x}: irreducible control flow the dispatch could not resolve",
                    f.entry
                );
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_switch_index_maps_each_target_to_its_value() {
        let targets = [0x1010, 0x1000, 0x1020, 0x1008, 0x1004];
        let values = [4, 0, 2, 3, 1];
        let t = switch_table(&targets, &values, 0x2000).expect("worth it");
        assert_eq!(t.name, "SWITCH_00002000");
        assert_eq!(t.lo, 0x1000);
        // Slots 0x1000, 0x1004, ... 0x1020: 1 + value, 0 where no target.
        assert!(
            t.decl.ends_with("[u8; 9] = [1,2,4,0,5,0,0,0,3];"),
            "{}",
            t.decl
        );
        assert_eq!(
            t.index("t"),
            "SWITCH_00002000.get((t.wrapping_sub(0x1000) >> 2) as usize).copied().unwrap_or(0)"
        );
        // Too few targets, or too wide a range: no index.
        assert!(switch_table(&targets[..3], &values[..3], 0).is_none());
        assert!(switch_table(&[0, 4, 8, 12, 0x100_0000], &[0, 1, 2, 3, 4], 0).is_none());
    }
}
