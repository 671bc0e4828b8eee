//! The disassembler: [`Instr`] → text, in the style of GNU objdump's raw
//! PowerPC output (`-M cell,raw`): base mnemonics with their `o`/`.`/`l`/`a`
//! suffixes, registers as `r3`/`f1`/`v2`, CR fields as `cr1`, CR bits as
//! `lt`/`4*cr1+eq`, branch targets as absolute addresses.

use std::fmt::Write;

use crate::instr::Instr;
use crate::op::{Flags, Fmt, Op};

/// The full mnemonic of `i`, with its suffixes.
pub fn mnemonic(i: Instr) -> String {
    let mut s = String::from(i.op.mnemonic());
    match i.op.flags() {
        Flags::OeRc => {
            if i.oe() {
                s.push('o');
            }
            if i.rc() {
                s.push('.');
            }
        }
        Flags::Rc | Flags::VRc => {
            if i.rc() {
                s.push('.');
            }
        }
        Flags::Branch => {
            if i.lk() {
                s.push('l');
            }
            if i.op == Op::B && i.aa() || i.op == Op::Bc && i.aa() {
                s.push('a');
            }
        }
        Flags::Plain => {}
    }
    s
}

fn crbit(b: usize) -> String {
    const N: [&str; 4] = ["lt", "gt", "eq", "so"];
    if b < 4 {
        N[b].to_string()
    } else {
        format!("4*cr{}+{}", b / 4, N[b % 4])
    }
}

/// `ra` as an address base: 0 means the literal zero.
fn base(ra: usize) -> String {
    if ra == 0 {
        "0".into()
    } else {
        format!("r{ra}")
    }
}

