//! Arguments and results of HLE functions, by the Rust function's
//! signature: integer arguments come from r3..r10 and then the caller's
//! parameter save area (48(r1) + 8 * n), floating-point ones from f1..f13,
//! each argument taking one doubleword slot as the 64-bit PowerPC ELF ABI
//! has it (a `double` in f1 still uses r3's slot).

use lv2::{CellError, Exit, GuestThread, Ret, SysResult, Vm};
use ppu_cpu::PpuContext;

use crate::Cx;

/// Where the next argument is.
#[derive(Debug, Default, Clone, Copy)]
pub struct ArgReader {
    slot: usize,
    fpr: usize,
}

impl ArgReader {
    /// The next integer-class argument.
    pub fn gpr(&mut self, t: &GuestThread) -> Result<u64, CellError> {
        self.gpr_in(&t.ctx, t.vm())
    }

    /// The next floating-point argument.
    pub fn fpr(&mut self, t: &GuestThread) -> Result<f64, CellError> {
        self.fpr_in(&t.ctx, t.vm())
    }

    /// The next integer-class argument of registers `ctx` (stack in `vm`).
    pub fn gpr_in(&mut self, ctx: &PpuContext, vm: Vm<'_>) -> Result<u64, CellError> {
        let s = self.slot;
        self.slot += 1;
        if s < 8 {
            return Ok(ctx.gpr[3 + s]);
        }
        vm.read_u64((ctx.gpr[1] as u32).wrapping_add(48 + 8 * s as u32))
    }

    /// The next floating-point argument of registers `ctx` (stack in `vm`).
    pub fn fpr_in(&mut self, ctx: &PpuContext, vm: Vm<'_>) -> Result<f64, CellError> {
        let s = self.slot;
        self.slot += 1;
        let f = self.fpr;
        self.fpr += 1;
        if f < 13 {
            return Ok(ctx.fpr[1 + f]);
        }
        Ok(f64::from_bits(vm.read_u64(
            (ctx.gpr[1] as u32).wrapping_add(48 + 8 * s as u32),
        )?))
    }

    /// The slot index the next argument takes (variadic readers continue
    /// from here).
    pub fn slot(&self) -> usize {
        self.slot
    }
}

/// A type an HLE function can take as an argument.
pub trait HleArg: Sized {
    /// Reads it.
    fn read(r: &mut ArgReader, t: &GuestThread) -> Result<Self, CellError>;
}

macro_rules! int_arg {
    ($($t:ty),*) => {$(
        impl HleArg for $t {
            #[inline]
            fn read(r: &mut ArgReader, t: &GuestThread) -> Result<Self, CellError> {
                Ok(r.gpr(t)? as $t)
            }
        }
    )*};
}
int_arg!(u8, u16, u32, u64, i8, i16, i32, i64);

impl HleArg for bool {
    fn read(r: &mut ArgReader, t: &GuestThread) -> Result<Self, CellError> {
        Ok(r.gpr(t)? as u32 != 0)
    }
}

impl HleArg for f64 {
    fn read(r: &mut ArgReader, t: &GuestThread) -> Result<Self, CellError> {
        r.fpr(t)
    }
}

impl HleArg for f32 {
    fn read(r: &mut ArgReader, t: &GuestThread) -> Result<Self, CellError> {
        Ok(r.fpr(t)? as f32)
    }
}

/// A guest pointer argument (32-bit address). Reading or writing through
/// it is checked: null or unmapped is `CELL_EFAULT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ptr(pub u32);

impl Ptr {
    /// Whether it is null.
    pub fn is_null(self) -> bool {
        self.0 == 0
    }
    /// The address `off` bytes further.
    pub fn offset(self, off: u32) -> Ptr {
        Ptr(self.0.wrapping_add(off))
    }
}

impl HleArg for Ptr {
    fn read(r: &mut ArgReader, t: &GuestThread) -> Result<Self, CellError> {
        Ok(Ptr(r.gpr(t)? as u32))
    }
}

/// The reader itself, for variadic functions (`_sys_printf`): what follows
/// in the argument list.
#[derive(Debug, Clone, Copy)]
pub struct VarArgs(pub ArgReader);

impl HleArg for VarArgs {
    fn read(r: &mut ArgReader, _t: &GuestThread) -> Result<Self, CellError> {
        Ok(VarArgs(*r))
    }
}

/// What an HLE function returns, and how it reaches r3 (or f1).
pub trait IntoRet {
    /// Puts it where the caller finds it; `Ok(v)` is the r3 value.
    fn into_ret(self, t: &mut GuestThread) -> SysResult;
}

