//! The symbol map (`ps5/sysmap.txt`): which console module exports each
//! library function the payload may import, and the stub libraries built
//! from it so that the payload links.
//!
//! The payload links against one stub shared library per console module
//! (`libkernel.so` with soname `libkernel.sprx`, ...). A stub defines the
//! module's symbols under a GNU symbol version named after the module, so
//! each import of the payload records the module it comes from (its
//! version-needed entry names the stub's soname), which is how the
//! start-up code and `./x ps5 imports` know it. A symbol written
//! `name@VERSION` in the map is defined only under that non-default version:
//! FreeBSD 11 ABI functions (`fstat@FBSD_1.0`) that the payload calls
//! through its ABI shims, and that a plain reference can never bind to.
//!
//! The Rust standard library and the `libc` crate link `-lc -lpthread -lm`
//! and others; `-l` lines map each to the stubs that stand for it (possibly
//! none). Format, one entry a line, `#` starts a comment:
//!
//! ```text
//! [libkernel.sprx]            a module section (must be in ps5::modules::MODULES)
//! __error                     a function the module exports
//! fstat@FBSD_1.0              a function under a non-default version
//! environ data                a data object
//! -lc = libSceLibcInternal.sprx libkernel.sprx
//! -lgcc_s =                   a library with no console counterpart
//! ```

use crate::modules;
use std::collections::BTreeSet;
use std::fmt::{self, Write as _};

/// One symbol a module exports.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MapSymbol {
    /// Its name (what the module's NID is computed from).
    pub name: String,
    /// A non-default version it is defined under, if any.
    pub version: Option<String>,
    /// Whether it is a data object (else a function).
    pub data: bool,
    /// The line of the map it is on.
    pub line: usize,
}

/// One module section of the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapModule {
    /// The module's soname.
    pub soname: String,
    /// Its symbols, in map order.
    pub symbols: Vec<MapSymbol>,
}

impl MapModule {
    /// The stub library's file name (`libkernel.so` for `libkernel.sprx`).
    pub fn stub_file(&self) -> String {
        format!("{}.so", self.stem())
    }
    /// The soname without `.sprx`, which is also the stub's default version.
    pub fn stem(&self) -> &str {
        self.soname.strip_suffix(".sprx").unwrap_or(&self.soname)
    }
}

/// A `-l` library and the stubs that stand for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkAlias {
    /// The library name after `-l`.
    pub lib: String,
    /// The module sonames whose stubs it stands for.
    pub modules: Vec<String>,
}

/// The parsed symbol map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymbolMap {
    /// Modules in map order.
    pub modules: Vec<MapModule>,
    /// `-l` aliases in map order.
    pub aliases: Vec<LinkAlias>,
}

/// A fault in the symbol map, with its line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for MapError {}

fn is_symbol_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

