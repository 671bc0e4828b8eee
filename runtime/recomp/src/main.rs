//! `recomp`: lift a PPU executable to Rust and build it (`./x recomp`), run
//! one on the interpreter, benchmark the recompiler (`./x bench recomp`).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use recomp_rt::runner::{self, Options, Program};

use recomp::build::{self, BuildOptions, BuildProfile};
use recomp::corpus;

#[derive(Parser)]
#[command(
    name = "recomp",
    version,
    about = "Recompile a PPU executable (PS3, or Linux ppc64 for testing) into a native host executable",
    long_about = "Recompile a PPU executable into a native host executable.\n\n\
`recomp ELF -o BIN` analyses ELF (functions from descriptors, symbols and bl targets; jump tables;\n\
import stubs), lifts every function to Rust in a cargo project under target/recomp-work/NAME,\n\
builds it (the runtime crates are shared between builds in target/recomp-build) and copies the\n\
executable to BIN. `BIN ARGS...` runs the program with ARGS as its argv; its stdin, stdout and\n\
stderr are the program's and its exit status is the program's. `BIN --verify ARGS...` checks the\n\
lifted code against the interpreter at every function entry and system call; `BIN --interp\n\
ARGS...` runs the interpreter only (`BIN --recomp-help` lists these).",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// The PPU executable.
    elf: Option<PathBuf>,
    /// The native executable to write.
    #[arg(short, long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    lift: LiftArgs,
}

