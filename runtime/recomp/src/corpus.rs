//! The whole-program corpus: real C programs written by others, fetched
//! from Debian's source packages (pinned by SHA-256, cached), built for the
//! Cell (`powerpc64-linux-gnu-gcc -O2 -static -mcpu=cell -maltivec`) and for
//! the host (`gcc -O2`, the benchmark's baseline), with the inputs they run
//! on.
//!
//! The programs are linked into one multi-call executable (`corpus.ppc`,
//! `corpus.x86`): `corpus PROGRAM ARGS...` runs PROGRAM's own `main` with
//! `PROGRAM ARGS...` as its argv. Each program is compiled exactly as its
//! sources are, with `-Dmain=PROGRAM_main`, partially linked, and its
//! global symbols other than that `main` made local, so one copy of glibc
//! serves them all (which keeps the lift and build of the corpus short).
//!
//! | program | package | what it exercises |
//! |---|---|---|
//! | bzip2 | bzip2 1.0.8 | compression: integer, memory, tight loops |
//! | lua | lua5.4 5.4.4 | an interpreter: jump tables, floats, strings, setjmp |
//! | ed | ed 1.19 | a text tool: regular expressions (glibc's), line buffers |
//! | cjpeg, djpeg | libjpeg-turbo 2.1.5 | image codecs: AltiVec (VMX) SIMD, floats |

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// Where Debian's source packages are fetched from.
pub const MIRROR: &str = "http://deb.debian.org/debian/pool/main";

/// A source tarball.
#[derive(Debug, Clone, Copy)]
pub struct Tarball {
    /// Pool path under [`MIRROR`].
    pub path: &'static str,
    /// Its SHA-256.
    pub sha256: &'static str,
    /// The folder it unpacks to.
    pub top: &'static str,
}

/// bzip2 1.0.8.
pub const BZIP2: Tarball = Tarball {
    path: "b/bzip2/bzip2_1.0.8.orig.tar.gz",
    sha256: "ab5a03176ee106d3f0fa90e381da478ddae405918153cca248e682cd0c4a2269",
    top: "bzip2-1.0.8",
};
/// Lua 5.4.4.
pub const LUA: Tarball = Tarball {
    path: "l/lua5.4/lua5.4_5.4.4.orig.tar.gz",
    sha256: "164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61",
    top: "lua-5.4.4",
};
/// GNU ed 1.19.
pub const ED: Tarball = Tarball {
    path: "e/ed/ed_1.19.orig.tar.gz",
    sha256: "8e5c3e7c84972e73957ff396b8318a21795f86547dd1fe4ec4232a9e6e44ca1d",
    top: "ed-1.19",
};
/// libjpeg-turbo 2.1.5.
pub const JPEG: Tarball = Tarball {
    path: "libj/libjpeg-turbo/libjpeg-turbo_2.1.5.orig.tar.gz",
    sha256: "254f3642b04e309fee775123133c6464181addc150499561020312ec61c1bf7c",
    top: "libjpeg-turbo-2.1.5",
};

/// The architectures the corpus is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Arch {
    /// The Cell, as a Linux ppc64 static executable.
    Ppc,
    /// The host (the benchmark's native baseline).
    Native,
}

impl Arch {
    fn gcc(self) -> &'static str {
        match self {
            Arch::Ppc => "powerpc64-linux-gnu-gcc",
            Arch::Native => "gcc",
        }
    }
    fn tool(self, t: &str) -> String {
        match self {
            Arch::Ppc => format!("powerpc64-linux-gnu-{t}"),
            Arch::Native => t.to_string(),
        }
    }
    fn cflags(self) -> &'static [&'static str] {
        match self {
            Arch::Ppc => &["-O2", "-mcpu=cell", "-maltivec"],
            Arch::Native => &["-O2"],
        }
    }
    fn name(self) -> &'static str {
        match self {
            Arch::Ppc => "ppc",
            Arch::Native => "x86",
        }
    }
}

/// One part of the multi-call executable: a program (its `main` renamed)
/// or a library the programs share.
struct Part {
    name: &'static str,
    tarball: Tarball,
    /// Source files, relative to the unpacked folder.
    sources: Vec<&'static str>,
    /// Preprocessor definitions and include folders (relative).
    defines: Vec<String>,
    includes: Vec<&'static str>,
    /// A program (`main` renamed, other globals made local) or a library.
    program: bool,
    /// Only for this architecture.
    only: Option<Arch>,
}

