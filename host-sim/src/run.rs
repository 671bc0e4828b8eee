//! One host-sim run: the title's frames through the present loop onto the
//! simulated VideoOut display, for a number of seconds of display clock.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use framegen_dump::{DumpWriter, WriterConfig};
use framegen_present::{
    Display, Mode, PresentConfig, PresentLoop, RunTotals, Status, VideoOutSettings,
};
use platform::Platform;
use platform::host::HostPlatform;
use serde_json::json;
use titles::demo::{DemoTiming, DemoTitle, DemoTitleOptions};
use titles::scene::{BuiltinScene, SceneOptions};
use titles::{GameLoop, GameRate, Title, multiplier_for};

use crate::modes::{self, Declaration};
use crate::videoout::{Clock, Profile, SimVideoOut};
use crate::vulkan::Gpu;
use crate::window::Window;

/// Which title a run shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TitleChoice {
    /// The recompiled PS3 demo (runtime/demo): lifted PPU code on LV2 and
    /// the HLE modules, 1280x720 at 30 fps, steered by the pad.
    Demo,
    /// The built-in scene: a compute shader at any rate and size, with cuts.
    Scene,
}

impl TitleChoice {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TitleChoice::Demo => "demo",
            TitleChoice::Scene => "scene",
        }
    }
}

/// Dump images are at most this wide unless a scale is given.
pub const AUTO_DUMP_WIDTH: u32 = 480;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// The title.
    pub title: TitleChoice,
    /// The demo on the interpreter instead of its lifted code.
    pub interpreter: bool,
    /// The demo's pad script (`FRAME:BUTTONS[:LX,LY];...`); `None`: the
    /// window's keyboard with `window`, else `demo::DEFAULT_PAD_SCRIPT`.
    pub pad_script: Option<String>,
    /// Keys typed into the window by game frame (`--window-keys`).
    pub window_keys: Option<crate::keys::KeyScript>,
    /// Seconds of display clock to run.
    pub seconds: f64,
    /// Display size.
    pub display_size: (u32, u32),
    /// Display rate asked for (`None`: the first offered).
    pub display_hz: Option<f64>,
    /// The driver profile (swapchain images).
    pub profile: Profile,
    /// The game's rate.
    pub game_fps: GameRate,
    /// The game's picture size.
    pub game_size: (u32, u32),
    /// The multiplier (2 to 4); `None`: enough to give every refresh a
    /// picture of its own ([`titles::multiplier_for`]).
    pub multiplier: Option<u8>,
    /// Frame generation on.
    pub framegen: bool,
    /// Virtual time (deterministic) instead of real time.
    pub virtual_time: bool,
    /// Open an X11 window mirroring the display.
    pub window: bool,
    /// Write the flagged dump here.
    pub dump: Option<PathBuf>,
    /// Dump images are the display size divided by this (`None`: at most
    /// [`AUTO_DUMP_WIDTH`] wide).
    pub dump_scale: Option<u32>,
    /// The dump writer's queue, in records.
    pub queue_records: usize,
    /// The title's param.json.
    pub param_json: PathBuf,
    /// The game's colour settings.
    pub settings: VideoOutSettings,
    /// A cut every this many seconds of game time (0: none).
    pub cut_every_s: f64,
    /// A status line every this many seconds (0: none).
    pub status_every_s: f64,
    /// The Vulkan device (index or part of its name).
    pub device: Option<String>,
    /// Draw the frame counter.
    pub frame_counter: bool,
    /// The interpolator's final flow level (`None`: its choice).
    pub flow_level: Option<u32>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            title: TitleChoice::Demo,
            interpreter: false,
            pad_script: None,
            window_keys: None,
            seconds: 5.0,
            display_size: (3840, 2160),
            display_hz: None,
            profile: Profile::Radv,
            game_fps: GameRate::Fixed(60.0),
            game_size: (1280, 720),
            multiplier: None,
            framegen: true,
            virtual_time: false,
            window: false,
            dump: None,
            dump_scale: None,
            queue_records: framegen_dump::writer::DEFAULT_QUEUE_RECORDS,
            param_json: modes::default_param_json(),
            settings: VideoOutSettings::default(),
            cut_every_s: 4.0,
            status_every_s: 5.0,
            device: None,
            frame_counter: true,
            flow_level: None,
        }
    }
}

impl RunOptions {
    /// The dump's downscale factor.
    pub fn dump_scale(&self) -> u32 {
        self.dump_scale
            .unwrap_or_else(|| self.display_size.0.div_ceil(AUTO_DUMP_WIDTH))
            .max(1)
    }
}

