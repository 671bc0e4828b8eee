//! `host-sim`: run a title on the simulated PS5 display (`./x sim`), or the
//! soak benchmark (`./x bench sim-soak`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use framegen_dump::Info;
use framegen_present::VideoOutSettings;
use host_sim::keys::KeyScript;
use host_sim::modes::{default_param_json, parse_display};
use host_sim::outputs;
use host_sim::run::{self, RunOptions, TitleChoice};
use host_sim::videoout::Profile;
use titles::GameRate;

#[derive(Parser)]
#[command(
    name = "host-sim",
    version,
    about = "Run a title on a simulated PS5 display with the console's present loop and frame generation",
    long_about = "Runs a title through the console's present loop on lavapipe, against a simulated \
                  PS5 VideoOut display: one 3840x2160 display, 119.88 Hz (only when the title's \
                  param.json declares attribute3 0x80040) or 59.94 Hz, FIFO, 4 (radv) or 3 (ps5vk) \
                  swapchain images. Writes a flagged frame dump, a contact sheet, a timeline plot and \
                  a summary to an output folder.\n\n\
                  The title is the recompiled PS3 demo (runtime/demo: its PPU code lifted to Rust, \
                  on LV2 and the HLE modules; 1280x720 at 30 fps, its frames interpolated to fill \
                  every refresh: x4 at 119.88 Hz), steered by a pad script, or with --window by the \
                  keyboard (arrows, X to boost, Enter+Backspace quits). --title scene runs the \
                  built-in scene instead (any --game-fps, --game-size, cuts).\n\n\
                  With no arguments at all it makes a quick run: 2 s of virtual time at 480x270 \
                  (the same as `--seconds 2 --display 480x270 --virtual-time --status-every 0.5`; \
                  frame generation on lavapipe costs a few hundred ms a frame at 960x540). \
                  Otherwise the display is the console's 3840x2160 unless --display says otherwise, \
                  and the clock is real time unless --virtual-time.\n\n\
                  RUST_LOG=info shows what the present loop and the pacer log.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand)]
enum Cmd {
    /// The soak benchmark (`./x bench sim-soak`): a long real-time run that reports memory
    /// (resident set) over time and the dump's dropped records at the default queue size.
    Soak(SoakArgs),
}

#[derive(Args, Clone)]
struct RunArgs {
    /// The title: demo (the recompiled PS3 demo) or scene (the built-in scene).
    #[arg(long, value_enum, default_value_t = TitleChoice::Demo)]
    title: TitleChoice,
    /// Run the demo on the PPU interpreter instead of its lifted code (the reference).
    #[arg(long)]
    interpreter: bool,
    /// The demo's pad script, by game frame: FRAME:BUTTONS[:LX,LY];... (buttons: up, down,
    /// left, right, cross, circle, square, triangle, start, select, l1, r1 ... joined by +).
    /// Default: a tour of the screen; with --window the keyboard steers instead.
    #[arg(long)]
    pad_script: Option<String>,
    /// Types keys into the --window through the X server, by game frame: FRAME:KEY+KEY;...
    /// (each step holds exactly its keys; e.g. 10:Right+x;40:). For demonstrations and tests.
    #[arg(long, requires = "window")]
    window_keys: Option<KeyScript>,
    /// Seconds of display clock to run.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// The display: WxH, WxH@HZ or @HZ (e.g. 960x540@119.88). Default: 3840x2160 at the first
    /// rate offered (119.88 Hz when param.json declares it).
    #[arg(long)]
    display: Option<String>,
    /// The console driver's swapchain: radv (4 images) or ps5vk (3).
    #[arg(long, value_enum, default_value_t = Profile::Radv)]
    profile: Profile,
    /// The scene's frame rate: 30, 40, 60 (any rate), or 'uneven' (2, 3, 2, 2, 3 ticks of a
    /// 120 Hz clock). Default 60. (The demo runs at its own 30 fps.)
    #[arg(long)]
    game_fps: Option<GameRate>,
    /// The scene's picture size (scaled to the display, black borders for another aspect
    /// ratio). Default 1280x720. (The demo's is its own.)
    #[arg(long)]
    game_size: Option<String>,
    /// At most N-1 generated frames between two of the game's (2, 3 or 4). Default: enough to
    /// give every refresh a picture of its own (the demo's 30 fps at 119.88 Hz: 4; 60 fps: 2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=4))]
    multiplier: Option<u8>,
    /// No frame generation (the game's frames only).
    #[arg(long)]
    no_framegen: bool,
    /// Write the flagged frame dump here (default: dump.fgdump in the output folder).
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Write no dump (and no contact sheet).
    #[arg(long, conflicts_with = "dump")]
    no_dump: bool,
    /// Dump images are the display size divided by N (default: at most 480 pixels wide).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    dump_scale: Option<u32>,
    /// The dump writer's queue, in records (drops are counted when it is full).
    #[arg(long, default_value_t = framegen_dump::writer::DEFAULT_QUEUE_RECORDS)]
    dump_queue: usize,
    /// Virtual time: the display's clock moves only when the loop waits (deterministic; runs as
    /// fast as the machine allows).
    #[arg(long)]
    virtual_time: bool,
    /// Open an X11 window that mirrors the display.
    #[arg(long)]
    window: bool,
    /// The output folder (default: out/sim/run-DATE-TIME).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The title's param.json (attribute3 0x80040 offers 119.88 Hz). Default: sce_sys/param.json
    /// of this repository.
    #[arg(long)]
    param_json: Option<PathBuf>,
    /// The game's video-out gamma (each channel becomes c^gamma; PS3 games use 0.8 to 1.2).
    #[arg(long, default_value_t = 1.0)]
    gamma: f32,
    /// The game outputs limited-range RGB (16..235).
    #[arg(long)]
    limited_range: bool,
    /// The scene: a cut (new scene) every this many seconds of game time; 0: none. Default 4.
    #[arg(long)]
    cut_every: Option<f64>,
    /// A status line every this many seconds of display clock; 0: none.
    #[arg(long, default_value_t = 5.0)]
    status_every: f64,
    /// The Vulkan device: an index or a part of its name.
    #[arg(long)]
    device: Option<String>,
    /// No frame counter overlay.
    #[arg(long)]
    no_counter: bool,
    /// The interpolator's final optical-flow level: 0 (8x8-pixel blocks), 1 (16x16), 2 (32x32).
    /// Default: the interpolator's choice by size. Coarser is cheaper on lavapipe.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=2))]
    flow_level: Option<u32>,
}