const JPEG_LIB: &[&str] = &[
    "jcapimin.c",
    "jcapistd.c",
    "jccoefct.c",
    "jccolor.c",
    "jcdctmgr.c",
    "jchuff.c",
    "jcicc.c",
    "jcinit.c",
    "jcmainct.c",
    "jcmarker.c",
    "jcmaster.c",
    "jcomapi.c",
    "jcparam.c",
    "jcphuff.c",
    "jcprepct.c",
    "jcsample.c",
    "jctrans.c",
    "jdapimin.c",
    "jdapistd.c",
    "jdatadst.c",
    "jdatasrc.c",
    "jdcoefct.c",
    "jdcolor.c",
    "jddctmgr.c",
    "jdhuff.c",
    "jdicc.c",
    "jdinput.c",
    "jdmainct.c",
    "jdmarker.c",
    "jdmaster.c",
    "jdmerge.c",
    "jdphuff.c",
    "jdpostct.c",
    "jdsample.c",
    "jdtrans.c",
    "jerror.c",
    "jfdctflt.c",
    "jfdctfst.c",
    "jfdctint.c",
    "jidctflt.c",
    "jidctfst.c",
    "jidctint.c",
    "jidctred.c",
    "jquant1.c",
    "jquant2.c",
    "jutils.c",
    "jmemmgr.c",
    "jmemnobs.c",
    "jaricom.c",
    "jcarith.c",
    "jdarith.c",
];

const JPEG_ALTIVEC: &[&str] = &[
    "simd/powerpc/jsimd.c",
    "simd/powerpc/jccolor-altivec.c",
    "simd/powerpc/jcgray-altivec.c",
    "simd/powerpc/jcsample-altivec.c",
    "simd/powerpc/jdcolor-altivec.c",
    "simd/powerpc/jdmerge-altivec.c",
    "simd/powerpc/jdsample-altivec.c",
    "simd/powerpc/jfdctfst-altivec.c",
    "simd/powerpc/jfdctint-altivec.c",
    "simd/powerpc/jidctfst-altivec.c",
    "simd/powerpc/jidctint-altivec.c",
    "simd/powerpc/jquanti-altivec.c",
];

fn parts() -> Vec<Part> {
    let lua: Vec<&str> = [
        "lapi.c",
        "lcode.c",
        "lctype.c",
        "ldebug.c",
        "ldo.c",
        "ldump.c",
        "lfunc.c",
        "lgc.c",
        "llex.c",
        "lmem.c",
        "lobject.c",
        "lopcodes.c",
        "lparser.c",
        "lstate.c",
        "lstring.c",
        "ltable.c",
        "ltm.c",
        "lundump.c",
        "lvm.c",
        "lzio.c",
        "lauxlib.c",
        "lbaselib.c",
        "lcorolib.c",
        "ldblib.c",
        "liolib.c",
        "lmathlib.c",
        "loadlib.c",
        "loslib.c",
        "lstrlib.c",
        "ltablib.c",
        "lutf8lib.c",
        "linit.c",
        "lua.c",
    ]
    .iter()
    .map(|f| Box::leak(format!("src/{f}").into_boxed_str()) as &str)
    .collect();
    let mut jpeg_ppc: Vec<&str> = JPEG_LIB.to_vec();
    jpeg_ppc.extend_from_slice(JPEG_ALTIVEC);
    let mut jpeg_native: Vec<&str> = JPEG_LIB.to_vec();
    jpeg_native.push("jsimd_none.c");
    vec![
        Part {
            name: "bzip2",
            tarball: BZIP2,
            sources: vec![
                "blocksort.c",
                "huffman.c",
                "crctable.c",
                "randtable.c",
                "compress.c",
                "decompress.c",
                "bzlib.c",
                "bzip2.c",
            ],
            defines: vec!["-D_FILE_OFFSET_BITS=64".into()],
            includes: vec![],
            program: true,
            only: None,
        },
        Part {
            name: "lua",
            tarball: LUA,
            sources: lua,
            defines: vec!["-DLUA_USE_POSIX".into()],
            includes: vec!["src"],
            program: true,
            only: None,
        },
        Part {
            name: "ed",
            tarball: ED,
            sources: vec![
                "buffer.c",
                "carg_parser.c",
                "global.c",
                "io.c",
                "main.c",
                "main_loop.c",
                "regex.c",
                "signal.c",
            ],
            defines: vec!["-DPROGVERSION=\"1.19\"".into()],
            includes: vec![],
            program: true,
            only: None,
        },
        Part {
            name: "jpeg",
            tarball: JPEG,
            sources: jpeg_ppc,
            defines: vec![],
            includes: vec![".", "simd/powerpc"],
            program: false,
            only: Some(Arch::Ppc),
        },
        Part {
            name: "jpeg",
            tarball: JPEG,
            sources: jpeg_native,
            defines: vec![],
            includes: vec!["."],
            program: false,
            only: Some(Arch::Native),
        },
        Part {
            name: "cjpeg",
            tarball: JPEG,
            sources: vec![
                "cjpeg.c",
                "cdjpeg.c",
                "rdgif.c",
                "rdppm.c",
                "rdswitch.c",
                "rdbmp.c",
                "rdtarga.c",
            ],
            defines: vec![
                "-DBMP_SUPPORTED".into(),
                "-DGIF_SUPPORTED".into(),
                "-DPPM_SUPPORTED".into(),
                "-DTARGA_SUPPORTED".into(),
            ],
            includes: vec!["."],
            program: true,
            only: None,
        },
        Part {
            name: "djpeg",
            tarball: JPEG,
            sources: vec![
                "djpeg.c",
                "cdjpeg.c",
                "rdcolmap.c",
                "rdswitch.c",
                "wrgif.c",
                "wrppm.c",
                "wrbmp.c",
                "wrtarga.c",
            ],
            defines: vec![
                "-DBMP_SUPPORTED".into(),
                "-DGIF_SUPPORTED".into(),
                "-DPPM_SUPPORTED".into(),
                "-DTARGA_SUPPORTED".into(),
            ],
            includes: vec!["."],
            program: true,
            only: None,
        },
    ]
}

