//! Instruction semantics of lifted code against qemu-ppc64: every case of
//! `ppu_cpu::conformance` (the cases the interpreter is checked with) is
//! lifted as a function of its own, the functions are built into a program
//! that runs each case from its initial state, and every final state must
//! equal what qemu produced.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use ppu_cpu::conformance::{self, Case, MEM_SIZE, RECORD_SIZE, SLOT_SIZE, State};
use ppu_elf::{Abi, Image, PF_R, PF_X, PT_LOAD, Segment};
use ppu_lift::analysis;
use ppu_lift::emit::{Callees, EmitOptions, emit_function, symbol};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

struct NoCallees;
impl Callees for NoCallees {
    fn call(&mut self, _: u32) -> Option<String> {
        None
    }
}

/// An image whose only code is the case's words at its slot.
fn case_image(index: usize, case: &Case) -> Image {
    let slot = Case::slot(index);
    Image {
        data: Vec::new(),
        abi: Abi::Linux,
        entry: 0,
        segments: vec![Segment {
            kind: PT_LOAD,
            flags: PF_R | PF_X,
            offset: 0,
            vaddr: slot,
            filesz: 0,
            memsz: 4 * case.words.len() as u32,
            header_offset: 0,
        }],
        sections: Vec::new(),
        symbols: Vec::new(),
        phoff: 0,
        phnum: 0,
    }
    .with_words(slot, &case.words)
}

trait WithWords {
    fn with_words(self, slot: u32, words: &[u32]) -> Image;
}
impl WithWords for Image {
    /// Puts the words in the file data the segment points at.
    fn with_words(mut self, _slot: u32, words: &[u32]) -> Image {
        self.data = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        self.segments[0].filesz = self.data.len() as u32;
        self
    }
}

const MAIN: &str = r#"
use recomp_rt::ppu_cpu::conformance::{self, Case, MEM_BASE, MEM_SIZE};
use recomp_rt::ppu_cpu::{PpuContext, TimeBase};
use recomp_rt::ppu_elf::{Abi, Image, PF_R, PF_X, PT_LOAD, Segment, Loaded};
use recomp_rt::{GuestEnd, LiftedFn, Outcome, Personality, Process, Rt};
use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};

static LAST_STOP: AtomicU32 = AtomicU32::new(0);

/// A personality whose "HLE functions" are every address outside the
/// case's words: reaching one ends the case.
struct Stop;
impl Personality for Stop {
    fn name(&self) -> &'static str { "case" }
    fn start(&self, _: &Process, _: &mut PpuContext, _: &[std::ffi::OsString], _: &[(std::ffi::OsString, std::ffi::OsString)]) -> Result<(), String> { Ok(()) }
    fn syscall(&self, _: &Rt, _: &mut PpuContext, pc: u32) -> Outcome { Outcome::Fatal(format!("sc at {pc:#x}")) }
    fn timebase(&self) -> TimeBase { TimeBase::default() }
    fn hle_call(&self, _: &Rt, _: &mut PpuContext, addr: u32) -> Option<Outcome> {
        LAST_STOP.store(addr, Ordering::Relaxed);
        Some(Outcome::Exit(0))
    }
}

fn main() {
    let cases = conformance::all_cases();
    let mem: &'static _ = Box::leak(Box::new(conformance::harness_memory(cases.len())));
    std::panic::set_hook(Box::new(|_| {}));
    let mut out = std::io::stdout().lock();
    for (n, case) in cases.iter().enumerate() {
        let slot = Case::slot(n);
        if std::env::var_os("CASE_TRACE").is_some() { eprintln!("case {n} {}", case.name); }
        let f: LiftedFn = FUNCS[n];
        let image = Image {
            data: Vec::new(), abi: Abi::Linux, entry: 0,
            segments: vec![Segment { kind: PT_LOAD, flags: PF_R | PF_X, offset: 0, vaddr: slot, filesz: 0, memsz: 4 * case.words.len() as u32, header_offset: 0 }],
            sections: Vec::new(), symbols: Vec::new(), phoff: 0, phnum: 0,
        };
        let process = Process { image, mem, loaded: Loaded { mapped: Vec::new(), end: 0, tls: None } };
        let rt = Rt::new(process, Box::new(Stop), &[(slot, f)], None);
        let words: Vec<u8> = case.words.iter().flat_map(|w| w.to_be_bytes()).collect();
        mem.host_write(slot, &words).unwrap();
        mem.host_write(MEM_BASE, &case.init.mem).unwrap();
        let mut ctx = PpuContext::new();
        case.init.to_context(&mut ctx);
        ctx.cia = slot;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut ctx, &rt)));
        let status: u8 = match r {
            Ok(()) => 0,
            Err(p) => match p.downcast::<GuestEnd>() {
                Ok(e) if *e == GuestEnd::Exit(0) => { ctx.cia = LAST_STOP.load(Ordering::Relaxed); 0 }
                Ok(e) => { eprintln!("case {n}: {e:?}"); 1 }
                Err(_) => { eprintln!("case {n}: panicked"); 1 }
            },
        };
        let mut window = [0u8; MEM_SIZE];
        mem.read_bytes(MEM_BASE, &mut window).unwrap();
        mem.clear_reservation(&mut ctx.reservation);
        let st = conformance::State::from_context(&ctx, window, u64::from(ctx.cia.wrapping_sub(slot)));
        out.write_all(&[status]).unwrap();
        out.write_all(&st.to_record()).unwrap();
    }
}
"#;

