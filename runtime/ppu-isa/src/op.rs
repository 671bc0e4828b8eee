//! The operations of the Cell PPU instruction set, their mnemonics and
//! operand formats.
//!
//! One [`Op`] per instruction, not per spelling: the record (`.`) and
//! overflow (`o`) variants, `bl`/`ba`, `bclrl` and so on are the same op with
//! the Rc, OE, LK and AA bits read from the word (see [`crate::Instr`]).

/// How an instruction's operands are written (and which fields it has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fmt {
    /// no operands
    None,
    /// `rt,ra,simm` (addi, mulli, ...; `ra` 0 reads as 0 for addi/addis)
    RtRaSi,
    /// `ra,rs,uimm` (ori, andi., ...)
    RaRsUi,
    /// `rt,d(ra)` load/store with a 16-bit displacement
    RtD,
    /// `rt,ds(ra)` load/store with a 14-bit word displacement (ld, std, lwa)
    RtDs,
    /// `frt,d(ra)` floating load/store
    FrtD,
    /// `rt,ra,rb` (indexed loads/stores, add, subf, mullw, ...)
    RtRaRb,
    /// `rt,ra` (neg, addze, ...)
    RtRa,
    /// `ra,rs,rb` (and, or, slw, ...)
    RaRsRb,
    /// `ra,rs` (extsb, cntlzw, ...)
    RaRs,
    /// `ra,rs,sh` (srawi, sradi)
    RaRsSh,
    /// `ra,rs,sh,mb,me` (rlwinm, rlwimi)
    RaRsShMbMe,
    /// `ra,rs,rb,mb,me` (rlwnm)
    RaRsRbMbMe,
    /// `ra,rs,sh,mb` (rldicl, rldic, rldimi; `me` for rldicr)
    RaRsShMb64,
    /// `ra,rs,rb,mb` (rldcl; `me` for rldcr)
    RaRsRbMb64,
    /// `bf,l,ra,rb` (cmp, cmpl)
    Cmp,
    /// `bf,l,ra,si` (cmpi) / `bf,l,ra,ui` (cmpli)
    CmpImm,
    /// `to,ra,rb` (tw, td)
    Trap,
    /// `to,ra,si` (twi, tdi)
    TrapImm,
    /// `target` (b)
    Branch,
    /// `bo,bi,target` (bc)
    BranchCond,
    /// `bo,bi,bh` (bclr, bcctr)
    BranchReg,
    /// `bt,ba,bb` (crand, ...)
    CrLogic,
    /// `bf,bfa` (mcrf, mcrfs)
    CrMove,
    /// `rt,spr` (mfspr)
    MfSpr,
    /// `spr,rs` (mtspr)
    MtSpr,
    /// `rt,tbr` (mftb)
    MfTb,
    /// `rt` (mfcr)
    Rt,
    /// `rt,fxm` (mfocrf)
    MfOcrf,
    /// `fxm,rs` (mtcrf, mtocrf)
    MtCrf,
    /// `ra,rb` (cache ops)
    RaRb,
    /// `ra,rb,th` (dcbt, dcbtst)
    Touch,
    /// `l` (sync)
    Sync,
    /// `lev` (sc)
    Sc,
    /// `rt,ra,nb` (lswi, stswi)
    StringImm,
    /// `frt,ra,rb` floating indexed load/store
    FrtRaRb,
    /// `frt,fra,frb`
    FrtFraFrb,
    /// `frt,fra,frc`
    FrtFraFrc,
    /// `frt,fra,frc,frb`
    FrtFraFrcFrb,
    /// `frt,frb`
    FrtFrb,
    /// `bf,fra,frb` (fcmpu, fcmpo)
    FCmp,
    /// `frt` (mffs)
    Frt,
    /// `flm,frb` (mtfsf)
    MtFsf,
    /// `bf,u` (mtfsfi)
    MtFsfi,
    /// `bt` (mtfsb0, mtfsb1)
    Bt,
    /// `vd,ra,rb` (vector loads/stores, lvsl, lvsr)
    VdRaRb,
    /// `vd,va,vb`
    VdVaVb,
    /// `vd,va,vb,vc`
    VdVaVbVc,
    /// `vd,va,vc,vb` (vmaddfp, vnmsubfp: written with vc before vb)
    VdVaVcVb,
    /// `vd,va,vb,shb` (vsldoi)
    VdVaVbShb,
    /// `vd,vb`
    VdVb,
    /// `vd,vb,uimm` (vsplt*, vcfux, vctsxs, ...)
    VdVbUimm,
    /// `vd,simm` (vspltis*)
    VdSimm,
    /// `vd` (mfvscr)
    Vd,
    /// `vb` (mtvscr)
    Vb,
    /// `ra,rb,strm` (dst, dstst)
    Dst,
    /// `strm` (dss)
    Dss,
}