/// The programs the multi-call executable runs.
pub const PROGRAMS: &[&str] = &["bzip2", "lua", "ed", "cjpeg", "djpeg"];

/// The built corpus.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Its folder (downloads, sources, objects, executables, inputs).
    pub dir: PathBuf,
    /// The Cell executable.
    pub ppc: PathBuf,
    /// The host executable (benchmark baseline).
    pub native: PathBuf,
    /// Inputs the cases read.
    pub inputs: PathBuf,
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd.output().with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

fn sha256_hex(data: &[u8]) -> String {
    let d = Sha256::digest(data);
    d.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Fetches (or takes from the cache) and unpacks `t` under `dir`; returns
/// the unpacked folder.
pub fn fetch(dir: &Path, t: &Tarball, log: &mut dyn FnMut(&str)) -> Result<PathBuf> {
    let downloads = dir.join("downloads");
    std::fs::create_dir_all(&downloads)?;
    let file = downloads.join(t.path.rsplit('/').next().expect("a file name"));
    let ok = std::fs::read(&file)
        .map(|d| sha256_hex(&d) == t.sha256)
        .unwrap_or(false);
    if !ok {
        let url = format!("{MIRROR}/{}", t.path);
        log(&format!("fetching {url}"));
        let tmp = file.with_extension("part");
        run(
            Command::new("curl")
                .args(["-sSfL", "--retry", "3", "-o"])
                .arg(&tmp)
                .arg(&url),
            &format!("curl {url}"),
        )?;
        let data = std::fs::read(&tmp)?;
        let got = sha256_hex(&data);
        if got != t.sha256 {
            bail!(
                "{url}: SHA-256 is {got}, expected {} (refusing the download)",
                t.sha256
            );
        }
        std::fs::rename(&tmp, &file)?;
    }
    let src = dir.join("src");
    let top = src.join(t.top);
    let stamp = top.join(".recomp-unpacked");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(t.sha256) {
        std::fs::create_dir_all(&src)?;
        let _ = std::fs::remove_dir_all(&top);
        run(
            Command::new("tar").arg("xf").arg(&file).arg("-C").arg(&src),
            "tar",
        )?;
        std::fs::write(&stamp, t.sha256)?;
    }
    Ok(top)
}

/// CMake's `configure_file` for the few templates libjpeg-turbo has:
/// `@VAR@` substitution and `#cmakedefine`.
fn configure_file(template: &str, vars: &BTreeMap<&str, &str>) -> String {
    let mut out = String::new();
    for line in template.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("#cmakedefine01 ") {
            let name = rest.split_whitespace().next().unwrap_or("");
            let on = vars.get(name).is_some_and(|v| !v.is_empty() && *v != "0");
            let _ = writeln!(out, "#define {name} {}", u8::from(on));
            continue;
        }
        if let Some(rest) = t.strip_prefix("#cmakedefine ") {
            let name = rest.split_whitespace().next().unwrap_or("");
            if vars.get(name).is_some_and(|v| !v.is_empty()) {
                let line = format!("#define {rest}");
                out.push_str(&subst(&line, vars));
            } else {
                let _ = write!(out, "/* #undef {name} */");
            }
            out.push('\n');
            continue;
        }
        out.push_str(&subst(line, vars));
        out.push('\n');
    }
    out
}