/// A picture read back: width, height, RGBA8 pixels.
pub type Grab = (u32, u32, Vec<u8>);

/// What a run did.
pub struct RunOutcome {
    /// The present loop's totals.
    pub totals: RunTotals,
    /// The mode presented in.
    pub mode: Mode,
    /// The modes offered.
    pub offered: Vec<Mode>,
    /// Why those modes (param.json).
    pub modes_why: String,
    /// Why the requested rate was not used, if it was not.
    pub mode_warning: Option<String>,
    /// The Vulkan device and driver.
    pub device: String,
    /// The title's description.
    pub title: serde_json::Value,
    /// How the title ended (its `Title::end`).
    pub title_end: serde_json::Value,
    /// The multiplier used.
    pub multiplier: u8,
    /// Wall-clock seconds the run took.
    pub wall_s: f64,
    /// Acquires, and those that waited for a refresh.
    pub acquires: (u64, u64),
    /// Pictures shown in the window, and the window read back at the end.
    pub window: Option<(u64, Grab)>,
    /// The interpolator's device memory, bytes.
    pub framegen_memory: Option<u64>,
    /// The dump's metadata.
    pub dump_meta: serde_json::Value,
}

/// The game frame rate of the title `opts` asks for, when it has one
/// (the demo: 29.97 fps; the scene: `--game-fps`).
pub fn title_fps(opts: &RunOptions) -> Option<f64> {
    match (opts.title, opts.game_fps) {
        (TitleChoice::Demo, _) => Some(demo::TICK_HZ / f64::from(titles::demo::STEP_TICKS)),
        (TitleChoice::Scene, GameRate::Fixed(f)) => Some(f),
        (TitleChoice::Scene, GameRate::Uneven) => None,
    }
}

/// The multiplier a run uses on a `display_hz` display: the one asked
/// for, else enough to give every refresh a picture of its own.
pub fn multiplier(opts: &RunOptions, display_hz: f64) -> u8 {
    opts.multiplier
        .unwrap_or_else(|| multiplier_for(display_hz, title_fps(opts).unwrap_or(60.0)))
}

/// The title host-sim runs. The demo gets `platform` (its pads: the
/// window's keyboard).
pub fn make_title(
    gpu: &Gpu,
    opts: &RunOptions,
    platform: Arc<dyn Platform>,
) -> Result<Box<dyn Title>> {
    Ok(match opts.title {
        TitleChoice::Scene => {
            let scene = SceneOptions {
                width: opts.game_size.0,
                height: opts.game_size.1,
                rate: opts.game_fps,
                cut_every_s: opts.cut_every_s,
                settings: opts.settings,
            };
            Box::new(BuiltinScene::new(
                &gpu.device,
                &gpu.memory_properties(),
                scene,
            )?)
        }
        TitleChoice::Demo => {
            let pad_script = match (&opts.pad_script, opts.window) {
                (Some(s), _) => Some(s.clone()),
                (None, true) => None,
                (None, false) => Some(demo::DEFAULT_PAD_SCRIPT.to_owned()),
            };
            Box::new(DemoTitle::start(
                &gpu.device,
                &gpu.memory_properties(),
                DemoTitleOptions {
                    lifted: !opts.interpreter,
                    pad_script,
                    platform: Some(platform),
                    fs_root: std::env::temp_dir().join("cellport-host-sim-fs"),
                    // A virtual clock stands still while the host works:
                    // the game's real flip times mean nothing there.
                    timing: if opts.virtual_time {
                        DemoTiming::GameSteps
                    } else {
                        DemoTiming::Measured
                    },
                    settings: opts.settings,
                    ..DemoTitleOptions::default()
                },
            )?)
        }
    })
}

/// The display mode chosen, the modes offered, the param.json's
/// declaration, and why the requested rate was not used (if it was not).
pub type ModeChoice = (Mode, Vec<Mode>, Declaration, Option<String>);

/// Reads the title's param.json and decides the display mode.
pub fn display_mode(opts: &RunOptions) -> Result<ModeChoice> {
    let decl = modes::read_declaration(&opts.param_json)?;
    let offered = modes::offered(opts.display_size.0, opts.display_size.1, &decl);
    let (mode, warning) = modes::choose(&offered, opts.display_hz, &decl);
    Ok((mode, offered, decl, warning))
}