#[derive(Args, Clone)]
struct LiftArgs {
    /// The generated project's folder (default target/recomp-work/NAME).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Cargo profile for the lifted code: release (optimised) or quick (fast to build).
    #[arg(long, value_enum, default_value = "release")]
    profile: BuildProfile,
    /// Check r1-based (stack) loads like every other access (default: they skip the check).
    #[arg(long)]
    stack_checks: bool,
    /// Store the guest PC at every block start, so fault reports name the
    /// block (default: the function entry or last call only; faster).
    #[arg(long)]
    block_pcs: bool,
    /// Trust nothing at calls (the reference): write back every register a
    /// function changed before each call and return, and reload every
    /// register read after a call. By default the ABI is trusted: callees
    /// preserve the nonvolatile registers, and volatile registers that carry
    /// no argument or result are neither written back nor reloaded (except
    /// around functions the lift finds reading them); `--verify` then
    /// compares the registers the ABI keeps.
    #[arg(long)]
    no_abi_trust: bool,
    /// Do not inline small functions into their callers (by default
    /// functions of up to 32 instructions are `#[inline]`, with a private
    /// copy in each calling crate).
    #[arg(long)]
    no_inline: bool,
    /// Jump tables as a `match` on target addresses and dispatch nodes as a
    /// plain `match` (the reference of the dense indexes, dispatch
    /// shortcuts and hot-entry tests lifted code uses by default).
    #[arg(long)]
    plain_dispatch: bool,
    /// Keep FI, FR and FPRF exact after every floating-point operation
    /// (the reference), instead of leaving them out where a later operation
    /// of the same block overwrites them.
    #[arg(long)]
    exact_fp_status: bool,
    /// Guest instructions per generated crate (more crates: more parallel, smaller rebuilds).
    #[arg(long, default_value_t = 30_000)]
    insns_per_crate: usize,
    /// Guest instructions per generated source file.
    #[arg(long, default_value_t = 6_000)]
    insns_per_file: usize,
    /// Lift every function found, not only those reachable from the entry
    /// point and the function pointers stored in the image.
    #[arg(long)]
    lift_all: bool,
    /// Check every guest access in lifted code (the reference of the
    /// default, unchecked trap-mode accesses): the program then also runs
    /// with `CELLPORT_MEM_CHECK=checked`, which the default build refuses.
    #[arg(long)]
    checked_memory: bool,
    /// Print only errors.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Only generate the lifted cargo project (no build).
    Lift {
        /// The PPU executable.
        elf: PathBuf,
        #[command(flatten)]
        lift: LiftArgs,
    },
    /// Benchmark: lift and build the corpus (guest instructions per second),
    /// then time it lifted, natively (x86-64 gcc -O2) and under qemu-ppc64 in
    /// alternating rounds, and print the ratios (markdown).
    Bench {
        /// Alternating rounds per case (the median is reported).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Do not measure lifting and building (reuse the last lifted build).
        #[arg(long)]
        no_build: bool,
        /// Only the cases whose name contains this.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Fetch and build the whole-program corpus (Debian sources, cached in
    /// target/recomp-corpus) and print where its executables are.
    Corpus,
    /// Run an executable on the interpreter (no lifting): the reference the
    /// lifted build is checked against.
    Run {
        /// The PPU executable.
        elf: PathBuf,
        /// Arguments for the guest (argv[1..]).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

fn options(elf: PathBuf, out: PathBuf, l: &LiftArgs, lift_only: bool) -> BuildOptions {
    let name = build::program_name(&elf);
    let target = build::target_dir();
    BuildOptions {
        work: l.work.clone().unwrap_or_else(|| {
            target
                .join("recomp-work")
                .join(ppu_lift::package_name(&name))
        }),
        build_dir: target.join("recomp-build"),
        elf,
        out,
        profile: l.profile,
        emit: ppu_lift::EmitOptions {
            stack_fast: !l.stack_checks,
            block_pcs: l.block_pcs,
            verify_hooks: true,
            abi_trust: !l.no_abi_trust,
            inline_small: !l.no_inline,
            dense_dispatch: !l.plain_dispatch,
            fp_status_elision: !l.exact_fp_status,
        },
        insns_per_crate: l.insns_per_crate,
        insns_per_file: l.insns_per_file,
        lift_only,
        quiet: l.quiet,
        lift_all: l.lift_all,
        checked_memory: l.checked_memory,
    }
}

fn main() {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .try_init();
    let cli = Cli::parse();
    let result = match (cli.cmd, cli.elf, cli.out) {
        (Some(Cmd::Run { elf, args }), _, _) => run_interp(elf, args),
        (
            Some(Cmd::Bench {
                rounds,
                no_build,
                filter,
            }),
            _,
            _,
        ) => recomp::bench::run(&recomp::bench::BenchOptions {
            rounds,
            no_build,
            filter,
        })
        .map(|r| println!("{r}")),
        (Some(Cmd::Corpus), _, _) => {
            corpus::prepare(&build::target_dir().join("recomp-corpus"), &mut |m| {
                eprintln!("recomp: corpus: {m}")
            })
            .map(|c| {
                println!(
                    "{}\n{}\n{}",
                    c.ppc.display(),
                    c.native.display(),
                    c.inputs.display()
                )
            })
        }
        (Some(Cmd::Lift { elf, lift }), _, _) => {
            build::build(&options(elf, PathBuf::new(), &lift, true)).map(|_| ())
        }
        (None, Some(elf), Some(out)) => {
            build::build(&options(elf, out, &cli.lift, false)).map(|_| ())
        }
        (None, Some(_), None) => {
            eprintln!("recomp: say where the executable goes: recomp ELF -o BIN");
            std::process::exit(2);
        }
        (None, None, _) => {
            eprintln!("recomp: nothing to do (see recomp --help)");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("recomp: error: {e:#}");
        std::process::exit(1);
    }
}

fn run_interp(elf: PathBuf, args: Vec<OsString>) -> anyhow::Result<()> {
    let bytes = std::fs::read(&elf).map_err(|e| anyhow::anyhow!("{}: {e}", elf.display()))?;
    let name: &'static str = Box::leak(build::program_name(&elf).into_boxed_str());
    let program: &'static Program = Box::leak(Box::new(Program {
        name,
        elf: Box::leak(bytes.into_boxed_slice()),
        functions: &[],
        personality: personality_for,
        abi_trust: false,
    }));
    let mut argv = vec![elf.into_os_string()];
    argv.extend(args);
    let opts = Options {
        mode: recomp_rt::Mode::Interp,
        stats: std::env::var_os("RECOMP_STATS").is_some_and(|v| v == "1"),
        args: argv,
    };
    std::process::exit(runner::run(program, opts));
}

/// The personality for an executable: Linux for Linux ppc64 executables.
fn personality_for(image: &ppu_elf::Image) -> Result<Box<dyn recomp_rt::Personality>, String> {
    match image.abi {
        ppu_elf::Abi::Linux => ppu_linux::Linux::boxed(image),
        ppu_elf::Abi::Lv2 => {
            Err("PS3 executables run on the LV2 runtime (runtime/lv2), which this build does not include yet".into())
        }
    }
}