fn subst(line: &str, vars: &BTreeMap<&str, &str>) -> String {
    let mut s = line.to_string();
    for (k, v) in vars {
        s = s.replace(&format!("@{k}@"), v);
    }
    s
}

/// Writes libjpeg-turbo's configured headers into its source folder.
fn configure_jpeg(top: &Path) -> Result<()> {
    let vars: BTreeMap<&str, &str> = [
        ("JPEG_LIB_VERSION", "62"),
        ("VERSION", "2.1.5"),
        ("LIBJPEG_TURBO_VERSION_NUMBER", "2001005"),
        ("C_ARITH_CODING_SUPPORTED", "1"),
        ("D_ARITH_CODING_SUPPORTED", "1"),
        ("MEM_SRCDST_SUPPORTED", "1"),
        ("WITH_SIMD", "1"),
        ("BITS_IN_JSAMPLE", "8"),
        ("BUILD", "recomp-corpus"),
        ("INLINE", "__inline__ __attribute__((always_inline))"),
        ("THREAD_LOCAL", "__thread"),
        ("CMAKE_PROJECT_NAME", "libjpeg-turbo"),
        ("SIZE_T", "8"),
        ("HAVE_BUILTIN_CTZL", "1"),
        ("COPYRIGHT_YEAR", "1991-2023"),
    ]
    .into_iter()
    .collect();
    for (tpl, out) in [
        ("jconfig.h.in", "jconfig.h"),
        ("jconfigint.h.in", "jconfigint.h"),
        ("jversion.h.in", "jversion.h"),
    ] {
        let t = std::fs::read_to_string(top.join(tpl)).with_context(|| format!("reading {tpl}"))?;
        let s = configure_file(&t, &vars);
        let path = top.join(out);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(s.as_str()) {
            std::fs::write(&path, s)?;
        }
    }
    Ok(())
}

/// The dispatcher: `corpus PROGRAM ARGS...`.
fn dispatcher_source(programs: &[&str]) -> String {
    let mut s = String::from(
        "/* The corpus's multi-call main (written for recomp's corpus). */\n#include <stdio.h>\n#include <string.h>\n",
    );
    for p in programs {
        let _ = writeln!(s, "int {p}_main(int, char **);");
    }
    s.push_str(
        "static const struct { const char *name; int (*main)(int, char **); } programs[] = {\n",
    );
    for p in programs {
        let _ = writeln!(s, "  {{ \"{p}\", {p}_main }},");
    }
    s.push_str(
        "};\nint main(int argc, char **argv) {\n  if (argc >= 2)\n    for (unsigned i = 0; i < sizeof programs / sizeof programs[0]; i++)\n      if (strcmp(argv[1], programs[i].name) == 0)\n        return programs[i].main(argc - 1, argv + 1);\n  fprintf(stderr, \"usage: %s PROGRAM [ARGS...]\\n\", argv[0]);\n  return 2;\n}\n",
    );
    s
}

