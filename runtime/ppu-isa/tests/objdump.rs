//! The decoder and disassembler against GNU objdump (`-M cell,raw`), over the
//! whole opcode space and over random operands for every op.

use std::collections::BTreeMap;
use std::process::Command;

use ppu_isa::{Fmt, Op, decode, disasm};

const OBJDUMP: &str = "powerpc64-linux-gnu-objdump";

/// Instructions objdump knows (for the Cell dialect) that the Cell PPU's user
/// mode does not run, or that this decoder deliberately treats differently.
const NOT_CELL_USER: &[&str] = &[
    "mfmsr", "mtmsr", "mtmsrd", "rfid", "rfi", "hrfid", "tlbie", "tlbiel", "tlbsync", "slbie",
    "slbia", "slbmte", "slbmfev", "slbmfee", "mfsr", "mfsrin", "mtsr", "mtsrin", "mtsrd",
    "mtsrdin", "dcbi", "eciwx", "ecowx", "ldbrx", "stdbrx", "popcntb", "attn", "stop", "nap",
    "sleep", "rvwinkle", "doze", "mfspr", "mtspr", "mftb", "sc", "hrfid", "ptesync", "mcrxr",
    "dcba", "icbt", "mfdcr", "mtdcr", "tlbia", "slbmfev", "dcbzl", "lwsync", "tlbld", "tlbli",
    "stq", "lq",
];