/// Runs the title for `opts.seconds` of display clock. `on_status` gets
/// each status line.
pub fn run(opts: &RunOptions, on_status: &mut dyn FnMut(&Status)) -> Result<RunOutcome> {
    let wall = std::time::Instant::now();
    let (mode, offered, decl, mode_warning) = display_mode(opts)?;
    if let Some(w) = &mode_warning {
        log::warn!("{w}");
    }
    let gpu = Gpu::new(opts.device.as_deref(), opts.window)?;
    let props = gpu.memory_properties();
    let ctx = gpu.context();
    let device = format!("{} ({})", gpu.name, gpu.driver());
    let mut display = SimVideoOut::new(
        &gpu.device,
        &props,
        mode,
        offered.clone(),
        opts.profile,
        Clock::new(opts.virtual_time),
    )
    .context("the simulated display")?;
    let platform = Arc::new(HostPlatform::default());
    let mut title = make_title(&gpu, opts, platform.clone()).context("the title")?;
    let multiplier = multiplier(opts, mode.hz());
    let dump_meta = json!({
        "producer": format!("host-sim {}", env!("CARGO_PKG_VERSION")),
        "display": {
            "width": mode.width,
            "height": mode.height,
            "refresh_hz": mode.hz(),
            "profile": opts.profile.name(),
            "images": opts.profile.images(),
            "format": "B8G8R8A8_UNORM",
        },
        "modes_offered": offered.iter().map(|m| m.hz()).collect::<Vec<_>>(),
        "modes_why": decl.why(),
        "title": title.describe(),
        "framegen": opts.framegen,
        "multiplier": multiplier,
        "clock": if opts.virtual_time { "virtual" } else { "real" },
        "device": device,
        "dump_scale": opts.dump_scale(),
    });
    let writer = match &opts.dump {
        Some(p) => {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            Some(DumpWriter::create(
                p,
                &dump_meta,
                WriterConfig {
                    queue_records: opts.queue_records,
                    ..WriterConfig::default()
                },
            )?)
        }
        None => None,
    };
    let config = PresentConfig {
        framegen: opts.framegen,
        multiplier,
        frame_counter: opts.frame_counter,
        dump_scale: opts.dump_scale(),
        status_every_s: opts.status_every_s,
        flow_level: opts.flow_level,
    };
    let mut pl = PresentLoop::new(&ctx, &display, config, writer).context("the present loop")?;
    let framegen_memory = pl
        .framegen_memory()
        .map(|m| m.picture_bytes + m.working_bytes);
    let mut window = if opts.window {
        let (w, h) = window_size(mode.width, mode.height);
        let mut win = Window::new(&gpu, w, h, &format!("host-sim: {} {}", title.name(), mode))
            .context("--window")?;
        // The keyboard is pad 0 (see window.rs for the keys).
        win.set_pads(platform.clone());
        Some(win)
    } else {
        None
    };
    let mut game = GameLoop::new(&gpu.device, gpu.queue_family, gpu.queue)?;
    if let Some(w) = &mode_warning {
        pl.notify(&display, w, 5.0);
    }

    let result = (|| -> Result<RunTotals> {
        while display.now_s() < opts.seconds {
            if let (Some(win), Some(keys)) = (window.as_mut(), &opts.window_keys) {
                win.type_keys(keys, game.frames())?;
            }
            let Some(report) = game.frame(&mut *title, &mut pl, &mut display)? else {
                log::info!("the title ended at {:.2} s", display.now_s());
                break;
            };
            if let Some(s) = &report.status {
                on_status(s);
            }
            if let (Some(win), Some(img)) = (window.as_mut(), display.on_screen_image()) {
                win.show(img, mode.width, mode.height, false)?;
            }
        }
        Ok(pl.finish(&mut display)?)
    })();
    let window_out = match window.as_mut() {
        Some(win) => {
            if let Some(img) = display.on_screen_image() {
                win.show(img, mode.width, mode.height, true)?;
            }
            Some((win.shown, win.grab()?))
        }
        None => None,
    };
    drop(window);
    game.destroy();
    let totals = result?;
    let acquires = display.acquire_counts();
    let title_end = title.end();
    drop(title);
    drop(display);
    Ok(RunOutcome {
        totals,
        mode,
        offered,
        modes_why: decl.why(),
        mode_warning,
        device,
        title: dump_meta["title"].clone(),
        title_end,
        multiplier,
        wall_s: wall.elapsed().as_secs_f64(),
        acquires,
        window: window_out,
        framegen_memory,
        dump_meta,
    })
}

/// The window's size: the display's, scaled down to fit 1280x720.
pub fn window_size(w: u32, h: u32) -> (u32, u32) {
    let s = (1280.0 / f64::from(w)).min(720.0 / f64::from(h)).min(1.0);
    (
        ((f64::from(w) * s) as u32).max(1),
        ((f64::from(h) * s) as u32).max(1),
    )
}
