//! The decoder: instruction word → [`Instr`].
//!
//! A two-level table in code: the primary opcode (bits 0..5) selects a form,
//! and the extended opcode of that form selects the op. Reserved bits are
//! ignored, as the hardware ignores them; opcodes the Cell PPU does not
//! implement (later PowerISA additions, privileged instructions, SPRs a user
//! program cannot reach) are errors.

use std::fmt;

use crate::instr::Instr;
use crate::op::Op;

/// Why a word is not a Cell PPU instruction a user program can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Invalid {
    /// No instruction has this (extended) opcode on the Cell PPU.
    UnknownOpcode,
    /// mfspr/mtspr of an SPR that user code cannot use (or the Cell lacks).
    UnsupportedSpr(u32),
    /// mftb of a TBR other than 268 (TB) and 269 (TBU).
    UnsupportedTbr(u32),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::UnknownOpcode => f.write_str("not a Cell PPU user-mode instruction"),
            Invalid::UnsupportedSpr(n) => {
                write!(
                    f,
                    "SPR {n} is not one user code can use (XER 1, LR 8, CTR 9, VRSAVE 256, TB 268, TBU 269)"
                )
            }
            Invalid::UnsupportedTbr(n) => {
                write!(f, "time base register {n} (only 268 and 269 exist)")
            }
        }
    }
}

/// An instruction word that does not decode, with where it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error(
    "unknown instruction at {addr:#010x}: word {word:#010x} (opcode {primary}{ext}): {reason}",
    primary = word >> 26,
    ext = ExtOpcode(*word)
)]
pub struct DecodeError {
    /// The guest address of the word.
    pub addr: u32,
    /// The word.
    pub word: u32,
    /// Why it does not decode.
    pub reason: Invalid,
}

/// Formats the extended opcode of a word for messages ("/266" etc.).
struct ExtOpcode(u32);

impl fmt::Display for ExtOpcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.0;
        match w >> 26 {
            19 | 31 | 63 => write!(f, "/{}", (w >> 1) & 0x3FF),
            59 => write!(f, "/{}", (w >> 1) & 0x1F),
            4 => write!(f, "/{}", w & 0x7FF),
            30 => write!(f, "/{}", (w >> 1) & 0xF),
            58 | 62 => write!(f, "/{}", w & 3),
            _ => Ok(()),
        }
    }
}

/// Decodes `word` found at `addr`.
#[inline]
pub fn decode_at(addr: u32, word: u32) -> Result<Instr, DecodeError> {
    decode(word).map_err(|reason| DecodeError { addr, word, reason })
}