/// The operands of `i` at address `pc`, comma-separated.
pub fn operands(i: Instr, pc: u32) -> String {
    let (rt, ra, rb, rc) = (i.rt(), i.ra(), i.rb(), i.rc_reg());
    match i.op.fmt() {
        Fmt::None => String::new(),
        Fmt::RtRaSi => {
            let zero_ra = matches!(i.op, Op::Addi | Op::Addis);
            let a = if zero_ra { base(ra) } else { format!("r{ra}") };
            format!("r{rt},{a},{}", i.simm())
        }
        Fmt::RaRsUi => format!("r{ra},r{rt},{}", i.uimm()),
        Fmt::RtD => format!("r{rt},{}({})", i.simm(), base(ra)),
        Fmt::RtDs => format!("r{rt},{}({})", i.ds(), base(ra)),
        Fmt::FrtD => format!("f{rt},{}({})", i.simm(), base(ra)),
        Fmt::RtRaRb => {
            let a = if is_mem_indexed(i.op) {
                base(ra)
            } else {
                format!("r{ra}")
            };
            format!("r{rt},{a},r{rb}")
        }
        Fmt::RtRa => format!("r{rt},r{ra}"),
        Fmt::RaRsRb => format!("r{ra},r{rt},r{rb}"),
        Fmt::RaRs => format!("r{ra},r{rt}"),
        Fmt::RaRsSh => {
            let sh = if i.op == Op::Sradi {
                i.sh64()
            } else {
                i.sh32()
            };
            format!("r{ra},r{rt},{sh}")
        }
        Fmt::RaRsShMbMe => format!("r{ra},r{rt},{},{},{}", i.sh32(), i.mb32(), i.me32()),
        Fmt::RaRsRbMbMe => format!("r{ra},r{rt},r{rb},{},{}", i.mb32(), i.me32()),
        Fmt::RaRsShMb64 => format!("r{ra},r{rt},{},{}", i.sh64(), i.mb64()),
        Fmt::RaRsRbMb64 => format!("r{ra},r{rt},r{rb},{}", i.mb64()),
        Fmt::Cmp => format!("cr{},{},r{ra},r{rb}", i.bf(), i.l() as u8),
        Fmt::CmpImm => {
            let imm = if i.op == Op::Cmpli {
                i.uimm() as i64
            } else {
                i.simm()
            };
            format!("cr{},{},r{ra},{imm}", i.bf(), i.l() as u8)
        }
        Fmt::Trap => format!("{rt},r{ra},r{rb}"),
        Fmt::TrapImm => format!("{rt},r{ra},{}", i.simm()),
        Fmt::Branch | Fmt::BranchCond => {
            let target = i.branch_target(pc).unwrap_or(0);
            if i.op == Op::Bc {
                format!("{},{},{target:#x}", i.bo(), crbit(i.bi()))
            } else {
                format!("{target:#x}")
            }
        }
        Fmt::BranchReg => format!("{},{},{}", i.bo(), crbit(i.bi()), (i.word >> 11) & 3),
        Fmt::CrLogic => format!("{},{},{}", crbit(rt), crbit(ra), crbit(rb)),
        Fmt::CrMove => format!("cr{},cr{}", i.bf(), i.bfa()),
        Fmt::MfSpr | Fmt::MfTb => format!("r{rt},{}", i.spr()),
        Fmt::MtSpr => format!("{},r{rt}", i.spr()),
        Fmt::Rt => format!("r{rt}"),
        Fmt::MfOcrf => format!("r{rt},{}", i.crm()),
        Fmt::MtCrf => format!("{},r{rt}", i.crm()),
        Fmt::RaRb => {
            if matches!(i.op, Op::Dcbf) {
                format!("{},r{rb},0", base(ra))
            } else {
                format!("{},r{rb}", base(ra))
            }
        }
        Fmt::Touch => format!("{},r{rb},{}", base(ra), i.th()),
        Fmt::Sync => format!("{}", i.sync_l()),
        Fmt::Sc => format!("{}", i.lev()),
        Fmt::StringImm => {
            let nb = if i.nb() == 0 { 32 } else { i.nb() };
            format!("r{rt},{},{nb}", base(ra))
        }
        Fmt::FrtRaRb => format!("f{rt},{},r{rb}", base(ra)),
        Fmt::FrtFraFrb => format!("f{rt},f{ra},f{rb}"),
        Fmt::FrtFraFrc => format!("f{rt},f{ra},f{rc}"),
        Fmt::FrtFraFrcFrb => format!("f{rt},f{ra},f{rc},f{rb}"),
        Fmt::FrtFrb => format!("f{rt},f{rb}"),
        Fmt::FCmp => format!("cr{},f{ra},f{rb}", i.bf()),
        Fmt::Frt => format!("f{rt}"),
        Fmt::MtFsf => format!("{},f{rb}", i.flm()),
        Fmt::MtFsfi => format!("{},{}", i.bf(), i.u_imm()),
        Fmt::Bt => format!("{rt}"),
        Fmt::VdRaRb => format!("v{rt},{},r{rb}", base(ra)),
        Fmt::VdVaVb => format!("v{rt},v{ra},v{rb}"),
        Fmt::VdVaVbVc => format!("v{rt},v{ra},v{rb},v{rc}"),
        Fmt::VdVaVcVb => format!("v{rt},v{ra},v{rc},v{rb}"),
        Fmt::VdVaVbShb => format!("v{rt},v{ra},v{rb},{}", i.shb()),
        Fmt::VdVb => format!("v{rt},v{rb}"),
        Fmt::VdVbUimm => format!("v{rt},v{rb},{}", i.vuimm()),
        Fmt::VdSimm => format!("v{rt},{}", i.vsimm()),
        Fmt::Vd => format!("v{rt}"),
        Fmt::Vb => format!("v{rb}"),
        Fmt::Dst => format!("r{ra},r{rb},{}", i.strm()),
        Fmt::Dss => format!("{}", i.strm()),
    }
}

fn is_mem_indexed(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Lwarx
            | Ldx
            | Lwzx
            | Ldux
            | Lwzux
            | Ldarx
            | Lbzx
            | Lbzux
            | Stdx
            | Stwcx
            | Stwx
            | Stdux
            | Stwux
            | Stdcx
            | Stbx
            | Stbux
            | Lhzx
            | Lhzux
            | Lwax
            | Lhax
            | Lwaux
            | Lhaux
            | Sthx
            | Sthux
            | Lswx
            | Lwbrx
            | Stswx
            | Stwbrx
            | Lhbrx
            | Sthbrx
    )
}

/// Disassembles `i` at address `pc`: mnemonic, spaces, operands.
pub fn disassemble(i: Instr, pc: u32) -> String {
    let m = mnemonic(i);
    let ops = operands(i, pc);
    let mut s = String::with_capacity(32);
    if ops.is_empty() {
        s.push_str(&m);
    } else {
        let _ = write!(s, "{m:<7} {ops}");
    }
    s
}

/// Disassembles a word at `pc`, or says `.long 0x...` when it does not decode.
pub fn disassemble_word(word: u32, pc: u32) -> String {
    match crate::decode(word) {
        Ok(i) => disassemble(i, pc),
        Err(_) => format!(".long {word:#x}"),
    }
}
