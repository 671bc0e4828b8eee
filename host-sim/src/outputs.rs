//! What a run leaves in its output folder besides the dump: the summary
//! (text and JSON) and the contact sheet (a grid of consecutive pictures
//! from the dump, each labelled with its frame, flag and refreshes).

use std::path::Path;

use anyhow::{Context, Result};
use framegen_dump::canvas::Canvas;
use framegen_dump::png_io::write_png;
use framegen_dump::{DumpReader, FrameKind, Info, Record};
use serde_json::{Value, json};

use crate::run::{RunOptions, RunOutcome};

/// Tiles across the contact sheet.
pub const SHEET_COLUMNS: usize = 4;
/// Tiles down.
pub const SHEET_ROWS: usize = 6;

fn hist(h: &[(u32, u64)]) -> Value {
    Value::Object(h.iter().map(|(k, v)| (k.to_string(), json!(v))).collect())
}

/// The summary as JSON.
pub fn summary_json(opts: &RunOptions, out: &RunOutcome, dump: Option<&Info>) -> Value {
    let t = &out.totals;
    json!({
        "title": out.title,
        "title_end": out.title_end,
        "display": {
            "mode": out.mode.to_string(),
            "refresh_hz": out.mode.hz(),
            "profile": opts.profile.name(),
            "images": opts.profile.images(),
            "offered_hz": out.offered.iter().map(|m| m.hz()).collect::<Vec<_>>(),
            "why": out.modes_why,
            "warning": out.mode_warning,
            "param_json": opts.param_json.display().to_string(),
        },
        "clock": if opts.virtual_time { "virtual" } else { "real" },
        "device": out.device,
        "seconds": t.seconds,
        "wall_seconds": out.wall_s,
        "framegen": opts.framegen,
        "multiplier": out.multiplier,
        "game_frames": t.frames,
        "game_fps_measured": t.frames as f64 / t.seconds.max(1e-9),
        "presents": t.presents,
        "generated_presents": t.generated_presents,
        "generated_frames": t.generated_frames,
        "generated_share": t.generated_presents as f64 / t.presents.max(1) as f64,
        "refreshes": t.refreshes,
        "game_refreshes": hist(&t.game_refreshes),
        "generated_refreshes": hist(&t.generated_refreshes),
        "pacer_states": Value::Object(t.states.iter().map(|(k, v)| (k.to_string(), json!(v))).collect()),
        "drains": t.drains,
        "cuts_reported": t.cuts_reported,
        "scene_cuts_detected": t.scene_cuts_detected,
        "acquires": out.acquires.0,
        "acquires_that_waited": out.acquires.1,
        "max_acquire_wait_ms": t.max_acquire_wait_s * 1000.0,
        "gpu_ms": t.gpu_mean_ms.map(|(m, f, n)| json!({"mean": m, "flow_mean": f, "interp_mean": m - f, "max": t.gpu_max_ms, "samples": n})),
        "framegen_memory_bytes": out.framegen_memory,
        "dump": t.dump.map(|d| json!({
            "path": opts.dump.as_ref().map(|p| p.display().to_string()),
            "records": d.records,
            "dropped": d.dropped,
            "bytes": d.bytes,
            "max_queued": d.max_queued,
            "scale": opts.dump_scale(),
        })),
        "dump_info": dump.map(Info::to_json),
        "window": out.window.as_ref().map(|(n, _)| json!({"shown": n})),
    })
}

