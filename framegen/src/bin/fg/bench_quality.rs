//! `fg bench-quality`: mean PSNR and SSIM of generated frames against the
//! real ones, for repeat (frame A), blend ((A+B)/2), ffmpeg's minterpolate
//! and ours, on procedural moving content and on real camera footage.
//!
//! Ground truth: a sequence is taken at full rate; its even frames are the
//! input, and each odd frame is what the interpolator should make between
//! its neighbours.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use framegen::{Config, Variant, headless::Options, runner::Runner, synth};

/// Arguments of `fg bench-quality`.
#[derive(clap::Args)]
pub struct Args {
    /// Frame pairs per clip (each needs 2 input frames and 1 truth).
    #[arg(long, default_value_t = 24)]
    pairs: u32,
    /// Skip the real footage (procedural content only).
    #[arg(long)]
    no_video: bool,
    /// Skip ffmpeg's minterpolate.
    #[arg(long)]
    no_minterpolate: bool,
    /// Where the fetched footage is kept (default: ~/.cache/cellport/framegen).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// Vulkan device: an index or part of its name.
    #[arg(long)]
    device: Option<String>,
    /// Write the truth, ours and minterpolate's frames of each clip's middle pair here (PNG).
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Pyramid level of the final flow (default: by picture size), to see
    /// at small sizes what large pictures get.
    #[arg(long)]
    flow_level: Option<u32>,
    /// Pass variants (see `fg bench-gpu --list-variants`), e.g. `mb16`.
    #[arg(long)]
    variant: Option<String>,
    /// The pair --dump writes (1-based; default: the middle one).
    #[arg(long)]
    dump_pair: Option<usize>,
    /// Also print the PSNR of each pair (blend, minterpolate, ours).
    #[arg(long)]
    per_pair: bool,
}

/// The Debian package that carries the footage, and its SHA-256.
const FOOTAGE_DEB: &str = "opencv-doc_4.6.0+dfsg-12_all.deb";
const FOOTAGE_PKG: &str = "opencv-doc=4.6.0+dfsg-12";
const FOOTAGE_SHA256: &str = "4b12681df35878207ac7097dc66184b2ae552e4bf4ddd2af04a0f03ed0b8682a";
/// Clips in it: path inside the package, a name, and the first frame used
/// (where the motion starts). Real camera footage: a box and a cup moved by
/// hand (640x480, 30 fps) and pedestrians seen from a fixed camera (768x576,
/// 10 fps).
const CLIPS: [(&str, &str, u32); 3] = [
    (
        "./usr/share/doc/opencv-doc/opencv4/html/box.mp4.gz",
        "box",
        100,
    ),
    (
        "./usr/share/doc/opencv-doc/opencv4/html/cup.mp4.gz",
        "cup",
        40,
    ),
    (
        "./usr/share/doc/opencv-doc/examples/data/vtest.avi",
        "vtest",
        0,
    ),
];

struct Clip {
    name: String,
    width: u32,
    height: u32,
    /// Frames at the full rate, RGBA8.
    frames: Vec<Vec<u8>>,
}

#[derive(Default, Clone)]
struct Score {
    per_pair: Vec<f64>,
    psnr: f64,
    ssim: f64,
    n: u32,
}

impl Score {
    fn add(&mut self, out: &[u8], truth: &[u8], w: u32, h: u32) {
        let p = synth::psnr(out, truth);
        self.per_pair.push(p);
        self.psnr += p;
        self.ssim += synth::ssim(out, truth, w, h);
        self.n += 1;
    }
    fn show(&self) -> String {
        if self.n == 0 {
            return "      -            -   ".into();
        }
        format!(
            "{:6.2} dB   {:.4}",
            self.psnr / f64::from(self.n),
            self.ssim / f64::from(self.n)
        )
    }
}