fn write(path: &Path, data: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if std::fs::read_to_string(path).ok().as_deref() != Some(data) {
        std::fs::write(path, data).unwrap();
    }
}

#[test]
fn lifted_code_matches_qemu() {
    let cases = conformance::all_cases();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let want = conformance::expected_states(&cases, &tmp.join("ppu-conformance"))
        .unwrap_or_else(|e| panic!("{e}"));

    // Lift every case as a function of its own.
    // Each case is one instruction lifted as a function of its own, and the
    // whole final state is compared: its end is no ABI boundary, so nothing
    // may be left out of the write-back (ABI trust is tested in abi.rs and
    // by the corpus under --verify).
    let opts = EmitOptions {
        abi_trust: false,
        ..EmitOptions::default()
    };
    let mut files: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (n, case) in cases.iter().enumerate() {
        let img = case_image(n, case);
        let (f, _) = analysis::function(&img, Case::slot(n), 0, &analysis::Options::default());
        cur.push_str(&emit_function(&f, &mut NoCallees, &opts));
        if cur.len() > 400_000 {
            files.push(std::mem::take(&mut cur));
        }
    }
    files.push(cur);
    let _ = SLOT_SIZE;

    // A cargo project: the lifted cases and a main that runs them.
    let dir = tmp.join("lifted-semantics");
    let rt = repo().join("runtime/recomp/rt");
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"lifted-semantics\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nrecomp-rt = {{ path = {:?} }}\n\n[workspace]\n\n[profile.dev]\nopt-level = 1\ndebug = false\nincremental = false\n\n[profile.dev.package.\"*\"]\nopt-level = 2\n",
            rt.display().to_string()
        ),
    );
    let mut main = String::from("#![allow(warnings, unused, clippy::all)]\n");
    for k in 0..files.len() {
        let _ = writeln!(main, "mod c{k};");
    }
    main.push_str("static FUNCS: &[recomp_rt::LiftedFn] = &[\n");
    for (n, _) in cases.iter().enumerate() {
        let k = files
            .iter()
            .enumerate()
            .position(|(_, src)| src.contains(&format!("pub fn {}(", symbol(Case::slot(n)))))
            .unwrap();
        let _ = writeln!(main, "    c{k}::{},", symbol(Case::slot(n)));
    }
    main.push_str("];\n");
    main.push_str(MAIN);
    write(&dir.join("src/main.rs"), &main);
    for (k, src) in files.iter().enumerate() {
        let text = format!(
            "use recomp_rt::Rt;\nuse recomp_rt::ops::*;\nuse recomp_rt::ppu_cpu::helpers::{{fpu, int, vmx}};\nuse recomp_rt::ppu_cpu::{{PpuContext, V128}};\n{src}"
        );
        write(&dir.join(format!("src/c{k}.rs")), &text);
    }
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        std::fs::copy(repo().join("Cargo.lock"), &lock).unwrap();
    }
    let target = tmp.join("lifted-semantics-target");
    let o = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "-q", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "building the lifted cases failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new(target.join("debug/lifted-semantics"))
        .env("CELLPORT_MEM_CHECK", "checked")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "running the lifted cases failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rec = RECORD_SIZE + 1;
    assert_eq!(
        o.stdout.len(),
        cases.len() * rec,
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let mut failures = Vec::new();
    let mut ops = std::collections::BTreeSet::new();
    for (n, (case, want)) in cases.iter().zip(&want).enumerate() {
        ops.insert(format!("{:?}", case.op));
        let chunk = &o.stdout[n * rec..(n + 1) * rec];
        if chunk[0] != 0 {
            failures.push(format!("case {n} `{}`: stopped with an error", case.name));
            continue;
        }
        let got = State::from_record(&chunk[1..]);
        let d = conformance::diff(want, &got, &case.ignore);
        if !d.is_empty() {
            failures.push(format!(
                "case {n} `{}` (words {:08x?}):\n      {}",
                case.name,
                case.words,
                d.join("\n      ")
            ));
        }
    }
    let _ = MEM_SIZE;
    assert!(
        failures.is_empty(),
        "{} of {} lifted cases differ from qemu, e.g.:\n  {}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(12)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n  ")
    );
    assert!(ops.len() > 300, "only {} ops covered", ops.len());
}
