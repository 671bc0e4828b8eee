//! The console's system libraries the payload may import from, and how the
//! start-up code gets a handle to each.
//!
//! Facts from ../shared/FACTS.md and the public payload SDK
//! (`ps5-payload-dev/sdk`, `crt/rtld_sprx.c`): libkernel (and its aliases
//! libdl, libpthread) is handle 0x1 in a process started by the loader, or
//! 0x2001 inside a hijacked process; libSceLibcInternal is handle 0x2; a
//! system module with a sysmodule id is loaded with
//! `sceSysmoduleLoadModuleInternal(id)` and then opened with
//! `sceKernelLoadStartModule(path)`, which returns the handle of the
//! already loaded module; any other module is opened by path, trying the
//! four system library folders in order.

use core::ffi::CStr;

/// How the start-up code obtains a module's handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadMethod {
    /// libkernel: handle 0x1, or 0x2001 where 0x1 does not answer.
    Libkernel,
    /// libSceLibcInternal: handle 0x2.
    LibcInternal,
    /// `sceSysmoduleLoadModuleInternal(id)`, then `sceKernelLoadStartModule`
    /// by path for the handle.
    Sysmodule(u32),
    /// `sceKernelLoadStartModule` by path.
    Path,
}

/// A module the payload may import from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleSpec {
    /// Its file name (what `DT_NEEDED` names).
    pub soname: &'static str,
    /// How to get its handle.
    pub method: LoadMethod,
}

/// libkernel's handle in a process the loader started.
pub const LIBKERNEL_HANDLE: i32 = 0x1;
/// libkernel's handle inside a hijacked process (libkernel_web / _sys).
pub const LIBKERNEL_HANDLE_ALT: i32 = 0x2001;
/// libSceLibcInternal's handle.
pub const LIBC_HANDLE: i32 = 0x2;

/// The system library folders, in the order modules are searched.
pub const LIBRARY_DIRS: [&str; 4] = [
    "/system/common/lib",
    "/system/priv/lib",
    "/system_ex/common_ex/lib",
    "/system_ex/priv_ex/lib",
];

/// The module that provides `sceSysmoduleLoadModuleInternal`; opened by path.
pub const SYSMODULE_PATH: &CStr = c"/system/common/lib/libSceSysmodule.sprx";

/// Every module the payload may name in `DT_NEEDED`. Sysmodule ids are from
/// the public SDK's table (`crt/rtld_sprx.c`); libSceVideoOut's is also in
/// FACTS.md. A `DT_NEEDED` not listed here fails start-up with its name.
pub const MODULES: &[ModuleSpec] = &[
    ModuleSpec {
        soname: "libkernel.sprx",
        method: LoadMethod::Libkernel,
    },
    ModuleSpec {
        soname: "libkernel_web.sprx",
        method: LoadMethod::Libkernel,
    },
    ModuleSpec {
        soname: "libkernel_sys.sprx",
        method: LoadMethod::Libkernel,
    },
    ModuleSpec {
        soname: "libSceLibcInternal.sprx",
        method: LoadMethod::LibcInternal,
    },
    ModuleSpec {
        soname: "libSceSysmodule.sprx",
        method: LoadMethod::Path,
    },
    ModuleSpec {
        soname: "libSceVideoOut.sprx",
        method: LoadMethod::Sysmodule(0x8000_0022),
    },
    ModuleSpec {
        soname: "libSceSystemService.sprx",
        method: LoadMethod::Sysmodule(0x8000_0010),
    },
    ModuleSpec {
        soname: "libSceUserService.sprx",
        method: LoadMethod::Sysmodule(0x8000_0011),
    },
    ModuleSpec {
        soname: "libScePad.sprx",
        method: LoadMethod::Sysmodule(0x8000_0024),
    },
    ModuleSpec {
        soname: "libSceAudioOut.sprx",
        method: LoadMethod::Sysmodule(0x8000_0001),
    },
    ModuleSpec {
        soname: "libSceAppInstUtil.sprx",
        method: LoadMethod::Sysmodule(0x8000_0014),
    },
    ModuleSpec {
        soname: "libSceNet.sprx",
        method: LoadMethod::Sysmodule(0x8000_001c),
    },
];

/// The module named `soname`, if the payload may import from it.
pub fn spec(soname: &[u8]) -> Option<&'static ModuleSpec> {
    MODULES.iter().find(|m| m.soname.as_bytes() == soname)
}

