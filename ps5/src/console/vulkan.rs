//! The Vulkan driver's entry point, without dlopen: supplied at link time
//! (a driver static library linked into the payload defines
//! `vkGetInstanceProcAddr`; `./x ps5 --vulkan-driver LIB.a`), else taken by
//! NID from a module the settings name (`vulkan_module`), opened with
//! `sceKernelLoadStartModule`.

use super::rt;
use ash::vk;
use std::ffi::CString;
use std::path::Path;

unsafe extern "C" {
    /// The driver's entry point when a driver library is linked in; null
    /// (weak) when none is.
    #[linkage = "extern_weak"]
    static vkGetInstanceProcAddr: Option<vk::PFN_vkGetInstanceProcAddr>;
}

/// Where the entry point came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntrySource {
    /// Linked into the payload.
    Linked,
    /// Looked up by NID in a module.
    Module(String),
}

/// Why there is no Vulkan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryError {
    /// No driver linked in and no `vulkan_module` setting.
    NoDriver,
    /// The module did not open.
    ModuleNotOpened {
        /// The module.
        path: String,
        /// The console's error code.
        code: i32,
    },
    /// The module does not export `vkGetInstanceProcAddr`.
    NoEntryPoint {
        /// The module.
        path: String,
    },
}

impl std::fmt::Display for EntryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntryError::NoDriver => f.write_str(
                "no Vulkan driver: link one in (./x ps5 --vulkan-driver LIB.a) \
                 or name a driver module in the settings (vulkan_module)",
            ),
            EntryError::ModuleNotOpened { path, code } => {
                write!(
                    f,
                    "cannot open the Vulkan driver module {path}: {:#010x}",
                    *code as u32
                )
            }
            EntryError::NoEntryPoint { path } => {
                write!(f, "{path} does not export vkGetInstanceProcAddr")
            }
        }
    }
}

impl std::error::Error for EntryError {}

/// The driver's entry point as an ash `Entry`.
pub fn entry(vulkan_module: Option<&Path>) -> Result<(ash::Entry, EntrySource), EntryError> {
    // SAFETY: reading the weak symbol's address (null when not linked).
    if let Some(f) = unsafe { vkGetInstanceProcAddr } {
        // SAFETY: the linked driver's vkGetInstanceProcAddr.
        let e = unsafe {
            ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: f,
            })
        };
        return Ok((e, EntrySource::Linked));
    }
    let path = vulkan_module.ok_or(EntryError::NoDriver)?;
    let shown = path.display().to_string();
    let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
        EntryError::ModuleNotOpened {
            path: shown.clone(),
            code: -1,
        }
    })?;
    let handle = rt::load_module(&c).map_err(|code| EntryError::ModuleNotOpened {
        path: shown.clone(),
        code,
    })?;
    let addr =
        rt::dlsym(handle, c"vkGetInstanceProcAddr").ok_or_else(|| EntryError::NoEntryPoint {
            path: shown.clone(),
        })?;
    // SAFETY: the module's vkGetInstanceProcAddr, which has this type.
    let f = unsafe { core::mem::transmute::<usize, vk::PFN_vkGetInstanceProcAddr>(addr) };
    // SAFETY: as above.
    let e = unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: f,
        })
    };
    Ok((e, EntrySource::Module(shown)))
}