impl IntoRet for () {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Ok(0)
    }
}
impl IntoRet for u32 {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Ok(u64::from(self))
    }
}
impl IntoRet for i32 {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Ok(i64::from(self) as u64)
    }
}
impl IntoRet for u64 {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Ok(self)
    }
}
impl IntoRet for i64 {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Ok(self as u64)
    }
}
impl IntoRet for bool {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Ok(u64::from(self))
    }
}
impl IntoRet for f64 {
    fn into_ret(self, t: &mut GuestThread) -> SysResult {
        t.ctx.fpr[1] = self;
        Ok(t.ctx.gpr[3])
    }
}
impl IntoRet for CellError {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Err(Ret::Err(self))
    }
}
impl IntoRet for Exit {
    fn into_ret(self, _t: &mut GuestThread) -> SysResult {
        Err(Ret::Exit(self))
    }
}
impl<T: IntoRet> IntoRet for Result<T, CellError> {
    fn into_ret(self, t: &mut GuestThread) -> SysResult {
        match self {
            Ok(v) => v.into_ret(t),
            Err(e) => Err(Ret::Err(e)),
        }
    }
}
impl<T: IntoRet> IntoRet for Result<T, Ret> {
    fn into_ret(self, t: &mut GuestThread) -> SysResult {
        match self {
            Ok(v) => v.into_ret(t),
            Err(e) => Err(e),
        }
    }
}

/// A Rust function usable as an HLE function: `fn(&mut Cx, A1, ..., An) -> R`.
pub trait Handler<Args>: Send + Sync + 'static {
    /// Reads the arguments, calls the function, places its result.
    fn call(&self, cx: &mut Cx<'_>) -> SysResult;
}

macro_rules! handler {
    ($($a:ident),*) => {
        #[allow(non_snake_case, unused_mut, unused_variables)]
        impl<F, R, $($a,)*> Handler<($($a,)*)> for F
        where
            F: Fn(&mut Cx<'_>, $($a),*) -> R + Send + Sync + 'static,
            R: IntoRet,
            $($a: HleArg,)*
        {
            fn call(&self, cx: &mut Cx<'_>) -> SysResult {
                let mut rd = ArgReader::default();
                $(let $a = $a::read(&mut rd, cx.t)?;)*
                let r = (self)(cx, $($a),*);
                r.into_ret(cx.t)
            }
        }
    };
}
handler!();
handler!(A1);
handler!(A1, A2);
handler!(A1, A2, A3);
handler!(A1, A2, A3, A4);
handler!(A1, A2, A3, A4, A5);
handler!(A1, A2, A3, A4, A5, A6);
handler!(A1, A2, A3, A4, A5, A6, A7);
handler!(A1, A2, A3, A4, A5, A6, A7, A8);
handler!(A1, A2, A3, A4, A5, A6, A7, A8, A9);

#[cfg(test)]
mod tests {
    use super::*;
    use guest_mem::{CheckMode, GuestMemory, Prot};

    /// f(int a, double b, int c, float d, 6 more ints, double e): each
    /// argument takes a slot; doubles come from f1, f2, f3; the ints past
    /// r10 from the parameter save area at 48(r1).
    #[test]
    fn slots_registers_and_the_stack() {
        let mem = GuestMemory::with_mode(CheckMode::Checked).expect("memory");
        mem.map(0xD000_0000, 0x1_0000, Prot::RW).expect("stack");
        let vm = Vm(&mem);
        let mut ctx = PpuContext::new();
        let sp = 0xD000_1000u32;
        ctx.gpr[1] = u64::from(sp);
        ctx.gpr[3] = 7;
        ctx.gpr[5] = 9;
        for i in 0..4 {
            ctx.gpr[7 + i] = 100 + i as u64;
        }
        ctx.fpr[1] = 1.5;
        ctx.fpr[2] = 2.5;
        ctx.fpr[3] = 3.5;
        vm.write_u64(sp + 48 + 8 * 8, 200).expect("slot 8");
        vm.write_u64(sp + 48 + 8 * 9, 201).expect("slot 9");
        let mut r = ArgReader::default();
        assert_eq!(r.gpr_in(&ctx, vm), Ok(7));
        assert_eq!(r.fpr_in(&ctx, vm), Ok(1.5));
        assert_eq!(r.gpr_in(&ctx, vm), Ok(9), "the double used r4's slot");
        assert_eq!(r.fpr_in(&ctx, vm), Ok(2.5));
        let ints: Vec<u64> = (0..6).map(|_| r.gpr_in(&ctx, vm).expect("int")).collect();
        assert_eq!(ints, [100, 101, 102, 103, 200, 201]);
        assert_eq!(r.fpr_in(&ctx, vm), Ok(3.5));
        assert_eq!(r.slot(), 11);
        ctx.gpr[1] = 0x9000_0000;
        let mut r = ArgReader { slot: 8, fpr: 0 };
        assert_eq!(
            r.gpr_in(&ctx, vm),
            Err(CellError::EFAULT),
            "a bad stack is EFAULT, not a crash"
        );
    }
}