impl SymbolMap {
    /// Parses the text of a symbol map.
    pub fn parse(text: &str) -> Result<SymbolMap, MapError> {
        let mut map = SymbolMap::default();
        let mut seen = BTreeSet::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| MapError { line, message };
            let s = raw.split('#').next().unwrap_or("").trim();
            if s.is_empty() {
                continue;
            }
            if let Some(rest) = s.strip_prefix('[') {
                let soname = rest
                    .strip_suffix(']')
                    .ok_or_else(|| err(format!("unclosed module section {s:?}")))?
                    .trim();
                if modules::spec(soname.as_bytes()).is_none() {
                    return Err(err(format!(
                        "module {soname:?} is not in ps5::modules::MODULES (add how to load it there)"
                    )));
                }
                if map.modules.iter().any(|m| m.soname == soname) {
                    return Err(err(format!("module {soname:?} has two sections")));
                }
                map.modules.push(MapModule {
                    soname: soname.to_string(),
                    symbols: Vec::new(),
                });
            } else if let Some(rest) = s.strip_prefix("-l") {
                let (lib, mods) = rest
                    .split_once('=')
                    .ok_or_else(|| err(format!("expected `-lNAME = MODULE...`, got {s:?}")))?;
                let lib = lib.trim();
                if lib.is_empty() || !lib.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    return Err(err(format!("bad library name {lib:?}")));
                }
                let modules: Vec<String> = mods.split_whitespace().map(str::to_string).collect();
                map.aliases.push(LinkAlias {
                    lib: lib.to_string(),
                    modules,
                });
            } else {
                let module = map
                    .modules
                    .last_mut()
                    .ok_or_else(|| err(format!("symbol {s:?} before any [module] section")))?;
                let mut words = s.split_whitespace();
                let spec = words.next().unwrap_or_default();
                let data = match words.next() {
                    None => false,
                    Some("data") => true,
                    Some(w) => return Err(err(format!("unknown word {w:?} (only `data`)"))),
                };
                if let Some(w) = words.next() {
                    return Err(err(format!("unexpected {w:?}")));
                }
                let (name, version) = match spec.split_once('@') {
                    Some((n, v)) if !v.is_empty() && !v.contains('@') => (n, Some(v.to_string())),
                    Some(_) => return Err(err(format!("bad version in {spec:?}"))),
                    None => (spec, None),
                };
                if !is_symbol_name(name) {
                    return Err(err(format!("bad symbol name {name:?}")));
                }
                if let Some(v) = &version
                    && !is_symbol_name(v)
                {
                    return Err(err(format!("bad version name {v:?}")));
                }
                if !seen.insert((name.to_string(), version.clone())) {
                    return Err(err(format!("{spec} is listed twice")));
                }
                module.symbols.push(MapSymbol {
                    name: name.to_string(),
                    version,
                    data,
                    line,
                });
            }
        }
        for a in &map.aliases {
            for m in &a.modules {
                if !map.modules.iter().any(|x| &x.soname == m) {
                    return Err(MapError {
                        line: 0,
                        message: format!("-l{} names {m:?}, which has no section", a.lib),
                    });
                }
            }
        }
        Ok(map)
    }

    /// The module section for `soname`.
    pub fn module(&self, soname: &str) -> Option<&MapModule> {
        self.modules.iter().find(|m| m.soname == soname)
    }

    /// The Rust source of a module's stub (assembled by rustc): one symbol per
    /// entry, each a trap, so a stub is never mistaken for the real library.
    pub fn stub_source(&self, module: &MapModule) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// Generated by `ps5-tool stubs` from ps5/sysmap.txt: link-time stand-in for {}.\n\
             // The payload never calls into it; its start-up code resolves these symbols\n\
             // in the console's module by NID.\n#![no_std]\ncore::arch::global_asm!(",
            module.soname
        );
        for (i, sym) in module.symbols.iter().enumerate() {
            let local = format!("__cellport_stub_{i}");
            let label = if sym.version.is_some() {
                local.as_str()
            } else {
                sym.name.as_str()
            };
            if sym.data {
                let _ = writeln!(
                    s,
                    "    \".pushsection .data\", \".balign 8\", \".globl {label}\", \
                     \".type {label},@object\", \".size {label},8\", \"{label}:\", \".quad 0\", \
                     \".popsection\","
                );
            } else {
                let _ = writeln!(
                    s,
                    "    \".globl {label}\", \".type {label},@function\", \"{label}:\", \"ud2\","
                );
            }
            if let Some(v) = &sym.version {
                let _ = writeln!(s, "    \".symver {local}, {}@{v}\",", sym.name);
            }
        }
        s.push_str(");\n");
        s
    }

    /// The version script of a module's stub: the non-default versions,
    /// then the module's own version for everything else.
    pub fn stub_version_script(&self, module: &MapModule) -> String {
        let versions: BTreeSet<&str> = module
            .symbols
            .iter()
            .filter_map(|s| s.version.as_deref())
            .collect();
        let mut s = String::from("/* Generated by `ps5-tool stubs` from ps5/sysmap.txt. */\n");
        for v in versions {
            let _ = writeln!(s, "{v} {{ }};");
        }
        let _ = writeln!(
            s,
            "{} {{ global: *; local: __cellport_stub_*; }};",
            module.stem()
        );
        s
    }

    /// The linker script standing for `-l<alias.lib>`.
    pub fn alias_script(&self, alias: &LinkAlias) -> String {
        let mut s = format!(
            "/* Generated by `ps5-tool stubs` from ps5/sysmap.txt: -l{} on the PS5. */\n",
            alias.lib
        );
        if alias.modules.is_empty() {
            s.push_str("/* No console counterpart: nothing to link. */\n");
        } else {
            let files: Vec<String> = alias
                .modules
                .iter()
                .filter_map(|m| self.module(m))
                .map(MapModule::stub_file)
                .collect();
            let _ = writeln!(s, "INPUT({})", files.join(" "));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
# comment
[libkernel.sprx]
__error
fstat@FBSD_1.0     # ABI shim target
[libSceLibcInternal.sprx]
malloc
environ data
-lc = libSceLibcInternal.sprx libkernel.sprx
-lgcc_s =
";

    #[test]
    fn parses_sample() {
        let m = SymbolMap::parse(SAMPLE).unwrap();
        assert_eq!(m.modules.len(), 2);
        let k = &m.modules[0];
        assert_eq!(k.soname, "libkernel.sprx");
        assert_eq!(k.stub_file(), "libkernel.so");
        assert_eq!(k.symbols[1].name, "fstat");
        assert_eq!(k.symbols[1].version.as_deref(), Some("FBSD_1.0"));
        assert!(m.modules[1].symbols[1].data);
        assert_eq!(m.aliases[0].modules.len(), 2);
        assert!(m.aliases[1].modules.is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        let e = SymbolMap::parse("malloc\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = SymbolMap::parse("[libSceNope.sprx]\n").unwrap_err();
        assert!(e.message.contains("MODULES"), "{e}");
        let e = SymbolMap::parse("[libkernel.sprx]\nfoo\nfoo\n").unwrap_err();
        assert_eq!(e.line, 3);
        let e = SymbolMap::parse("[libkernel.sprx]\nfoo bar\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = SymbolMap::parse("[libkernel.sprx]\nfo-o\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = SymbolMap::parse("[libkernel.sprx]\nfoo@\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = SymbolMap::parse("-lc = libSceLibcInternal.sprx\n").unwrap_err();
        assert!(e.message.contains("no section"), "{e}");
    }

    #[test]
    fn stub_sources() {
        let m = SymbolMap::parse(SAMPLE).unwrap();
        let src = m.stub_source(&m.modules[0]);
        assert!(src.contains("\".globl __error\""), "{src}");
        assert!(
            src.contains(".symver __cellport_stub_1, fstat@FBSD_1.0"),
            "{src}"
        );
        assert!(!src.contains(".globl fstat\""), "{src}");
        let ver = m.stub_version_script(&m.modules[0]);
        assert!(ver.contains("FBSD_1.0 { };"), "{ver}");
        assert!(
            ver.contains("libkernel { global: *; local: __cellport_stub_*; };"),
            "{ver}"
        );
        let data = m.stub_source(&m.modules[1]);
        assert!(data.contains(".type environ,@object"), "{data}");
        assert!(
            m.alias_script(&m.aliases[0])
                .contains("INPUT(libSceLibcInternal.so libkernel.so)")
        );
        assert!(!m.alias_script(&m.aliases[1]).contains("INPUT"));
    }
}