#[derive(Args)]
struct SoakArgs {
    /// Minutes to run (real time).
    #[arg(long, default_value_t = 10.0)]
    minutes: f64,
    /// The display.
    #[arg(long, default_value = "960x540@119.88")]
    display: String,
    /// The game's frame rate.
    #[arg(long, default_value = "60")]
    game_fps: GameRate,
    /// The console driver's swapchain.
    #[arg(long, value_enum, default_value_t = Profile::Radv)]
    profile: Profile,
    /// Dump images are the display size divided by N (default 4: 240x135 at 960x540, to keep the
    /// file to a few GB over ten minutes).
    #[arg(long, default_value_t = 4)]
    dump_scale: u32,
    /// Seconds between memory samples and status lines.
    #[arg(long, default_value_t = 30.0)]
    every: f64,
    /// Keep the dump (it is deleted after the run otherwise).
    #[arg(long)]
    keep_dump: bool,
    /// The output folder (default: out/sim/soak-DATE-TIME).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The title's param.json.
    #[arg(long)]
    param_json: Option<PathBuf>,
    /// Only the dump writer, at the display's present rate (two records a frame of a 60 fps
    /// game at x2), with synthetic pictures of the dump's size: the writer at full rate, which
    /// a GPU-bound run on lavapipe does not reach.
    #[arg(long)]
    writer_only: bool,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let no_args = std::env::args_os().len() <= 1;
    let cli = Cli::parse();
    let r = match cli.cmd {
        Some(Cmd::Soak(a)) => soak(a),
        None => run_cmd(cli.run, no_args),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("host-sim: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Days since 1970-01-01 to (year, month, day) (proleptic Gregorian).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn stamp() -> String {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = civil(s.div_euclid(86_400));
    let t = s.rem_euclid(86_400);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

fn parse_size(s: &str, what: &str) -> Result<(u32, u32)> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .with_context(|| format!("{what} {s}: expected WxH"))?;
    let w: u32 = w
        .parse()
        .with_context(|| format!("{what} {s}: expected WxH"))?;
    let h: u32 = h
        .parse()
        .with_context(|| format!("{what} {s}: expected WxH"))?;
    if !(32..=16384).contains(&w) || !(32..=16384).contains(&h) {
        bail!("{what} {s}: sizes from 32x32 to 16384x16384");
    }
    Ok((w, h))
}

/// The quick run's display (no arguments): small, because frame
/// generation on lavapipe is slow (see README.md, Performance).
const QUICK_DISPLAY: (u32, u32) = (480, 270);
/// The quick run's length, seconds of virtual time.
const QUICK_SECONDS: f64 = 2.0;

fn options(a: &RunArgs, no_args: bool) -> Result<RunOptions> {
    let mut o = RunOptions::default();
    if no_args {
        o.display_size = QUICK_DISPLAY;
        o.virtual_time = true;
    }
    if let Some(d) = &a.display {
        let (size, hz) = parse_display(d).map_err(anyhow::Error::msg)?;
        if let Some(s) = size {
            o.display_size = s;
        }
        o.display_hz = hz;
    }
    if !(a.seconds.is_finite() && a.seconds > 0.0 && a.seconds <= 86_400.0) {
        bail!("--seconds {}: from above 0 to a day", a.seconds);
    }
    if !(a.gamma.is_finite() && (0.1..=4.0).contains(&a.gamma)) {
        bail!(
            "--gamma {}: from 0.1 to 4 (PS3 games use 0.8 to 1.2)",
            a.gamma
        );
    }
    o.title = a.title;
    match a.title {
        TitleChoice::Demo => {
            for (given, name) in [
                (a.game_fps.is_some(), "--game-fps"),
                (a.game_size.is_some(), "--game-size"),
                (a.cut_every.is_some(), "--cut-every"),
            ] {
                if given {
                    bail!(
                        "{name} is for the built-in scene (--title scene); the demo has its own rate, size and scenes"
                    );
                }
            }
        }
        TitleChoice::Scene => {
            for (given, name) in [
                (a.interpreter, "--interpreter"),
                (a.pad_script.is_some(), "--pad-script"),
                (a.window_keys.is_some(), "--window-keys"),
            ] {
                if given {
                    bail!(
                        "{name} is for the demo (--title demo); the built-in scene has no PPU code or pad"
                    );
                }
            }
        }
    }
    let cut_every = a.cut_every.unwrap_or(4.0);
    if !(cut_every.is_finite() && cut_every >= 0.0) {
        bail!("--cut-every {cut_every}: seconds, 0 for none");
    }
    o.interpreter = a.interpreter;
    o.pad_script = a.pad_script.clone();
    o.window_keys = a.window_keys.clone();
    o.seconds = if no_args { QUICK_SECONDS } else { a.seconds };
    o.virtual_time |= a.virtual_time;
    o.profile = a.profile;
    o.game_fps = a.game_fps.unwrap_or(GameRate::Fixed(60.0));
    o.game_size = match &a.game_size {
        Some(s) => parse_size(s, "--game-size")?,
        None => (1280, 720),
    };
    o.multiplier = a.multiplier;
    o.framegen = !a.no_framegen;
    o.dump_scale = a.dump_scale;
    o.queue_records = a.dump_queue.max(1);
    o.window = a.window;
    o.param_json = a.param_json.clone().unwrap_or_else(default_param_json);
    o.settings = VideoOutSettings {
        gamma: a.gamma,
        limited_range: a.limited_range,
    };
    o.cut_every_s = cut_every;
    o.status_every_s = if no_args {
        0.5
    } else {
        a.status_every.max(0.0)
    };
    o.device = a.device.clone();
    o.frame_counter = !a.no_counter;
    o.flow_level = a.flow_level;
    Ok(o)
}

fn run_cmd(a: RunArgs, no_args: bool) -> Result<()> {
    let mut o = options(&a, no_args)?;
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out/sim").join(format!("run-{}", stamp())));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    if !a.no_dump {
        o.dump = Some(a.dump.clone().unwrap_or_else(|| out.join("dump.fgdump")));
    }
    let (mode, _, decl, warning) = run::display_mode(&o)?;
    let what = match o.title {
        TitleChoice::Demo => format!(
            "the recompiled demo ({}, pad: {})",
            if o.interpreter {
                "on the interpreter"
            } else {
                "lifted code"
            },
            match (&o.pad_script, o.window) {
                (Some(_), _) => "--pad-script",
                (None, true) => "the window's keyboard",
                (None, false) => "the default script",
            }
        ),
        TitleChoice::Scene => format!("the built-in scene, game {} fps", o.game_fps),
    };
    eprintln!(
        "host-sim: {what} at {} ({}, {} clock), frame generation {}, {} s{}",
        mode,
        o.profile.name(),
        if o.virtual_time {
            "virtual"
        } else {
            "real-time"
        },
        if o.framegen {
            format!("x{}", run::multiplier(&o, mode.hz()))
        } else {
            "off".into()
        },
        o.seconds,
        if no_args {
            " (quick run: no arguments)"
        } else {
            ""
        }
    );
    eprintln!("host-sim: {}", decl.why());
    if let Some(w) = warning {
        eprintln!("host-sim: warning: {w}");
    }
    let outcome = run::run(&o, &mut |s| eprintln!("{s}"))?;
    finish_outputs(&o, &outcome, &out)
}

fn finish_outputs(o: &RunOptions, outcome: &run::RunOutcome, out: &Path) -> Result<()> {
    let info = match &o.dump {
        Some(p) => Some(Info::read(p).with_context(|| format!("reading back {}", p.display()))?),
        None => None,
    };
    let summary = outputs::summary_text(o, outcome);
    let mut written = Vec::new();
    let txt = out.join("summary.txt");
    std::fs::write(&txt, &summary).with_context(|| format!("writing {}", txt.display()))?;
    let json = out.join("summary.json");
    let j = outputs::summary_json(o, outcome, info.as_ref());
    std::fs::write(&json, serde_json::to_string_pretty(&j)? + "\n")
        .with_context(|| format!("writing {}", json.display()))?;
    written.push(format!("{} and {}", txt.display(), json.display()));
    if let (Some(p), Some(info)) = (&o.dump, &info) {
        let sheet = out.join("contact-sheet.png");
        let heading = format!(
            "{} {} x{}: consecutive pictures (blue: game, orange: generated)",
            outcome.mode,
            o.profile.name(),
            outcome.multiplier
        );
        outputs::contact_sheet(p, &sheet, &heading)?;
        written.push(sheet.display().to_string());
        let plot = out.join("timeline.png");
        let window = framegen_dump::timeline::Window::default_for(info).clamped(info);
        let title = format!(
            "refreshes {}..{}",
            window.start,
            window.start + window.count - 1
        );
        let c = framegen_dump::timeline::layout(info, window, &title).to_canvas();
        framegen_dump::png_io::write_png(&plot, c.width, c.height, &c.rgba)
            .with_context(|| format!("writing {}", plot.display()))?;
        written.push(plot.display().to_string());
        written.push(format!(
            "{} ({} records, {} dropped; ./x dump info {})",
            p.display(),
            info.records,
            info.dropped,
            p.display()
        ));
    }
    if let Some((_, (w, h, rgba))) = &outcome.window {
        let p = out.join("window.png");
        framegen_dump::png_io::write_png(&p, *w, *h, rgba)
            .with_context(|| format!("writing {}", p.display()))?;
        written.push(format!(
            "{} (the window, read back from the X server)",
            p.display()
        ));
    }
    print!("{summary}");
    println!("host-sim: wrote to {}:", out.display());
    for w in written {
        println!("  {w}");
    }
    Ok(())
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as u64;
    pages * page
}

fn soak(a: SoakArgs) -> Result<()> {
    if !(a.minutes.is_finite() && a.minutes > 0.0) {
        bail!("--minutes {}: above 0", a.minutes);
    }
    let out = a
        .out
        .unwrap_or_else(|| PathBuf::from("out/sim").join(format!("soak-{}", stamp())));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let mut o = RunOptions {
        title: TitleChoice::Scene,
        ..RunOptions::default()
    };
    let (size, hz) = parse_display(&a.display).map_err(anyhow::Error::msg)?;
    o.display_size = size.unwrap_or((960, 540));
    o.display_hz = hz;
    o.seconds = a.minutes * 60.0;
    o.game_fps = a.game_fps;
    o.profile = a.profile;
    o.dump_scale = Some(a.dump_scale.max(1));
    o.status_every_s = a.every.max(1.0);
    o.param_json = a.param_json.unwrap_or_else(default_param_json);
    let dump = out.join("soak.fgdump");
    o.dump = Some(dump.clone());
    if a.writer_only {
        return soak_writer(&o, &dump, a.every.max(1.0), a.keep_dump, &out);
    }
    let (mode, _, decl, warning) = run::display_mode(&o)?;
    eprintln!(
        "host-sim soak: {:.1} min real time at {mode}, game {} fps, dump scale 1/{}, queue {} records",
        a.minutes,
        o.game_fps,
        o.dump_scale(),
        o.queue_records
    );
    eprintln!("host-sim soak: {}", decl.why());
    if let Some(w) = warning {
        eprintln!("host-sim soak: warning: {w}");
    }
    let start_rss = rss_bytes();
    let mut samples: Vec<(f64, u64, u64)> = Vec::new();
    let outcome = run::run(&o, &mut |s| {
        let rss = rss_bytes();
        samples.push((s.at_s, rss, s.dump_dropped));
        eprintln!("{s} | rss {:.1} MB", rss as f64 / 1e6);
    })?;
    let end_rss = rss_bytes();
    let dump_stats = outcome.totals.dump.unwrap_or_default();
    // Growth after the first minute (buffers, caches and the queue have filled by then).
    let base = samples
        .iter()
        .find(|s| s.0 >= 60.0)
        .or(samples.first())
        .map_or(start_rss, |s| s.1);
    let last = samples.last().map_or(end_rss, |s| s.1);
    let max = samples.iter().map(|s| s.1).max().unwrap_or(end_rss);
    let growth = last as f64 - base as f64;
    let report = serde_json::json!({
        "minutes": a.minutes,
        "display": mode.to_string(),
        "game_fps": o.game_fps.to_string(),
        "game_fps_measured": outcome.totals.frames as f64 / outcome.totals.seconds.max(1e-9),
        "presents": outcome.totals.presents,
        "generated_presents": outcome.totals.generated_presents,
        "rss_start_mb": start_rss as f64 / 1e6,
        "rss_after_1min_mb": base as f64 / 1e6,
        "rss_end_mb": last as f64 / 1e6,
        "rss_max_mb": max as f64 / 1e6,
        "rss_growth_after_1min_mb": growth / 1e6,
        "dump_records": dump_stats.records,
        "dump_dropped": dump_stats.dropped,
        "dump_queue_peak": dump_stats.max_queued,
        "dump_queue_size": o.queue_records,
        "dump_bytes": dump_stats.bytes,
        "samples": samples.iter().map(|(t, r, d)| serde_json::json!({"t_s": t, "rss_mb": *r as f64 / 1e6, "dropped": d})).collect::<Vec<_>>(),
        "gpu_ms": outcome.totals.gpu_mean_ms.map(|(m, f, n)| serde_json::json!({"mean": m, "flow": f, "samples": n})),
        "wall_s": outcome.wall_s,
    });
    let rep = out.join("soak.json");
    std::fs::write(&rep, serde_json::to_string_pretty(&report)? + "\n")?;
    print!("{}", outputs::summary_text(&o, &outcome));
    println!(
        "soak: rss {:.1} MB after 1 min, {:.1} MB at the end ({:+.1} MB), max {:.1} MB; dump {} records, {} dropped (queue {} records, peak {})",
        base as f64 / 1e6,
        last as f64 / 1e6,
        growth / 1e6,
        max as f64 / 1e6,
        dump_stats.records,
        dump_stats.dropped,
        o.queue_records,
        dump_stats.max_queued
    );
    if !a.keep_dump {
        let _ = std::fs::remove_file(&dump);
    }
    println!("soak: wrote {}", rep.display());
    Ok(())
}

/// Synthetic pictures for the writer-only soak: a gradient, a moving
/// checker and a little noise, so they compress about as well as the scene.
fn synthetic_pictures(w: u32, h: u32, n: u32) -> Vec<Vec<u8>> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    (0..n)
        .map(|k| {
            let mut v = Vec::with_capacity((w * h * 4) as usize);
            for y in 0..h {
                for x in 0..w {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let checker = ((x + k * 3) / 16 + y / 16) % 2 == 0;
                    // Noise on one pixel in eight, to compress less than a plain pattern.
                    let noise = if seed & 7 == 0 {
                        ((seed >> 8) & 15) as u8
                    } else {
                        0
                    };
                    let base = if checker { 60 } else { 160 };
                    v.extend_from_slice(&[
                        base + noise,
                        (y * 255 / h.max(1)) as u8,
                        (x * 255 / w.max(1)) as u8 ^ noise,
                        255,
                    ]);
                }
            }
            v
        })
        .collect()
}

