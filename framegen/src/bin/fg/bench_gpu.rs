//! `fg bench-gpu`: GPU milliseconds per generated frame, from the library's
//! own timestamps, and the device memory it holds.

use anyhow::{Context, Result, bail};
use framegen::{Config, Path, headless::Options, runner::Runner, synth};

/// Arguments of `fg bench-gpu`.
#[derive(clap::Args)]
pub struct Args {
    /// Picture size, WIDTHxHEIGHT.
    #[arg(long, default_value = "3840x2160")]
    size: String,
    /// Frames to time (after 10 warm-up frames).
    #[arg(long, default_value_t = 200)]
    frames: u32,
    /// Frames generated per game frame (1..3); only the first is timed.
    #[arg(long, default_value_t = 1)]
    generated: u32,
    /// Vulkan device: an index or part of its name.
    #[arg(long)]
    device: Option<String>,
    /// Also time each dispatch of 20 more frames (development aid).
    #[arg(long)]
    passes: bool,
    /// Then time the fast against the reference passes, alternating A/B rounds.
    #[arg(long)]
    ab: bool,
    /// Leave out the per-frame upload of the picture from host memory (the
    /// frame images keep their content): isolates the GPU time from the
    /// host-to-device transfers.
    #[arg(long)]
    no_upload: bool,
}

/// Parses WIDTHxHEIGHT.
pub fn parse_size(s: &str) -> Result<(u32, u32)> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .with_context(|| format!("--size {s}: expected WIDTHxHEIGHT"))?;
    let w: u32 = w
        .parse()
        .with_context(|| format!("--size {s}: bad width"))?;
    let h: u32 = h
        .parse()
        .with_context(|| format!("--size {s}: bad height"))?;
    Ok((w, h))
}

/// Frames of the benchmark: eight frames of the procedural scene (a panning
/// background, objects moving over it on their own paths, a static HUD),
/// its motion scaled with the picture height (about 20 pixels a frame at
/// 2160 lines), cycled.
fn pictures(w: u32, h: u32) -> Vec<Vec<u8>> {
    let speed = h as f32 / 480.0;
    (0..8u32)
        .map(|k| synth::render_scene(w, h, k as f32 * speed, 7))
        .collect()
}

fn runner(args: &Args, w: u32, h: u32, path: Path) -> Result<Runner> {
    let opts = Options {
        device: args.device.clone(),
        ..Options::default()
    };
    let mut cfg = Config::new(w, h);
    cfg.path = path;
    let mut r = Runner::new(&opts, &cfg).context("setting up the interpolator")?;
    r.fg_mut().set_generated(args.generated);
    Ok(r)
}

pub fn run(args: &Args) -> Result<()> {
    let (w, h) = parse_size(&args.size)?;
    let mut r = runner(args, w, h, Path::from_env())?;
    let dev = r.headless().device_name.clone();
    eprintln!(
        "fg bench-gpu: {dev}, {w}x{h}, {} levels, flow at level {}; rendering the test pictures...",
        r.fg().levels(),
        r.fg().flow_level()
    );
    let pics = pictures(w, h);
    let staged = r.stage(&pics)?;
    // Warm-up: at least 40 frames and half a second, so clocks settle.
    let t0 = std::time::Instant::now();
    r.run_staged(&staged, 40, true)?;
    while t0.elapsed().as_secs_f64() < 0.5 {
        r.run_staged(&staged, 40, false)?;
    }
    let _ = r.fg_mut().take_gpu_time();
    let t1 = std::time::Instant::now();
    r.run_staged_with(&staged, args.frames, false, !args.no_upload)?;
    let wall = t1.elapsed().as_secs_f64();
    let Some(t) = r.fg_mut().take_gpu_time() else {
        bail!("no GPU timestamps came back (the queue has no timestamps?)")
    };
    let m = r.fg().memory();
    let mib = |b: u64| b as f64 / 1048576.0;
    let interp = t.mean_ms - t.flow_mean_ms;
    println!(
        "fg bench-gpu: {dev}, {w}x{h}, {} frames timed after warm-up, GPU timestamps, path {:?}{}",
        t.count,
        r.fg().config().path,
        if args.no_upload { ", no uploads" } else { "" }
    );
    println!(
        "  flow (pyramid, histograms, scene, flow)  mean {:.3} ms",
        t.flow_mean_ms
    );
    println!("  interpolation (motion, blend)           mean {interp:.3} ms");
    println!(
        "  total per generated frame               mean {:.3} ms, max {:.3} ms",
        t.mean_ms, t.max_ms
    );
    println!(
        "  device memory: working {:.1} MiB (pyramids, flow, motion, history, buffers); pictures {:.1} MiB (2 frames + output)",
        mib(m.working_bytes),
        mib(m.picture_bytes)
    );
    if let Some(n) = r.fg().reference_mismatches() {
        println!(
            "  reference check (FRAMEGEN_REFERENCE=2): {n} luma texels / flow vectors differ between fast and reference"
        );
    }
    println!(
        "  wall {:.2} s for {} frames, 4 per submission",
        wall, args.frames
    );
    if args.passes && r.fg_mut().enable_pass_profile() {
        let mut sums: Vec<(&str, f64)> = Vec::new();
        let runs = 20u32;
        for _ in 0..runs {
            // Four frames per submission as above; the profile is the last one's.
            r.run_staged(&staged, 4, false)?;
            for (name, ms) in r.fg_mut().take_pass_profile() {
                match sums.iter_mut().find(|(n, _)| *n == name) {
                    Some(e) => e.1 += ms,
                    None => sums.push((name, ms)),
                }
            }
        }
        println!(
            "  per pass (mean of {runs} frames, each dispatch timed, one frame per submission):"
        );
        for (name, ms) in sums {
            println!("    {name:<16} {:.3} ms", ms / f64::from(runs));
        }
    }
    drop(staged);
    drop(r);
    if args.ab {
        ab_reference(args, w, h, &pics)?;
    }
    Ok(())
}

/// Alternating A/B runs of the fast and the reference passes on the same
/// device: the ratio of their mean GPU times, per round and overall.
fn ab_reference(args: &Args, w: u32, h: u32, pics: &[Vec<u8>]) -> Result<()> {
    let mut fast = runner(args, w, h, Path::Fast)?;
    let mut reference = runner(args, w, h, Path::Reference)?;
    let sf = fast.stage(pics)?;
    let sr = reference.stage(pics)?;
    fast.run_staged(&sf, 40, true)?;
    reference.run_staged(&sr, 40, true)?;
    println!(
        "  A/B, fast against reference passes (same device, alternating rounds of {} frames):",
        args.frames
    );
    let (mut tf, mut tr) = (0.0, 0.0);
    for round in 0..3 {
        let _ = fast.fg_mut().take_gpu_time();
        fast.run_staged(&sf, args.frames, false)?;
        let a = fast.fg_mut().take_gpu_time().context("no timestamps")?;
        let _ = reference.fg_mut().take_gpu_time();
        reference.run_staged(&sr, args.frames, false)?;
        let b = reference
            .fg_mut()
            .take_gpu_time()
            .context("no timestamps")?;
        println!(
            "    round {}: fast {:.3} ms (flow {:.3}), reference {:.3} ms (flow {:.3}): reference / fast = {:.2}",
            round + 1,
            a.mean_ms,
            a.flow_mean_ms,
            b.mean_ms,
            b.flow_mean_ms,
            b.mean_ms / a.mean_ms
        );
        tf += a.mean_ms;
        tr += b.mean_ms;
    }
    println!("    overall reference / fast = {:.2}", tr / tf);
    Ok(())
}
