//! LV2, the PS3's kernel, for recompiled and interpreted PPU code.
//!
//! [`Process::boot`] loads a PS3 executable (through `ppu-elf`) into a new
//! guest address space, honours its `.sys_proc_param`, binds every import
//! stub to an [`Hle`] function by module name and FNID, and prepares the
//! main thread as LV2 does: its stack with argv and envp, its TLS block
//! (r13), and the entry registers. [`Process::start_main`] runs it; each
//! PPU thread is one host thread running an [`Executor`] (the interpreter,
//! [`InterpExecutor`], or lifted code). A system call (`sc`, number in
//! r11) goes to [`syscalls::dispatch`]; guest pointers are checked, and a
//! bad one is `CELL_EFAULT` ([`vm::Vm`]). Everything the kernel needs from
//! the operating system goes through `platform::Platform`.
//!
//! See README.md for the system calls implemented and their semantics.

pub mod alloc;
pub mod error;
pub mod event;
pub mod event_flag;
pub mod exec;
pub mod fs;
pub mod layout;
pub mod memory;
pub mod mutex;
pub mod objects;
pub mod process;
pub mod semaphore;
pub mod sync;
pub mod syscalls;
pub mod thread;
pub mod time;
pub mod timer;
pub mod tty;
pub mod vm;

pub use error::{CELL_OK, CellError, Exit, Ret, SysResult};
pub use exec::{Executor, GuestThread, InterpExecutor, call_guest};
pub use process::{BootConfig, BootError, ExitPolicy, Hle, NoHle, Process, ProcessParams};
pub use syscalls::PROCESS_ID;
pub use vm::Vm;
