//! The generated cargo project: many files in several crates, so a large
//! program builds in parallel and a change rebuilds only the crate it is
//! in; files whose content is unchanged are not rewritten (their mtime
//! stays, so cargo rebuilds nothing). The output is deterministic: the same
//! input gives the same bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ppu_elf::{Abi, Image};

use crate::analysis::Analysis;
use crate::emit::{
    AbiProfile, Callees, EmitOptions, abi_profile, copy_symbol, emit_copy, emit_function, symbol,
};

/// How the output is split and where its dependencies are.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Most guest instructions in one source file.
    pub insns_per_file: usize,
    /// Most guest instructions in one crate.
    pub insns_per_crate: usize,
    /// Path of the `recomp-rt` crate, as written into the manifests.
    pub runtime: PathBuf,
    /// Path of the `ppu-linux` crate.
    pub linux: PathBuf,
    /// Path of the crate with the LV2 personality (`hle`, for PS3
    /// executables), if there is one.
    pub lv2: Option<PathBuf>,
    /// `[profile.release]` of the generated workspace.
    pub release_profile: String,
}

impl Layout {
    /// The default split, with the runtime crates at `runtime` and `linux`.
    pub fn new(runtime: PathBuf, linux: PathBuf) -> Layout {
        Layout {
            insns_per_file: 6_000,
            insns_per_crate: 30_000,
            runtime,
            linux,
            lv2: None,
            release_profile:
                "opt-level = 3\ndebug = false\ncodegen-units = 4\nlto = \"off\"\nincremental = false\npanic = \"unwind\"\n".into(),
        }
    }
}

/// A generated project: relative path → content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Project {
    /// The files.
    pub files: BTreeMap<PathBuf, Vec<u8>>,
    /// Number of lifted crates.
    pub crates: usize,
    /// Number of lifted functions.
    pub functions: usize,
    /// Guest instructions lifted.
    pub instructions: usize,
}

/// Where each function goes.
struct Placement {
    /// entry → (crate, file)
    at: BTreeMap<u32, (usize, usize)>,
}

struct FileCallees<'a> {
    place: &'a Placement,
    krate: usize,
    externs: &'a mut BTreeSet<u32>,
    /// Small functions of other crates this file calls through a private
    /// copy.
    copies: &'a mut BTreeSet<u32>,
    abi: &'a ProgramFacts,
}

/// Most guest instructions of a function that inlines into its callers
/// (in other crates, through a private copy in the caller's file).
const INLINE_MAX_INSNS: usize = 32;

/// What the emitter knows about the whole program: where its functions
/// leave the ABI (see [`abi_sets`]), XER\[SO\], threads.
#[derive(Debug, Default)]
struct ProgramFacts {
    /// Functions that read volatile registers carrying no argument.
    non_abi_entry: BTreeSet<u32>,
    /// Functions some caller reads volatile registers after (directly or
    /// through their tail calls).
    exact_return: BTreeSet<u32>,
    /// No instruction of the program can set XER\[SO\].
    so_never_set: bool,
    /// The program has one guest thread (a Linux executable).
    single_thread: bool,
    /// Functions small enough to inline into their callers.
    small: BTreeSet<u32>,
}

/// The ABI sets of `funcs` (empty without ABI trust). A caller that reads
/// volatile registers after an indirect call cannot mark its unknown
/// callees: it is logged.
fn abi_sets(funcs: &[&crate::Func], emit: &EmitOptions) -> ProgramFacts {
    let mut sets = ProgramFacts::default();
    if !emit.abi_trust {
        return sets;
    }
    let profiles: BTreeMap<u32, AbiProfile> = funcs
        .iter()
        .map(|f| (f.entry, abi_profile(f, emit)))
        .collect();
    let mut work = Vec::new();
    let mut indirect = 0usize;
    for (&e, p) in &profiles {
        if p.reads_dead_at_entry {
            sets.non_abi_entry.insert(e);
        }
        for t in &p.reads_dead_after {
            match t {
                Some(t) => work.push(*t),
                None => {
                    indirect += 1;
                    log::debug!("{e:#010x}: reads volatile registers after an indirect call");
                }
            }
        }
    }
    if indirect > 0 {
        log::info!(
            "{indirect} indirect call sites read volatile registers after the call; their callees are trusted to follow the ABI (--no-abi-trust: trust nothing)"
        );
    }
    while let Some(t) = work.pop() {
        if sets.exact_return.insert(t)
            && let Some(p) = profiles.get(&t)
        {
            work.extend(p.tail_calls.iter().copied());
        }
    }
    log::debug!(
        "ABI: {} functions read volatile registers on entry, {} return to callers that read them",
        sets.non_abi_entry.len(),
        sets.exact_return.len()
    );
    sets
}

