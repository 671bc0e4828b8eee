//! `fg-pace`: simulate frame generation pacing on a FIFO display
//! (`./x fg pace ...`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::fmt::Write as _;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use framegen_pacer::sim::{self, FrameRecord, RateSwitch, Repeats, SimConfig, Summary};
use framegen_pacer::table;

/// Simulates a game loop presenting through the frame generation pacer on a
/// FIFO display (VideoOut-like: refreshes at 119.88 or 59.94 Hz with the
/// console's measured periods, a swapchain of 2 to 8 images, every present
/// shown for at least one refresh, in order), in virtual time, and prints
/// what it saw: how many frames the pacer generated, how long each image
/// stayed on screen, how deep the swapchain queue got and the latency from
/// a game frame ready to its first refresh on screen.
///
/// Examples:
///   fg-pace --game-fps 30 --display-hz 119.88             x2: generated 2 refreshes, game's 2
///   fg-pace --game-fps 40 --display-hz 119.88 --multiplier 3
///   fg-pace --game-fps 60 --display-hz 119.88 --seconds 600 --no-hold --json
///   fg-pace --table                                        the README's table
#[derive(Parser, Debug)]
#[command(name = "fg-pace", version, verbatim_doc_comment)]
struct Args {
    /// The game's frame rate, fps (60, 59.94, 30, 40, 50 ...)
    #[arg(long, value_name = "F", required_unless_present_any = ["table", "write_table"])]
    game_fps: Option<f64>,
    /// The display's refresh rate, Hz (119.88 or 59.94 use VideoOut's measured periods)
    #[arg(long, value_name = "H", required_unless_present_any = ["table", "write_table"])]
    display_hz: Option<f64>,
    /// Frame generation multiplier: 2 (one generated frame between two of the
    /// game's), 3 or 4. The pacer generates fewer when the game's frame has
    /// fewer refreshes
    #[arg(long, value_name = "N", default_value_t = 2)]
    multiplier: u8,
    /// Swapchain images (RADV on the PS5: 4; ps5vk: 2 or 3)
    #[arg(long, value_name = "K", default_value_t = 4)]
    images: u8,
    /// Virtual seconds to simulate
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    seconds: f64,
    /// Each game frame is ready a random 0..J ms after its start (seeded, no drift)
    #[arg(long, value_name = "J", default_value_t = 0.0)]
    jitter_ms: f64,
    /// Seed of the jitter
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The game's frame limit, fps (none: the game's own rate, and the hold
    /// treats it as unlimited)
    #[arg(long, value_name = "FPS")]
    limit: Option<f64>,
    /// The user's own second frame limit, fps (taken into the limit first)
    #[arg(long, value_name = "FPS")]
    user_limit: Option<f64>,
    /// Rate of the game's clock, Hz: ticks are counted in it (default: the
    /// game's rate, one tick a frame; 60 makes a 55 fps game's ticks 1 and 2)
    #[arg(long, value_name = "HZ")]
    source_hz: Option<f64>,
    /// Do not apply the latency hold (the queue then fills when the game is
    /// a hair faster than the display)
    #[arg(long)]
    no_hold: bool,
    /// Do not report first-acquire waits to the pacer's drain
    #[arg(long)]
    no_drain: bool,
    /// Frame generation off (the pacer stays disabled)
    #[arg(long)]
    off: bool,
    /// The game's speed, percent (an emulator's; a native port runs at 100)
    #[arg(long, value_name = "P", default_value_t = 100.0)]
    speed_pct: f64,
    /// Speed lost while generating, percentage points (trips the safety net
    /// when speed minus this is below 95)
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    gen_speed_cost: f64,
    /// GPU time of the generated frames, ms (2.1-2.5 at 3840x2160 on the PS5)
    #[arg(long, value_name = "MS", default_value_t = 0.0)]
    gen_ms: f64,
    /// What the renderer does on game clock ticks without a new frame
    #[arg(long, value_enum, default_value_t = RepeatArg::None)]
    repeats: RepeatArg,
    /// Switch the game to this frame rate during the run (see --switch-at)
    #[arg(long, value_name = "FPS", requires = "switch_at")]
    switch_to: Option<f64>,
    /// When to switch, virtual seconds
    #[arg(long, value_name = "S", requires = "switch_to")]
    switch_at: Option<f64>,
    /// The broken reference: take ticks from the wall-clock time between
    /// frames instead of the game's clock (shows why the pacer uses ticks)
    #[arg(long)]
    wall_clock_ticks: bool,
    /// Print each frame (index, ready time, ticks, decision, state, queue
    /// depth) and the pacer's events
    #[arg(long)]
    frames: bool,
    /// Print one JSON object instead of the text summary
    #[arg(long)]
    json: bool,
    /// Print the README's table of simulated results (Markdown) and exit
    #[arg(long, conflicts_with = "write_table")]
    table: bool,
    /// Rewrite the table between the markers of FILE (the crate's README.md)
    #[arg(long, value_name = "FILE")]
    write_table: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum RepeatArg {
    /// Present nothing (a port)
    None,
    /// Present the last frame again on every tick (a naive emulator renderer)
    Always,
    /// Present it again only when the pacer allows (not while generating)
    Pacer,
}

fn config(a: &Args) -> SimConfig {
    SimConfig {
        game_fps: a.game_fps.unwrap_or(60.0),
        source_hz: a.source_hz,
        display_hz: a.display_hz.unwrap_or(119.88),
        refresh_period_s: None,
        multiplier: a.multiplier,
        framegen: !a.off,
        images: a.images,
        seconds: a.seconds,
        jitter_ms: a.jitter_ms,
        seed: a.seed,
        limit_fps: a.limit,
        user_limit_fps: a.user_limit,
        hold: !a.no_hold,
        drain: !a.no_drain,
        speed_pct: a.speed_pct,
        gen_speed_cost_pct: a.gen_speed_cost,
        gen_ms: a.gen_ms,
        repeats: match a.repeats {
            RepeatArg::None => Repeats::None,
            RepeatArg::Always => Repeats::Always,
            RepeatArg::Pacer => Repeats::AskPacer,
        },
        switch: match (a.switch_to, a.switch_at) {
            (Some(game_fps), Some(at_s)) => Some(RateSwitch { at_s, game_fps }),
            _ => None,
        },
        ticks_from_wall_clock: a.wall_clock_ticks,
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "null".into(), |v| format!("{v:.3}"))
}

fn json(cfg: &SimConfig, s: &Summary) -> String {
    let mut o = String::from("{");
    let mut field = |k: &str, v: String| {
        if o.len() > 1 {
            o.push_str(", ");
        }
        let _ = write!(o, "\"{k}\": {v}");
    };
    field("game_fps", format!("{}", cfg.game_fps));
    field("display_hz", format!("{}", cfg.display_hz));
    field("multiplier", format!("{}", cfg.multiplier));
    field("images", format!("{}", cfg.images));
    field("hold", format!("{}", cfg.hold));
    field("seconds", format!("{}", s.seconds));
    field("frames", format!("{}", s.frames));
    field("game_fps_measured", format!("{:.3}", s.game_fps_measured));
    field("engaged_frames", format!("{}", s.engaged_frames));
    field("generating_frames", format!("{}", s.generating_frames));
    field("generated_per_frame", format!("{}", s.generated_per_frame));
    field(
        "refreshes_per_generated",
        format!("{}", s.refreshes_per_generated),
    );
    field("game_refreshes", format!("{}", s.game_refreshes));
    field("max_queue_depth", format!("{}", s.max_queue_depth));
    field("max_queued", format!("{}", s.max_queued));
    field("mean_latency_ms", format!("{:.3}", s.mean_latency_ms));
    field("max_latency_ms", format!("{:.3}", s.max_latency_ms));
    field("uneven_frames", format!("{}", s.uneven_frames));
    field("no_room_frames", format!("{}", s.no_room_frames));
    field("warming_up_frames", format!("{}", s.warming_up_frames));
    field("paused_frames", format!("{}", s.paused_frames));
    field("draining_frames", format!("{}", s.draining_frames));
    field("safety_pauses", format!("{}", s.safety_pauses));
    field("refreshes", format!("{}", s.refreshes));
    field("presents", format!("{}", s.presents));
    field("hold_fps", opt(s.hold_fps));
    field("why_none", format!("\"{}\"", s.main_reason()));
    o.push('}');
    o
}

fn text(cfg: &SimConfig, s: &Summary) -> String {
    let pct = |n: u64| {
        if s.frames == 0 {
            0.0
        } else {
            n as f64 * 100.0 / s.frames as f64
        }
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} fps game on a {} Hz FIFO display, x{}, {} images, hold {}, {} s simulated",
        cfg.game_fps,
        cfg.display_hz,
        cfg.multiplier,
        cfg.images,
        if cfg.hold { "on" } else { "off" },
        s.seconds
    );
    let _ = writeln!(
        o,
        "  frames                   {} ({:.3} fps as run)",
        s.frames, s.game_fps_measured
    );
    let _ = writeln!(
        o,
        "  engaged                  {} ({:.1} %), generating {} ({:.1} %)",
        s.engaged_frames,
        pct(s.engaged_frames),
        s.generating_frames,
        pct(s.generating_frames)
    );
    let _ = writeln!(
        o,
        "  generated per frame      {} (most common)",
        s.generated_per_frame
    );
    let _ = writeln!(
        o,
        "  refreshes per generated  {} (most common)",
        s.refreshes_per_generated
    );
    let _ = writeln!(
        o,
        "  game frame refreshes     {} (most common)",
        s.game_refreshes
    );
    let _ = writeln!(
        o,
        "  max queue depth          {} (presents queued at a frame's first present, itself included; peak queued {})",
        s.max_queue_depth, s.max_queued
    );
    let _ = writeln!(
        o,
        "  latency                  {:.2} ms mean, {:.2} ms max (game frame ready to first shown)",
        s.mean_latency_ms, s.max_latency_ms
    );
    let _ = writeln!(
        o,
        "  not generated            warming up {}, uneven {}, no room {}, paused {}, draining {}, off {}",
        s.warming_up_frames,
        s.uneven_frames,
        s.no_room_frames,
        s.paused_frames,
        s.draining_frames,
        s.other_frames
    );
    let _ = writeln!(o, "  safety-net pauses        {}", s.safety_pauses);
    let _ = writeln!(
        o,
        "  refreshes / presents     {} / {}",
        s.refreshes, s.presents
    );
    let _ = writeln!(
        o,
        "  hold                     {}",
        s.hold_fps
            .map_or_else(|| "none".into(), |h| format!("{h:.3} fps"))
    );
    o
}

