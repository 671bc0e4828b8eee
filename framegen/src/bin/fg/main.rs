//! `fg`: frame generation tools — interpolate pictures, and the GPU-time and
//! quality benchmarks (`./x fg ...`, `./x bench fg-gpu`, `./x bench fg-quality`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod bench_gpu;
mod bench_quality;
mod images;
mod shader_stats;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use ash::vk;
use clap::{Parser, Subcommand, ValueEnum};
use framegen::{Config, headless::Options, runner::Runner};

#[derive(Parser)]
#[command(
    name = "fg",
    about = "Frame generation: make the frames between two pictures on any Vulkan device",
    long_about = "Frame generation tools. The interpolator runs on Vulkan compute (any device: \
                  lavapipe on the desktop, a GPU where there is one). FRAMEGEN_REFERENCE=1 runs the \
                  plain luma-pyramid pass instead of the fast one; =2 runs both and reports any \
                  difference. RUST_LOG=info shows what the library logs."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum FrameFormat {
    /// R8G8B8A8_UNORM frames.
    Rgba,
    /// B8G8R8A8_UNORM frames (the output is the same).
    Bgra,
}

#[derive(Subcommand)]
enum Cmd {
    /// Interpolate between two pictures, or every NAME_a.png/NAME_b.png pair of a folder.
    ///
    /// `fg interpolate A.png B.png -o MID.png` writes the frame half way.
    /// `fg interpolate --dir IN --out OUT` writes OUT/NAME.png for each IN/NAME_a.png that
    /// has an IN/NAME_b.png beside it. With `--count N` (1..3) it writes N frames at
    /// 1/(N+1) .. N/(N+1) of the way, as MID_1.png .. MID_N.png (OUT/NAME_1.png ..).
    Interpolate {
        /// First picture (PNG).
        a: Option<PathBuf>,
        /// Second picture (PNG), the same size.
        b: Option<PathBuf>,
        /// Output picture (PNG) for a single pair.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Folder of NAME_a.png / NAME_b.png pairs.
        #[arg(long, conflicts_with_all = ["a", "b", "output"])]
        dir: Option<PathBuf>,
        /// Output folder for --dir (created if missing).
        #[arg(long, requires = "dir")]
        out: Option<PathBuf>,
        /// Frames to make between the two, 1..3.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=3))]
        count: u32,
        /// Vulkan device: an index or part of its name (see `fg devices`).
        #[arg(long)]
        device: Option<String>,
        /// Format of the frame images the pictures are copied into.
        #[arg(long, value_enum, default_value_t = FrameFormat::Rgba)]
        format: FrameFormat,
    },
    /// List the Vulkan devices.
    Devices,
    /// GPU time per generated frame from the library's timestamps, and device memory.
    BenchGpu(bench_gpu::Args),
    /// PSNR and SSIM against ground truth: repeat, blend, ffmpeg minterpolate, ours.
    BenchQuality(bench_quality::Args),
    /// The driver's statistics of each pass's pipeline (registers, spills, ...).
    ShaderStats(shader_stats::Args),
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Interpolate {
            a,
            b,
            output,
            dir,
            out,
            count,
            device,
            format,
        } => {
            let opts = Options {
                device,
                ..Options::default()
            };
            let fmt = match format {
                FrameFormat::Rgba => vk::Format::R8G8B8A8_UNORM,
                FrameFormat::Bgra => vk::Format::B8G8R8A8_UNORM,
            };
            match (dir, a, b) {
                (Some(dir), _, _) => out
                    .context("--dir needs --out OUT")
                    .and_then(|out| interpolate_dir(&opts, &dir, &out, count, fmt)),
                (None, Some(a), Some(b)) => {
                    output
                        .context("a pair needs -o MID.png")
                        .and_then(|output| {
                            let mut cache = None;
                            interpolate_pair(&opts, &mut cache, &a, &b, &output, count, fmt)
                        })
                }
                _ => Err(anyhow::anyhow!(
                    "give A.png B.png -o MID.png, or --dir IN --out OUT"
                )),
            }
        }
        Cmd::Devices => framegen::headless::list_devices()
            .map(|names| {
                for (i, n) in names.iter().enumerate() {
                    println!("{i}: {n}");
                }
            })
            .map_err(Into::into),
        Cmd::BenchGpu(args) => bench_gpu::run(&args),
        Cmd::BenchQuality(args) => bench_quality::run(&args),
        Cmd::ShaderStats(args) => shader_stats::run(&args),
    };
    if let Err(e) = r {
        eprintln!("fg: error: {e:#}");
        std::process::exit(1);
    }
}

