//! `fg bench-gpu`: GPU milliseconds per generated frame, from the library's
//! own timestamps, and the device memory it holds.

use anyhow::{Context, Result, bail};
use framegen::{Config, Path, Variant, headless::Options, runner::Runner, synth};

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
    /// Compare pass variants in one process: `;`-separated list, each a
    /// `+`-separated set of names (`fg bench-gpu --list-variants`), e.g.
    /// `pixel;base;tilevis`. They run in alternating rounds of --frames
    /// frames; the first is the one the others are compared with.
    #[arg(long)]
    variants: Option<String>,
    /// Rounds of --variants.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Frames recorded per submission (the GPU idles between submissions).
    #[arg(long, default_value_t = 4)]
    per_submit: u32,
    /// List the variant names and exit.
    #[arg(long)]
    list_variants: bool,
    /// With --variants: before each timed frame, this many untimed frames of
    /// a second interpolator on the same device, so that the GPU is as busy
    /// (and clocked) as under a game's rendering.
    #[arg(long, default_value_t = 0)]
    load: u32,
    /// Pyramid level of the final flow (default: by picture size).
    #[arg(long)]
    flow_level: Option<u32>,
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
    runner_with(args, w, h, path, Variant::from_env())
}

fn runner_with(args: &Args, w: u32, h: u32, path: Path, variant: Variant) -> Result<Runner> {
    let opts = Options {
        device: args.device.clone(),
        ..Options::default()
    };
    let mut cfg = Config::new(w, h);
    cfg.path = path;
    cfg.variant = variant;
    cfg.flow_level = args.flow_level;
    let mut r = Runner::new(&opts, &cfg).context("setting up the interpolator")?;
    r.fg_mut().set_generated(args.generated);
    Ok(r)
}