impl Callees for FileCallees<'_> {
    fn call(&mut self, entry: u32) -> Option<String> {
        let &(c, f) = self.place.at.get(&entry)?;
        if c == self.krate {
            Some(format!("crate::f{f:03}::{}(ctx, rt)", symbol(entry)))
        } else if self.abi.small.contains(&entry) {
            self.copies.insert(entry);
            Some(format!("{}(ctx, rt)", copy_symbol(entry)))
        } else {
            self.externs.insert(entry);
            // SAFETY (in the generated code, see the extern block's comment).
            Some(format!("unsafe {{ {}(ctx, rt) }}", symbol(entry)))
        }
    }

    fn abi_entry(&self, entry: u32) -> bool {
        !self.abi.non_abi_entry.contains(&entry)
    }

    fn exact_return(&self, entry: u32) -> bool {
        self.abi.exact_return.contains(&entry)
    }

    fn summary_overflow_never_set(&self) -> bool {
        self.abi.so_never_set
    }

    fn single_thread(&self) -> bool {
        self.abi.single_thread
    }

    fn inline(&self, entry: u32) -> bool {
        self.abi.small.contains(&entry)
    }
}

/// The generated package (and binary) name for a program name: lower-case
/// ASCII letters, digits and dashes, starting with a letter.
pub fn package_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .trim_matches('-')
        .to_string();
    if s.is_empty() || !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        format!("p-{s}")
    } else {
        s
    }
}

/// The crate name of lifted crate `c` of program `stem`.
fn crate_name(stem: &str, c: usize) -> String {
    format!("{stem}-lifted-{c:03}")
}