/// Decodes one instruction word.
pub fn decode(word: u32) -> Result<Instr, Invalid> {
    use Op::*;
    let op = match word >> 26 {
        2 => Tdi,
        3 => Twi,
        4 => return decode_vmx(word),
        7 => Mulli,
        8 => Subfic,
        10 => Cmpli,
        11 => Cmpi,
        12 => Addic,
        13 => AddicRc,
        14 => Addi,
        15 => Addis,
        16 => Bc,
        17 if word & 2 != 0 => Sc,
        18 => B,
        19 => match (word >> 1) & 0x3FF {
            0 => Mcrf,
            16 => Bclr,
            33 => Crnor,
            129 => Crandc,
            150 => Isync,
            193 => Crxor,
            225 => Crnand,
            257 => Crand,
            289 => Creqv,
            417 => Crorc,
            449 => Cror,
            528 => Bcctr,
            _ => return Err(Invalid::UnknownOpcode),
        },
        20 => Rlwimi,
        21 => Rlwinm,
        23 => Rlwnm,
        24 => Ori,
        25 => Oris,
        26 => Xori,
        27 => Xoris,
        28 => Andi,
        29 => Andis,
        30 => match (word >> 2) & 7 {
            0 => Rldicl,
            1 => Rldicr,
            2 => Rldic,
            3 => Rldimi,
            4 => match (word >> 1) & 0xF {
                8 => Rldcl,
                9 => Rldcr,
                _ => return Err(Invalid::UnknownOpcode),
            },
            _ => return Err(Invalid::UnknownOpcode),
        },
        31 => return decode_31(word),
        32 => Lwz,
        33 => Lwzu,
        34 => Lbz,
        35 => Lbzu,
        36 => Stw,
        37 => Stwu,
        38 => Stb,
        39 => Stbu,
        40 => Lhz,
        41 => Lhzu,
        42 => Lha,
        43 => Lhau,
        44 => Sth,
        45 => Sthu,
        46 => Lmw,
        47 => Stmw,
        48 => Lfs,
        49 => Lfsu,
        50 => Lfd,
        51 => Lfdu,
        52 => Stfs,
        53 => Stfsu,
        54 => Stfd,
        55 => Stfdu,
        58 => match word & 3 {
            0 => Ld,
            1 => Ldu,
            2 => Lwa,
            _ => return Err(Invalid::UnknownOpcode),
        },
        59 => match (word >> 1) & 0x1F {
            18 => Fdivs,
            20 => Fsubs,
            21 => Fadds,
            22 => Fsqrts,
            24 => Fres,
            25 => Fmuls,
            28 => Fmsubs,
            29 => Fmadds,
            30 => Fnmsubs,
            31 => Fnmadds,
            _ => return Err(Invalid::UnknownOpcode),
        },
        62 => match word & 3 {
            0 => Std,
            1 => Stdu,
            _ => return Err(Invalid::UnknownOpcode),
        },
        63 => match (word >> 1) & 0x1F {
            18 => Fdiv,
            20 => Fsub,
            21 => Fadd,
            22 => Fsqrt,
            23 => Fsel,
            25 => Fmul,
            26 => Frsqrte,
            28 => Fmsub,
            29 => Fmadd,
            30 => Fnmsub,
            31 => Fnmadd,
            _ => match (word >> 1) & 0x3FF {
                0 => Fcmpu,
                12 => Frsp,
                14 => Fctiw,
                15 => Fctiwz,
                32 => Fcmpo,
                38 => Mtfsb1,
                40 => Fneg,
                64 => Mcrfs,
                70 => Mtfsb0,
                72 => Fmr,
                134 => Mtfsfi,
                136 => Fnabs,
                264 => Fabs,
                // The bits an ISA 3.0 core reads as mffsce/mffscrn/... are
                // reserved on the Cell, which runs every such word as mffs.
                583 => Mffs,
                711 => Mtfsf,
                814 => Fctid,
                815 => Fctidz,
                846 => Fcfid,
                _ => return Err(Invalid::UnknownOpcode),
            },
        },
        _ => return Err(Invalid::UnknownOpcode),
    };
    Ok(Instr { op, word })
}

