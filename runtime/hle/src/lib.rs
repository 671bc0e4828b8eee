//! The PS3 system modules, in Rust, for recompiled and interpreted PPU
//! code.
//!
//! Each function is registered under its module's name and its FNID (the
//! first four bytes of SHA-1 of its name and a fixed suffix, read
//! little-endian; [`fnid`]). [`HleRuntime`] implements [`lv2::Hle`]: when
//! a process boots, every import stub's slot gets the descriptor of the
//! function registered for its (module, FNID). An import nothing
//! implements gets an index too; the first time it is called it is named
//! (module, function name when known, FNID) and it returns
//! `CELL_ENOSYS` instead of crashing.
//!
//! Functions are ordinary Rust functions whose parameters are read from
//! r3..r10 and f1.. by their types ([`args`]); guest pointers are checked
//! ([`args::Ptr`] with [`lv2::Vm`]: a bad one is `CELL_EFAULT`).
//!
//! Modules: sysPrxForUser ([`modules::prx`]), sys_fs ([`modules::fs`]),
//! cellSysutil with cellVideoOut ([`modules::sysutil`]), sys_io's cellPad
//! ([`modules::pad`]) and cellGcmSys ([`modules::gcm`], with the FIFO
//! processor of the `rsx` crate). [`runner`] boots and runs an executable
//! on the interpreter; [`personality`] is what a recompiled PS3 program's
//! `main` uses (the LV2 personality of `recomp-rt`).

pub mod args;
pub mod modules;
pub mod names;
pub mod personality;
pub mod printf;
pub mod runner;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use lv2::{CellError, Exit, GuestThread, Process, Ret};

pub use args::{Handler, HleArg, IntoRet, Ptr};
pub use personality::{personality, with_functions};

/// The FNID of a function name (FACTS.md: SHA-1 of the name and
/// `67 59 65 99 04 25 04 90 56 64 27 49 94 89 74 1A`, first four bytes
/// little-endian).
pub fn fnid(name: &str) -> u32 {
    ppu_elf::fnid(name)
}

/// What an HLE function sees: the calling thread and the modules' state.
pub struct Cx<'a> {
    /// The calling thread (registers, process, checked memory).
    pub t: &'a mut GuestThread,
    /// The runtime.
    pub rt: &'a HleRuntime,
}

impl Cx<'_> {
    /// The process.
    pub fn process(&self) -> Arc<Process> {
        self.t.process.clone()
    }
}