/// Generates the project for `image` (named `name`, its bytes `elf`) from
/// its analysis, lifting the functions `lift` selects.
pub fn generate(
    name: &str,
    image: &Image,
    analysis: &Analysis,
    lift: &dyn Fn(u32) -> bool,
    emit: &EmitOptions,
    layout: &Layout,
    mut progress: impl FnMut(usize, usize),
) -> Project {
    let stem = package_name(name);
    let funcs: Vec<_> = analysis.funcs.values().filter(|f| lift(f.entry)).collect();
    let mut abi = abi_sets(&funcs, emit);
    abi.so_never_set = !crate::analysis::may_set_summary_overflow(image);
    abi.single_thread = image.abi == Abi::Linux;
    abi.small = funcs
        .iter()
        .filter(|f| emit.inline_small && f.len() <= INLINE_MAX_INSNS)
        .map(|f| f.entry)
        .collect();

    // Split: files of about insns_per_file, crates of about insns_per_crate.
    let mut place = Placement {
        at: BTreeMap::new(),
    };
    let mut files: Vec<Vec<u32>> = Vec::new(); // per global file index: entries
    let mut file_crate: Vec<usize> = Vec::new();
    let (mut krate, mut in_crate, mut in_file) = (0usize, 0usize, 0usize);
    for f in &funcs {
        let n = f.len();
        if files.is_empty() || in_file + n > layout.insns_per_file && in_file > 0 {
            if in_crate + n > layout.insns_per_crate && in_crate > 0 {
                krate += 1;
                in_crate = 0;
            }
            files.push(Vec::new());
            file_crate.push(krate);
            in_file = 0;
        }
        files.last_mut().expect("pushed").push(f.entry);
        in_file += n;
        in_crate += n;
    }
    let crates = if files.is_empty() { 0 } else { krate + 1 };
    // File numbers restart in every crate.
    let mut local_file = vec![0usize; files.len()];
    {
        let mut next = vec![0usize; crates];
        for (g, &c) in file_crate.iter().enumerate() {
            local_file[g] = next[c];
            next[c] += 1;
        }
    }
    for (g, entries) in files.iter().enumerate() {
        for &e in entries {
            place.at.insert(e, (file_crate[g], local_file[g]));
        }
    }

    let mut out = Project {
        crates,
        functions: funcs.len(),
        ..Project::default()
    };
    let mut done = 0usize;
    let mut crate_files: Vec<Vec<(usize, Vec<u32>)>> = vec![Vec::new(); crates];
    for (g, entries) in files.iter().enumerate() {
        let c = file_crate[g];
        let mut externs = BTreeSet::new();
        let mut copies = BTreeSet::new();
        let mut body = String::new();
        let mut callees = FileCallees {
            place: &place,
            krate: c,
            externs: &mut externs,
            copies: &mut copies,
            abi: &abi,
        };
        for &e in entries {
            let f = &analysis.funcs[&e];
            body.push_str(&emit_function(f, &mut callees, emit));
            body.push('\n');
            out.instructions += f.len();
            done += 1;
        }
        // The private copies, and the copies they call in turn.
        let mut copied = BTreeSet::new();
        while let Some(&e) = callees.copies.iter().find(|e| !copied.contains(*e)) {
            copied.insert(e);
            body.push_str(&emit_copy(&analysis.funcs[&e], &mut callees, emit));
            body.push('\n');
        }
        progress(done, funcs.len());
        let mut src = String::new();
        let _ = writeln!(src, "// Generated by ppu-lift from {name}; do not edit.");
        src.push_str("use recomp_rt::Rt;\nuse recomp_rt::ops::*;\nuse recomp_rt::ppu_cpu::helpers::{fpu, int, vmx};\nuse recomp_rt::ppu_cpu::{PpuContext, V128};\n\n");
        if !externs.is_empty() {
            src.push_str("// SAFETY: each of these is a lifted function defined, with this signature\n// and `#[unsafe(no_mangle)]`, in a sibling crate of this generated program.\nunsafe extern \"Rust\" {\n");
            for e in &externs {
                let _ = writeln!(src, "    fn {}(ctx: &mut PpuContext, rt: &Rt);", symbol(*e));
            }
            src.push_str("}\n\n");
        }
        src.push_str(&body);
        let dir = format!("lifted/{}", crate_name(&stem, c));
        out.files.insert(
            PathBuf::from(format!("{dir}/src/f{:03}.rs", local_file[g])),
            src.into_bytes(),
        );
        crate_files[c].push((local_file[g], entries.clone()));
    }

    let rt_path = layout.runtime.display().to_string();
    for (c, cf) in crate_files.iter().enumerate() {
        let cname = crate_name(&stem, c);
        let dir = format!("lifted/{cname}");
        let mut lib = String::new();
        let _ = writeln!(
            lib,
            "//! Lifted functions of {name}, part {c}. Generated by ppu-lift; do not edit."
        );
        lib.push_str("#![allow(warnings, unused, clippy::all)]\n\n");
        for (f, _) in cf {
            let _ = writeln!(lib, "pub mod f{f:03};");
        }
        lib.push_str("\n/// This crate's functions: (guest entry, lifted function).\npub static FUNCTIONS: &[(u32, recomp_rt::LiftedFn)] = &[\n");
        for (f, entries) in cf {
            for e in entries {
                let _ = writeln!(
                    lib,
                    "    ({e:#010x}, f{f:03}::{} as recomp_rt::LiftedFn),",
                    symbol(*e)
                );
            }
        }
        lib.push_str("];\n");
        out.files
            .insert(PathBuf::from(format!("{dir}/src/lib.rs")), lib.into_bytes());
        let manifest = format!(
            "[package]\nname = \"{cname}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\nrecomp-rt = {{ path = {rt:?} }}\n",
            rt = rt_path
        );
        out.files.insert(
            PathBuf::from(format!("{dir}/Cargo.toml")),
            manifest.into_bytes(),
        );
    }

    // The program crate.
    let (pers_dep, pers_fn) = match image.abi {
        Abi::Linux => (
            format!(
                "ppu-linux = {{ path = {:?} }}\n",
                layout.linux.display().to_string()
            ),
            "ppu_linux::Linux::boxed",
        ),
        Abi::Lv2 => match &layout.lv2 {
            Some(p) => (
                format!("hle = {{ path = {:?} }}\n", p.display().to_string()),
                "lv2_personality",
            ),
            None => (String::new(), "no_lv2"),
        },
    };
    let mut manifest = format!(
        "[package]\nname = \"{stem}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[[bin]]\nname = \"{stem}\"\npath = \"src/main.rs\"\n\n[dependencies]\nrecomp-rt = {{ path = {:?} }}\n{pers_dep}",
        rt_path
    );
    for c in 0..crates {
        let cname = crate_name(&stem, c);
        let _ = writeln!(manifest, "{} = {{ path = \"../lifted/{cname}\" }}", cname);
    }
    out.files
        .insert(PathBuf::from("main/Cargo.toml"), manifest.into_bytes());
    let mut main = String::new();
    let _ = writeln!(
        main,
        "//! {name}, recompiled. Generated by ppu-lift; do not edit."
    );
    main.push_str("#![allow(warnings, unused, clippy::all)]\n\n");
    if image.abi == Abi::Lv2 && layout.lv2.is_some() {
        main.push_str("/// The LV2 personality, with this program's lifted functions for every thread.\nfn lv2_personality(_: &recomp_rt::ppu_elf::Image) -> Result<Box<dyn recomp_rt::Personality>, String> {\n    Ok(hle::with_functions(PROGRAM.functions))\n}\n\n");
    }
    if image.abi == Abi::Lv2 && layout.lv2.is_none() {
        main.push_str("fn no_lv2(_: &recomp_rt::ppu_elf::Image) -> Result<Box<dyn recomp_rt::Personality>, String> {\n    Err(\"PS3 executables need the LV2 runtime (runtime/lv2), which this build does not include\".into())\n}\n\n");
    }
    main.push_str("static PROGRAM: recomp_rt::Program = recomp_rt::Program {\n");
    let _ = writeln!(main, "    name: {:?},", name);
    main.push_str("    elf: include_bytes!(\"../program.elf\"),\n    functions: &[\n");
    for c in 0..crates {
        let _ = writeln!(
            main,
            "        {}::FUNCTIONS,",
            crate_name(&stem, c).replace('-', "_")
        );
    }
    let _ = writeln!(
        main,
        "    ],\n    personality: {pers_fn},\n    abi_trust: {},\n}};\n",
        emit.abi_trust
    );
    main.push_str("fn main() {\n    recomp_rt::runner::main(&PROGRAM)\n}\n");
    out.files
        .insert(PathBuf::from("main/src/main.rs"), main.into_bytes());
    out.files
        .insert(PathBuf::from("main/program.elf"), image.data.clone());

    let mut ws = String::from(
        "# Generated by ppu-lift; do not edit.\n[workspace]\nresolver = \"3\"\nmembers = [\"main\"",
    );
    for c in 0..crates {
        let _ = write!(ws, ", \"lifted/{}\"", crate_name(&stem, c));
    }
    ws.push_str("]\n\n[profile.release]\n");
    ws.push_str(&layout.release_profile);
    ws.push_str("\n[profile.dev]\nopt-level = 1\ndebug = false\ncodegen-units = 4\nlto = \"off\"\nincremental = false\n\n[profile.dev.package.\"*\"]\nopt-level = 3\n");
    out.files
        .insert(PathBuf::from("Cargo.toml"), ws.into_bytes());
    out
}