/// Whether `soname` is one of the two modules every process has loaded
/// (libkernel, libSceLibcInternal): the fallbacks when a symbol is not where
/// the symbol map says.
pub fn is_system(soname: &[u8]) -> bool {
    spec(soname)
        .is_some_and(|m| matches!(m.method, LoadMethod::Libkernel | LoadMethod::LibcInternal))
}

/// Writes `dir/soname` and a NUL into `buf` and returns it as a C string, or
/// `None` when it does not fit. Allocation-free: the start-up code uses it
/// before the allocator is linked.
pub fn module_path<'a>(dir: &str, soname: &str, buf: &'a mut [u8]) -> Option<&'a CStr> {
    let len = dir.len() + 1 + soname.len();
    if len + 1 > buf.len() || soname.contains('/') || soname.is_empty() {
        return None;
    }
    buf[..dir.len()].copy_from_slice(dir.as_bytes());
    buf[dir.len()] = b'/';
    buf[dir.len() + 1..len].copy_from_slice(soname.as_bytes());
    buf[len] = 0;
    CStr::from_bytes_with_nul(&buf[..=len]).ok()
}

/// A symbol the start-up code looks up itself, before it links the
/// payload's imports (listed by `./x ps5 imports` with the imports).
#[derive(Debug, Clone, Copy)]
pub struct StartupSymbol {
    /// The module it is looked up in.
    pub module: &'static str,
    /// Its name.
    pub name: &'static str,
    /// What the start-up code uses it for.
    pub purpose: &'static str,
}

/// Every symbol the start-up code resolves for itself.
pub const STARTUP_SYMBOLS: &[StartupSymbol] = &[
    StartupSymbol {
        module: "libkernel.sprx",
        name: "sceKernelDlsym",
        purpose: "probe which handle libkernel has (0x1 or 0x2001)",
    },
    StartupSymbol {
        module: "libkernel.sprx",
        name: "sceKernelDebugOutText",
        purpose: "start-up messages to the kernel log",
    },
    StartupSymbol {
        module: "libkernel.sprx",
        name: "sceKernelLoadStartModule",
        purpose: "open modules by path",
    },
    StartupSymbol {
        module: "libSceSysmodule.sprx",
        name: "sceSysmoduleLoadModuleInternal",
        purpose: "load system modules by id",
    },
    StartupSymbol {
        module: "libSceLibcInternal.sprx",
        name: "exit",
        purpose: "end the process after main (flushes C stdio)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_modules() {
        assert_eq!(
            spec(b"libkernel.sprx").unwrap().method,
            LoadMethod::Libkernel
        );
        assert_eq!(
            spec(b"libSceLibcInternal.sprx").unwrap().method,
            LoadMethod::LibcInternal
        );
        assert_eq!(
            spec(b"libSceVideoOut.sprx").unwrap().method,
            LoadMethod::Sysmodule(0x8000_0022),
            "FACTS.md: libSceVideoOut = 0x80000022"
        );
        assert!(spec(b"libSceNope.sprx").is_none());
        assert!(is_system(b"libkernel.sprx"));
        assert!(is_system(b"libSceLibcInternal.sprx"));
        assert!(!is_system(b"libSceVideoOut.sprx"));
    }

    #[test]
    fn soname_unique() {
        for (i, a) in MODULES.iter().enumerate() {
            for b in &MODULES[i + 1..] {
                assert_ne!(a.soname, b.soname);
            }
        }
    }

    #[test]
    fn paths() {
        let mut buf = [0u8; 64];
        let p = module_path(LIBRARY_DIRS[0], "libSceVideoOut.sprx", &mut buf).unwrap();
        assert_eq!(p.to_bytes(), b"/system/common/lib/libSceVideoOut.sprx");
        let mut small = [0u8; 20];
        assert!(module_path(LIBRARY_DIRS[0], "libSceVideoOut.sprx", &mut small).is_none());
        assert!(module_path(LIBRARY_DIRS[0], "../x", &mut buf).is_none());
        assert!(module_path(LIBRARY_DIRS[0], "", &mut buf).is_none());
        // Exactly fitting, NUL included.
        let mut exact = [0u8; 7];
        assert_eq!(
            module_path("/a", "bcd", &mut exact).unwrap().to_bytes(),
            b"/a/bcd"
        );
    }
}