type Dyn = Arc<dyn Fn(&mut Cx<'_>) -> lv2::SysResult + Send + Sync>;

/// One registered function.
#[derive(Clone)]
struct Func {
    module: String,
    name: Option<String>,
    fnid: u32,
    handler: Option<Dyn>,
}

/// Functions by (module, FNID).
#[derive(Default)]
pub struct Registry {
    funcs: Vec<Func>,
    by_key: HashMap<(String, u32), u32>,
}

impl Registry {
    /// Registers `f` as `module::name`.
    pub fn add<Args, F: Handler<Args>>(&mut self, module: &str, name: &str, f: F) {
        self.add_fnid(module, fnid(name), Some(name), f);
    }

    /// Registers `f` under an FNID whose name is not known.
    pub fn add_fnid<Args, F: Handler<Args>>(
        &mut self,
        module: &str,
        fnid: u32,
        name: Option<&str>,
        f: F,
    ) {
        let handler: Dyn = Arc::new(move |cx: &mut Cx<'_>| f.call(cx));
        let key = (module.to_owned(), fnid);
        let func = Func {
            module: module.to_owned(),
            name: name.map(str::to_owned),
            fnid,
            handler: Some(handler),
        };
        match self.by_key.get(&key) {
            Some(&i) => self.funcs[i as usize] = func,
            None => {
                self.by_key.insert(key, self.funcs.len() as u32);
                self.funcs.push(func);
            }
        }
    }

    /// Whether `module::fnid` has an implementation.
    pub fn is_implemented(&self, module: &str, fnid: u32) -> bool {
        self.by_key
            .get(&(module.to_owned(), fnid))
            .is_some_and(|&i| self.funcs[i as usize].handler.is_some())
    }

    /// How many functions are implemented.
    pub fn implemented(&self) -> usize {
        self.funcs.iter().filter(|f| f.handler.is_some()).count()
    }

    fn resolve(&mut self, module: &str, fnid: u32) -> u32 {
        let key = (module.to_owned(), fnid);
        if let Some(&i) = self.by_key.get(&key) {
            return i;
        }
        let i = self.funcs.len() as u32;
        self.by_key.insert(key, i);
        self.funcs.push(Func {
            module: module.to_owned(),
            name: names::lookup(fnid).map(str::to_owned),
            fnid,
            handler: None,
        });
        i
    }
}

/// The modules' state.
#[derive(Default)]
pub struct Modules {
    /// sysPrxForUser.
    pub prx: modules::prx::State,
    /// cellSysutil and cellVideoOut.
    pub sysutil: modules::sysutil::State,
    /// cellPad.
    pub pad: modules::pad::State,
    /// cellGcmSys.
    pub gcm: modules::gcm::State,
}

/// Options the host gives the modules.
#[derive(Default)]
pub struct HostHooks {
    /// Where flipped display buffers go (host-sim's present loop); none:
    /// flips are counted and dropped.
    pub frame_sink: Option<Arc<dyn rsx::FrameSink>>,
    /// The pad script for headless runs (`FRAME:BUTTONS;...`), instead of
    /// `CELLPORT_PAD_SCRIPT`.
    pub pad_script: Option<String>,
}

/// The HLE side of a process: the registry and the modules' state.
pub struct HleRuntime {
    registry: Mutex<Registry>,
    funcs: OnceLock<Vec<Func>>,
    /// The modules' state.
    pub modules: Modules,
    /// What the host provides.
    pub hooks: HostHooks,
    process: OnceLock<Weak<Process>>,
    me: Weak<HleRuntime>,
}

impl HleRuntime {
    /// A runtime with every module registered.
    pub fn new(hooks: HostHooks) -> Arc<HleRuntime> {
        let mut r = Registry::default();
        modules::register_all(&mut r);
        let modules = Modules::default();
        let callback = r.resolve("cellGcmSys", fnid("cellGcmCallback"));
        modules::gcm::set_callback_index(&modules.gcm, callback);
        Arc::new_cyclic(|me| HleRuntime {
            registry: Mutex::new(r),
            funcs: OnceLock::new(),
            modules,
            hooks,
            process: OnceLock::new(),
            me: me.clone(),
        })
    }

    /// This runtime as an `Arc` (for threads the modules start).
    pub fn self_arc(&self) -> Arc<HleRuntime> {
        self.me
            .upgrade()
            .expect("the runtime lives while its functions run")
    }

    /// Tells the runtime which process it serves (after boot).
    pub fn attach(&self, process: &Arc<Process>) {
        let _ = self.process.set(Arc::downgrade(process));
    }

    /// The process it serves, once attached.
    pub fn process(&self) -> Option<Arc<Process>> {
        self.process.get().and_then(Weak::upgrade)
    }

    /// How many functions are implemented.
    pub fn implemented(&self) -> usize {
        lv2::sync::lock(&self.registry).implemented()
    }

    /// Whether `module::fnid` has an implementation.
    pub fn is_implemented(&self, module: &str, fnid: u32) -> bool {
        lv2::sync::lock(&self.registry).is_implemented(module, fnid)
    }

    fn funcs(&self) -> &Vec<Func> {
        self.funcs
            .get_or_init(|| lv2::sync::lock(&self.registry).funcs.clone())
    }
}

impl lv2::Hle for HleRuntime {
    fn resolve(&self, module: &str, fnid: u32) -> u32 {
        assert!(
            self.funcs.get().is_none(),
            "imports resolved after the first call"
        );
        lv2::sync::lock(&self.registry).resolve(module, fnid)
    }

    fn call(&self, index: u32, t: &mut GuestThread) -> Result<(), Exit> {
        let Some(f) = self.funcs().get(index as usize) else {
            let p = t.process.clone();
            return Err(p.guest_error(
                t,
                lv2::exec::STATUS_GUEST_FAULT,
                &format!("call to HLE function {index}, which was never bound"),
            ));
        };
        let r = match &f.handler {
            Some(h) => {
                let mut cx = Cx { t, rt: self };
                h(&mut cx)
            }
            None => {
                let d = self.describe(index);
                t.process.report_once(0x1_0000_0000 | u64::from(index), || {
                    format!(
                        "unimplemented import {d} called from {:#010x}: returns CELL_ENOSYS",
                        t.ctx.lr
                    )
                });
                Err(Ret::Err(CellError::ENOSYS))
            }
        };
        match r {
            Ok(v) => t.ctx.gpr[3] = v,
            Err(Ret::Err(e)) => t.ctx.gpr[3] = e.to_r3(),
            Err(Ret::Exit(x)) => return Err(x),
        }
        Ok(())
    }

    fn describe(&self, index: u32) -> String {
        let funcs = match self.funcs.get() {
            Some(f) => f.clone(),
            None => lv2::sync::lock(&self.registry).funcs.clone(),
        };
        match funcs.get(index as usize) {
            Some(f) => format!(
                "{}::{} (FNID {:#010X})",
                f.module,
                f.name.as_deref().unwrap_or("?"),
                f.fnid
            ),
            None => format!("HLE function {index}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnid_vectors_from_facts() {
        assert_eq!(fnid("sys_process_exit"), 0xE6F2_C1E7);
        assert_eq!(fnid("_sys_printf"), 0x9F04_F7AF);
        assert_eq!(fnid("cellSysutilCheckCallback"), 0x189A_74DA);
    }

    #[test]
    fn unknown_imports_get_their_own_index_and_a_name() {
        let rt = HleRuntime::new(HostHooks::default());
        use lv2::Hle;
        let a = rt.resolve("cellFoo", 0x1234_5678);
        let b = rt.resolve("cellFoo", 0x1234_5678);
        let c = rt.resolve("sysPrxForUser", fnid("sys_process_exit"));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(rt.describe(a), "cellFoo::? (FNID 0x12345678)");
        assert_eq!(
            rt.describe(c),
            "sysPrxForUser::sys_process_exit (FNID 0xE6F2C1E7)"
        );
        let d = rt.resolve("cellGcmSys", fnid("cellGcmSetFlipImmediate"));
        assert!(
            rt.describe(d).contains("cellGcmSetFlipImmediate"),
            "names of unimplemented imports come from the catalogue"
        );
    }
}
