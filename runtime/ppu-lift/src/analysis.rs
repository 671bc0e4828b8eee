//! Finding functions, their blocks, and where control goes.
//!
//! Function entries come from, best first: the entry point's descriptor,
//! the `.opd` descriptors, function symbols, PS3 exports, and the targets of
//! every `bl` in the code (a sweep over all executable words). A function is
//! the set of blocks reachable from its entry without passing another
//! function's entry: a branch to another entry is a tail call, and code two
//! functions share is lifted into both. `mtctr`/`bctr` jump tables become
//! direct dispatch over the targets read from the table; whatever the
//! analysis cannot resolve is reported and left to the interpreter at run
//! time.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use ppu_elf::{Abi, Image};
use ppu_isa::{Instr, Op, decode_at};

/// What the analysis could not resolve, with where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Issue {
    /// The function.
    pub func: u32,
    /// The instruction.
    pub pc: u32,
    /// What it is.
    pub what: String,
}

/// One instruction in a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    /// Its address.
    pub pc: u32,
    /// Its word.
    pub word: u32,
    /// The decoded instruction (`None`: the word does not decode).
    pub instr: Option<Instr>,
}

/// Where an edge goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// A block of this function.
    Block(u32),
    /// Another function's entry: call it, then return.
    TailCall(u32),
    /// Return (`bclr` taken).
    Return,
    /// Through CTR to an address not known at lift time (`bcctr` taken).
    Indirect,
}

/// How a block ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// Runs into the next instruction, which starts another block.
    Fall(Edge),
    /// `b` within the function (or a tail call).
    Jump(Edge),
    /// A conditional branch (`bc`, `bclr`, `bcctr` whose condition may fail).
    Cond {
        /// The branch instruction.
        insn: Insn,
        /// Where it goes when taken.
        taken: Edge,
        /// Where it goes otherwise.
        fall: Edge,
    },
    /// `bl` (or `bcl` always): a call, then on at `next`.
    Call {
        /// The branch instruction.
        insn: Insn,
        /// The callee's entry.
        target: u32,
        /// The continuation.
        next: Edge,
    },
    /// A conditional `bcl`: LR is set either way; when taken, a call.
    CondCall {
        /// The branch instruction.
        insn: Insn,
        /// The callee's entry.
        target: u32,
        /// The continuation.
        next: Edge,
    },
    /// `bctrl`/`bclrl`: an indirect call (when its condition holds; LR is
    /// set either way), then on at `next`.
    IndirectCall {
        /// The branch instruction.
        insn: Insn,
        /// The continuation.
        next: Edge,
    },
    /// `blr`.
    Return(Insn),
    /// `bctr` through a jump table: the targets found in the table (blocks
    /// of this function); any other value goes to the interpreter.
    Switch {
        /// The branch instruction.
        insn: Insn,
        /// The table's targets, in table order, without duplicates.
        targets: Vec<u32>,
    },
    /// `bctr` to an address unknown at lift time (an indirect tail call, or
    /// a jump the analysis could not resolve).
    IndirectJump(Insn),
    /// `sc`, then on at `next`.
    Syscall {
        /// The `sc`.
        insn: Insn,
        /// The continuation.
        next: Edge,
    },
    /// An unconditional trap.
    Trap(Insn),
    /// A word that does not decode (or a form the lifter leaves to the
    /// interpreter, such as a conditional `bcl`): the interpreter takes over
    /// there at run time.
    Interpret(Insn),
    /// Execution runs off the end of the code.
    OffEnd(u32),
}

/// A basic block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Its first address.
    pub start: u32,
    /// Its instructions, without the terminating branch.
    pub insns: Vec<Insn>,
    /// How it ends.
    pub term: Term,
}

/// Why an address is a function entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// The program's entry point.
    Entry,
    /// A `.opd` descriptor.
    Descriptor,
    /// A function symbol.
    Symbol,
    /// A PS3 export.
    Export,
    /// The target of a `bl`.
    Call,
}

/// A PS3 import stub: the library and FNID it calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportStub {
    /// The library's name.
    pub library: String,
    /// The function's FNID.
    pub fnid: u32,
    /// The stub-table slot the stub loads the descriptor address from.
    pub slot: u32,
}

