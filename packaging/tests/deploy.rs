//! `--deploy` against a real FTP server on loopback (pyftpdlib, started by
//! `tests/ftp_server.py`), including servers that drop the connection in
//! the middle of a file.

mod common;

use packaging::assemble::{self, PackageOutput};
use packaging::check::check_folder;
use packaging::config;
use packaging::deploy::{self, DeployOptions, DeployReport, ResumeMode};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const REMOTE: &str = "data/homebrew/PPSA99033";
/// The payload's size; servers drop after DROP_AFTER bytes of it.
const PAYLOAD: usize = 300_000;
const DROP_AFTER: &str = "100000";

/// A pyftpdlib server on an ephemeral loopback port, killed on drop.
struct Server {
    child: Child,
    port: u16,
    root: PathBuf,
    log: PathBuf,
}

impl Server {
    fn start(dir: &Path, args: &[&str]) -> Server {
        let root = dir.join("server-root");
        fs::create_dir_all(root.join("data")).unwrap();
        let log = dir.join("server.log");
        // Debian's python3 is the one that sees python3-pyftpdlib.
        let python = if Path::new("/usr/bin/python3").exists() {
            "/usr/bin/python3"
        } else {
            "python3"
        };
        let mut child = Command::new(python)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ftp_server.py"))
            .arg("--root")
            .arg(&root)
            .arg("--log")
            .arg(&log)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 (the deploy tests run a pyftpdlib server)");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
        let Some(port) = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
        else {
            let _ = child.kill();
            panic!(
                "the test FTP server did not start (said {line:?}); is python3-pyftpdlib \
                 installed? (./x setup installs it)"
            );
        };
        Server {
            child,
            port,
            root,
            log,
        }
    }