fn decode_31(word: u32) -> Result<Instr, Invalid> {
    use Op::*;
    let xo = (word >> 1) & 0x3FF;
    // XO-form arithmetic: 9-bit extended opcode, OE in bit 21.
    let xo9 = match xo & 0x1FF {
        8 => Some(Subfc),
        10 => Some(Addc),
        40 => Some(Subf),
        104 => Some(Neg),
        136 => Some(Subfe),
        138 => Some(Adde),
        200 => Some(Subfze),
        202 => Some(Addze),
        232 => Some(Subfme),
        233 => Some(Mulld),
        234 => Some(Addme),
        235 => Some(Mullw),
        266 => Some(Add),
        457 => Some(Divdu),
        459 => Some(Divwu),
        489 => Some(Divd),
        491 => Some(Divw),
        _ => None,
    };
    if let Some(op) = xo9 {
        return Ok(Instr { op, word });
    }
    let op = match xo {
        0 => Cmp,
        4 => Tw,
        6 => Lvsl,
        7 => Lvebx,
        9 => Mulhdu,
        11 => Mulhwu,
        19 => {
            if word & (1 << 20) != 0 {
                Mfocrf
            } else {
                Mfcr
            }
        }
        20 => Lwarx,
        21 => Ldx,
        23 => Lwzx,
        24 => Slw,
        26 => Cntlzw,
        27 => Sld,
        28 => And,
        32 => Cmpl,
        38 => Lvsr,
        39 => Lvehx,
        53 => Ldux,
        54 => Dcbst,
        55 => Lwzux,
        58 => Cntlzd,
        60 => Andc,
        68 => Td,
        71 => Lvewx,
        73 => Mulhd,
        75 => Mulhw,
        84 => Ldarx,
        86 => Dcbf,
        87 => Lbzx,
        103 => Lvx,
        119 => Lbzux,
        124 => Nor,
        135 => Stvebx,
        144 => {
            if word & (1 << 20) != 0 {
                Mtocrf
            } else {
                Mtcrf
            }
        }
        149 => Stdx,
        150 if word & 1 == 1 => Stwcx,
        151 => Stwx,
        167 => Stvehx,
        181 => Stdux,
        183 => Stwux,
        199 => Stvewx,
        214 if word & 1 == 1 => Stdcx,
        215 => Stbx,
        231 => Stvx,
        246 => Dcbtst,
        247 => Stbux,
        278 => Dcbt,
        279 => Lhzx,
        284 => Eqv,
        311 => Lhzux,
        316 => Xor,
        339 => match (Instr { op: Mfspr, word }).spr() {
            1 | 8 | 9 | 256 | 268 | 269 => Mfspr,
            n => return Err(Invalid::UnsupportedSpr(n)),
        },
        341 => Lwax,
        342 => {
            if word & (1 << 25) != 0 {
                Dstt
            } else {
                Dst
            }
        }
        343 => Lhax,
        359 => Lvxl,
        371 => match (Instr { op: Mftb, word }).spr() {
            268 | 269 => Mftb,
            n => return Err(Invalid::UnsupportedTbr(n)),
        },
        373 => Lwaux,
        374 => {
            if word & (1 << 25) != 0 {
                Dststt
            } else {
                Dstst
            }
        }
        375 => Lhaux,
        407 => Sthx,
        412 => Orc,
        439 => Sthux,
        444 => Or,
        467 => match (Instr { op: Mtspr, word }).spr() {
            1 | 8 | 9 | 256 => Mtspr,
            n => return Err(Invalid::UnsupportedSpr(n)),
        },
        476 => Nand,
        487 => Stvxl,
        519 => Lvlx,
        533 => Lswx,
        534 => Lwbrx,
        535 => Lfsx,
        536 => Srw,
        539 => Srd,
        551 => Lvrx,
        567 => Lfsux,
        597 => Lswi,
        598 => Sync,
        599 => Lfdx,
        631 => Lfdux,
        647 => Stvlx,
        661 => Stswx,
        662 => Stwbrx,
        663 => Stfsx,
        679 => Stvrx,
        695 => Stfsux,
        725 => Stswi,
        727 => Stfdx,
        759 => Stfdux,
        775 => Lvlxl,
        790 => Lhbrx,
        792 => Sraw,
        794 => Srad,
        807 => Lvrxl,
        822 => {
            if word & (1 << 25) != 0 {
                Dssall
            } else {
                Dss
            }
        }
        824 => Srawi,
        826 | 827 => Sradi,
        854 => Eieio,
        903 => Stvlxl,
        918 => Sthbrx,
        922 => Extsh,
        935 => Stvrxl,
        954 => Extsb,
        982 => Icbi,
        983 => Stfiwx,
        986 => Extsw,
        1014 => Dcbz,
        _ => return Err(Invalid::UnknownOpcode),
    };
    Ok(Instr { op, word })
}

