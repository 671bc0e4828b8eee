//! The instruction-semantics proof against `qemu-ppc64`.
//!
//! [`all_cases`] lists the cases: for every instruction the Cell runs and
//! qemu models, instruction words with edge-case operands and a full initial
//! register state (GPRs, FPRs, VRs, CR, XER, LR, CTR, FPSCR, VSCR, VRSAVE,
//! a 256-byte memory window). [`expected_states`] builds a guest program
//! from them with `powerpc64-linux-gnu-gcc -mcpu=cell -maltivec -static`,
//! runs it under `qemu-ppc64` (default CPU model), and returns the state
//! after each case (cached by content in the directory you pass).
//! [`run_interpreter`] runs one case through the interpreter; the lifter
//! runs the same cases through lifted code and compares with [`diff`].
//!
//! Layout: each case's words sit at a fixed address ([`SLOT_BASE`] +
//! 32 × index), the memory window at [`MEM_BASE`]; branch cases branch to
//! slot + 8 when taken (`next` is 8) and fall through to slot + 4.

mod cases;
mod program;
mod state;

pub use cases::{all_cases, qemu_cannot_run};
pub use program::{GCC, HarnessError, QEMU, assembly, expected_states, records};
pub use state::{
    FPSCR_NOT_MODELED, HARNESS_GPRS, Ignore, MEM_BASE, MEM_SIZE, RECORD_SIZE, SLOT_BASE, SLOT_SIZE,
    State, XER_POWER9_ONLY, diff, off,
};

use guest_mem::{CheckMode, GuestMemory, Prot};
use ppu_isa::Op;

use crate::context::PpuContext;
use crate::interp::{Interpreter, Stop};

/// One case: words to run from a given state.
#[derive(Debug, Clone)]
pub struct Case {
    /// What it is (op and disassembly).
    pub name: String,
    /// The op under test.
    pub op: Op,
    /// Its words (one, or a short sequence such as `lwarx; stwcx.`).
    pub words: Vec<u32>,
    /// Whether the case is a branch (taken: next = 8, not taken: next = 4).
    pub branch: bool,
    /// The state before.
    pub init: State,
    /// What not to compare.
    pub ignore: Ignore,
}

impl Case {
    /// The address of this case's first word, given its index.
    pub fn slot(index: usize) -> u32 {
        SLOT_BASE + index as u32 * SLOT_SIZE
    }
}

/// A guest memory laid out as the harness expects: the slot area and the
/// memory window mapped.
pub fn harness_memory(cases: usize) -> GuestMemory {
    let mem = GuestMemory::with_mode(CheckMode::Both).expect("reserve guest memory");
    mem.map(
        SLOT_BASE,
        (cases as u64 * u64::from(SLOT_SIZE)).max(1),
        Prot::RWX,
    )
    .expect("map slots");
    mem.map(MEM_BASE, MEM_SIZE as u64, Prot::RW)
        .expect("map window");
    mem
}

/// Runs case `index` through the interpreter on `mem` (from
/// [`harness_memory`]) and returns the final state.
pub fn run_interpreter(mem: &GuestMemory, index: usize, case: &Case) -> Result<State, Stop> {
    let slot = Case::slot(index);
    let words: Vec<u8> = case.words.iter().flat_map(|w| w.to_be_bytes()).collect();
    mem.host_write(slot, &words).expect("slot is mapped");
    mem.host_write(MEM_BASE, &case.init.mem)
        .expect("window is mapped");
    let mut ctx = PpuContext::new();
    case.init.to_context(&mut ctx);
    ctx.cia = slot;
    let interp = Interpreter::new(mem);
    for _ in 0..case.words.len() {
        interp.step(&mut ctx)?;
        if ctx.cia.wrapping_sub(slot) >= 4 * case.words.len() as u32 {
            break;
        }
    }
    let mut window = [0u8; MEM_SIZE];
    mem.read_bytes(MEM_BASE, &mut window)
        .expect("window is mapped");
    mem.clear_reservation(&mut ctx.reservation);
    Ok(State::from_context(
        &ctx,
        window,
        u64::from(ctx.cia.wrapping_sub(slot)),
    ))
}
