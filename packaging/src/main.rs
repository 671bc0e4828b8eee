//! `package`: builds, checks and deploys the PS5 app folder (`./x package`).
#![allow(clippy::print_stdout, clippy::print_stderr)]

use clap::{Parser, Subcommand};
use packaging::assemble::{self, PackageOutput};
use packaging::check::{CheckOptions, check_folder};
use packaging::config::{self, Config, RefreshRate};
use packaging::deploy::{self, DeployOptions, Event, ResumeMode};
use packaging::{ICON0, ftp, icon, payload};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const AFTER_HELP: &str = "\
Without --check or --deploy: builds the payload (./x ps5), assembles
<out>/<TITLE_ID>/ (eboot.elf, sce_sys/param.json, sce_sys/icon0.png and the
run-time files packaging/title.json declares), checks it, and writes
<out>/<TITLE_ID>.tar.zst and <out>/<TITLE_ID>.manifest.json. The same inputs
give the same bytes.

--check DIR reports every problem of an app folder at once, each naming the
file and field, and exits with 1 when there is any.

--deploy HOST[:PORT] uploads the folder (built as above, or --dir DIR) by
FTP to /data/homebrew/<TITLE_ID>/, param.json last, checking each size and
resuming after a dropped connection. Then register the app on the console
(packaging/README.md).

Examples:
  ./x package                          build into out/package/
  ./x package --payload my.elf         package a payload you built
  ./x package --check out/package/PPSA99033
  ./x package --deploy 192.168.1.20    build and upload to port 2121
  ./x package --deploy ps5:2121 --dir out/package/PPSA99033
  ./x package icon                     redraw sce_sys/icon0.png";

/// Builds, checks and deploys the PS5 app folder.
#[derive(Parser)]
#[command(name = "package", after_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Check the app folder DIR instead of building one.
    #[arg(long, value_name = "DIR", conflicts_with = "deploy")]
    check: Option<PathBuf>,

    /// Upload the app folder to the console's FTP server (port 2121 unless
    /// given).
    #[arg(long, value_name = "HOST[:PORT]")]
    deploy: Option<String>,

    /// Where to write the folder, archive and manifest [default: out/package].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,

    /// Package this payload instead of building one with ./x ps5.
    #[arg(long, value_name = "FILE")]
    payload: Option<PathBuf>,

    /// The command that builds the payload and prints its path last on
    /// standard output [default: ./x ps5].
    #[arg(long, value_name = "CMD")]
    build_cmd: Option<String>,

    /// The packaging config [default: packaging/title.json].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// The display mode the title asks for, 119.88 or 59.94, overriding the
    /// config's refresh_rate (--check: whether attribute3 must declare
    /// 120 Hz).
    #[arg(long, value_name = "HZ")]
    refresh_rate: Option<String>,

    /// --deploy: upload this folder instead of building one.
    #[arg(long, value_name = "DIR", requires = "deploy")]
    dir: Option<PathBuf>,

    /// --deploy: the folder on the console the title's folder goes in.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "/data/homebrew",
        requires = "deploy"
    )]
    remote_dir: String,

    /// --deploy: FTP user name.
    #[arg(long, default_value = "anonymous", requires = "deploy")]
    user: String,

    /// --deploy: FTP password.
    #[arg(long, default_value = "cellport@", requires = "deploy")]
    password: String,

    /// --deploy: failures in a row to retry before giving up.
    #[arg(long, default_value_t = 5, value_name = "N")]
    retries: u32,

    /// --deploy: seconds to wait before the first retry (doubling, up to 30).
    #[arg(long, default_value_t = 2.0, value_name = "SECS")]
    retry_delay: f64,

    /// --deploy: timeout of every connect, read and write, in seconds.
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    timeout: f64,

    /// --deploy: after a drop, `append` the rest of a file (APPE) or
    /// `restart` it from the beginning.
    #[arg(long, default_value = "append", value_name = "MODE", value_parser = ["append", "restart"])]
    resume: String,
}