/// The summary for people.
pub fn summary_text(opts: &RunOptions, out: &RunOutcome) -> String {
    use std::fmt::Write;
    let t = &out.totals;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "host-sim run: {}",
        out.title["name"].as_str().unwrap_or("title")
    );
    let _ = writeln!(
        s,
        "display      {} ({}, {} images), {} clock, {:.2} s ({:.1} s wall)",
        out.mode,
        opts.profile.name(),
        opts.profile.images(),
        if opts.virtual_time {
            "virtual"
        } else {
            "real-time"
        },
        t.seconds,
        out.wall_s
    );
    let _ = writeln!(s, "modes        {}", out.modes_why);
    if let Some(w) = &out.mode_warning {
        let _ = writeln!(s, "             {w}");
    }
    let _ = writeln!(s, "device       {}", out.device);
    let _ = writeln!(s, "title        {}", out.title);
    if !out.title_end.is_null() {
        let _ = writeln!(s, "title end    {}", out.title_end);
    }
    let _ = writeln!(
        s,
        "game         {} frames, {:.2} fps measured",
        t.frames,
        t.frames as f64 / t.seconds.max(1e-9)
    );
    let _ = writeln!(
        s,
        "presents     {} ({} generated, {:.1} %), {} generated frames, frame generation {} x{}",
        t.presents,
        t.generated_presents,
        100.0 * t.generated_presents as f64 / t.presents.max(1) as f64,
        t.generated_frames,
        if opts.framegen { "on" } else { "off" },
        out.multiplier
    );
    let h = |v: &[(u32, u64)]| {
        v.iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "on screen    game frames (refreshes: count) {}",
        h(&t.game_refreshes)
    );
    let _ = writeln!(
        s,
        "             generated frames               {}",
        h(&t.generated_refreshes)
    );
    let states: Vec<String> = t.states.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let _ = writeln!(s, "pacer        {}", states.join(", "));
    let _ = writeln!(
        s,
        "cuts         {} reported by the title, {} more found by the interpolator's scene detection",
        t.cuts_reported, t.scene_cuts_detected
    );
    let _ = writeln!(
        s,
        "acquires     {} ({} waited for a refresh, longest {:.2} ms), {} drains",
        out.acquires.0,
        out.acquires.1,
        t.max_acquire_wait_s * 1000.0,
        t.drains
    );
    if let Some((m, f, n)) = t.gpu_mean_ms {
        let _ = writeln!(
            s,
            "GPU          {m:.2} ms mean a generated frame (flow {f:.2} / interp {:.2}), {:.2} max, {n} samples",
            m - f,
            t.gpu_max_ms
        );
    }
    if let Some(d) = &t.dump {
        let _ = writeln!(
            s,
            "dump         {} records, {} dropped, {:.1} MB, queue peak {}",
            d.records,
            d.dropped,
            d.bytes as f64 / 1e6,
            d.max_queued
        );
    }
    if let Some((n, _)) = &out.window {
        let _ = writeln!(s, "window       {n} pictures shown");
    }
    s
}

/// Writes the contact sheet of `dump` to `png`: [`SHEET_COLUMNS`] x
/// [`SHEET_ROWS`] consecutive pictures starting two before the first
/// generated one (or at the start), each with its game frame, flag, refresh
/// and refresh count; game frames framed blue, generated ones orange.
pub fn contact_sheet(dump: &Path, png: &Path, heading: &str) -> Result<()> {
    let mut reader =
        DumpReader::open(dump).with_context(|| format!("reading {}", dump.display()))?;
    let mut frames = Vec::new();
    let mut first_gen = None;
    while let Some((rec, _)) = reader
        .next_record()
        .with_context(|| format!("reading {}", dump.display()))?
    {
        if let Record::Frame(fr) = rec {
            if first_gen.is_none() && fr.meta.kind.is_generated() {
                first_gen = Some(frames.len());
            }
            frames.push(fr);
            // Enough read once the sheet can be filled.
            if first_gen.is_some_and(|g| frames.len() >= g + SHEET_COLUMNS * SHEET_ROWS) {
                break;
            }
        }
    }
    let start = first_gen.map_or(0, |g| g.saturating_sub(2));
    let chosen: Vec<_> = frames
        .iter()
        .skip(start)
        .take(SHEET_COLUMNS * SHEET_ROWS)
        .collect();
    let Some(first) = chosen.first() else {
        anyhow::bail!("{}: no pictures to put on a contact sheet", dump.display());
    };
    let (iw, ih) = (first.image.width.max(1), first.image.height.max(1));
    let tw = iw.min(320);
    let th = (u64::from(ih) * u64::from(tw) / u64::from(iw)) as u32;
    let label_h = 22;
    let (cell_w, cell_h) = (tw + 12, th + label_h + 12);
    let top = 34;
    let width = cell_w * SHEET_COLUMNS as u32 + 8;
    let height = top + cell_h * chosen.len().div_ceil(SHEET_COLUMNS) as u32 + 8;
    let mut c = Canvas::new(width, height, [245, 245, 245, 255]);
    c.text(8, 8, heading, 2, [20, 20, 20, 255]);
    for (i, fr) in chosen.iter().enumerate() {
        let x = 8 + (i % SHEET_COLUMNS) as i64 * i64::from(cell_w);
        let y = i64::from(top) + (i / SHEET_COLUMNS) as i64 * i64::from(cell_h);
        let frame_colour = match fr.meta.kind {
            FrameKind::Game => [52, 101, 200, 255],
            FrameKind::Generated { .. } => [240, 140, 40, 255],
        };
        c.fill(x, y, i64::from(tw + 6), i64::from(th + 6), frame_colour);
        match fr.decode_image() {
            Ok(Some(img)) => c.draw_image(&img.rgba, img.width, img.height, x + 3, y + 3, tw, th),
            _ => c.text(x + 8, y + 8, "no image", 1, [0, 0, 0, 255]),
        }
        let label = format!(
            "#{} {}  r{} x{}",
            fr.meta.frame,
            fr.meta.kind.label(),
            fr.meta.first_refresh,
            fr.meta.refreshes
        );
        c.text(x, y + i64::from(th) + 10, &label, 1, [20, 20, 20, 255]);
    }
    write_png(png, c.width, c.height, &c.rgba).with_context(|| format!("writing {}", png.display()))
}
