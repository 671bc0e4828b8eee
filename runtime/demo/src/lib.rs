//! The demo title: a small PS3 game (`guest/demo.c`, built by the guest
//! SDK into `guest/demo.elf`) recompiled to Rust (`lifted/`, by
//! `regen.sh`) and run on the LV2 runtime, its frames handed to the host.
//!
//! ```no_run
//! let demo = demo::Demo::start(demo::DemoOptions::default()).expect("start");
//! while let Some(f) = demo.next_frame(std::time::Duration::from_secs(1)) {
//!     // f.rgba: f.width x f.height RGBA pixels; f.ticks: 59.94 Hz ticks since the last frame
//! }
//! let status = demo.stop(std::time::Duration::from_secs(2));
//! ```
//!
//! The game draws a 1280x720 scene in software into a GCM display buffer
//! 30 times a second and flips it with cellGcm; the RSX FIFO processor
//! hands each flipped buffer to [`Demo::next_frame`]. The pad steers the
//! ship: the host's pads (a window's keyboard, a controller, through the
//! platform layer) or, headless, a pad script ([`DEFAULT_PAD_SCRIPT`]).
//! Frames queue up to [`DemoOptions::queue`]; a full queue holds the RSX,
//! and through the flip status the game, to the host's pace.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use hle::personality::GuestExit;
use hle::{HleRuntime, HostHooks};
use lv2::{ExitPolicy, Process};
use platform::Platform;
use platform::host::HostPlatform;

/// The demo's PS3 executable (built from `guest/demo.c` by `regen.sh`).
pub const ELF: &[u8] = include_bytes!("../guest/demo.elf");

/// The pad script of headless runs: the ship tours the screen, boosting
/// on the diagonals (game frames; see `hle::modules::pad`).
pub const DEFAULT_PAD_SCRIPT: &str =
    "0:;15:right;45:right+down+cross;75:down;105:left;135:left+up+cross;165:up;195:right;225:";

/// The rate of the clock frames are counted in (the PS3's vblank).
pub const TICK_HZ: f64 = 59.94;

/// How the demo runs.
#[derive(Clone)]
pub struct DemoOptions {
    /// Lifted code (the default) or the interpreter.
    pub lifted: bool,
    /// The pad script; `None`: the platform's pads (a window, a controller).
    pub pad_script: Option<String>,
    /// The sandbox folder for the game's files.
    pub fs_root: PathBuf,
    /// How many flipped frames may wait for the host.
    pub queue: usize,
    /// Quit after this many frames (the game's `--frames`).
    pub frames: Option<u32>,
    /// The platform (the host's by default); its pads steer the ship when
    /// there is no pad script.
    pub platform: Option<Arc<dyn Platform>>,
    /// How lifted guest code ends (unwinding where the build can, else
    /// parking the thread: the PS5 build).
    pub guest_exit: GuestExit,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            lifted: true,
            pad_script: Some(DEFAULT_PAD_SCRIPT.to_owned()),
            fs_root: std::env::temp_dir().join("cellport-demo-fs"),
            queue: 2,
            frames: None,
            platform: None,
            guest_exit: GuestExit::default(),
        }
    }
}

/// One frame of the game.
#[derive(Debug, Clone)]
pub struct DemoFrame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGBA, 8 bits a channel, rows top to bottom.
    pub rgba: Vec<u8>,
    /// Ticks of the 59.94 Hz clock since the previous frame (2 at 30 fps).
    pub ticks: u32,
    /// The flip's number (1 for the first).
    pub flip: u64,
}

struct Sink {
    tx: Mutex<SyncSender<rsx::Frame>>,
}

impl rsx::FrameSink for Sink {
    fn present(&self, frame: rsx::Frame) {
        let tx = self.tx.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // A host that stopped reading drops frames.
        let _ = tx.send(frame);
    }
}

#[derive(Default)]
struct Handles {
    process: Option<Arc<Process>>,
    hle: Option<Arc<HleRuntime>>,
    status: Option<i32>,
}

/// A running demo.
pub struct Demo {
    rx: Receiver<rsx::Frame>,
    handles: Arc<(Mutex<Handles>, std::sync::Condvar)>,
    last_time_us: Mutex<Option<u64>>,
    lifted: Option<hle::personality::LiftedProcess>,
}

/// The demo's lifted functions (the generated crates' tables), as
/// `hle::runner::start_lifted` takes them.
pub const FUNCTIONS: hle::personality::Functions = &[demo_elf_lifted_000::FUNCTIONS];