    fn log_lines(&self) -> Vec<String> {
        fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The paths of completed uploads, in order.
    fn received(&self) -> Vec<String> {
        self.log_lines()
            .iter()
            .filter_map(|l| l.strip_prefix("received ").map(str::to_owned))
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn options(port: u16, resume: ResumeMode) -> DeployOptions {
    DeployOptions {
        host: "127.0.0.1".into(),
        port,
        user: "anonymous".into(),
        password: "test@".into(),
        remote_base: "/data/homebrew".into(),
        retries: 4,
        retry_delay: Duration::from_millis(20),
        timeout: Duration::from_secs(20),
        resume,
    }
}

/// A package with a payload and run-time files in subfolders.
fn package(dir: &Path) -> PackageOutput {
    fs::write(dir.join("level.bin"), vec![9u8; 20_000]).unwrap();
    fs::write(dir.join("fg.spv"), vec![3u8; 5_000]).unwrap();
    // shaders/ sorts after sce_sys/, so param.json is not last by name.
    fs::write(
        dir.join("files.json"),
        r#"{"files": [{"source": "level.bin", "dest": "data/levels/1.bin"},
                      {"source": "fg.spv", "dest": "shaders/fg.spv"}]}"#,
    )
    .unwrap();
    let cfg = config::load(&common::own_config(dir, "119.88", &["files.json"])).unwrap();
    let payload = dir.join("payload.elf");
    common::dummy_elf(&payload, PAYLOAD, 4);
    assemble::package(&cfg, &payload, &dir.join("out")).unwrap()
}

fn run(out: &PackageOutput, opts: &DeployOptions) -> (DeployReport, Vec<String>) {
    let report = check_folder(
        &out.folder,
        &assemble::check_options(&common::project_config()),
    );
    assert!(report.is_ok(), "{:?}", report.problems);
    let mut events = Vec::new();
    let done = deploy::deploy(&report.entries, "PPSA99033", opts, &mut |e| {
        events.push(format!("{e:?}"))
    })
    .unwrap_or_else(|e| panic!("deploy failed: {e}"));
    (done, events)
}

/// The server holds exactly the folder, and param.json was the last upload
/// to complete.
fn assert_complete(server: &Server, out: &PackageOutput) {
    assert_eq!(
        common::tree(&server.root.join(REMOTE)),
        common::tree(&out.folder)
    );
    let received = server.received();
    assert_eq!(
        received.last().map(String::as_str),
        Some(&*format!("{REMOTE}/sce_sys/param.json")),
        "param.json did not arrive last: {received:?}"
    );
    assert_eq!(
        received
            .iter()
            .filter(|r| r.ends_with("param.json"))
            .count(),
        1,
        "{received:?}"
    );
}

#[test]
fn uploads_the_folder_with_param_json_last() {
    let dir = common::scratch("deploy-clean");
    let out = package(&dir);
    let server = Server::start(&dir, &[]);
    let (report, _) = run(&out, &options(server.port, ResumeMode::Append));
    assert_complete(&server, &out);
    assert_eq!(report.failures, 0);
    assert_eq!(report.connections, 1);
    assert_eq!(report.remote_dir, "/data/homebrew/PPSA99033");
    assert_eq!(
        report.files,
        [
            "data/levels/1.bin",
            "eboot.elf",
            "sce_sys/icon0.png",
            "shaders/fg.spv",
            "sce_sys/param.json"
        ]
    );
    // Deploying again over it works (files are replaced, not appended).
    let (again, _) = run(&out, &options(server.port, ResumeMode::Append));
    assert_eq!(again.failures, 0);
    assert_eq!(
        common::tree(&server.root.join(REMOTE)),
        common::tree(&out.folder)
    );
}

#[test]
fn a_dropped_session_resumes_with_appe() {
    let dir = common::scratch("deploy-drop-session");
    let out = package(&dir);
    let server = Server::start(&dir, &["--drop-after", DROP_AFTER, "--drop", "session"]);
    let (report, events) = run(&out, &options(server.port, ResumeMode::Append));
    assert!(
        server
            .log_lines()
            .iter()
            .any(|l| l.starts_with(&format!("dropped {REMOTE}/eboot.elf")))
    );
    assert_complete(&server, &out);
    assert!(report.failures >= 1, "{report:?}");
    assert_eq!(report.connections, 2, "{events:#?}");
    let (file, offset) = report
        .resumed
        .first()
        .cloned()
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(file, "eboot.elf");
    assert!((100_000..PAYLOAD as u64).contains(&offset), "{offset}");
    assert!(report.restarted.is_empty(), "{report:?}");
    // Only the rest was sent again.
    let total: u64 = out.manifest.files.iter().map(|f| f.size).sum();
    assert!(
        report.bytes_sent < total + PAYLOAD as u64 - 100_000 + 1,
        "{report:?}"
    );
}

#[test]
fn an_aborted_upload_restarts_cleanly_in_restart_mode() {
    let dir = common::scratch("deploy-abort-restart");
    let out = package(&dir);
    let server = Server::start(&dir, &["--drop-after", DROP_AFTER, "--drop", "abort"]);
    let (report, events) = run(&out, &options(server.port, ResumeMode::Restart));
    assert_complete(&server, &out);
    assert_eq!(report.restarted, ["eboot.elf"], "{events:#?}");
    assert!(report.resumed.is_empty());
}

/// A server that loses the end of a file but says 226, and knows no SIZE:
/// the size check (through LIST) catches it and the rest is appended.
#[test]
fn a_short_file_is_caught_by_the_size_check() {
    let dir = common::scratch("deploy-short");
    let out = package(&dir);
    let server = Server::start(
        &dir,
        &["--drop-after", DROP_AFTER, "--drop", "short", "--no-size"],
    );
    let (report, events) = run(&out, &options(server.port, ResumeMode::Append));
    assert_complete(&server, &out);
    assert!(report.failures >= 1, "{events:#?}");
    assert_eq!(report.resumed.len(), 1, "{events:#?}");
}

#[test]
fn a_server_without_appe_gets_the_file_again() {
    let dir = common::scratch("deploy-no-appe");
    let out = package(&dir);
    let server = Server::start(
        &dir,
        &["--drop-after", DROP_AFTER, "--drop", "session", "--no-appe"],
    );
    let (report, events) = run(&out, &options(server.port, ResumeMode::Append));
    assert_complete(&server, &out);
    assert_eq!(report.restarted, ["eboot.elf"], "{events:#?}");
}

#[test]
fn gives_up_when_nothing_answers() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = common::scratch("deploy-nobody");
    let out = package(&dir);
    let report = check_folder(
        &out.folder,
        &assemble::check_options(&common::project_config()),
    );
    let mut opts = options(port, ResumeMode::Append);
    opts.retries = 2;
    let mut retries = 0;
    let err = deploy::deploy(&report.entries, "PPSA99033", &opts, &mut |e| {
        if matches!(e, deploy::Event::Retry { .. }) {
            retries += 1;
        }
    })
    .unwrap_err();
    assert_eq!(retries, 2);
    assert_eq!(err.failures, 3);
    assert!(
        err.to_string().contains("gave up after 3 failures"),
        "{err}"
    );
}

/// The command line: progress lines, the retry, the resume, the summary.
#[test]
fn deploy_from_the_command_line() {
    let dir = common::scratch("deploy-cli");
    let out = package(&dir);
    let server = Server::start(&dir, &["--drop-after", DROP_AFTER, "--drop", "session"]);
    let cfg = common::own_config(&dir, "119.88", &["files.json"]);
    let result = Command::new(env!("CARGO_BIN_EXE_package"))
        .arg("--config")
        .arg(&cfg)
        .arg("--deploy")
        .arg(format!("127.0.0.1:{}", server.port))
        .arg("--dir")
        .arg(&out.folder)
        .args(["--retry-delay", "0.02", "--timeout", "20"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    for needle in [
        "deploy: connecting to 127.0.0.1:",
        "deploy: [2/5] eboot.elf (300000 bytes)",
        "retry 1/5",
        "eboot.elf: the server has",
        "sending the rest (APPE)",
        "bytes, size checked",
        "deploy:     sce_sys/param.json: ",
    ] {
        assert!(stderr.contains(needle), "no {needle:?} in:\n{stderr}");
    }
    assert!(stdout.contains("deploy: 5 files"), "{stdout}");
    assert!(stdout.contains("sceAppInstUtilAppInstallTitleDir(\"PPSA99033\", \"/user/app/\", 0)"));
    assert_complete(&server, &out);
}