fn decode_vmx(word: u32) -> Result<Instr, Invalid> {
    use Op::*;
    let va = match word & 0x3F {
        32 => Some(Vmhaddshs),
        33 => Some(Vmhraddshs),
        34 => Some(Vmladduhm),
        36 => Some(Vmsumubm),
        37 => Some(Vmsummbm),
        38 => Some(Vmsumuhm),
        39 => Some(Vmsumuhs),
        40 => Some(Vmsumshm),
        41 => Some(Vmsumshs),
        42 => Some(Vsel),
        43 => Some(Vperm),
        44 => Some(Vsldoi),
        46 => Some(Vmaddfp),
        47 => Some(Vnmsubfp),
        _ => None,
    };
    if let Some(op) = va {
        return Ok(Instr { op, word });
    }
    let cmp = match word & 0x3FF {
        6 => Some(Vcmpequb),
        70 => Some(Vcmpequh),
        134 => Some(Vcmpequw),
        198 => Some(Vcmpeqfp),
        454 => Some(Vcmpgefp),
        518 => Some(Vcmpgtub),
        582 => Some(Vcmpgtuh),
        646 => Some(Vcmpgtuw),
        710 => Some(Vcmpgtfp),
        774 => Some(Vcmpgtsb),
        838 => Some(Vcmpgtsh),
        902 => Some(Vcmpgtsw),
        966 => Some(Vcmpbfp),
        _ => None,
    };
    if let Some(op) = cmp {
        return Ok(Instr { op, word });
    }
    let op = match word & 0x7FF {
        0 => Vaddubm,
        2 => Vmaxub,
        4 => Vrlb,
        8 => Vmuloub,
        10 => Vaddfp,
        12 => Vmrghb,
        14 => Vpkuhum,
        64 => Vadduhm,
        66 => Vmaxuh,
        68 => Vrlh,
        72 => Vmulouh,
        74 => Vsubfp,
        76 => Vmrghh,
        78 => Vpkuwum,
        128 => Vadduwm,
        130 => Vmaxuw,
        132 => Vrlw,
        140 => Vmrghw,
        142 => Vpkuhus,
        206 => Vpkuwus,
        258 => Vmaxsb,
        260 => Vslb,
        264 => Vmulosb,
        266 => Vrefp,
        268 => Vmrglb,
        270 => Vpkshus,
        322 => Vmaxsh,
        324 => Vslh,
        328 => Vmulosh,
        330 => Vrsqrtefp,
        332 => Vmrglh,
        334 => Vpkswus,
        384 => Vaddcuw,
        386 => Vmaxsw,
        388 => Vslw,
        394 => Vexptefp,
        396 => Vmrglw,
        398 => Vpkshss,
        452 => Vsl,
        458 => Vlogefp,
        462 => Vpkswss,
        512 => Vaddubs,
        514 => Vminub,
        516 => Vsrb,
        520 => Vmuleub,
        522 => Vrfin,
        524 => Vspltb,
        526 => Vupkhsb,
        576 => Vadduhs,
        578 => Vminuh,
        580 => Vsrh,
        584 => Vmuleuh,
        586 => Vrfiz,
        588 => Vsplth,
        590 => Vupkhsh,
        640 => Vadduws,
        642 => Vminuw,
        644 => Vsrw,
        650 => Vrfip,
        652 => Vspltw,
        654 => Vupklsb,
        708 => Vsr,
        714 => Vrfim,
        718 => Vupklsh,
        768 => Vaddsbs,
        770 => Vminsb,
        772 => Vsrab,
        776 => Vmulesb,
        778 => Vcfux,
        780 => Vspltisb,
        782 => Vpkpx,
        832 => Vaddshs,
        834 => Vminsh,
        836 => Vsrah,
        840 => Vmulesh,
        842 => Vcfsx,
        844 => Vspltish,
        846 => Vupkhpx,
        896 => Vaddsws,
        898 => Vminsw,
        900 => Vsraw,
        906 => Vctuxs,
        908 => Vspltisw,
        970 => Vctsxs,
        974 => Vupklpx,
        1024 => Vsububm,
        1026 => Vavgub,
        1028 => Vand,
        1034 => Vmaxfp,
        1036 => Vslo,
        1088 => Vsubuhm,
        1090 => Vavguh,
        1092 => Vandc,
        1098 => Vminfp,
        1100 => Vsro,
        1152 => Vsubuwm,
        1154 => Vavguw,
        1156 => Vor,
        1220 => Vxor,
        1282 => Vavgsb,
        1284 => Vnor,
        1346 => Vavgsh,
        1408 => Vsubcuw,
        1410 => Vavgsw,
        1536 => Vsububs,
        1540 => Mfvscr,
        1544 => Vsum4ubs,
        1600 => Vsubuhs,
        1604 => Mtvscr,
        1608 => Vsum4shs,
        1664 => Vsubuws,
        1672 => Vsum2sws,
        1792 => Vsubsbs,
        1800 => Vsum4sbs,
        1856 => Vsubshs,
        1920 => Vsubsws,
        1928 => Vsumsws,
        _ => return Err(Invalid::UnknownOpcode),
    };
    Ok(Instr { op, word })
}