fn soak_writer(o: &RunOptions, dump: &Path, every: f64, keep: bool, out: &Path) -> Result<()> {
    use framegen_dump::{
        DumpWriter, FrameKind, FrameMeta, Image, PacerDecision, PacerState, WriterConfig,
    };
    let (mode, ..) = run::display_mode(o)?;
    let scale = o.dump_scale();
    let (w, h) = ((mode.width / scale).max(1), (mode.height / scale).max(1));
    let rate = mode.hz();
    eprintln!(
        "host-sim soak --writer-only: {:.1} min, {rate:.2} records/s of {w}x{h} pictures, queue {} records",
        o.seconds / 60.0,
        o.queue_records
    );
    let pictures = synthetic_pictures(w, h, 32);
    let mut writer = DumpWriter::create(
        dump,
        &serde_json::json!({"producer": "host-sim soak --writer-only"}),
        WriterConfig {
            queue_records: o.queue_records,
            ..WriterConfig::default()
        },
    )?;
    let start = std::time::Instant::now();
    let period = mode.period_s();
    let mut samples: Vec<(f64, u64, u64)> = Vec::new();
    let mut next_sample = every;
    let mut n = 0u64;
    loop {
        let t = n as f64 * period;
        if t >= o.seconds {
            break;
        }
        let dt = t - start.elapsed().as_secs_f64();
        if dt > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(dt));
        }
        let src = &pictures[(n % 32) as usize];
        let mut rgba = writer.take_buffer(src.len());
        rgba.copy_from_slice(src);
        let kind = if n.is_multiple_of(2) {
            FrameKind::Generated { index: 0, of: 1 }
        } else {
            FrameKind::Game
        };
        let meta = FrameMeta {
            seq: 0,
            frame: n / 2,
            kind,
            decision: PacerDecision {
                engaged: true,
                reset: false,
                presents: 1,
                generated: 1,
                state: PacerState::Generating,
            },
            presents: 1,
            first_refresh: n,
            refreshes: 1,
            present_s: t,
            shown_s: t,
            acquire_wait_s: 0.0,
            gpu: None,
        };
        writer.submit(
            meta,
            Some(Image {
                width: w,
                height: h,
                scale: scale as u8,
                rgba,
            }),
        );
        n += 1;
        if start.elapsed().as_secs_f64() >= next_sample {
            let rss = rss_bytes();
            samples.push((next_sample, rss, writer.dropped()));
            eprintln!(
                "[{next_sample:7.1} s] {n} records, {} dropped, queue {} | rss {:.1} MB",
                writer.dropped(),
                writer.queued(),
                rss as f64 / 1e6
            );
            next_sample += every;
        }
    }
    let stats = writer.finish(n, n as f64 * period)?;
    let base = samples
        .iter()
        .find(|s| s.0 >= 60.0)
        .or(samples.first())
        .map_or(0, |s| s.1);
    let last = samples.last().map_or(0, |s| s.1);
    let report = serde_json::json!({
        "writer_only": true,
        "seconds": o.seconds,
        "records_per_s": rate,
        "picture": format!("{w}x{h}"),
        "records": stats.records,
        "dropped": stats.dropped,
        "queue_size": o.queue_records,
        "queue_peak": stats.max_queued,
        "bytes": stats.bytes,
        "compression": stats.image_bytes as f64 / stats.compressed_bytes.max(1) as f64,
        "rss_after_1min_mb": base as f64 / 1e6,
        "rss_end_mb": last as f64 / 1e6,
        "samples": samples.iter().map(|(t, r, d)| serde_json::json!({"t_s": t, "rss_mb": *r as f64 / 1e6, "dropped": d})).collect::<Vec<_>>(),
    });
    let rep = out.join("soak-writer.json");
    std::fs::write(&rep, serde_json::to_string_pretty(&report)? + "\n")?;
    println!(
        "soak --writer-only: {} records in {:.1} s, {} dropped (queue {} records, peak {}), {:.1} MB written ({:.1}x compression), rss {:.1} MB after 1 min, {:.1} MB at the end ({:+.1} MB)",
        stats.records,
        start.elapsed().as_secs_f64(),
        stats.dropped,
        o.queue_records,
        stats.max_queued,
        stats.bytes as f64 / 1e6,
        stats.image_bytes as f64 / stats.compressed_bytes.max(1) as f64,
        base as f64 / 1e6,
        last as f64 / 1e6,
        (last as f64 - base as f64) / 1e6
    );
    if !keep {
        let _ = std::fs::remove_file(dump);
    }
    println!("soak: wrote {}", rep.display());
    Ok(())
}