pub fn run(args: &Args) -> Result<()> {
    let mut clips = vec![procedural(args.pairs)];
    if !args.no_video {
        let cache = args.cache.clone().unwrap_or_else(default_cache);
        clips.extend(
            footage(&cache, args.pairs)
                .context("getting the real footage (use --no-video to skip)")?,
        );
    }
    let opts = Options {
        device: args.device.clone(),
        ..Options::default()
    };
    println!(
        "fg bench-quality: mean PSNR (RGB) and SSIM (luma, 11x11 Gaussian) of the in-between frame"
    );
    println!(
        "{:<12} {:>9} {:>6} | {:^21} | {:^21} | {:^21} | {:^21}",
        "clip", "size", "pairs", "repeat", "blend", "minterpolate", "ours"
    );
    for clip in &clips {
        let (w, h) = (clip.width, clip.height);
        let mut rep = Score::default();
        let mut bl = Score::default();
        let mut mi = Score::default();
        let mut ours = Score::default();
        let mut cfg = Config::new(w, h);
        cfg.flow_level = args.flow_level;
        if let Some(v) = &args.variant {
            cfg.variant = Variant::parse(v).map_err(|e| anyhow::anyhow!("--variant: {e}"))?;
        }
        let mut r = Runner::new(&opts, &cfg).context("setting up the interpolator")?;
        let evens: Vec<&Vec<u8>> = clip.frames.iter().step_by(2).collect();
        let dump_k = args
            .dump_pair
            .unwrap_or(evens.len() / 2)
            .clamp(1, evens.len().saturating_sub(1).max(1));
        let mut cuts = 0;
        for (k, f) in evens.iter().enumerate() {
            let out = r.push_frame(f, k == 0, true)?;
            if k == 0 {
                continue;
            }
            let (a, b, truth) = (evens[k - 1], *f, &clip.frames[2 * k - 1]);
            rep.add(a, truth, w, h);
            bl.add(&synth::blend(a, b), truth, w, h);
            ours.add(&out[0], truth, w, h);
            if k == dump_k
                && let Some(dir) = &args.dump
            {
                {
                    std::fs::create_dir_all(dir)?;
                    crate::images::write_png(
                        &dir.join(format!("{}_truth.png", clip.name)),
                        truth,
                        w,
                        h,
                    )?;
                    crate::images::write_png(
                        &dir.join(format!("{}_ours.png", clip.name)),
                        &out[0],
                        w,
                        h,
                    )?;
                    crate::images::write_png(&dir.join(format!("{}_a.png", clip.name)), a, w, h)?;
                    crate::images::write_png(&dir.join(format!("{}_b.png", clip.name)), b, w, h)?;
                }
            }
        }
        cuts += r.fg_mut().take_scene_cuts().cut_frames.len();
        if !args.no_minterpolate {
            match minterpolate(clip, &evens) {
                Ok(mids) => {
                    for (k, m) in mids.iter().enumerate() {
                        mi.add(m, &clip.frames[2 * k + 1], w, h);
                    }
                    if let Some(dir) = &args.dump {
                        let k = dump_k - 1;
                        crate::images::write_png(
                            &dir.join(format!("{}_mi.png", clip.name)),
                            &mids[k],
                            w,
                            h,
                        )?;
                    }
                }
                Err(e) => eprintln!("fg: minterpolate skipped for {}: {e:#}", clip.name),
            }
        }
        if args.per_pair {
            for (k, (b, o)) in bl.per_pair.iter().zip(&ours.per_pair).enumerate() {
                let m = mi
                    .per_pair
                    .get(k)
                    .map_or("   -  ".into(), |m| format!("{m:6.2}"));
                println!(
                    "  {} pair {:2}: blend {b:6.2}  minterpolate {m}  ours {o:6.2}",
                    clip.name,
                    k + 1
                );
            }
        }
        println!(
            "{:<12} {:>9} {:>6} | {} | {} | {} | {}{}",
            clip.name,
            format!("{w}x{h}"),
            ours.n,
            rep.show(),
            bl.show(),
            mi.show(),
            ours.show(),
            if cuts > 0 {
                format!("  ({cuts} scene cuts detected)")
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

fn procedural(pairs: u32) -> Clip {
    let (w, h) = (320, 240);
    let frames = (0..=2 * pairs)
        .map(|i| synth::render_scene(w, h, i as f32, 3))
        .collect();
    Clip {
        name: "procedural".into(),
        width: w,
        height: h,
        frames,
    }
}

fn default_cache() -> PathBuf {
    let home = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    home.join("cellport").join("framegen")
}

fn sha256_of(path: &Path) -> Result<String> {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .context("running sha256sum")?;
    let s = String::from_utf8_lossy(&out.stdout);
    Ok(s.split_whitespace().next().unwrap_or("").to_string())
}

/// Fetches (once) the Debian package with the footage, checks its hash,
/// unpacks the clips, and decodes `2 * pairs + 1` frames of each.
fn footage(cache: &Path, pairs: u32) -> Result<Vec<Clip>> {
    std::fs::create_dir_all(cache).with_context(|| format!("creating {}", cache.display()))?;
    let deb = cache.join(FOOTAGE_DEB);
    if !deb.exists() || sha256_of(&deb)? != FOOTAGE_SHA256 {
        eprintln!(
            "fg: fetching {FOOTAGE_PKG} (96 MB, once) into {}",
            cache.display()
        );
        let st = Command::new("apt-get")
            .args(["download", FOOTAGE_PKG])
            .current_dir(cache)
            .status()
            .context("running apt-get download")?;
        if !st.success() {
            bail!("apt-get download {FOOTAGE_PKG} failed (try 'apt-get update' first)");
        }
        let got = sha256_of(&deb)?;
        if got != FOOTAGE_SHA256 {
            bail!(
                "{}: SHA-256 {got}, expected {FOOTAGE_SHA256}",
                deb.display()
            );
        }
    }
    let mut clips = Vec::new();
    for (inner, name, start) in CLIPS {
        let file = cache.join(
            Path::new(inner)
                .file_name()
                .expect("a file")
                .to_string_lossy()
                .trim_end_matches(".gz"),
        );
        if !file.exists() {
            let tar = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "dpkg-deb --fsys-tarfile '{}' | tar -xO '{inner}' {} > '{}.part' && mv '{}.part' '{}'",
                    deb.display(),
                    if inner.ends_with(".gz") { "| gunzip" } else { "" },
                    file.display(),
                    file.display(),
                    file.display()
                ))
                .status()
                .context("unpacking the footage")?;
            if !tar.success() {
                bail!("could not unpack {inner} from {}", deb.display());
            }
        }
        clips.push(decode(&file, name, start, 2 * pairs + 1)?);
    }
    Ok(clips)
}

fn probe_size(file: &Path) -> Result<(u32, u32)> {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=width,height",
            "-of",
            "csv=p=0",
        ])
        .arg(file)
        .output()
        .context("running ffprobe (install ffmpeg)")?;
    let s = String::from_utf8_lossy(&out.stdout);
    let (w, h) = s
        .trim()
        .split_once(',')
        .with_context(|| format!("{}: ffprobe gave '{s}'", file.display()))?;
    Ok((w.trim().parse()?, h.trim().parse()?))
}

