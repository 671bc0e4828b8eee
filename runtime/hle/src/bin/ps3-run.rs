//! `ps3-run GAME.elf [ARGS...]`: runs a PS3 executable on the interpreter.
//! Its TTY output goes to standard output and its exit status is this
//! process's.
#![allow(clippy::print_stderr)]

use std::path::PathBuf;
use std::sync::Arc;

use hle::runner::{RunOptions, run_file};
use platform::host::HostPlatform;

const HELP: &str = "usage: ps3-run GAME.elf [ARGS...]

Runs a PS3 PPU executable (ELF, OS/ABI 0x66) on the reference interpreter,
with the LV2 kernel and the HLE system modules. The guest's TTY output goes
to standard output; its exit status becomes this process's (77: a guest
memory fault, 78: an instruction the interpreter cannot decode, 79: a trap).

Environment:
  CELLPORT_FS_ROOT      host folder holding the guest's files (default ./ps3-fs)
  CELLPORT_SYS_LANG     system language: 0-19 or a name (en-US, pt-BR, ja, ...)
  CELLPORT_PAD_SCRIPT   scripted pad: FRAME:BUTTONS[:LX,LY];... (see hle docs)
  CELLPORT_USLEEP       exact (default: short sleeps spin) or plain
  CELLPORT_MEM_CHECK    guest memory checks: trap (default), checked, both
  RUST_LOG              log level (warn by default)";

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let mut args = std::env::args().skip(1);
    let Some(elf) = args.next() else {
        eprintln!("{HELP}");
        std::process::exit(2);
    };
    if elf == "-h" || elf == "--help" {
        eprintln!("{HELP}");
        return;
    }
    let opts = RunOptions {
        args: args.collect(),
        ..RunOptions::default()
    };
    match run_file(
        &PathBuf::from(&elf),
        Arc::new(HostPlatform::default()),
        opts,
    ) {
        Ok(status) => std::process::exit(status),
        Err(e) => {
            eprintln!("ps3-run: {e}");
            std::process::exit(1);
        }
    }
}