/// Builds one architecture's executable, reusing up-to-date objects.
fn build_arch(
    dir: &Path,
    arch: Arch,
    tops: &BTreeMap<&str, PathBuf>,
    log: &mut dyn FnMut(&str),
) -> Result<PathBuf> {
    let obj = dir.join("obj").join(arch.name());
    std::fs::create_dir_all(&obj)?;
    let mut linked = Vec::new();
    for part in parts().iter().filter(|p| p.only.is_none_or(|a| a == arch)) {
        let top = &tops[part.tarball.top];
        let mut objs = Vec::new();
        let mut flags: Vec<String> = arch.cflags().iter().map(|s| s.to_string()).collect();
        flags.extend(part.defines.iter().cloned());
        if part.program {
            flags.push(format!("-Dmain={}_main", part.name));
        }
        for inc in &part.includes {
            flags.push(format!("-I{}", top.join(inc).display()));
        }
        for src in &part.sources {
            let path = top.join(src);
            let text =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let key = sha256_hex(format!("{flags:?}{}", sha256_hex(&text)).as_bytes());
            let o = obj.join(format!(
                "{}-{}-{}.o",
                part.name,
                src.replace('/', "_"),
                &key[..12]
            ));
            if !o.exists() {
                log(&format!("compiling {} {src} ({})", part.name, arch.name()));
                let tmp = o.with_extension("tmp.o");
                run(
                    Command::new(arch.gcc())
                        .args(&flags)
                        .arg("-c")
                        .arg(&path)
                        .arg("-o")
                        .arg(&tmp)
                        .current_dir(top),
                    &format!("{} {src}", arch.gcc()),
                )?;
                std::fs::rename(&tmp, &o)?;
            }
            objs.push(o);
        }
        // Partial link; a program keeps only its main global.
        let part_o = obj.join(format!("part-{}.o", part.name));
        let tmp = obj.join(format!("part-{}.{}.tmp.o", part.name, std::process::id()));
        run(
            Command::new(arch.tool("ld"))
                .arg("-r")
                .arg("-o")
                .arg(&tmp)
                .args(&objs),
            "ld -r",
        )?;
        if part.program {
            run(
                Command::new(arch.tool("objcopy"))
                    .arg(format!("--keep-global-symbol={}_main", part.name))
                    .arg(&tmp),
                "objcopy",
            )?;
        }
        std::fs::rename(&tmp, &part_o)?;
        linked.push(part_o);
    }
    let main_c = obj.join("corpus-main.c");
    if std::fs::read_to_string(&main_c).ok().as_deref()
        != Some(dispatcher_source(PROGRAMS).as_str())
    {
        std::fs::write(&main_c, dispatcher_source(PROGRAMS))?;
    }
    let exe = dir.join(format!("corpus.{}", arch.name()));
    let tmp_exe = dir.join(format!("corpus.{}.{}.tmp", arch.name(), std::process::id()));
    let mut cmd = Command::new(arch.gcc());
    cmd.args(arch.cflags());
    if arch == Arch::Ppc {
        cmd.arg("-static");
    }
    cmd.arg(&main_c)
        .args(&linked)
        .args(["-lm", "-o"])
        .arg(&tmp_exe);
    run(&mut cmd, &format!("linking {}", exe.display()))?;
    // Rewrite the executable only when it changed (its mtime tells lifts apart).
    if std::fs::read(&exe).ok() == std::fs::read(&tmp_exe).ok() {
        std::fs::remove_file(&tmp_exe)?;
    } else {
        std::fs::rename(&tmp_exe, &exe)?;
    }
    Ok(exe)
}

/// Fetches, builds and prepares the corpus under `dir` (normally
/// `target/recomp-corpus`); cached, so a second call only checks. The host
/// build (the benchmark's baseline, which needs the host's gcc) is made by
/// [`prepare_native`].
pub fn prepare(dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Corpus> {
    std::fs::create_dir_all(dir)?;
    let mut tops = BTreeMap::new();
    for t in [BZIP2, LUA, ED, JPEG] {
        tops.insert(t.top, fetch(dir, &t, log)?);
    }
    configure_jpeg(&tops[JPEG.top])?;
    let ppc = build_arch(dir, Arch::Ppc, &tops, log)?;
    let inputs = dir.join("inputs");
    write_inputs(&inputs, &tops)?;
    Ok(Corpus {
        dir: dir.to_path_buf(),
        ppc,
        native: dir.join("corpus.x86"),
        inputs,
    })
}

/// Builds the host executable of the corpus (`gcc -O2`; libjpeg-turbo
/// without SIMD, as its x86 SIMD needs NASM).
pub fn prepare_native(c: &Corpus, log: &mut dyn FnMut(&str)) -> Result<()> {
    let mut tops = BTreeMap::new();
    for t in [BZIP2, LUA, ED, JPEG] {
        tops.insert(t.top, fetch(&c.dir, &t, log)?);
    }
    build_arch(&c.dir, Arch::Native, &tops, log)?;
    Ok(())
}

// ------------------------------------------------------------------ inputs --

/// A deterministic pseudo-random generator for generated inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// English-like text: words drawn from the sources' own comments.
fn text(seed: u64, bytes: usize, words: &[&str]) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut out = Vec::with_capacity(bytes + 80);
    let mut col = 0;
    while out.len() < bytes {
        let w = words[(r.next() % words.len() as u64) as usize];
        out.extend_from_slice(w.as_bytes());
        col += w.len() + 1;
        if col > 70 {
            out.push(b'\n');
            col = 0;
        } else {
            out.push(b' ');
        }
    }
    out
}

/// A `width`×`height` binary PPM: smooth gradients, edges and noise.
fn ppm(seed: u64, width: usize, height: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut out = format!("P6\n{width} {height}\n255\n").into_bytes();
    for y in 0..height {
        for x in 0..width {
            let n = (r.next() % 24) as usize;
            let edge = if (x / 37 + y / 29) % 2 == 0 { 60 } else { 0 };
            out.push(((x * 255 / width + n + edge) % 256) as u8);
            out.push(((y * 255 / height + n) % 256) as u8);
            out.push((((x + y) * 128 / (width + height) + edge + n) % 256) as u8);
        }
    }
    out
}