fn decode(file: &Path, name: &str, start: u32, count: u32) -> Result<Clip> {
    let (w, h) = probe_size(file)?;
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(file)
        .args([
            "-frames:v",
            &(start + count).to_string(),
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgba",
            "-",
        ])
        .stderr(Stdio::null())
        .output()
        .context("running ffmpeg")?;
    let fb = (w * h * 4) as usize;
    let frames: Vec<Vec<u8>> = out
        .stdout
        .chunks_exact(fb)
        .skip(start as usize)
        .map(<[u8]>::to_vec)
        .collect();
    if frames.len() < 3 {
        bail!("{}: decoded only {} frames", file.display(), frames.len());
    }
    let n = if frames.len().is_multiple_of(2) {
        frames.len() - 1
    } else {
        frames.len()
    };
    Ok(Clip {
        name: name.into(),
        width: w,
        height: h,
        frames: frames[..n].to_vec(),
    })
}

/// Runs ffmpeg's minterpolate (mci, aobmc, bidir, vsbmc) on the even frames
/// at double rate and returns its in-between frames.
fn minterpolate(clip: &Clip, evens: &[&Vec<u8>]) -> Result<Vec<Vec<u8>>> {
    let (w, h) = (clip.width, clip.height);
    let mut child = Command::new("ffmpeg")
        .args(["-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", &format!("{w}x{h}"), "-r", "15", "-i", "-"])
        .args([
            "-vf",
            "format=yuv444p,minterpolate=fps=30:mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1,format=rgba",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgba",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("running ffmpeg (install ffmpeg)")?;
    let mut stdin = child.stdin.take().expect("piped");
    // The last input is given twice: minterpolate stops one input short.
    let last = evens.last().expect("at least 2 frames");
    let input: Vec<u8> = evens
        .iter()
        .chain([last])
        .flat_map(|f| f.iter().copied())
        .collect();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut out = Vec::new();
    child.stdout.take().expect("piped").read_to_end(&mut out)?;
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("writer thread panicked"))??;
    if !child.wait()?.success() {
        bail!("ffmpeg minterpolate failed");
    }
    let fb = (w * h * 4) as usize;
    let frames: Vec<&[u8]> = out.chunks_exact(fb).collect();
    // Output frame 2k is input k, 2k+1 the one between k and k+1.
    let mids: Vec<Vec<u8>> = (0..evens.len() - 1)
        .filter_map(|k| frames.get(2 * k + 1).map(|f| f.to_vec()))
        .collect();
    if mids.len() != evens.len() - 1 {
        bail!(
            "minterpolate gave {} frames for {} inputs",
            frames.len(),
            evens.len()
        );
    }
    // Alignment check: its even frames must be the inputs.
    let p = synth::psnr(frames[2], evens[1]);
    if p < 35.0 {
        bail!("minterpolate's frame 2 is not input 1 (PSNR {p:.1} dB): frame alignment is off");
    }
    Ok(mids)
}