/// A function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Func {
    /// Its entry.
    pub entry: u32,
    /// The TOC it runs with (from its descriptor, else the program's).
    pub toc: u32,
    /// A symbol name, if any.
    pub name: Option<String>,
    /// Why it is a function.
    pub source: Source,
    /// Its blocks by start address; the entry block is at `entry`.
    pub blocks: BTreeMap<u32, Block>,
    /// Set when the function is a PS3 import stub.
    pub import: Option<ImportStub>,
}

impl Func {
    /// Number of instructions (terminators included).
    pub fn len(&self) -> usize {
        self.blocks.values().map(|b| b.insns.len() + 1).sum()
    }

    /// Whether the function has no blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// The whole program's analysis.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Functions by entry.
    pub funcs: BTreeMap<u32, Func>,
    /// What could not be resolved.
    pub issues: Vec<Issue>,
    /// Jump tables turned into direct dispatch.
    pub tables: usize,
}

/// Analysis settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Most entries read from one jump table.
    pub max_table: usize,
    /// Most blocks in one function (a runaway guard).
    pub max_blocks: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_table: 4096,
            max_blocks: 100_000,
        }
    }
}

struct Code<'a> {
    image: &'a Image,
    ranges: Vec<(u32, u32)>,
}

impl Code<'_> {
    fn contains(&self, a: u32) -> bool {
        a & 3 == 0 && self.ranges.iter().any(|&(s, e)| a >= s && a < e)
    }

    fn insn(&self, pc: u32) -> Option<Insn> {
        if !self.contains(pc) {
            return None;
        }
        let word = self.image.read_u32(pc)?;
        Some(Insn {
            pc,
            word,
            instr: decode_at(pc, word).ok(),
        })
    }
}

/// Analyses `image`.
pub fn analyse(image: &Image, opts: &Options) -> Analysis {
    let code = Code {
        image,
        ranges: image.code_ranges(),
    };
    let entry = image.entry_descriptor();
    let mut entries: BTreeMap<u32, (Source, u32)> = BTreeMap::new();
    let add = |e: &mut BTreeMap<u32, (Source, u32)>, a: u32, s: Source, toc: u32| {
        if code.contains(a) {
            let slot = e.entry(a).or_insert((s, toc));
            if s < slot.0 {
                *slot = (s, if toc != 0 { toc } else { slot.1 });
            }
        }
    };
    add(&mut entries, entry.code, Source::Entry, entry.toc);
    for d in image.opd() {
        add(&mut entries, d.code, Source::Descriptor, d.toc);
    }
    let names: BTreeMap<u32, String> = image.function_symbols().into_iter().collect();
    for &a in names.keys() {
        add(&mut entries, a, Source::Symbol, 0);
    }
    if image.abi == Abi::Lv2
        && let Ok(exports) = image.exports()
    {
        for lib in exports {
            for (_, addr) in lib.functions {
                if let Ok(d) = image.descriptor(addr) {
                    add(&mut entries, d.code, Source::Export, d.toc);
                }
            }
        }
    }
    // Every `bl` target in the code.
    for &(s, e) in &code.ranges {
        let mut pc = s;
        while pc < e {
            if let Some(Insn { instr: Some(i), .. }) = code.insn(pc)
                && i.lk()
                && matches!(i.op, Op::B | Op::Bc)
                && let Some(t) = i.branch_target(pc)
                && t != pc.wrapping_add(4)
            {
                add(&mut entries, t, Source::Call, 0);
            }
            pc += 4;
        }
    }

    let import_slots: BTreeMap<u32, (String, u32)> = if image.abi == Abi::Lv2 {
        image
            .imports()
            .unwrap_or_default()
            .into_iter()
            .flat_map(|l| {
                l.functions
                    .into_iter()
                    .map(move |f| (f.slot, (l.name.clone(), f.fnid)))
            })
            .collect()
    } else {
        BTreeMap::new()
    };

    let entry_set: BTreeSet<u32> = entries.keys().copied().collect();
    let mut funcs = BTreeMap::new();
    let mut issues = Vec::new();
    let mut tables = 0;
    for (&addr, &(source, toc)) in &entries {
        let toc = if toc != 0 { toc } else { entry.toc };
        let (blocks, mut iss, t) = explore(&code, addr, toc, &entry_set, opts);
        tables += t;
        issues.append(&mut iss);
        let import = recognise_import_stub(&code, addr, &import_slots);
        funcs.insert(
            addr,
            Func {
                entry: addr,
                toc,
                name: names.get(&addr).cloned(),
                source,
                blocks,
                import,
            },
        );
    }
    issues.sort();
    issues.dedup();
    Analysis {
        funcs,
        issues,
        tables,
    }
}