/// Output paths for `count` frames: `MID.png`, or `MID_1.png` .. `MID_N.png`.
fn numbered(path: &Path, count: u32) -> Vec<PathBuf> {
    if count == 1 {
        return vec![path.to_path_buf()];
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (1..=count)
        .map(|i| path.with_file_name(format!("{stem}_{i}.png")))
        .collect()
}

fn interpolate_pair(
    opts: &Options,
    cache: &mut Option<Runner>,
    a: &Path,
    b: &Path,
    output: &Path,
    count: u32,
    fmt: vk::Format,
) -> Result<()> {
    let (pa, wa, ha) = images::read_png(a)?;
    let (pb, wb, hb) = images::read_png(b)?;
    if (wa, ha) != (wb, hb) {
        bail!(
            "{}: {wb}x{hb}, but {} is {wa}x{ha}: the pictures must be the same size",
            b.display(),
            a.display()
        );
    }
    let reuse = cache.as_ref().is_some_and(|r| {
        let c = r.fg().config();
        (c.width, c.height, c.frame_format) == (wa, ha, fmt)
    });
    if !reuse {
        *cache = None; // drop the old device first
        let mut cfg = Config::new(wa, ha);
        cfg.frame_format = fmt;
        *cache = Some(
            Runner::new(opts, &cfg)
                .with_context(|| format!("setting up the interpolator for {}x{}", wa, ha))?,
        );
    }
    let r = cache.as_mut().expect("made above");
    r.fg_mut().set_generated(count);
    let swz = |p: Vec<u8>| {
        if fmt == vk::Format::B8G8R8A8_UNORM {
            images::swap_rb(p)
        } else {
            p
        }
    };
    r.push_frame(&swz(pa), true, false)?;
    let outs = r.push_frame(&swz(pb), false, true)?;
    if outs.len() != count as usize {
        bail!(
            "the interpolator made {} frames, expected {count}",
            outs.len()
        );
    }
    for (pic, path) in outs.iter().zip(numbered(output, count)) {
        images::write_png(&path, pic, wa, ha)?;
    }
    Ok(())
}

fn interpolate_dir(
    opts: &Options,
    dir: &Path,
    out: &Path,
    count: u32,
    fmt: vk::Format,
) -> Result<()> {
    let mut pairs = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let p = e?.path();
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(stem) = name.strip_suffix("_a.png") {
            let b = dir.join(format!("{stem}_b.png"));
            if b.exists() {
                pairs.push((stem.to_string(), p.clone(), b));
            } else {
                log::warn!("{}: no {} beside it, skipped", p.display(), b.display());
            }
        }
    }
    pairs.sort();
    if pairs.is_empty() {
        bail!(
            "{}: no NAME_a.png with a NAME_b.png beside it",
            dir.display()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut cache = None;
    let t0 = std::time::Instant::now();
    for (i, (stem, a, b)) in pairs.iter().enumerate() {
        interpolate_pair(
            opts,
            &mut cache,
            a,
            b,
            &out.join(format!("{stem}.png")),
            count,
            fmt,
        )?;
        if pairs.len() > 1 {
            eprint!(
                "\rfg: {}/{} pairs ({:.1} s)",
                i + 1,
                pairs.len(),
                t0.elapsed().as_secs_f64()
            );
        }
    }
    if pairs.len() > 1 {
        eprintln!();
    }
    println!(
        "wrote {} pair(s) x {count} frame(s) to {}",
        pairs.len(),
        out.display()
    );
    Ok(())
}