/// What [`write_tree`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Files written (new or changed).
    pub written: usize,
    /// Files left alone (same content).
    pub unchanged: usize,
    /// Generated files removed (no longer produced).
    pub removed: usize,
}

/// Writes `project` under `dir`: only files whose content differs are
/// written; `.rs` files and lifted crates the project no longer has are
/// removed. Other files (`Cargo.lock`, build output) are kept.
pub fn write_tree(dir: &Path, project: &Project) -> std::io::Result<WriteStats> {
    let mut st = WriteStats::default();
    for (rel, data) in &project.files {
        let path = dir.join(rel);
        if std::fs::read(&path).ok().as_deref() == Some(data.as_slice()) {
            st.unchanged += 1;
            continue;
        }
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p)?;
        }
        let tmp = path.with_extension("tmp-write");
        std::fs::write(&tmp, data)?;
        std::fs::rename(&tmp, &path)?;
        st.written += 1;
    }
    // Remove lifted crates and sources that are no longer generated.
    let lifted = dir.join("lifted");
    if let Ok(rd) = std::fs::read_dir(&lifted) {
        for e in rd.flatten() {
            let rel = PathBuf::from("lifted").join(e.file_name());
            if !project.files.keys().any(|k| k.starts_with(&rel)) {
                std::fs::remove_dir_all(e.path())?;
                st.removed += 1;
                continue;
            }
            if let Ok(src) = std::fs::read_dir(e.path().join("src")) {
                for f in src.flatten() {
                    let r = rel.join("src").join(f.file_name());
                    if !project.files.contains_key(&r) {
                        std::fs::remove_file(f.path())?;
                        st.removed += 1;
                    }
                }
            }
        }
    }
    Ok(st)
}