const LUA_NBODY: &str = r##"-- n-body simulation (floating point); prints energies.
local sqrt = math.sqrt
local PI = 3.141592653589793
local SOLAR_MASS = 4 * PI * PI
local DAYS = 365.24
local bodies = {
  {0, 0, 0, 0, 0, 0, SOLAR_MASS},
  {4.84143144246472090, -1.16032004402742839, -0.103622044471123109,
   0.00166007664274403694 * DAYS, 0.00769901118419740425 * DAYS, -0.0000690460016972063023 * DAYS,
   0.000954791938424326609 * SOLAR_MASS},
  {8.34336671824457987, 4.12479856412430479, -0.403523417114321381,
   -0.00276742510726862411 * DAYS, 0.00499852801234917238 * DAYS, 0.0000230417297573763929 * DAYS,
   0.000285885980666130812 * SOLAR_MASS},
  {12.8943695621391310, -15.1111514016986312, -0.223307578892655734,
   0.00296460137564761618 * DAYS, 0.00237847173959480950 * DAYS, -0.0000296589568540237556 * DAYS,
   0.0000436624404335156298 * SOLAR_MASS},
  {15.3796971148509165, -25.9193146099879641, 0.179258772950371181,
   0.00268067772490389322 * DAYS, 0.00162824170038242295 * DAYS, -0.0000951592254519715870 * DAYS,
   0.0000515138902046611451 * SOLAR_MASS},
}
local function energy()
  local e = 0
  for i = 1, #bodies do
    local b = bodies[i]
    e = e + 0.5 * b[7] * (b[4] * b[4] + b[5] * b[5] + b[6] * b[6])
    for j = i + 1, #bodies do
      local c = bodies[j]
      local dx, dy, dz = b[1] - c[1], b[2] - c[2], b[3] - c[3]
      e = e - b[7] * c[7] / sqrt(dx * dx + dy * dy + dz * dz)
    end
  end
  return e
end
local px, py, pz = 0, 0, 0
for _, b in ipairs(bodies) do
  px, py, pz = px + b[4] * b[7], py + b[5] * b[7], pz + b[6] * b[7]
end
bodies[1][4], bodies[1][5], bodies[1][6] = -px / SOLAR_MASS, -py / SOLAR_MASS, -pz / SOLAR_MASS
local function advance(dt)
  local n = #bodies
  for i = 1, n do
    local b = bodies[i]
    for j = i + 1, n do
      local c = bodies[j]
      local dx, dy, dz = b[1] - c[1], b[2] - c[2], b[3] - c[3]
      local d2 = dx * dx + dy * dy + dz * dz
      local mag = dt / (d2 * sqrt(d2))
      local bm, cm = b[7] * mag, c[7] * mag
      b[4], b[5], b[6] = b[4] - dx * cm, b[5] - dy * cm, b[6] - dz * cm
      c[4], c[5], c[6] = c[4] + dx * bm, c[5] + dy * bm, c[6] + dz * bm
    end
  end
  for i = 1, n do
    local b = bodies[i]
    b[1], b[2], b[3] = b[1] + dt * b[4], b[2] + dt * b[5], b[3] + dt * b[6]
  end