impl Demo {
    /// Boots the demo on its own threads.
    pub fn start(opts: DemoOptions) -> Result<Demo, String> {
        if let Some(s) = &opts.pad_script {
            hle::modules::pad::parse_script(s).map_err(|e| format!("pad script {s:?}: {e}"))?;
        }
        let (tx, rx) = sync_channel(opts.queue.max(1));
        let hooks = HostHooks {
            frame_sink: Some(Arc::new(Sink { tx: Mutex::new(tx) })),
            pad_script: opts.pad_script.clone(),
        };
        let platform: Arc<dyn Platform> = opts
            .platform
            .clone()
            .unwrap_or_else(|| Arc::new(HostPlatform::default()));
        let handles: Arc<(Mutex<Handles>, std::sync::Condvar)> = Arc::default();
        let mut args = Vec::new();
        if let Some(n) = opts.frames {
            args.extend(["--frames".to_owned(), n.to_string()]);
        }
        let run = hle::runner::RunOptions {
            args,
            fs_root: opts.fs_root.clone(),
            exit_policy: ExitPolicy::Record,
            hooks,
            ..hle::runner::RunOptions::default()
        };
        let name = std::path::Path::new("demo.elf");
        let (process, rt, lifted) = if opts.lifted {
            let (p, rt, lifted) = hle::runner::start_lifted(
                name,
                ELF.to_vec(),
                FUNCTIONS,
                opts.guest_exit,
                platform,
                run,
            )?;
            (p, rt, Some(lifted))
        } else {
            let (p, rt) = hle::runner::start(name, ELF.to_vec(), platform, run)?;
            (p, rt, None)
        };
        {
            let mut g = handles.0.lock().unwrap_or_else(|e| e.into_inner());
            g.process = Some(process.clone());
            g.hle = Some(rt);
        }
        let h3 = handles.clone();
        std::thread::Builder::new()
            .name("demo-wait".into())
            .spawn(move || {
                let status = process.wait();
                let mut g = h3.0.lock().unwrap_or_else(|e| e.into_inner());
                g.status = Some(status);
                h3.1.notify_all();
            })
            .map_err(|e| format!("starting the demo: {e}"))?;
        Ok(Demo {
            rx,
            handles,
            last_time_us: Mutex::new(None),
            lifted,
        })
    }

    /// The next frame the game flipped, waiting at most `timeout`; `None`
    /// when it has ended (and every frame it flipped was taken) or none
    /// came in time.
    pub fn next_frame(&self, timeout: Duration) -> Option<DemoFrame> {
        let deadline = std::time::Instant::now() + timeout;
        // In slices: a game whose threads park when it ends
        // (`GuestExit::Park`) never closes the channel.
        let f = loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.rx.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(f) => break f,
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {
                    if left.is_zero() {
                        return None;
                    }
                    if self.exit_status().is_some() {
                        // Frames flipped just before the end are still taken.
                        return self.rx.try_recv().ok().and_then(|f| self.frame(f));
                    }
                }
            }
        };
        self.frame(f)
    }

    fn frame(&self, f: rsx::Frame) -> Option<DemoFrame> {
        let mut last = self.last_time_us.lock().unwrap_or_else(|e| e.into_inner());
        let ticks = match *last {
            Some(prev) => ((f.time_us.saturating_sub(prev)) as f64 * TICK_HZ / 1e6)
                .round()
                .max(1.0) as u32,
            None => 2,
        };
        *last = Some(f.time_us);
        Some(DemoFrame {
            width: f.width,
            height: f.height,
            rgba: f.rgba,
            ticks,
            flip: f.flip,
        })
    }

    /// Asks the game to quit (the system's exit request, which it gets
    /// through its sysutil callback).
    pub fn request_exit(&self) {
        if let Some(rt) = &self.handles.0.lock().unwrap_or_else(|e| e.into_inner()).hle {
            rt.modules
                .sysutil
                .post(hle::modules::sysutil::REQUEST_EXITGAME, 0);
        }
    }

    /// How much ran on the interpreter (entries, instructions) in a lifted
    /// run, over every thread and callback; `None` on the interpreter.
    pub fn interpreted(&self) -> Option<(u64, u64)> {
        self.lifted.as_ref().map(|l| l.interpreted())
    }

    /// The game's exit status, once it has ended.
    pub fn exit_status(&self) -> Option<i32> {
        self.handles
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .status
    }

    /// Asks the game to quit and waits up to `timeout` for it; returns its
    /// status (`None`: it did not end in time).
    pub fn stop(&self, timeout: Duration) -> Option<i32> {
        self.request_exit();
        let deadline = std::time::Instant::now() + timeout;
        let mut g = self.handles.0.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(s) = g.status {
                return Some(s);
            }
            // Frames the game still flips must not hold it.
            while self.rx.try_recv().is_ok() {}
            let now = std::time::Instant::now();
            if now >= deadline {
                return None;
            }
            g = self
                .handles
                .1
                .wait_timeout(g, (deadline - now).min(Duration::from_millis(20)))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