#[derive(Subcommand)]
enum Command {
    /// Draw the title's icon (sce_sys/icon0.png) from code.
    Icon {
        /// Where to write it [default: sce_sys/icon0.png].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Only check that the file is what the code draws (exit 1 if not).
        #[arg(long)]
        check: bool,
    },
}

/// The repository root: where this crate's parent is, as built.
fn repo_root() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if built.join("x").is_file() {
        built.canonicalize().unwrap_or(built)
    } else {
        PathBuf::from(".")
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("package: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let root = repo_root();
    if let Some(Command::Icon { out, check }) = &cli.command {
        return run_icon(&root, out.as_deref(), *check);
    }
    let config_path = cli
        .config
        .clone()
        .unwrap_or_else(|| root.join("packaging/title.json"));

    if let Some(dir) = &cli.check {
        // The config is needed only for what the title asks for; a folder
        // from elsewhere can be checked with --refresh-rate alone.
        let (wants, payload_name) = match config::load(&config_path) {
            Ok(c) => (c.refresh_rate, c.payload_name),
            Err(e) if cli.config.is_none() && cli.refresh_rate.is_some() => {
                log::info!("not using the config: {e}");
                (RefreshRate::Hz119_88, "eboot.elf".into())
            }
            Err(e) => return Err(e.to_string()),
        };
        let wants = override_rate(cli.refresh_rate.as_deref(), wants)?;
        let opts = CheckOptions {
            wants_119_88_hz: wants == RefreshRate::Hz119_88,
            payload_name,
        };
        return Ok(print_check(dir, &opts));
    }

    let mut config = config::load(&config_path).map_err(|e| e.to_string())?;
    config.refresh_rate = override_rate(cli.refresh_rate.as_deref(), config.refresh_rate)?;

    if let Some(target) = &cli.deploy {
        let folder = match &cli.dir {
            Some(d) => d.clone(),
            None => build(&cli, &root, &config)?.folder,
        };
        return run_deploy(&cli, target, &folder, &config);
    }
    build(&cli, &root, &config)?;
    Ok(ExitCode::SUCCESS)
}

fn override_rate(flag: Option<&str>, default: RefreshRate) -> Result<RefreshRate, String> {
    match flag {
        None => Ok(default),
        Some(s) => RefreshRate::parse(s)
            .ok_or_else(|| format!("--refresh-rate {s:?}: needs 119.88 or 59.94")),
    }
}

fn print_check(dir: &Path, opts: &CheckOptions) -> ExitCode {
    let report = check_folder(dir, opts);
    if report.is_ok() {
        println!(
            "{}: ok ({} files; title {}{})",
            dir.display(),
            report
                .entries
                .iter()
                .filter(|e| e.kind == packaging::folder::Kind::File)
                .count(),
            report.param.title_id.as_deref().unwrap_or("?"),
            if opts.wants_119_88_hz {
                ", declares 119.88 Hz"
            } else {
                ""
            },
        );
        ExitCode::SUCCESS
    } else {
        for p in &report.problems {
            eprintln!("{p}");
        }
        eprintln!("{}: {} problem(s)", dir.display(), report.problems.len());
        ExitCode::FAILURE
    }
}

fn build(cli: &Cli, root: &Path, config: &Config) -> Result<PackageOutput, String> {
    let payload = match &cli.payload {
        Some(p) => p.clone(),
        None => {
            let cmd = cli
                .build_cmd
                .clone()
                .unwrap_or_else(|| payload::default_build_command(root));
            eprintln!("package: building the payload: {cmd}");
            payload::build(root, &cmd).map_err(|e| e.to_string())?
        }
    };
    let out_dir = cli.out.clone().unwrap_or_else(|| root.join("out/package"));
    let out = assemble::package(config, &payload, &out_dir).map_err(|e| e.to_string())?;
    let m = &out.manifest;
    println!("package: payload   {}", payload.display());
    println!(
        "package: folder    {}/ ({} files)",
        out.folder.display(),
        m.files.len()
    );
    for f in &m.files {
        println!("           {:>10}  {}  {}", f.size, &f.sha256[..16], f.path);
    }
    println!(
        "package: archive   {} ({} bytes, sha256 {})",
        out.archive.display(),
        m.archive.size,
        m.archive.sha256
    );
    println!("package: manifest  {}", out.manifest_path.display());
    Ok(out)
}

fn run_deploy(cli: &Cli, target: &str, folder: &Path, config: &Config) -> Result<ExitCode, String> {
    let (host, port) = ftp::parse_host_port(target, 2121).map_err(|e| format!("--deploy: {e}"))?;
    let report = check_folder(folder, &assemble::check_options(config));
    if !report.is_ok() {
        for p in &report.problems {
            eprintln!("{p}");
        }
        return Err(format!(
            "{}: {} problem(s); not deploying (see --check)",
            folder.display(),
            report.problems.len()
        ));
    }
    let title_id = report.param.title_id.clone().expect("checked");
    let secs = |v: f64, name: &str| {
        Duration::try_from_secs_f64(v).map_err(|_| format!("--{name} {v}: needs seconds >= 0"))
    };
    let opts = DeployOptions {
        host,
        port,
        user: cli.user.clone(),
        password: cli.password.clone(),
        remote_base: cli.remote_dir.clone(),
        retries: cli.retries,
        retry_delay: secs(cli.retry_delay, "retry-delay")?,
        timeout: secs(cli.timeout, "timeout")?,
        resume: if cli.resume == "restart" {
            ResumeMode::Restart
        } else {
            ResumeMode::Append
        },
    };
    let mut shown_percent = 0u64;
    let mut on_event = |e: Event<'_>| match e {
        Event::Connecting { server, attempt } => {
            eprintln!("deploy: connecting to {server} (attempt {attempt})")
        }
        Event::CreatedDir(d) => eprintln!("deploy: created {d}/"),
        Event::FileStart {
            index,
            count,
            rel,
            size,
            offset,
        } => {
            shown_percent = 0;
            if offset > 0 {
                eprintln!("deploy: [{index}/{count}] {rel} ({size} bytes) from byte {offset}");
            } else {
                eprintln!("deploy: [{index}/{count}] {rel} ({size} bytes)");
            }
        }
        Event::Bytes { rel, done, size } => {
            let pct = done * 100 / size.max(1);
            if size >= 1 << 20 && pct / 10 > shown_percent / 10 && done < size {
                shown_percent = pct;
                eprintln!("deploy:     {rel} {pct}% ({done}/{size} bytes)");
            }
        }
        Event::FileDone { rel, size } => eprintln!("deploy:     {rel}: {size} bytes, size checked"),
        Event::Retry {
            error,
            failure,
            of,
            delay,
        } => eprintln!(
            "deploy: {error}; retry {failure}/{of} in {:.1} s",
            delay.as_secs_f64()
        ),
        Event::Resume { rel, offset } => {
            eprintln!("deploy: {rel}: the server has {offset} bytes; sending the rest (APPE)")
        }
        Event::Restart { rel } => eprintln!("deploy: {rel}: sending it again from the start"),
    };
    let done = deploy::deploy(&report.entries, &title_id, &opts, &mut on_event)
        .map_err(|e| format!("deploy to {target} failed: {e}"))?;
    println!(
        "deploy: {} files ({} bytes sent) in {}/ on {target}; {} failure(s) recovered",
        done.files.len(),
        done.bytes_sent,
        done.remote_dir,
        done.failures
    );
    println!(
        "deploy: now register it on the console: sceAppInstUtilInitialize(), then \
         sceAppInstUtilAppInstallTitleDir(\"{title_id}\", \"/user/app/\", 0) (packaging/README.md)"
    );
    Ok(ExitCode::SUCCESS)
}

fn run_icon(root: &Path, out: Option<&Path>, check: bool) -> Result<ExitCode, String> {
    let path = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| root.join(ICON0));
    let png = icon::icon_png();
    if check {
        let current = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if current == png {
            println!("{}: current", path.display());
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{}: differs from what the code draws; run ./x package icon",
            path.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    std::fs::write(&path, &png).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{}: {} bytes", path.display(), png.len());
    Ok(ExitCode::SUCCESS)
}