/// Runs objdump over `words` (at address 0) and returns one text per word.
fn objdump(words: &[u32]) -> Vec<String> {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ppu-isa-objdump-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("words.bin");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    std::fs::write(&bin, bytes).unwrap();
    let out = Command::new(OBJDUMP)
        .args([
            "-D",
            "-b",
            "binary",
            "-m",
            "powerpc:common64",
            "-M",
            "cell,raw",
            "-EB",
        ])
        .arg(&bin)
        .output()
        .unwrap_or_else(|e| {
            panic!("{OBJDUMP} (binutils-powerpc64-linux-gnu, installed by ./x): {e}")
        });
    assert!(
        out.status.success(),
        "objdump failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut by_addr = BTreeMap::new();
    for line in text.lines() {
        // "     1c:	7c 00 04 ac 	sync    0"
        let Some((addr, rest)) = line.split_once(":\t") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let Some((_, insn)) = rest.split_once(" \t") else {
            continue;
        };
        by_addr.insert(addr, insn.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    let _ = std::fs::remove_dir_all(&dir);
    (0..words.len())
        .map(|i| by_addr.get(&(4 * i as u64)).cloned().unwrap_or_default())
        .collect()
}

fn mine(word: u32) -> Option<String> {
    mine_at(word, 0)
}

fn mine_at(word: u32, pc: u32) -> Option<String> {
    decode(word).ok().map(|i| {
        let d = disasm::disassemble(i, pc);
        d.split_whitespace().collect::<Vec<_>>().join(" ")
    })
}

fn mnemonic(text: &str) -> &str {
    text.split(' ').next().unwrap_or("")
}

/// Every extended opcode of every primary opcode, with zero operand fields
/// and with a register pattern, with and without the record bit.
fn opcode_space() -> Vec<u32> {
    let mut v = Vec::new();
    let fills = [
        0u32,
        3 << 21 | 4 << 16 | 5 << 11,
        3 << 21 | 4 << 16 | 5 << 11 | 6 << 6,
    ];
    for p in 0..64u32 {
        let base = p << 26;
        match p {
            4 => {
                for xo in 0..2048 {
                    for f in fills {
                        v.push(base | f & !0x7FF | xo);
                    }
                }
            }
            19 | 31 | 59 | 63 => {
                for xo in 0..1024 {
                    for f in fills {
                        for rc in 0..2 {
                            v.push(base | (f & !0x7FF) | xo << 1 | rc);
                        }
                    }
                }
            }
            30 | 58 | 62 => {
                for low in 0..32 {
                    for f in fills {
                        v.push(base | (f & !0x1F) | low);
                    }
                }
            }
            _ => {
                for f in fills {
                    v.push(base | f);
                    v.push(base | f | 1);
                    v.push(base | f | 2);
                }
            }
        }
    }
    v
}

#[test]
fn every_opcode_objdump_knows_decodes_the_same() {
    let words = opcode_space();
    let theirs = objdump(&words);
    let mut missing = Vec::new();
    let mut differ = Vec::new();
    let mut checked = 0;
    for (w, t) in words.iter().zip(&theirs) {
        if t.is_empty() || t.starts_with(".long") {
            continue;
        }
        let tm = mnemonic(t);
        if NOT_CELL_USER.contains(&tm) || NOT_CELL_USER.contains(&tm.trim_end_matches('.')) {
            continue;
        }
        checked += 1;
        match mine(*w) {
            None => missing.push(format!("{w:#010x}: objdump says {t}")),
            Some(m) if mnemonic(&m) != tm => {
                differ.push(format!("{w:#010x}: objdump {t}, mine {m}"))
            }
            Some(_) => {}
        }
    }
    assert!(
        checked > 1500,
        "too few instructions checked ({checked}): is objdump working?"
    );
    assert!(
        missing.is_empty(),
        "{} opcodes objdump decodes are unknown here:\n{}",
        missing.len(),
        missing.join("\n")
    );
    assert!(
        differ.is_empty(),
        "{} mnemonics differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn reg(&mut self) -> u32 {
        self.next() % 32
    }
}

/// A valid word for `op` with random operands: the op's own encoding found
/// by searching the opcode space, then its operand fields filled in.
fn sample(op: Op, rng: &mut Rng) -> Option<u32> {
    // Find a template word for the op.
    let template = TEMPLATES.with(|t| t.get(&op).copied())?;
    for _ in 0..200 {
        let (rt, mut ra, rb, rc) = (rng.reg(), rng.reg(), rng.reg(), rng.reg());
        let update = matches!(
            op,
            Op::Lwzu
                | Op::Lbzu
                | Op::Lhzu
                | Op::Lhau
                | Op::Ldu
                | Op::Lfsu
                | Op::Lfdu
                | Op::Stwu
                | Op::Stbu
                | Op::Sthu
                | Op::Stdu
                | Op::Stfsu
                | Op::Stfdu
                | Op::Lwzux
                | Op::Lbzux
                | Op::Lhzux
                | Op::Lhaux
                | Op::Lwaux
                | Op::Ldux
                | Op::Lfsux
                | Op::Lfdux
                | Op::Stwux
                | Op::Stbux
                | Op::Sthux
                | Op::Stdux
                | Op::Stfsux
                | Op::Stfdux
        );
        if update && (ra == 0 || ra == rt) {
            continue;
        }
        if matches!(op, Op::Lmw) && ra >= rt {
            ra = rt.saturating_sub(1);
        }
        let mut w = template;
        let fmt = op.fmt();
        // Clear and fill fields by format.
        let field = |w: &mut u32, shift: u32, bits: u32, v: u32| {
            *w = (*w & !(((1 << bits) - 1) << shift)) | ((v & ((1 << bits) - 1)) << shift);
        };
        match fmt {
            Fmt::None | Fmt::Sync | Fmt::Dss => {}
            Fmt::RtRaSi | Fmt::RaRsUi | Fmt::RtD | Fmt::FrtD | Fmt::TrapImm | Fmt::CmpImm => {
                field(&mut w, 21, 5, rt);
                field(&mut w, 16, 5, ra);
                field(&mut w, 0, 16, rng.next());
                if fmt == Fmt::CmpImm {
                    field(&mut w, 22, 1, 0);
                }
            }
            Fmt::RtDs => {
                field(&mut w, 21, 5, rt);
                field(&mut w, 16, 5, ra);
                field(&mut w, 2, 14, rng.next());
            }
            Fmt::Branch => field(&mut w, 2, 24, rng.next()),
            Fmt::BranchCond => {
                field(
                    &mut w,
                    21,
                    5,
                    [4, 12, 20, 16, 18, 8, 0, 2, 10][rng.next() as usize % 9],
                );
                field(&mut w, 16, 5, ra);
                field(&mut w, 2, 14, rng.next());
            }
            Fmt::BranchReg => {
                field(&mut w, 21, 5, [4, 12, 20][rng.next() as usize % 3]);
                field(&mut w, 16, 5, ra);
            }
            _ => {
                // Register fields as the format uses them.
                let uses = match fmt {
                    Fmt::RtRa | Fmt::RaRs | Fmt::FrtFrb | Fmt::VdVb => (
                        true,
                        fmt != Fmt::FrtFrb && fmt != Fmt::VdVb,
                        fmt == Fmt::FrtFrb || fmt == Fmt::VdVb,
                        false,
                    ),
                    Fmt::Rt | Fmt::Frt | Fmt::Vd => (true, false, false, false),
                    Fmt::Vb => (false, false, true, false),
                    Fmt::RaRb => (false, true, true, false),
                    Fmt::FrtFraFrc => (true, true, false, true),
                    Fmt::FrtFraFrcFrb | Fmt::VdVaVbVc | Fmt::VdVaVcVb | Fmt::RaRsRbMbMe => {
                        (true, true, true, true)
                    }
                    _ => (true, true, true, false),
                };
                if uses.0 {
                    field(&mut w, 21, 5, rt);
                }
                if uses.1 {
                    field(&mut w, 16, 5, ra);
                }
                if uses.2 {
                    field(&mut w, 11, 5, rb);
                }
                if uses.3 {
                    field(&mut w, 6, 5, rc);
                }
                match fmt {
                    Fmt::Cmp | Fmt::FCmp => field(&mut w, 21, 5, (rt & 0x1C) | (rt & 1)),
                    Fmt::CrMove => {
                        field(&mut w, 21, 5, rt & 0x1C);
                        field(&mut w, 16, 5, ra & 0x1C);
                        field(&mut w, 11, 5, 0);
                    }
                    Fmt::RaRsSh if op == Op::Sradi => field(&mut w, 1, 1, rng.next()),
                    Fmt::RaRsShMb64 => {
                        field(&mut w, 1, 1, rng.next());
                        field(&mut w, 5, 6, rng.next());
                    }
                    Fmt::RaRsRbMb64 => field(&mut w, 5, 6, rng.next()),
                    Fmt::RaRsShMbMe => field(&mut w, 1, 10, rng.next()),
                    Fmt::RaRsRbMbMe => field(&mut w, 1, 10, rng.next()),
                    Fmt::VdVaVbShb => {
                        field(&mut w, 6, 5, 0);
                        field(&mut w, 6, 4, rng.next());
                    }
                    Fmt::VdVbUimm => field(&mut w, 16, 5, rng.next()),
                    Fmt::VdSimm => field(&mut w, 16, 5, rng.next()),
                    Fmt::MtCrf => {
                        field(&mut w, 11, 10, 0);
                        let crm = if op == Op::Mtocrf || op == Op::Mfocrf {
                            1 << (rng.next() % 8)
                        } else {
                            rng.next() & 0xFF
                        };
                        field(&mut w, 12, 8, crm);
                        field(&mut w, 20, 1, u32::from(op == Op::Mtocrf));
                    }
                    Fmt::MfOcrf => {
                        field(&mut w, 11, 10, 0);
                        field(&mut w, 12, 8, 1 << (rng.next() % 8));
                        field(&mut w, 20, 1, 1);
                    }
                    Fmt::MtFsf => {
                        field(&mut w, 16, 10, 0);
                        field(&mut w, 17, 8, rng.next());
                    }
                    Fmt::MtFsfi => {
                        field(&mut w, 11, 15, 0);
                        field(&mut w, 23, 3, rng.next());
                        field(&mut w, 12, 4, rng.next());
                    }
                    Fmt::Touch => field(&mut w, 21, 5, [0, 8, 16][rng.next() as usize % 3]),
                    Fmt::Dst => field(&mut w, 21, 2, rng.next()),
                    Fmt::StringImm => field(&mut w, 16, 5, 0),
                    _ => {}
                }
            }
        }
        // Record and overflow variants.
        match op.flags() {
            ppu_isa::Flags::Rc => field(&mut w, 0, 1, rng.next()),
            ppu_isa::Flags::OeRc => {
                field(&mut w, 0, 1, rng.next());
                field(&mut w, 10, 1, rng.next());
            }
            ppu_isa::Flags::VRc => field(&mut w, 10, 1, rng.next()),
            ppu_isa::Flags::Branch => field(
                &mut w,
                0,
                if op == Op::B || op == Op::Bc { 2 } else { 1 },
                rng.next(),
            ),
            ppu_isa::Flags::Plain => {}
        }
        if decode(w).map(|i| i.op) == Ok(op) {
            return Some(w);
        }
    }
    None
}

thread_local! {
    /// The first opcode-space word that decodes to each op.
    static TEMPLATES: BTreeMap<Op, u32> = {
        let mut m = BTreeMap::new();
        for w in opcode_space() {
            if let Ok(i) = decode(w) {
                m.entry(i.op).or_insert(w & !(0x1F << 21 | 0x1F << 16 | 0x1F << 11) | (w & 0x7FF));
            }
        }
        // mfspr/mtspr/mftb need a valid SPR.
        m.insert(Op::Mfspr, 0x7c08_02a6);
        m.insert(Op::Mtspr, 0x7c08_03a6);
        m.insert(Op::Mftb, 0x7c0c_42e6);
        m.insert(Op::Sc, 0x4400_0002);
        // Ops told apart by a bit inside an operand field.
        m.insert(Op::Mfocrf, 0x7c10_1026);
        m.insert(Op::Mtocrf, 0x7c10_1120);
        m.insert(Op::Dstt, 0x7e00_02ac);
        m.insert(Op::Dststt, 0x7e00_02ec);
        m.insert(Op::Dssall, 0x7e00_066c);
        m
    };
}

#[test]
fn every_op_disassembles_as_objdump_does() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut words = Vec::new();
    let mut no_sample = Vec::new();
    for &op in Op::ALL {
        let mut any = false;
        for _ in 0..6 {
            if let Some(w) = sample(op, &mut rng) {
                words.push(w);
                any = true;
            }
        }
        if !any {
            no_sample.push(format!("{op:?}"));
        }
    }
    assert!(
        no_sample.is_empty(),
        "no valid word generated for: {}",
        no_sample.join(", ")
    );
    let theirs = objdump(&words);
    let mut bad = Vec::new();
    for (k, (w, t)) in words.iter().zip(&theirs).enumerate() {
        let m = mine_at(*w, 4 * k as u32).unwrap();
        let tm = mnemonic(t);
        // objdump does not know these on the Cell dialect, or spells them
        // differently; their fields are still checked by the decode tests.
        if matches!(tm, ".long" | "mftb" | "sc")
            || m.starts_with("mftb")
            || m.starts_with("mfspr")
            || m.starts_with("mtspr")
        {
            continue;
        }
        if m != *t && !equivalent(&m, t) {
            bad.push(format!("{w:#010x}: objdump `{t}`, mine `{m}`"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} disassemblies differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Spellings that differ only in how objdump prints a field.
fn equivalent(mine: &str, theirs: &str) -> bool {
    // objdump prints `mfcr rT,-1`-style oddities for some reserved fields.
    if mnemonic(mine) == "mfcr" && mnemonic(theirs) == "mfcr" {
        return true;
    }
    // The EH hint of lwarx/ldarx and the unused FRC of fres/frsqrte, which
    // objdump prints as a trailing ",0".
    if theirs == format!("{mine},0") {
        return true;
    }
    // Branch targets: objdump prints 64-bit addresses, guest addresses are
    // 32-bit.
    if let (Some((m, mt)), Some((t, tt))) = (mine.rsplit_once("0x"), theirs.rsplit_once("0x"))
        && m == t
        && let (Ok(a), Ok(b)) = (u64::from_str_radix(mt, 16), u64::from_str_radix(tt, 16))
    {
        return a == b & 0xFFFF_FFFF;
    }
    false
}
