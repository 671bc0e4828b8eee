//! `fgdump`: read flagged frame dumps (`./x dump ...`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use framegen_dump::png_io::write_png;
use framegen_dump::timeline::{self, Window};
use framegen_dump::{DumpReader, Info, Record, verify};

#[derive(Parser)]
#[command(
    name = "fgdump",
    about = "Read flagged frame dumps: the game's and the generated frames as the display showed them",
    long_about = "Read flagged frame dumps, as host-sim and the console build write them \
                  (framegen/dump/README.md describes the format). Every record is one picture \
                  that was on screen: the game's frame or the i-th generated one, the refresh it \
                  went on screen at and for how many refreshes, the pacer's decision, the GPU \
                  time and the image."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Only {
    /// The game's frames.
    Game,
    /// The generated frames.
    Generated,
}

#[derive(Subcommand)]
enum Cmd {
    /// Counts of game and generated frames, dropped records, and the refresh timeline's statistics.
    Info {
        /// The dump.
        file: PathBuf,
        /// Print one JSON object (keys: game_frames, generated_frames, dropped, refreshes,
        /// game_refreshes, generated_refreshes, pattern, pacer_states, gpu, ...).
        #[arg(long)]
        json: bool,
    },
    /// Write the pictures as PNG files, named by game frame index and flag
    /// (000123-game.png, 000123-gen1of1.png).
    Extract {
        /// The dump.
        file: PathBuf,
        /// Output folder (created if missing).
        #[arg(long)]
        to: PathBuf,
        /// Only the game's frames, or only the generated ones.
        #[arg(long)]
        only: Option<Only>,
        /// Every N-th picture (after --only).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        every: u64,
    },
    /// Plot which picture was on screen at each refresh, as PNG or SVG (by the file's extension).
    Timeline {
        /// The dump.
        file: PathBuf,
        /// The plot: PLOT.png or PLOT.svg.
        #[arg(short, long)]
        output: PathBuf,
        /// First refresh to plot (default: a little before the first generated frame).
        #[arg(long)]
        start: Option<u64>,
        /// Refreshes to plot.
        #[arg(long, default_value_t = timeline::DEFAULT_REFRESHES)]
        refreshes: u64,
    },
    /// Check every record's checksum and fields, every image, and the end record. Exit code 1
    /// when the file is truncated or corrupt, naming the offset and the last good record.
    Verify {
        /// The dump.
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fgdump: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.cmd {
        Cmd::Info { file, json } => info(&file, json),
        Cmd::Extract {
            file,
            to,
            only,
            every,
        } => extract(&file, &to, only, every),
        Cmd::Timeline {
            file,
            output,
            start,
            refreshes,
        } => plot(&file, &output, start, refreshes),
        Cmd::Verify { file } => Ok(verify_cmd(&file)),
    }
}

fn info(file: &Path, json: bool) -> Result<ExitCode> {
    let info = Info::read(file).with_context(|| format!("reading {}", file.display()))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&info.to_json())?);
    } else {
        print!("{}", info.to_text());
    }
    if let Some(e) = &info.error {
        eprintln!(
            "fgdump: {}: the dump breaks off: {e} (run `fgdump verify` for details)",
            file.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn extract(file: &Path, to: &Path, only: Option<Only>, every: u64) -> Result<ExitCode> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let mut reader =
        DumpReader::open(file).with_context(|| format!("reading {}", file.display()))?;
    let mut n = 0u64;
    let mut written = 0u64;
    loop {
        let (record, pos) = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                eprintln!(
                    "fgdump: {}: stopped at a damaged record: {e}",
                    file.display()
                );
                eprintln!("wrote {written} pictures to {}", to.display());
                return Ok(ExitCode::FAILURE);
            }
        };
        let Record::Frame(fr) = record else { continue };
        let wanted = match only {
            None => true,
            Some(Only::Game) => !fr.meta.kind.is_generated(),
            Some(Only::Generated) => fr.meta.kind.is_generated(),
        };
        if !wanted {
            continue;
        }
        n += 1;
        if !(n - 1).is_multiple_of(every) {
            continue;
        }
        let image = fr
            .decode_image()
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("record #{} at byte {}", pos.index, pos.offset))?;
        let Some(image) = image else { continue };
        let mut name = format!("{:06}-{}", fr.meta.frame, fr.meta.kind.label());
        // The same picture can come twice (a frame after a drain); keep both.
        if to.join(format!("{name}.png")).exists() && written > 0 {
            name.push_str(&format!("-r{}", fr.meta.first_refresh));
        }
        let path = to.join(format!("{name}.png"));
        write_png(&path, image.width, image.height, &image.rgba)
            .with_context(|| format!("writing {}", path.display()))?;
        written += 1;
    }
    println!("wrote {written} pictures to {}", to.display());
    Ok(ExitCode::SUCCESS)
}

fn plot(file: &Path, output: &Path, start: Option<u64>, refreshes: u64) -> Result<ExitCode> {
    let info = Info::read(file).with_context(|| format!("reading {}", file.display()))?;
    let mut window = Window::default_for(&info);
    if let Some(s) = start {
        window.start = s;
    }
    window.count = refreshes.max(1);
    let window = window.clamped(&info);
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let title = format!(
        "{name}: refreshes {}..{}",
        window.start,
        window.start + window.count - 1
    );
    let plot = timeline::layout(&info, window, &title);
    match output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => std::fs::write(output, plot.to_svg())
            .with_context(|| format!("writing {}", output.display()))?,
        Some("png") => {
            let c = plot.to_canvas();
            write_png(output, c.width, c.height, &c.rgba)
                .with_context(|| format!("writing {}", output.display()))?;
        }
        _ => bail!(
            "{}: the plot's name must end in .png or .svg",
            output.display()
        ),
    }
    println!(
        "wrote {} ({}x{})",
        output.display(),
        plot.width,
        plot.height
    );
    if let Some(e) = &info.error {
        eprintln!("fgdump: {}: the dump breaks off: {e}", file.display());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn verify_cmd(file: &Path) -> ExitCode {
    let rep = verify(file);
    let last = rep.last_good.as_ref().map_or_else(
        || "none (the first record is already bad)".to_string(),
        |r| r.to_string(),
    );
    match &rep.error {
        None => {
            let end = rep.end.expect("a verified dump has its end record");
            println!(
                "{}: ok: {} records ({} frame records, {} dropped), ends with its end record \
                 ({} refreshes, {:.3} s)",
                file.display(),
                rep.records,
                rep.frames,
                end.dropped,
                end.refreshes,
                end.seconds
            );
            ExitCode::SUCCESS
        }
        Some(e) => {
            println!("{}: BAD: {e}", file.display());
            println!("last good record: {last}");
            println!("{} records before it checked out", rep.records);
            ExitCode::FAILURE
        }
    }
}