/// What an op is allowed to have in the bits every form shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flags {
    /// no record/overflow bits
    Plain,
    /// the low bit is Rc (record to CR0, or CR1 for floating point)
    Rc,
    /// OE (bit 21) and Rc
    OeRc,
    /// the record bit of the VMX compares (bit 21, CR6)
    VRc,
    /// AA and LK (b) / LK (bc, bclr, bcctr)
    Branch,
}

macro_rules! ops {
    ($($name:ident = $mn:literal, $fmt:ident, $flags:ident;)*) => {
        /// One Cell PPU operation. See the module documentation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum Op { $($name,)* }

        impl Op {
            /// Every op, in table order.
            pub const ALL: &'static [Op] = &[$(Op::$name,)*];

            /// The base mnemonic (without `o`, `.`, `l`, `a` suffixes).
            pub fn mnemonic(self) -> &'static str {
                match self { $(Op::$name => $mn,)* }
            }

            /// The operand format.
            pub fn fmt(self) -> Fmt {
                match self { $(Op::$name => Fmt::$fmt,)* }
            }

            /// Which of the Rc/OE/AA/LK bits the op reads.
            pub fn flags(self) -> Flags {
                match self { $(Op::$name => Flags::$flags,)* }
            }
        }
    };
}

ops! {
    // ---- integer arithmetic (D-form)
    Tdi = "tdi", TrapImm, Plain;
    Twi = "twi", TrapImm, Plain;
    Mulli = "mulli", RtRaSi, Plain;
    Subfic = "subfic", RtRaSi, Plain;
    Cmpli = "cmpli", CmpImm, Plain;
    Cmpi = "cmpi", CmpImm, Plain;
    Addic = "addic", RtRaSi, Plain;
    AddicRc = "addic.", RtRaSi, Plain;
    Addi = "addi", RtRaSi, Plain;
    Addis = "addis", RtRaSi, Plain;
    // ---- branches, system call
    Bc = "bc", BranchCond, Branch;
    Sc = "sc", Sc, Plain;
    B = "b", Branch, Branch;
    Mcrf = "mcrf", CrMove, Plain;
    Bclr = "bclr", BranchReg, Branch;
    Crnor = "crnor", CrLogic, Plain;
    Crandc = "crandc", CrLogic, Plain;
    Isync = "isync", None, Plain;
    Crxor = "crxor", CrLogic, Plain;
    Crnand = "crnand", CrLogic, Plain;
    Crand = "crand", CrLogic, Plain;
    Creqv = "creqv", CrLogic, Plain;
    Crorc = "crorc", CrLogic, Plain;
    Cror = "cror", CrLogic, Plain;
    Bcctr = "bcctr", BranchReg, Branch;
    // ---- rotates, logical immediates
    Rlwimi = "rlwimi", RaRsShMbMe, Rc;
    Rlwinm = "rlwinm", RaRsShMbMe, Rc;
    Rlwnm = "rlwnm", RaRsRbMbMe, Rc;
    Ori = "ori", RaRsUi, Plain;
    Oris = "oris", RaRsUi, Plain;
    Xori = "xori", RaRsUi, Plain;
    Xoris = "xoris", RaRsUi, Plain;
    Andi = "andi.", RaRsUi, Plain;
    Andis = "andis.", RaRsUi, Plain;
    Rldicl = "rldicl", RaRsShMb64, Rc;
    Rldicr = "rldicr", RaRsShMb64, Rc;
    Rldic = "rldic", RaRsShMb64, Rc;
    Rldimi = "rldimi", RaRsShMb64, Rc;
    Rldcl = "rldcl", RaRsRbMb64, Rc;
    Rldcr = "rldcr", RaRsRbMb64, Rc;
    // ---- opcode 31: compares, traps
    Cmp = "cmp", Cmp, Plain;
    Cmpl = "cmpl", Cmp, Plain;
    Tw = "tw", Trap, Plain;
    Td = "td", Trap, Plain;
    // ---- opcode 31: arithmetic (XO-form)
    Subfc = "subfc", RtRaRb, OeRc;
    Addc = "addc", RtRaRb, OeRc;
    Mulhdu = "mulhdu", RtRaRb, Rc;
    Mulhwu = "mulhwu", RtRaRb, Rc;
    Subf = "subf", RtRaRb, OeRc;
    Mulhd = "mulhd", RtRaRb, Rc;
    Mulhw = "mulhw", RtRaRb, Rc;
    Neg = "neg", RtRa, OeRc;
    Subfe = "subfe", RtRaRb, OeRc;
    Adde = "adde", RtRaRb, OeRc;
    Subfze = "subfze", RtRa, OeRc;
    Addze = "addze", RtRa, OeRc;
    Subfme = "subfme", RtRa, OeRc;
    Mulld = "mulld", RtRaRb, OeRc;
    Addme = "addme", RtRa, OeRc;
    Mullw = "mullw", RtRaRb, OeRc;
    Add = "add", RtRaRb, OeRc;
    Divdu = "divdu", RtRaRb, OeRc;
    Divwu = "divwu", RtRaRb, OeRc;
    Divd = "divd", RtRaRb, OeRc;
    Divw = "divw", RtRaRb, OeRc;
    // ---- opcode 31: logical, shifts, extends
    Slw = "slw", RaRsRb, Rc;
    Cntlzw = "cntlzw", RaRs, Rc;
    Sld = "sld", RaRsRb, Rc;
    And = "and", RaRsRb, Rc;
    Cntlzd = "cntlzd", RaRs, Rc;
    Andc = "andc", RaRsRb, Rc;
    Nor = "nor", RaRsRb, Rc;
    Eqv = "eqv", RaRsRb, Rc;
    Xor = "xor", RaRsRb, Rc;
    Orc = "orc", RaRsRb, Rc;
    Or = "or", RaRsRb, Rc;
    Nand = "nand", RaRsRb, Rc;
    Srw = "srw", RaRsRb, Rc;
    Srd = "srd", RaRsRb, Rc;
    Sraw = "sraw", RaRsRb, Rc;
    Srad = "srad", RaRsRb, Rc;
    Srawi = "srawi", RaRsSh, Rc;
    Sradi = "sradi", RaRsSh, Rc;
    Extsh = "extsh", RaRs, Rc;
    Extsb = "extsb", RaRs, Rc;
    Extsw = "extsw", RaRs, Rc;
    // ---- opcode 31: special registers
    Mfcr = "mfcr", Rt, Plain;
    Mfocrf = "mfocrf", MfOcrf, Plain;
    Mtcrf = "mtcrf", MtCrf, Plain;
    Mtocrf = "mtocrf", MtCrf, Plain;
    Mfspr = "mfspr", MfSpr, Plain;
    Mftb = "mftb", MfTb, Plain;
    Mtspr = "mtspr", MtSpr, Plain;
    // ---- opcode 31: loads and stores (indexed)
    Lwarx = "lwarx", RtRaRb, Plain;
    Ldx = "ldx", RtRaRb, Plain;
    Lwzx = "lwzx", RtRaRb, Plain;
    Ldux = "ldux", RtRaRb, Plain;
    Lwzux = "lwzux", RtRaRb, Plain;
    Ldarx = "ldarx", RtRaRb, Plain;
    Lbzx = "lbzx", RtRaRb, Plain;
    Lbzux = "lbzux", RtRaRb, Plain;
    Stdx = "stdx", RtRaRb, Plain;
    Stwcx = "stwcx.", RtRaRb, Plain;
    Stwx = "stwx", RtRaRb, Plain;
    Stdux = "stdux", RtRaRb, Plain;
    Stwux = "stwux", RtRaRb, Plain;
    Stdcx = "stdcx.", RtRaRb, Plain;
    Stbx = "stbx", RtRaRb, Plain;
    Stbux = "stbux", RtRaRb, Plain;
    Lhzx = "lhzx", RtRaRb, Plain;
    Lhzux = "lhzux", RtRaRb, Plain;
    Lwax = "lwax", RtRaRb, Plain;
    Lhax = "lhax", RtRaRb, Plain;
    Lwaux = "lwaux", RtRaRb, Plain;
    Lhaux = "lhaux", RtRaRb, Plain;
    Sthx = "sthx", RtRaRb, Plain;
    Sthux = "sthux", RtRaRb, Plain;
    Lswx = "lswx", RtRaRb, Plain;
    Lwbrx = "lwbrx", RtRaRb, Plain;
    Lfsx = "lfsx", FrtRaRb, Plain;
    Lfsux = "lfsux", FrtRaRb, Plain;
    Lswi = "lswi", StringImm, Plain;
    Lfdx = "lfdx", FrtRaRb, Plain;
    Lfdux = "lfdux", FrtRaRb, Plain;
    Stswx = "stswx", RtRaRb, Plain;
    Stwbrx = "stwbrx", RtRaRb, Plain;
    Stfsx = "stfsx", FrtRaRb, Plain;
    Stfsux = "stfsux", FrtRaRb, Plain;
    Stswi = "stswi", StringImm, Plain;
    Stfdx = "stfdx", FrtRaRb, Plain;
    Stfdux = "stfdux", FrtRaRb, Plain;
    Lhbrx = "lhbrx", RtRaRb, Plain;
    Sthbrx = "sthbrx", RtRaRb, Plain;
    Stfiwx = "stfiwx", FrtRaRb, Plain;
    // ---- opcode 31: cache, fences
    Dcbst = "dcbst", RaRb, Plain;
    Dcbf = "dcbf", RaRb, Plain;
    Dcbtst = "dcbtst", Touch, Plain;
    Dcbt = "dcbt", Touch, Plain;
    Sync = "sync", Sync, Plain;
    Eieio = "eieio", None, Plain;
    Icbi = "icbi", RaRb, Plain;
    Dcbz = "dcbz", RaRb, Plain;
    // ---- opcode 31: VMX loads, stores, stream hints
    Lvsl = "lvsl", VdRaRb, Plain;
    Lvebx = "lvebx", VdRaRb, Plain;
    Lvsr = "lvsr", VdRaRb, Plain;
    Lvehx = "lvehx", VdRaRb, Plain;
    Lvewx = "lvewx", VdRaRb, Plain;
    Lvx = "lvx", VdRaRb, Plain;
    Stvebx = "stvebx", VdRaRb, Plain;
    Stvehx = "stvehx", VdRaRb, Plain;
    Stvewx = "stvewx", VdRaRb, Plain;
    Stvx = "stvx", VdRaRb, Plain;
    Lvxl = "lvxl", VdRaRb, Plain;
    Stvxl = "stvxl", VdRaRb, Plain;
    Lvlx = "lvlx", VdRaRb, Plain;
    Lvrx = "lvrx", VdRaRb, Plain;
    Stvlx = "stvlx", VdRaRb, Plain;
    Stvrx = "stvrx", VdRaRb, Plain;
    Lvlxl = "lvlxl", VdRaRb, Plain;
    Lvrxl = "lvrxl", VdRaRb, Plain;
    Stvlxl = "stvlxl", VdRaRb, Plain;
    Stvrxl = "stvrxl", VdRaRb, Plain;
    Dst = "dst", Dst, Plain;
    Dstt = "dstt", Dst, Plain;
    Dstst = "dstst", Dst, Plain;
    Dststt = "dststt", Dst, Plain;
    Dss = "dss", Dss, Plain;
    Dssall = "dssall", None, Plain;
    // ---- D-form loads and stores
    Lwz = "lwz", RtD, Plain;
    Lwzu = "lwzu", RtD, Plain;
    Lbz = "lbz", RtD, Plain;
    Lbzu = "lbzu", RtD, Plain;
    Stw = "stw", RtD, Plain;
    Stwu = "stwu", RtD, Plain;
    Stb = "stb", RtD, Plain;
    Stbu = "stbu", RtD, Plain;
    Lhz = "lhz", RtD, Plain;
    Lhzu = "lhzu", RtD, Plain;
    Lha = "lha", RtD, Plain;
    Lhau = "lhau", RtD, Plain;
    Sth = "sth", RtD, Plain;
    Sthu = "sthu", RtD, Plain;
    Lmw = "lmw", RtD, Plain;
    Stmw = "stmw", RtD, Plain;
    Lfs = "lfs", FrtD, Plain;
    Lfsu = "lfsu", FrtD, Plain;
    Lfd = "lfd", FrtD, Plain;
    Lfdu = "lfdu", FrtD, Plain;
    Stfs = "stfs", FrtD, Plain;
    Stfsu = "stfsu", FrtD, Plain;
    Stfd = "stfd", FrtD, Plain;
    Stfdu = "stfdu", FrtD, Plain;
    Ld = "ld", RtDs, Plain;
    Ldu = "ldu", RtDs, Plain;
    Lwa = "lwa", RtDs, Plain;
    Std = "std", RtDs, Plain;
    Stdu = "stdu", RtDs, Plain;
    // ---- floating point, single (opcode 59)
    Fdivs = "fdivs", FrtFraFrb, Rc;
    Fsubs = "fsubs", FrtFraFrb, Rc;
    Fadds = "fadds", FrtFraFrb, Rc;
    Fsqrts = "fsqrts", FrtFrb, Rc;
    Fres = "fres", FrtFrb, Rc;
    Fmuls = "fmuls", FrtFraFrc, Rc;
    Fmsubs = "fmsubs", FrtFraFrcFrb, Rc;
    Fmadds = "fmadds", FrtFraFrcFrb, Rc;
    Fnmsubs = "fnmsubs", FrtFraFrcFrb, Rc;
    Fnmadds = "fnmadds", FrtFraFrcFrb, Rc;
    // ---- floating point, double (opcode 63)
    Fdiv = "fdiv", FrtFraFrb, Rc;
    Fsub = "fsub", FrtFraFrb, Rc;
    Fadd = "fadd", FrtFraFrb, Rc;
    Fsqrt = "fsqrt", FrtFrb, Rc;
    Fsel = "fsel", FrtFraFrcFrb, Rc;
    Fmul = "fmul", FrtFraFrc, Rc;
    Frsqrte = "frsqrte", FrtFrb, Rc;
    Fmsub = "fmsub", FrtFraFrcFrb, Rc;
    Fmadd = "fmadd", FrtFraFrcFrb, Rc;
    Fnmsub = "fnmsub", FrtFraFrcFrb, Rc;
    Fnmadd = "fnmadd", FrtFraFrcFrb, Rc;
    Fcmpu = "fcmpu", FCmp, Plain;
    Frsp = "frsp", FrtFrb, Rc;
    Fctiw = "fctiw", FrtFrb, Rc;
    Fctiwz = "fctiwz", FrtFrb, Rc;
    Fcmpo = "fcmpo", FCmp, Plain;
    Mtfsb1 = "mtfsb1", Bt, Rc;
    Fneg = "fneg", FrtFrb, Rc;
    Mcrfs = "mcrfs", CrMove, Plain;
    Mtfsb0 = "mtfsb0", Bt, Rc;
    Fmr = "fmr", FrtFrb, Rc;
    Mtfsfi = "mtfsfi", MtFsfi, Rc;
    Fnabs = "fnabs", FrtFrb, Rc;
    Fabs = "fabs", FrtFrb, Rc;
    Mffs = "mffs", Frt, Rc;
    Mtfsf = "mtfsf", MtFsf, Rc;
    Fctid = "fctid", FrtFrb, Rc;
    Fctidz = "fctidz", FrtFrb, Rc;
    Fcfid = "fcfid", FrtFrb, Rc;
    // ---- VMX (opcode 4): VA-form
    Vmhaddshs = "vmhaddshs", VdVaVbVc, Plain;
    Vmhraddshs = "vmhraddshs", VdVaVbVc, Plain;
    Vmladduhm = "vmladduhm", VdVaVbVc, Plain;
    Vmsumubm = "vmsumubm", VdVaVbVc, Plain;
    Vmsummbm = "vmsummbm", VdVaVbVc, Plain;
    Vmsumuhm = "vmsumuhm", VdVaVbVc, Plain;
    Vmsumuhs = "vmsumuhs", VdVaVbVc, Plain;
    Vmsumshm = "vmsumshm", VdVaVbVc, Plain;
    Vmsumshs = "vmsumshs", VdVaVbVc, Plain;
    Vsel = "vsel", VdVaVbVc, Plain;
    Vperm = "vperm", VdVaVbVc, Plain;
    Vsldoi = "vsldoi", VdVaVbShb, Plain;
    Vmaddfp = "vmaddfp", VdVaVcVb, Plain;
    Vnmsubfp = "vnmsubfp", VdVaVcVb, Plain;
    // ---- VMX: compares (Rc in bit 21)
    Vcmpequb = "vcmpequb", VdVaVb, VRc;
    Vcmpequh = "vcmpequh", VdVaVb, VRc;
    Vcmpequw = "vcmpequw", VdVaVb, VRc;
    Vcmpeqfp = "vcmpeqfp", VdVaVb, VRc;
    Vcmpgefp = "vcmpgefp", VdVaVb, VRc;
    Vcmpgtub = "vcmpgtub", VdVaVb, VRc;
    Vcmpgtuh = "vcmpgtuh", VdVaVb, VRc;
    Vcmpgtuw = "vcmpgtuw", VdVaVb, VRc;
    Vcmpgtfp = "vcmpgtfp", VdVaVb, VRc;
    Vcmpgtsb = "vcmpgtsb", VdVaVb, VRc;
    Vcmpgtsh = "vcmpgtsh", VdVaVb, VRc;
    Vcmpgtsw = "vcmpgtsw", VdVaVb, VRc;
    Vcmpbfp = "vcmpbfp", VdVaVb, VRc;
    // ---- VMX: VX-form
    Vaddubm = "vaddubm", VdVaVb, Plain;
    Vmaxub = "vmaxub", VdVaVb, Plain;
    Vrlb = "vrlb", VdVaVb, Plain;
    Vmuloub = "vmuloub", VdVaVb, Plain;
    Vaddfp = "vaddfp", VdVaVb, Plain;
    Vmrghb = "vmrghb", VdVaVb, Plain;
    Vpkuhum = "vpkuhum", VdVaVb, Plain;
    Vadduhm = "vadduhm", VdVaVb, Plain;
    Vmaxuh = "vmaxuh", VdVaVb, Plain;
    Vrlh = "vrlh", VdVaVb, Plain;
    Vmulouh = "vmulouh", VdVaVb, Plain;
    Vsubfp = "vsubfp", VdVaVb, Plain;
    Vmrghh = "vmrghh", VdVaVb, Plain;
    Vpkuwum = "vpkuwum", VdVaVb, Plain;
    Vadduwm = "vadduwm", VdVaVb, Plain;
    Vmaxuw = "vmaxuw", VdVaVb, Plain;
    Vrlw = "vrlw", VdVaVb, Plain;
    Vmrghw = "vmrghw", VdVaVb, Plain;
    Vpkuhus = "vpkuhus", VdVaVb, Plain;
    Vpkuwus = "vpkuwus", VdVaVb, Plain;
    Vmaxsb = "vmaxsb", VdVaVb, Plain;
    Vslb = "vslb", VdVaVb, Plain;
    Vmulosb = "vmulosb", VdVaVb, Plain;
    Vrefp = "vrefp", VdVb, Plain;
    Vmrglb = "vmrglb", VdVaVb, Plain;
    Vpkshus = "vpkshus", VdVaVb, Plain;
    Vmaxsh = "vmaxsh", VdVaVb, Plain;
    Vslh = "vslh", VdVaVb, Plain;
    Vmulosh = "vmulosh", VdVaVb, Plain;
    Vrsqrtefp = "vrsqrtefp", VdVb, Plain;
    Vmrglh = "vmrglh", VdVaVb, Plain;
    Vpkswus = "vpkswus", VdVaVb, Plain;
    Vaddcuw = "vaddcuw", VdVaVb, Plain;
    Vmaxsw = "vmaxsw", VdVaVb, Plain;
    Vslw = "vslw", VdVaVb, Plain;
    Vexptefp = "vexptefp", VdVb, Plain;
    Vmrglw = "vmrglw", VdVaVb, Plain;
    Vpkshss = "vpkshss", VdVaVb, Plain;
    Vsl = "vsl", VdVaVb, Plain;
    Vlogefp = "vlogefp", VdVb, Plain;
    Vpkswss = "vpkswss", VdVaVb, Plain;
    Vaddubs = "vaddubs", VdVaVb, Plain;
    Vminub = "vminub", VdVaVb, Plain;
    Vsrb = "vsrb", VdVaVb, Plain;
    Vmuleub = "vmuleub", VdVaVb, Plain;
    Vrfin = "vrfin", VdVb, Plain;
    Vspltb = "vspltb", VdVbUimm, Plain;
    Vupkhsb = "vupkhsb", VdVb, Plain;
    Vadduhs = "vadduhs", VdVaVb, Plain;
    Vminuh = "vminuh", VdVaVb, Plain;
    Vsrh = "vsrh", VdVaVb, Plain;
    Vmuleuh = "vmuleuh", VdVaVb, Plain;
    Vrfiz = "vrfiz", VdVb, Plain;
    Vsplth = "vsplth", VdVbUimm, Plain;
    Vupkhsh = "vupkhsh", VdVb, Plain;
    Vadduws = "vadduws", VdVaVb, Plain;
    Vminuw = "vminuw", VdVaVb, Plain;
    Vsrw = "vsrw", VdVaVb, Plain;
    Vrfip = "vrfip", VdVb, Plain;
    Vspltw = "vspltw", VdVbUimm, Plain;
    Vupklsb = "vupklsb", VdVb, Plain;
    Vsr = "vsr", VdVaVb, Plain;
    Vrfim = "vrfim", VdVb, Plain;
    Vupklsh = "vupklsh", VdVb, Plain;
    Vaddsbs = "vaddsbs", VdVaVb, Plain;
    Vminsb = "vminsb", VdVaVb, Plain;
    Vsrab = "vsrab", VdVaVb, Plain;
    Vmulesb = "vmulesb", VdVaVb, Plain;
    Vcfux = "vcfux", VdVbUimm, Plain;
    Vspltisb = "vspltisb", VdSimm, Plain;
    Vpkpx = "vpkpx", VdVaVb, Plain;
    Vaddshs = "vaddshs", VdVaVb, Plain;
    Vminsh = "vminsh", VdVaVb, Plain;
    Vsrah = "vsrah", VdVaVb, Plain;
    Vmulesh = "vmulesh", VdVaVb, Plain;
    Vcfsx = "vcfsx", VdVbUimm, Plain;
    Vspltish = "vspltish", VdSimm, Plain;
    Vupkhpx = "vupkhpx", VdVb, Plain;
    Vaddsws = "vaddsws", VdVaVb, Plain;
    Vminsw = "vminsw", VdVaVb, Plain;
    Vsraw = "vsraw", VdVaVb, Plain;
    Vctuxs = "vctuxs", VdVbUimm, Plain;
    Vspltisw = "vspltisw", VdSimm, Plain;
    Vctsxs = "vctsxs", VdVbUimm, Plain;
    Vupklpx = "vupklpx", VdVb, Plain;
    Vsububm = "vsububm", VdVaVb, Plain;
    Vavgub = "vavgub", VdVaVb, Plain;
    Vand = "vand", VdVaVb, Plain;
    Vmaxfp = "vmaxfp", VdVaVb, Plain;
    Vslo = "vslo", VdVaVb, Plain;
    Vsubuhm = "vsubuhm", VdVaVb, Plain;
    Vavguh = "vavguh", VdVaVb, Plain;
    Vandc = "vandc", VdVaVb, Plain;
    Vminfp = "vminfp", VdVaVb, Plain;
    Vsro = "vsro", VdVaVb, Plain;
    Vsubuwm = "vsubuwm", VdVaVb, Plain;
    Vavguw = "vavguw", VdVaVb, Plain;
    Vor = "vor", VdVaVb, Plain;
    Vxor = "vxor", VdVaVb, Plain;
    Vavgsb = "vavgsb", VdVaVb, Plain;
    Vnor = "vnor", VdVaVb, Plain;
    Vavgsh = "vavgsh", VdVaVb, Plain;
    Vsubcuw = "vsubcuw", VdVaVb, Plain;
    Vavgsw = "vavgsw", VdVaVb, Plain;
    Vsububs = "vsububs", VdVaVb, Plain;
    Mfvscr = "mfvscr", Vd, Plain;
    Vsum4ubs = "vsum4ubs", VdVaVb, Plain;
    Vsubuhs = "vsubuhs", VdVaVb, Plain;
    Mtvscr = "mtvscr", Vb, Plain;
    Vsum4shs = "vsum4shs", VdVaVb, Plain;
    Vsubuws = "vsubuws", VdVaVb, Plain;
    Vsum2sws = "vsum2sws", VdVaVb, Plain;
    Vsubsbs = "vsubsbs", VdVaVb, Plain;
    Vsum4sbs = "vsum4sbs", VdVaVb, Plain;
    Vsubshs = "vsubshs", VdVaVb, Plain;
    Vsubsws = "vsubsws", VdVaVb, Plain;
    Vsumsws = "vsumsws", VdVaVb, Plain;
}