pub fn run(args: &Args) -> Result<()> {
    if args.list_variants {
        for (name, what) in Variant::NAMES {
            println!("{name:<10} {what}");
        }
        return Ok(());
    }
    let (w, h) = parse_size(&args.size)?;
    if let Some(list) = &args.variants {
        return variants(args, w, h, list);
    }
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
            "  reference check (FRAMEGEN_REFERENCE=2): {n} luma texels / flow vectors / output pixels differ between fast and reference"
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

/// One variant of `--variants`: its runner, staged pictures and sums.
struct Contender {
    name: String,
    /// The --load interpolator (dropped before the runner's device).
    load: Option<framegen::FrameGen>,
    r: Runner,
    staged: Vec<framegen::headless::Staging>,
    total: f64,
    flow: f64,
    max: f64,
    rounds: Vec<f64>,
    passes: Vec<(&'static str, f64)>,
}

/// Submits `count` frames, `per` per submission, with `load` untimed
/// frames of the load interpolator before each.
fn frames(c: &mut Contender, count: u32, per: u32, upload: bool, load: u32) -> Result<()> {
    let mut left = count;
    while left > 0 {
        let n = left.min(per.max(1));
        let extra = c.load.as_mut().map(|l| (l, load));
        c.r.run_staged_loaded(&c.staged, n, false, upload, extra)?;
        left -= n;
    }
    Ok(())
}

/// `--variants`: every variant on the same device and pictures, in
/// alternating rounds; mean GPU time per generated frame and per pass.
fn variants(args: &Args, w: u32, h: u32, list: &str) -> Result<()> {
    let pics = pictures(w, h);
    let mut all: Vec<Contender> = Vec::new();
    for spec in list.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let v = Variant::parse(spec).map_err(|e| anyhow::anyhow!("--variants: {e}"))?;
        let mut r = runner_with(args, w, h, Path::from_env(), v)
            .with_context(|| format!("variant {spec}"))?;
        let staged = r.stage(&pics)?;
        r.run_staged(&staged, 8, true)?;
        let load = if args.load > 0 {
            let mut cfg = Config::new(w, h);
            cfg.path = Path::Fast;
            Some(framegen::FrameGen::new(&r.headless().context(), &cfg)?)
        } else {
            None
        };
        all.push(Contender {
            name: spec.to_string(),
            load,
            r,
            staged,
            total: 0.0,
            flow: 0.0,
            max: 0.0,
            rounds: Vec::new(),
            passes: Vec::new(),
        });
    }
    if all.is_empty() {
        bail!("--variants: no variant named");
    }
    let dev = all[0].r.headless().device_name.clone();
    let setup = format!(
        "{} rounds x {} frames, {} per submission{}{}",
        args.rounds,
        args.frames,
        args.per_submit,
        if args.no_upload { ", no uploads" } else { "" },
        if args.load > 0 {
            format!(", {} untimed load frame(s) before each", args.load)
        } else {
            String::new()
        }
    );
    eprintln!(
        "fg bench-gpu: {dev}, {w}x{h}, {} variants, {setup}",
        all.len()
    );
    // Warm-up: half a second of every variant, so clocks settle.
    let t0 = std::time::Instant::now();
    while t0.elapsed().as_secs_f64() < 0.5 {
        for c in all.iter_mut() {
            frames(c, 8, args.per_submit, !args.no_upload, args.load)?;
        }
    }
    for round in 0..args.rounds {
        for c in all.iter_mut() {
            let _ = c.r.fg_mut().take_gpu_time();
            frames(c, args.frames, args.per_submit, !args.no_upload, args.load)?;
            let t =
                c.r.fg_mut()
                    .take_gpu_time()
                    .context("no GPU timestamps came back")?;
            c.total += t.mean_ms;
            c.flow += t.flow_mean_ms;
            c.max = c.max.max(t.max_ms);
            c.rounds.push(t.mean_ms);
        }
        eprintln!("  round {}/{} done", round + 1, args.rounds);
    }
    if args.passes {
        for c in all.iter_mut() {
            if !c.r.fg_mut().enable_pass_profile() {
                continue;
            }
            let runs = 20u32;
            for _ in 0..runs {
                frames(c, 1, 1, !args.no_upload, args.load)?;
                for (name, ms) in c.r.fg_mut().take_pass_profile() {
                    match c.passes.iter_mut().find(|(n, _)| *n == name) {
                        Some(e) => e.1 += ms / f64::from(runs),
                        None => c.passes.push((name, ms / f64::from(runs))),
                    }
                }
            }
        }
    }
    let n = f64::from(args.rounds.max(1));
    let base = all[0].total / n;
    println!("fg bench-gpu --variants: {dev}, {w}x{h}, GPU timestamps, {setup}");
    println!(
        "  {:<24} {:>8} {:>8} {:>8} {:>8} {:>7}  rounds (total ms)",
        "variant", "flow", "interp", "total", "max", "/first"
    );
    for c in &all {
        let total = c.total / n;
        let flow = c.flow / n;
        let rounds: Vec<String> = c.rounds.iter().map(|x| format!("{x:.3}")).collect();
        let check = match c.r.fg().reference_mismatches() {
            Some(n) => format!("  (reference check: {n} differ)"),
            None => String::new(),
        };
        println!(
            "  {:<24} {flow:>8.3} {:>8.3} {total:>8.3} {:>8.3} {:>7.2}  {}{check}",
            c.name,
            total - flow,
            c.max,
            total / base,
            rounds.join(" ")
        );
    }
    if args.passes {
        let mut names: Vec<&str> = Vec::new();
        for c in &all {
            for (p, _) in &c.passes {
                if !names.contains(p) {
                    names.push(p);
                }
            }
        }
        println!("  per pass, ms (mean of 20 frames, one per submission, each dispatch timed):");
        let header: Vec<String> = all
            .iter()
            .map(|c| format!("{:>12}", truncate(&c.name, 12)))
            .collect();
        println!("    {:<16}{}", "pass", header.join(""));
        for p in names {
            let cells: Vec<String> = all
                .iter()
                .map(|c| match c.passes.iter().find(|(n, _)| *n == p) {
                    Some((_, ms)) => format!("{ms:>12.3}"),
                    None => format!("{:>12}", "-"),
                })
                .collect();
            println!("    {p:<16}{}", cells.join(""));
        }
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}