fn frame_line(r: &FrameRecord) -> String {
    format!(
        "frame {:6} ready {:10.4} s ticks {} refreshes {:.3} already {} -> engaged {} reset {} generated {} presents {} [{}] queue {}{}",
        r.index,
        r.ready_s,
        r.ticks,
        r.refreshes,
        r.already,
        r.decision.engaged as u8,
        r.decision.reset as u8,
        r.decision.generated,
        r.decision.presents,
        r.state.name(),
        r.queue_depth,
        r.first_acquire_wait_s.map_or_else(String::new, |w| format!(
            " first acquire waited {:.3} ms",
            w * 1000.0
        )),
    )
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.table || args.write_table.is_some() {
        return write_table(&args);
    }
    let cfg = config(&args);
    let result = if args.frames {
        sim::run_observed(&cfg, &mut |r| {
            println!("{}", frame_line(r));
            for e in &r.events {
                println!("    event: {e:?}");
            }
        })
    } else {
        sim::run(&cfg)
    };
    match result {
        Ok(s) if args.json => println!("{}", json(&cfg, &s)),
        Ok(s) => print!("{}", text(&cfg, &s)),
        Err(e) => {
            eprintln!("fg-pace: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

fn write_table(args: &Args) -> ExitCode {
    let rows = table::scenarios();
    eprintln!("fg-pace: simulating {} scenarios", rows.len());
    let t = match table::render(&rows) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("fg-pace: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(path) = &args.write_table else {
        print!("{t}");
        return ExitCode::SUCCESS;
    };
    let doc = match std::fs::read_to_string(path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("fg-pace: cannot read {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let Some(new) = table::replace_section(&doc, &t) else {
        eprintln!(
            "fg-pace: {} has no table markers: add a line `{}` and a line `{}`",
            path.display(),
            table::BEGIN,
            table::END
        );
        return ExitCode::from(2);
    };
    if new == doc {
        eprintln!("fg-pace: {} is current", path.display());
    } else if let Err(e) = std::fs::write(path, new) {
        eprintln!("fg-pace: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    } else {
        eprintln!("fg-pace: rewrote the table in {}", path.display());
    }
    ExitCode::SUCCESS
}