impl Analysis {
    /// The functions reachable from the program's roots: the entry point,
    /// exports, and every function whose entry or descriptor address is
    /// stored anywhere in the image outside its code (function pointers,
    /// the GOT, vtables, init arrays, IRELATIVE resolvers) or computed from
    /// the TOC in code; then everything these call or tail-call. What is
    /// left out can only be reached through an address computed some other
    /// way; it still runs, on the interpreter.
    pub fn reachable(&self, image: &Image) -> BTreeSet<u32> {
        let descriptors: BTreeMap<u32, u32> =
            image.opd().into_iter().map(|d| (d.addr, d.code)).collect();
        let mut roots: BTreeSet<u32> = BTreeSet::new();
        let consider = |v: u64, roots: &mut BTreeSet<u32>| {
            if v >> 32 != 0 {
                return;
            }
            let v = v as u32;
            if let Some(&code) = descriptors.get(&v) {
                roots.insert(code);
            } else if self.funcs.contains_key(&v) {
                roots.insert(v);
            }
        };
        roots.insert(image.entry_descriptor().code);
        for f in self.funcs.values() {
            if f.source == Source::Export || f.source == Source::Entry {
                roots.insert(f.entry);
            }
        }
        let mut code = image.code_ranges();
        // The descriptors themselves are no references to their functions.
        if let Some(opd) = image.section(".opd") {
            code.push((opd.addr, opd.addr + opd.size as u32));
        }
        let in_code = |a: u32| code.iter().any(|&(s, e)| a >= s && a < e);
        let step = if image.abi == Abi::Lv2 { 4 } else { 8 };
        for seg in image.loads() {
            let data =
                &image.data[seg.offset as usize..(seg.offset + u64::from(seg.filesz)) as usize];
            let mut k = 0usize;
            while k + step <= data.len() {
                let addr = seg.vaddr + k as u32;
                if !in_code(addr) {
                    let v = if step == 8 {
                        u64::from_be_bytes(data[k..k + 8].try_into().expect("8 bytes"))
                    } else {
                        u64::from(u32::from_be_bytes(
                            data[k..k + 4].try_into().expect("4 bytes"),
                        ))
                    };
                    consider(v, &mut roots);
                    if step == 8 {
                        // 32-bit pointers in 64-bit programs' data, too.
                        consider(
                            u64::from(u32::from_be_bytes(data[k..k + 4].try_into().expect("4"))),
                            &mut roots,
                        );
                        consider(
                            u64::from(u32::from_be_bytes(
                                data[k + 4..k + 8].try_into().expect("4"),
                            )),
                            &mut roots,
                        );
                    }
                }
                k += 4;
            }
        }
        // Addresses the code computes from the TOC: `addi rX,r2,d`, and the
        // medium code model's `addis rX,r2,hi` then `addi rY,rX,lo`.
        for f in self.funcs.values() {
            // Kept across the function's blocks: gcc often puts the `addis`
            // in one block and the `addi`s in the blocks that choose among
            // several functions (a spurious pair only lifts one more).
            let mut high: [Option<u64>; 32] = [None; 32];
            for b in f.blocks.values() {
                for insn in &b.insns {
                    let Some(i) = insn.instr else { continue };
                    let toc = u64::from(f.toc);
                    match i.op {
                        Op::Addi if i.ra() == 2 => {
                            consider(toc.wrapping_add(i.simm() as u64) & 0xFFFF_FFFF, &mut roots);
                        }
                        Op::Addis if i.ra() == 2 => {
                            high[i.rt()] = Some(toc.wrapping_add((i.simm() << 16) as u64));
                        }
                        Op::Addi if i.ra() != 0 => {
                            if let Some(h) = high[i.ra()] {
                                consider(h.wrapping_add(i.simm() as u64) & 0xFFFF_FFFF, &mut roots);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        // Close over calls and tail calls.
        let mut seen: BTreeSet<u32> = BTreeSet::new();
        let mut work: Vec<u32> = roots.into_iter().collect();
        while let Some(e) = work.pop() {
            if !seen.insert(e) {
                continue;
            }
            let Some(f) = self.funcs.get(&e) else {
                continue;
            };
            let mut push = |t: u32| {
                if self.funcs.contains_key(&t) && !seen.contains(&t) {
                    work.push(t);
                }
            };
            for b in f.blocks.values() {
                let edges: Vec<Edge> = match &b.term {
                    Term::Fall(e) | Term::Jump(e) => vec![*e],
                    Term::Cond { taken, fall, .. } => vec![*taken, *fall],
                    Term::Call { target, next, .. } => {
                        push(*target);
                        vec![*next]
                    }
                    Term::CondCall { target, next, .. } => {
                        push(*target);
                        vec![*next]
                    }
                    Term::IndirectCall { next, .. } | Term::Syscall { next, .. } => vec![*next],
                    Term::Switch { targets, .. } => {
                        targets.iter().map(|&t| Edge::Block(t)).collect()
                    }
                    _ => vec![],
                };
                for e in edges {
                    match e {
                        Edge::TailCall(t) => push(t),
                        Edge::Block(t) if !f.blocks.contains_key(&t) => push(t),
                        _ => {}
                    }
                }
                if let Term::Switch { targets, .. } = &b.term {
                    for &t in targets {
                        push(t);
                    }
                }
            }
        }
        seen
    }
}

/// The function at `entry` (running with `toc`) alone, as if no other
/// function existed: for tests and tools that lift a few words.
pub fn function(image: &Image, entry: u32, toc: u32, opts: &Options) -> (Func, Vec<Issue>) {
    let code = Code {
        image,
        ranges: image.code_ranges(),
    };
    let entries: BTreeSet<u32> = BTreeSet::from([entry]);
    let (blocks, issues, _) = explore(&code, entry, toc, &entries, opts);
    (
        Func {
            entry,
            toc,
            name: None,
            source: Source::Entry,
            blocks,
            import: None,
        },
        issues,
    )
}

/// The PS3 import stub shape: `li r12,lo; oris r12,r12,hi; lwz r12,0(r12);
/// std r2,40(r1); lwz r0,0(r12); lwz r2,4(r12); mtctr r0; bctr`.
fn recognise_import_stub(
    code: &Code<'_>,
    addr: u32,
    slots: &BTreeMap<u32, (String, u32)>,
) -> Option<ImportStub> {
    if slots.is_empty() {
        return None;
    }
    let w: Vec<u32> = (0..8)
        .map(|k| code.insn(addr + 4 * k).map(|i| i.word))
        .collect::<Option<_>>()?;
    let slot = ((w[1] & 0xFFFF) << 16) | (w[0] & 0xFFFF);
    let shape = w[0] & 0xFFFF_0000 == 0x3980_0000
        && w[1] & 0xFFFF_0000 == 0x658C_0000
        && w[2] == 0x818C_0000
        && w[3] == 0xF841_0028
        && w[4] == 0x800C_0000
        && w[5] == 0x804C_0004
        && w[6] == 0x7C09_03A6
        && w[7] == 0x4E80_0420;
    if !shape {
        return None;
    }
    slots.get(&slot).map(|(library, fnid)| ImportStub {
        library: library.clone(),
        fnid: *fnid,
        slot,
    })
}

/// Where a branch to `t` from inside function `entry` goes.
fn edge(t: u32, entry: u32, entries: &BTreeSet<u32>) -> Edge {
    if t != entry && entries.contains(&t) {
        Edge::TailCall(t)
    } else {
        Edge::Block(t)
    }
}

/// The blocks of the function at `entry`.
fn explore(
    code: &Code<'_>,
    entry: u32,
    toc: u32,
    entries: &BTreeSet<u32>,
    opts: &Options,
) -> (BTreeMap<u32, Block>, Vec<Issue>, usize) {
    let mut issues = Vec::new();
    let mut tables = 0;
    // First pass: find block starts by walking every path.
    let mut starts: BTreeSet<u32> = BTreeSet::new();
    let mut work: VecDeque<u32> = VecDeque::from([entry]);
    let mut seen_ins: BTreeSet<u32> = BTreeSet::new();
    let mut switch_targets: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    starts.insert(entry);
    while let Some(start) = work.pop_front() {
        if starts.len() > opts.max_blocks {
            issues.push(Issue {
                func: entry,
                pc: start,
                what: format!(
                    "more than {} blocks: the rest is interpreted",
                    opts.max_blocks
                ),
            });
            break;
        }
        let mut pc = start;
        loop {
            if pc != start && seen_ins.contains(&pc) {
                // Ran into code already walked: that address starts a block.
                if starts.insert(pc) {
                    // It was inside another walk's straight line; splitting is done in pass two.
                }
                break;
            }
            seen_ins.insert(pc);
            let Some(insn) = code.insn(pc) else { break };
            let push = |t: u32, starts: &mut BTreeSet<u32>, work: &mut VecDeque<u32>| {
                if let Edge::Block(b) = edge(t, entry, entries)
                    && code.contains(b)
                    && starts.insert(b)
                {
                    work.push_back(b);
                }
            };
            let next = pc.wrapping_add(4);
            let Some(i) = insn.instr else { break };
            match i.op {
                Op::B => {
                    let t = i.branch_target(pc).unwrap_or(0);
                    if i.lk() {
                        if t == next {
                            pc = next;
                            continue;
                        }
                        push(next, &mut starts, &mut work);
                    } else {
                        push(t, &mut starts, &mut work);
                    }
                    break;
                }
                Op::Bc => {
                    let t = i.branch_target(pc).unwrap_or(0);
                    if i.lk() {
                        if t == next && i.bo() & 0x14 == 0x14 {
                            pc = next;
                            continue;
                        }
                        push(next, &mut starts, &mut work);
                        break;
                    }
                    push(t, &mut starts, &mut work);
                    if i.bo() & 0x14 != 0x14 {
                        push(next, &mut starts, &mut work);
                    }
                    break;
                }
                Op::Bclr | Op::Bcctr => {
                    let always = i.bo() & 0x14 == 0x14;
                    if i.lk() || !always {
                        push(next, &mut starts, &mut work);
                    }
                    if i.op == Op::Bcctr && !i.lk() && always {
                        match jump_table(code, entry, toc, pc, &starts, opts) {
                            Ok(ts) => {
                                tables += 1;
                                let mut uniq = Vec::new();
                                for t in ts {
                                    if !uniq.contains(&t) {
                                        uniq.push(t);
                                    }
                                    push(t, &mut starts, &mut work);
                                }
                                switch_targets.insert(pc, uniq);
                            }
                            Err(Some(why)) => issues.push(Issue {
                                func: entry,
                                pc,
                                what: why,
                            }),
                            Err(None) => {}
                        }
                    }
                    break;
                }
                Op::Sc => {
                    push(next, &mut starts, &mut work);
                    break;
                }
                Op::Tw | Op::Td | Op::Twi | Op::Tdi if i.rt() == 31 => break,
                _ => {}
            }
            pc = next;
            if entries.contains(&pc) && pc != entry {
                break;
            }
        }
    }

    // Second pass: cut the code into blocks at every start.
    let mut blocks = BTreeMap::new();
    for &start in &starts {
        let mut insns = Vec::new();
        let mut pc = start;
        let term = loop {
            let Some(insn) = code.insn(pc) else {
                if pc == start {
                    issues.push(Issue {
                        func: entry,
                        pc,
                        what: "branch target outside the code".into(),
                    });
                }
                break Term::OffEnd(pc);
            };
            let next = pc.wrapping_add(4);
            let fall_edge = |n: u32| edge(n, entry, entries);
            let Some(i) = insn.instr else {
                // Right after a call that does not return (traceback tables,
                // padding) is no place the program goes: not worth a report.
                let after_call = pc == start
                    && code
                        .insn(pc.wrapping_sub(4))
                        .and_then(|p| p.instr)
                        .is_some_and(|p| p.lk() && matches!(p.op, Op::B | Op::Bc));
                if !after_call {
                    issues.push(Issue {
                        func: entry,
                        pc,
                        what: format!("word {:#010x} does not decode", insn.word),
                    });
                }
                break Term::Interpret(insn);
            };
            let always = i.bo() & 0x14 == 0x14;
            match i.op {
                Op::B => {
                    let t = i.branch_target(pc).unwrap_or(0);
                    if i.lk() {
                        if t == next {
                            insns.push(insn);
                        } else {
                            break Term::Call {
                                insn,
                                target: t,
                                next: fall_edge(next),
                            };
                        }
                    } else {
                        break Term::Jump(edge(t, entry, entries));
                    }
                }
                Op::Bc => {
                    let t = i.branch_target(pc).unwrap_or(0);
                    if i.lk() {
                        if always && t == next {
                            insns.push(insn);
                        } else if always {
                            break Term::Call {
                                insn,
                                target: t,
                                next: fall_edge(next),
                            };
                        } else {
                            break Term::CondCall {
                                insn,
                                target: t,
                                next: fall_edge(next),
                            };
                        }
                    } else if always {
                        break Term::Jump(edge(t, entry, entries));
                    } else {
                        break Term::Cond {
                            insn,
                            taken: edge(t, entry, entries),
                            fall: fall_edge(next),
                        };
                    }
                }
                Op::Bclr | Op::Bcctr => {
                    let is_ctr = i.op == Op::Bcctr;
                    if i.lk() {
                        break Term::IndirectCall {
                            insn,
                            next: fall_edge(next),
                        };
                    }
                    if !always {
                        let taken = if is_ctr { Edge::Indirect } else { Edge::Return };
                        break Term::Cond {
                            insn,
                            taken,
                            fall: fall_edge(next),
                        };
                    }
                    if !is_ctr {
                        break Term::Return(insn);
                    }
                    match switch_targets.get(&pc) {
                        Some(t) => {
                            break Term::Switch {
                                insn,
                                targets: t.clone(),
                            };
                        }
                        None => break Term::IndirectJump(insn),
                    }
                }
                Op::Sc => {
                    break Term::Syscall {
                        insn,
                        next: fall_edge(next),
                    };
                }
                Op::Tw | Op::Td | Op::Twi | Op::Tdi if i.rt() == 31 => break Term::Trap(insn),
                _ => insns.push(insn),
            }
            pc = next;
            if starts.contains(&pc) || (entries.contains(&pc) && pc != entry) {
                break Term::Fall(edge(pc, entry, entries));
            }
        };
        blocks.insert(start, Block { start, insns, term });
    }
    (blocks, issues, tables)
}

/// A value the jump-table evaluator tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    Unknown,
    Const(u64),
    /// An index scaled by a power of two.
    Scaled(u32),
    /// A table entry loaded from `base` (`size` bytes, sign-extended or not).
    Entry {
        base: u64,
        size: u32,
        signed: bool,
    },
    /// A table entry plus a constant.
    EntryPlus {
        base: u64,
        size: u32,
        signed: bool,
        add: u64,
    },
}

/// The targets of the `bctr` at `pc`, read from its jump table.
/// `Err(None)`: not a table shape (an indirect tail call); `Err(Some(why))`:
/// looks like a table that could not be resolved.
fn jump_table(
    code: &Code<'_>,
    entry: u32,
    toc: u32,
    pc: u32,
    _starts: &BTreeSet<u32>,
    opts: &Options,
) -> Result<Vec<u32>, Option<String>> {
    // Walk back over straight-line code (at most 24 instructions, not
    // crossing another branch) to where the evaluation starts.
    let mut from = pc;
    for _ in 0..24 {
        let p = from.wrapping_sub(4);
        match code.insn(p) {
            Some(Insn { instr: Some(i), .. }) if !i.is_branch() && i.op != Op::Sc && p >= entry => {
                from = p
            }
            _ => break,
        }
    }
    let mut regs = [Val::Unknown; 32];
    regs[2] = Val::Const(u64::from(toc));
    let mut ctr = Val::Unknown;
    let mut bound: Option<u64> = None;
    let mut saw_index = false;
    let mut a = from;
    while a < pc {
        let Some(Insn { instr: Some(i), .. }) = code.insn(a) else {
            return Err(None);
        };
        let (rt, ra, rb) = (i.rt(), i.ra(), i.rb());
        let base = |regs: &[Val; 32]| if ra == 0 { Val::Const(0) } else { regs[ra] };
        let v = match i.op {
            Op::Addi | Op::Addis => {
                let imm = if i.op == Op::Addis {
                    (i.simm() << 16) as u64
                } else {
                    i.simm() as u64
                };
                match base(&regs) {
                    Val::Const(c) => Some((rt, Val::Const(c.wrapping_add(imm)))),
                    _ => Some((rt, Val::Unknown)),
                }
            }
            Op::Ld => match base(&regs) {
                Val::Const(c) => {
                    let ea = c.wrapping_add(i.ds() as u64) as u32;
                    Some((rt, code.image.read_u64(ea).map_or(Val::Unknown, Val::Const)))
                }
                _ => Some((rt, Val::Unknown)),
            },
            Op::Rldic | Op::Rldicr | Op::Rlwinm => {
                // sldi/slwi-like scaling of an index (rldic rA,rS,2,30 is the gcc form).
                let sh = if i.op == Op::Rlwinm {
                    i.sh32()
                } else {
                    i.sh64()
                };
                Some((
                    ra,
                    if sh <= 3 {
                        Val::Scaled(sh)
                    } else {
                        Val::Unknown
                    },
                ))
            }
            Op::Lwax | Op::Lwzx | Op::Ldx => {
                let size = if i.op == Op::Ldx { 8 } else { 4 };
                let signed = i.op == Op::Lwax;
                // A table base set up earlier in the function (computed-goto
                // dispatch keeps it in a register for the whole loop).
                for r in [ra, rb] {
                    if r != 0
                        && regs[r] == Val::Unknown
                        && let Some(c) = earlier_value(code, entry, toc, from, r)
                    {
                        regs[r] = Val::Const(c);
                    }
                }
                let pair = (base(&regs), regs[rb]);
                saw_index |= matches!(pair, (_, Val::Scaled(_)) | (Val::Scaled(_), _));
                let v = match pair {
                    (Val::Const(c), Val::Scaled(_)) | (Val::Scaled(_), Val::Const(c)) => {
                        Val::Entry {
                            base: c,
                            size,
                            signed,
                        }
                    }
                    _ => Val::Unknown,
                };
                Some((rt, v))
            }
            Op::Add => {
                let v = match (regs[ra], regs[rb]) {
                    (Val::Entry { base, size, signed }, Val::Const(c))
                    | (Val::Const(c), Val::Entry { base, size, signed }) => Val::EntryPlus {
                        base,
                        size,
                        signed,
                        add: c,
                    },
                    _ => Val::Unknown,
                };
                Some((rt, v))
            }
            Op::Or if rt == rb => Some((ra, regs[rt])), // mr
            Op::Cmpli => {
                bound = Some(i.uimm());
                None
            }
            Op::Mtspr if i.spr() == ppu_isa::spr::CTR => {
                ctr = regs[rt];
                None
            }
            _ => {
                // Any other write: the written register becomes unknown.
                for r in written_gprs(i) {
                    regs[r] = Val::Unknown;
                }
                None
            }
        };
        if let Some((r, v)) = v {
            regs[r] = v;
        }
        a += 4;
    }
    // The bound: a compare in this block, or the `cmpli; bgt` just before it.
    if bound.is_none() {
        bound = guard_bound(code, from);
    }
    let (tbase, size, signed, add) = match ctr {
        Val::EntryPlus {
            base,
            size,
            signed,
            add,
        } => (base, size, signed, Some(add)),
        Val::Entry { base, size, signed } => (base, size, signed, None),
        Val::Unknown if saw_index => {
            return Err(Some(
                "jump through a table whose address the analysis did not find".into(),
            ));
        }
        Val::Unknown | Val::Const(_) | Val::Scaled(_) => return Err(None),
    };
    if add.is_none() && size == 4 && signed {
        return Err(Some(format!(
            "jump table at {tbase:#x}: sign-extended entries used as addresses"
        )));
    }
    let count = match bound {
        Some(n) => (n as usize).saturating_add(1).min(opts.max_table),
        None => opts.max_table,
    };
    let mut targets = Vec::new();
    for k in 0..count {
        let ea = tbase.wrapping_add((k as u64) * u64::from(size)) as u32;
        let raw = match size {
            8 => code.image.read_u64(ea),
            _ => code.image.read_u32(ea).map(|w| {
                if signed {
                    w as i32 as i64 as u64
                } else {
                    u64::from(w)
                }
            }),
        };
        let Some(raw) = raw else { break };
        let t = match add {
            Some(c) => c.wrapping_add(raw),
            None => raw,
        } as u32;
        if !code.contains(t) || t < entry {
            if bound.is_some() {
                return Err(Some(format!(
                    "jump table at {tbase:#x}: entry {k} points at {t:#x}, outside the function's code"
                )));
            }
            break;
        }
        targets.push(t);
    }
    if targets.is_empty() {
        return Err(Some(format!(
            "jump table at {tbase:#x}: no entry points into the code"
        )));
    }
    Ok(targets)
}

/// The constant the nearest earlier write of GPR `r` (scanning the code
/// backwards from `before` to the function's entry, ignoring control flow)
/// gives it: `ld r,d(r2)` from the TOC, or `addis`/`addi` off r2. A guess:
/// the jump table built from it only serves as candidates for a dispatch
/// that compares the real computed target.
fn earlier_value(code: &Code<'_>, entry: u32, toc: u32, before: u32, r: usize) -> Option<u64> {
    let mut pc = before;
    let mut steps = 0;
    while pc > entry && steps < 4096 {
        pc -= 4;
        steps += 1;
        let Some(Insn { instr: Some(i), .. }) = code.insn(pc) else {
            continue;
        };
        let writes = match i.op.fmt() {
            ppu_isa::Fmt::RaRsUi
            | ppu_isa::Fmt::RaRsRb
            | ppu_isa::Fmt::RaRs
            | ppu_isa::Fmt::RaRsSh
            | ppu_isa::Fmt::RaRsShMbMe
            | ppu_isa::Fmt::RaRsRbMbMe
            | ppu_isa::Fmt::RaRsShMb64
            | ppu_isa::Fmt::RaRsRbMb64 => i.ra() == r,
            _ => {
                i.rt() == r
                    && !matches!(
                        i.op,
                        Op::Std | Op::Stw | Op::Stdu | Op::Stwu | Op::Stb | Op::Sth
                    )
            }
        };
        if !writes {
            continue;
        }
        return match i.op {
            Op::Ld if i.ra() == 2 => code.image.read_u64(toc.wrapping_add(i.ds() as u32)),
            Op::Addi if i.ra() == 2 => Some(u64::from(toc).wrapping_add(i.simm() as u64)),
            Op::Addi => {
                earlier_value(code, entry, toc, pc, i.ra()).map(|b| b.wrapping_add(i.simm() as u64))
            }
            Op::Addis if i.ra() == 2 => Some(u64::from(toc).wrapping_add((i.simm() << 16) as u64)),
            _ => None,
        };
    }
    None
}

/// The largest index the `cmpli crN,rX,N; bgt crN,...` ending the block
/// that falls into `start` allows.
fn guard_bound(code: &Code<'_>, start: u32) -> Option<u64> {
    let br = code.insn(start.wrapping_sub(4))?.instr?;
    if br.op != Op::Bc || br.lk() {
        return None;
    }
    // bgt: BO = 12 (branch if the bit is set), BI = 4*cr + 1 (GT).
    if br.bo() & 0x1C != 0x0C || br.bi() % 4 != 1 {
        return None;
    }
    for back in 2..8u32 {
        let i = code.insn(start.wrapping_sub(4 * back))?.instr?;
        if i.is_branch() {
            return None;
        }
        if matches!(i.op, Op::Cmpli) && i.bf() == br.bi() / 4 {
            return Some(i.uimm());
        }
    }
    None
}

/// GPRs an instruction may write (a superset is fine).
fn written_gprs(i: Instr) -> Vec<usize> {
    use ppu_isa::Fmt;
    match i.op.fmt() {
        Fmt::RaRsUi
        | Fmt::RaRsRb
        | Fmt::RaRs
        | Fmt::RaRsSh
        | Fmt::RaRsShMbMe
        | Fmt::RaRsRbMbMe
        | Fmt::RaRsShMb64
        | Fmt::RaRsRbMb64 => vec![i.ra()],
        _ => vec![i.rt(), i.ra()],
    }
}

/// Whether any word of `image`'s code could set XER\[SO\] (an `OE=1`
/// arithmetic form or `mtxer`). When none can, the summary overflow bit is
/// 0 for the whole run and lifted code uses the constant (the interpreter,
/// running the same code, never sets it either). Every word of every
/// executable segment is decoded, data in code included, so the answer
/// errs towards yes.
pub fn may_set_summary_overflow(image: &Image) -> bool {
    use ppu_isa::{Flags, decode, spr};
    image.code_ranges().into_iter().any(|(lo, hi)| {
        (lo..hi).step_by(4).any(|a| {
            image
                .read_u32(a)
                .and_then(|w| decode(w).ok())
                .is_some_and(|i| match i.op {
                    Op::Mtspr => i.spr() == spr::XER,
                    op => op.flags() == Flags::OeRc && i.oe(),
                })
        })
    })
}