end
local steps = tonumber(arg and arg[1]) or 1000
print(string.format("%.9f", energy()))
for _ = 1, steps do advance(0.01) end
print(string.format("%.9f", energy()))
-- spectral norm
local function A(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end
local function Av(x, y, N)
  for i = 1, N do
    local a = 0
    for j = 1, N do a = a + x[j] * A(i, j) end
    y[i] = a
  end
end
local function Atv(x, y, N)
  for i = 1, N do
    local a = 0
    for j = 1, N do a = a + x[j] * A(j, i) end
    y[i] = a
  end
end
local N = tonumber(arg and arg[2]) or 50
local u, v, t = {}, {}, {}
for i = 1, N do u[i] = 1 end
for _ = 1, 10 do
  Av(u, t, N); Atv(t, v, N); Av(v, t, N); Atv(t, u, N)
end
local vBv, vv = 0, 0
for i = 1, N do
  local ui, vi = u[i], v[i]
  vBv, vv = vBv + ui * vi, vv + vi * vi
end
print(string.format("%0.9f", math.sqrt(vBv / vv)))
print(string.format("%a %g %.17g %d", 1/3, 1e300 * 10, math.pi, math.floor(-7.5)))
print(math.tointeger(2^53), 7 // 2, -7 // 2, 7 % -3, 2^0.5, math.fmod(-7, 3))
"##;

const LUA_TEXT: &str = r##"-- text processing: word counts, patterns, formatting, sorting
local counts, order = {}, {}
local lines, chars = 0, 0
for line in io.lines() do
  lines = lines + 1
  chars = chars + #line
  for w in line:gmatch("%a+") do
    w = w:lower()
    if not counts[w] then counts[w] = 0; order[#order + 1] = w end
    counts[w] = counts[w] + 1
  end
end
table.sort(order, function(a, b)
  if counts[a] ~= counts[b] then return counts[a] > counts[b] end
  return a < b
end)
print(("lines %d chars %d distinct %d"):format(lines, chars, #order))
for i = 1, math.min(25, #order) do
  local w = order[i]
  print(string.format("%-16s %6d %s", w, counts[w], string.rep("*", counts[w] * 40 // counts[order[1]])))
end
local s = table.concat(order, " ", 1, math.min(200, #order))
print((s:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end)):sub(1, 300))
print(#s, s:find("the"), select("#", s:byte(1, 10)))
local co = coroutine.wrap(function() for i = 1, 5 do coroutine.yield(i * i) end end)
local acc = {}
for _ = 1, 5 do acc[#acc + 1] = co() end
print(table.concat(acc, ","))
print(pcall(error, {code = 42}), select(2, pcall(error, "boom")))
print(utf8.char(72, 228, 8364, 128512), utf8.len("häl€"), ("%q"):format("a\n\"b\""))
math.randomseed(42)
local r = {}
for i = 1, 8 do r[i] = math.random(1000) end
print(table.concat(r, " "))
"##;

const ED_SCRIPT: &str = "H\n,g/the/s//THE/g\n1,20n\n/compress/,/decompress/d\n$-5,$p\ng/^[a-z]/s/\\([a-z]*\\) \\([a-z]*\\)/\\2 \\1/\nv/e/d\n,n\n=\nQ\n";

/// Writes the inputs the cases read.
fn write_inputs(dir: &Path, tops: &BTreeMap<&str, PathBuf>) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let put = |name: &str, data: &[u8]| -> Result<()> {
        let p = dir.join(name);
        if std::fs::read(&p).ok().as_deref() != Some(data) {
            std::fs::write(&p, data)?;
        }
        Ok(())
    };
    let bz = &tops[BZIP2.top];
    for f in [
        "sample1.ref",
        "sample2.ref",
        "sample3.ref",
        "sample1.bz2",
        "sample2.bz2",
        "sample3.bz2",
    ] {
        put(f, &std::fs::read(bz.join(f))?)?;
    }
    let words_src = std::fs::read_to_string(bz.join("manual.html")).unwrap_or_default()
        + &std::fs::read_to_string(tops[LUA.top].join("README")).unwrap_or_default();
    let words: Vec<&str> = words_src
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| (2..12).contains(&w.len()))
        .collect();
    let words: Vec<&str> = if words.is_empty() {
        vec!["empty"]
    } else {
        words
    };
    put("text-small.txt", &text(1, 40_000, &words))?;
    put("text-big.txt", &text(2, 3_000_000, &words))?;
    put("nbody.lua", LUA_NBODY.as_bytes())?;
    put("text.lua", LUA_TEXT.as_bytes())?;
    put("ed-script", ED_SCRIPT.as_bytes())?;
    put(
        "ed-big-script",
        b",g/[aeiou]\\([a-z]*\\)e/s//<&>/g\n,g/^.*the.*$/m0\n$=\n,n\nQ\n",
    )?;
    let jp = &tops[JPEG.top];
    for f in [
        "testorig.jpg",
        "testorig.ppm",
        "testimgint.jpg",
        "testimgari.jpg",
    ] {
        put(f, &std::fs::read(jp.join("testimages").join(f))?)?;
    }
    put("big.ppm", &ppm(3, 1280, 960))?;
    Ok(())
}

// ------------------------------------------------------------------- cases --

/// One run of a corpus program.
#[derive(Debug, Clone)]
pub struct Case {
    /// A name for reports.
    pub name: String,
    /// Arguments after the executable (the program's name first).
    pub args: Vec<String>,
    /// File (in the inputs folder) fed to stdin, if any.
    pub stdin: Option<String>,
}

fn case(name: &str, args: &[&str], stdin: Option<&str>) -> Case {
    Case {
        name: name.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin: stdin.map(Into::into),
    }
}

/// The cases of the whole-program test: short, each program several ways.
pub fn test_cases() -> Vec<Case> {
    vec![
        case("bzip2 compress", &["bzip2", "-c"], Some("sample1.ref")),
        case(
            "bzip2 -1 compress",
            &["bzip2", "-1", "-c"],
            Some("sample3.ref"),
        ),
        case("bzip2 decompress", &["bzip2", "-dc"], Some("sample2.bz2")),
        case("bzip2 test", &["bzip2", "-tvv", "sample3.bz2"], None),
        case("bzip2 bad input", &["bzip2", "-dc"], Some("sample1.ref")),
        case("lua floats", &["lua", "nbody.lua", "200", "24"], None),
        case("lua text", &["lua", "text.lua"], Some("text-small.txt")),
        case(
            "ed script",
            &["ed", "-s", "text-small.txt"],
            Some("ed-script"),
        ),
        case("djpeg ppm", &["djpeg", "-ppm", "testorig.jpg"], None),
        case(
            "djpeg fast scaled",
            &[
                "djpeg",
                "-dct",
                "fast",
                "-scale",
                "1/2",
                "-ppm",
                "testimgint.jpg",
            ],
            None,
        ),
        case(
            "djpeg arithmetic bmp",
            &["djpeg", "-bmp", "testimgari.jpg"],
            None,
        ),
        case(
            "djpeg float quantized",
            &[
                "djpeg",
                "-dct",
                "float",
                "-colors",
                "64",
                "-gif",
                "testorig.jpg",
            ],
            None,
        ),
        case("cjpeg", &["cjpeg", "-quality", "90", "testorig.ppm"], None),
        case(
            "cjpeg fast progressive",
            &[
                "cjpeg",
                "-dct",
                "fast",
                "-progressive",
                "-sample",
                "2x2",
                "testorig.ppm",
            ],
            None,
        ),
    ]
}

/// The benchmark's cases: long enough to time.
pub fn bench_cases() -> Vec<Case> {
    vec![
        case(
            "bzip2 compress 3 MB",
            &["bzip2", "-c"],
            Some("text-big.txt"),
        ),
        case(
            "bzip2 decompress",
            &["bzip2", "-dc"],
            Some("text-big.txt.bz2"),
        ),
        case(
            "lua nbody+spectral",
            &["lua", "nbody.lua", "60000", "300"],
            None,
        ),
        case("lua text 3 MB", &["lua", "text.lua"], Some("text-big.txt")),
        case(
            "ed global substitute",
            &["ed", "-s", "text-big.txt"],
            Some("ed-big-script"),
        ),
        case(
            "cjpeg 1280x960",
            &["cjpeg", "-quality", "92", "big.ppm"],
            None,
        ),
        case("djpeg 1280x960", &["djpeg", "-ppm", "big.jpg"], None),
    ]
}

/// Derived inputs the benchmark needs (made with the native build).
pub fn prepare_bench_inputs(c: &Corpus) -> Result<()> {
    for (out, args, stdin) in [
        (
            "text-big.txt.bz2",
            vec!["bzip2", "-c"],
            Some("text-big.txt"),
        ),
        ("big.jpg", vec!["cjpeg", "-quality", "92", "big.ppm"], None),
    ] {
        let path = c.inputs.join(out);
        if path.exists() {
            continue;
        }
        let o = run_case(
            &[c.native.as_os_str()],
            &Case {
                name: out.into(),
                args: args.iter().map(|s| s.to_string()).collect(),
                stdin: stdin.map(Into::into),
            },
            &c.inputs,
        )?;
        if !o.status.success() {
            bail!("making {out}: {}", String::from_utf8_lossy(&o.stderr));
        }
        std::fs::write(path, &o.stdout)?;
    }
    Ok(())
}

/// Runs `case` with the command `prefix` (e.g. `qemu-ppc64 corpus.ppc`), in
/// the inputs folder, with a fixed environment.
pub fn run_case(
    prefix: &[&std::ffi::OsStr],
    case: &Case,
    inputs: &Path,
) -> Result<std::process::Output> {
    let mut cmd = Command::new(prefix[0]);
    cmd.args(&prefix[1..])
        .args(&case.args)
        .current_dir(inputs)
        .env_clear()
        .env("LC_ALL", "C")
        .env("PATH", "/usr/bin:/bin");
    cmd.stdin(match &case.stdin {
        Some(f) => Stdio::from(
            std::fs::File::open(inputs.join(f)).with_context(|| format!("opening {f}"))?,
        ),
        None => Stdio::null(),
    });
    cmd.output()
        .with_context(|| format!("running {:?}", prefix))
}
