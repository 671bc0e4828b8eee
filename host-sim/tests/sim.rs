//! host-sim end to end, on lavapipe, in virtual time at small display
//! sizes: the recompiled demo (the default title) through frame generation
//! and steered by the window's keyboard; with the built-in scene, the
//! pacing seen in the dump, the modes param.json allows, bad input,
//! determinism, the dump's verification, and the window under Xvfb.
//!
//! (The issue's commands at 960x540 were run by hand; README.md has their
//! output. The same logic runs here at 320x180 so `./x test` stays short.)
#![allow(clippy::print_stderr)] // "skipped: ..." when a tool is missing outside CI

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use framegen_dump::{FrameKind, Info, PacerState};

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("host-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn param_json(name: &str, body: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn declared() -> PathBuf {
    param_json(
        "declared.json",
        r#"{"titleId": "PPSA99033", "attribute3": 524352}"#,
    )
}

fn host_sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_host-sim"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

/// Runs host-sim with `args` plus an output folder and a dump; returns the
/// dump's summary and the output folder.
fn run(name: &str, args: &[&str]) -> (Info, PathBuf) {
    let out = tmp(name);
    let dump = out.join("d.fgdump");
    let pj = declared();
    let mut all: Vec<&str> = vec![
        "--virtual-time",
        "--status-every",
        "0",
        "--out",
        out.to_str().unwrap(),
        "--dump",
        dump.to_str().unwrap(),
    ];
    if !args.contains(&"--param-json") {
        all.extend(["--param-json", pj.to_str().unwrap()]);
    }
    if !args.contains(&"--title") {
        all.extend(["--title", "scene"]);
    }
    all.extend(args);
    let o = host_sim(&all);
    assert!(
        o.status.success(),
        "host-sim {all:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!("wrote to {}", out.display())),
        "{stdout}"
    );
    (Info::read(&dump).unwrap(), out)
}

/// For each game frame from the first generated one on (the last excluded:
/// it stays on screen until the end), the refreshes of its generated frames
/// and its own, and its state.
fn per_game_frame(info: &Info) -> Vec<(Vec<u32>, u32, PacerState)> {
    let start = info.first_generated_frame.expect("something was generated");
    let mut v = Vec::new();
    let mut gens = Vec::new();
    for s in info.spans.iter().filter(|s| s.frame >= start) {
        match s.kind {
            FrameKind::Generated { .. } => gens.push(s.refreshes),
            FrameKind::Game => v.push((std::mem::take(&mut gens), s.refreshes, s.state)),
        }
    }
    v.pop();
    v
}

#[test]
fn sixty_fps_on_119_88_alternates_one_refresh_each() {
    let (info, out) = run(
        "sixty",
        &[
            "--seconds",
            "2",
            "--display",
            "320x180@119.88",
            "--game-fps",
            "60",
            "--cut-every",
            "0",
        ],
    );
    let j = info.to_json();
    for key in ["game_frames", "generated_frames", "dropped", "refreshes"] {
        assert!(j.get(key).is_some_and(|v| !v.is_null()), "{key} missing");
    }
    assert_eq!(j["dropped"], 0);
    assert!(info.complete);
    assert_eq!(
        info.first_generated_frame,
        Some(9),
        "8 warm-up frames and 1 priming"
    );
    let frames = per_game_frame(&info);
    assert!(frames.len() > 100, "{} frames", frames.len());
    for (i, (gens, game, state)) in frames.iter().enumerate() {
        assert_eq!(*state, PacerState::Generating, "frame {i}");
        assert_eq!(
            (gens.as_slice(), *game),
            (&[1][..], 1),
            "frame {i} after the warm-up"
        );
    }
    // Game and generated pictures alternate on consecutive refreshes.
    let covered = info.covered();
    assert_eq!(
        covered.0,
        info.refreshes - covered.1.unwrap(),
        "no refresh without a picture"
    );
    // The summary and the contact sheet are there.
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains("119.88 Hz offered"), "{summary}");
    assert!(out.join("contact-sheet.png").exists() && out.join("timeline.png").exists());
    let sj: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sj["dump"]["dropped"], 0);
    assert_eq!(
        sj["display"]["offered_hz"],
        serde_json::json!([119.88, 59.94])
    );
}

#[test]
fn thirty_fps_shows_each_generated_frame_as_the_multiplier_allows() {
    let base = [
        "--seconds",
        "1.6",
        "--display",
        "320x180@119.88",
        "--game-fps",
        "30",
        "--cut-every",
        "0",
    ];
    // x2: one generated frame shown 2 refreshes, the game's 2.
    let (info, _) = run("thirty-x2", &[&base[..], &["--multiplier", "2"]].concat());
    for (i, (gens, game, _)) in per_game_frame(&info).iter().enumerate() {
        assert_eq!((gens.as_slice(), *game), (&[2][..], 2), "x2 frame {i}");
    }
    // x4: three generated frames, one refresh each, the game's 1.
    let (info, _) = run("thirty-x4", &[&base[..], &["--multiplier", "4"]].concat());
    for (i, (gens, game, _)) in per_game_frame(&info).iter().enumerate() {
        assert_eq!(
            (gens.as_slice(), *game),
            (&[1, 1, 1][..], 1),
            "x4 frame {i}"
        );
    }
    // x3: two generated frames, one refresh each, the game's 2 (issue 5;
    // the images land at 1/3, 2/3, 1, 1: framegen/pacer/README.md).
    let (info, _) = run("thirty-x3", &[&base[..], &["--multiplier", "3"]].concat());
    for (i, (gens, game, _)) in per_game_frame(&info).iter().enumerate() {
        assert_eq!((gens.as_slice(), *game), (&[1, 1][..], 2), "x3 frame {i}");
    }
}

#[test]
fn forty_fps_at_x3_gets_two_generated_frames() {
    let (info, _) = run(
        "forty-x3",
        &[
            "--seconds",
            "1.2",
            "--display",
            "320x180@119.88",
            "--game-fps",
            "40",
            "--multiplier",
            "3",
            "--cut-every",
            "0",
        ],
    );
    for (i, (gens, game, _)) in per_game_frame(&info).iter().enumerate() {
        assert_eq!((gens.as_slice(), *game), (&[1, 1][..], 1), "frame {i}");
    }
}

#[test]
fn nothing_is_generated_without_room_or_with_uneven_frames() {
    // 60 fps on 59.94 Hz: no room.
    let (info, _) = run(
        "sixty-on-60",
        &[
            "--seconds",
            "0.6",
            "--display",
            "320x180@59.94",
            "--game-fps",
            "60",
        ],
    );
    assert_eq!(info.generated_frames, 0);
    assert!(info.game_frames >= 30);
    assert!(
        info.pacer_states
            .get(&PacerState::NoRoom)
            .is_some_and(|n| *n > 20)
    );
    assert_eq!(info.game_refreshes.keys().copied().collect::<Vec<_>>(), [1]);
    // Uneven frame lengths on 119.88 Hz.
    let (info, _) = run(
        "uneven",
        &[
            "--seconds",
            "0.6",
            "--display",
            "320x180@119.88",
            "--game-fps",
            "uneven",
        ],
    );
    assert_eq!(info.generated_frames, 0);
    assert!(
        info.pacer_states
            .get(&PacerState::Uneven)
            .is_some_and(|n| *n > 10)
    );
}

#[test]
fn nothing_is_interpolated_across_a_cut() {
    let (info, _) = run(
        "cut",
        &[
            "--seconds",
            "1.3",
            "--display",
            "320x180@119.88",
            "--game-fps",
            "60",
            "--cut-every",
            "0.5",
        ],
    );
    // Cuts at 0.5 s and 1.0 s of game time (exact in binary): frames 30 and 60. The pacer
    // keeps generating; the cut frame has no generated frame before it, so
    // it goes on screen a refresh early and stays a refresh longer.
    assert_eq!(
        info.pacer_states.get(&PacerState::WarmingUp),
        Some(&8),
        "{:?}",
        info.pacer_states
    );
    for cut in [30u64, 60] {
        let gens = info
            .spans
            .iter()
            .filter(|s| s.frame == cut && s.kind.is_generated())
            .count();
        assert_eq!(gens, 0, "a generated frame before the cut frame {cut}");
        let before = info
            .spans
            .iter()
            .find(|s| s.frame == cut - 1 && !s.kind.is_generated())
            .unwrap();
        let at = info
            .spans
            .iter()
            .find(|s| s.frame == cut && !s.kind.is_generated())
            .unwrap();
        assert_eq!(
            before.first_refresh + 1,
            at.first_refresh,
            "the cut frame follows the one before at once"
        );
        assert_eq!(at.refreshes, 2, "the cut frame {cut}");
        let next = info
            .spans
            .iter()
            .filter(|s| s.frame == cut + 1 && s.kind.is_generated())
            .count();
        assert_eq!(next, 1, "generation goes on after the cut");
    }
    let frames = per_game_frame(&info);
    let regular = frames
        .iter()
        .filter(|(g, f, _)| g.as_slice() == [1] && *f == 1)
        .count();
    assert_eq!(regular, frames.len() - 2, "only the cut frames differ");
}

#[test]
fn without_attribute3_only_59_94_is_offered_and_the_summary_says_why() {
    let pj = param_json("plain.json", r#"{"titleId": "PPSA99033", "attribute3": 0}"#);
    let out = tmp("plain");
    let o = host_sim(&[
        "--title",
        "scene",
        "--virtual-time",
        "--seconds",
        "0.3",
        "--display",
        "320x180@119.88",
        "--param-json",
        pj.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-dump",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("119.88 Hz is not offered"), "{stderr}");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains("320x180@59.94"), "{summary}");
    assert!(
        summary.contains("only 59.94 Hz offered") && summary.contains("without the bits 0x80040"),
        "{summary}"
    );
    let sj: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sj["display"]["offered_hz"], serde_json::json!([59.94]));
    assert_eq!(sj["display"]["refresh_hz"], 59.94);
    // No param.json at all: the same, and it says so.
    let o = host_sim(&[
        "--title",
        "scene",
        "--virtual-time",
        "--seconds",
        "0.2",
        "--display",
        "320x180",
        "--param-json",
        "/nonexistent/sce_sys/param.json",
        "--out",
        out.to_str().unwrap(),
        "--no-dump",
    ]);
    assert!(o.status.success());
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(
        summary.contains("no param.json at /nonexistent/sce_sys/param.json"),
        "{summary}"
    );
}

#[test]
fn a_bad_param_json_is_refused_naming_the_field() {
    let pj = param_json("bad.json", r#"{"attribute3": "524352"}"#);
    let out = tmp("bad-param");
    let o = host_sim(&[
        "--virtual-time",
        "--seconds",
        "0.2",
        "--param-json",
        pj.to_str().unwrap(),
        "--no-dump",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("bad.json") && e.contains("\"attribute3\""),
        "{e}"
    );
    let o = host_sim(&["--display", "960y540"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--display 960y540"));
    // The demo's pad script, and options of the other title.
    let out = tmp("bad-pad");
    let o = host_sim(&[
        "--pad-script",
        "0:;x5:right",
        "--no-dump",
        "--seconds",
        "0.1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("pad script entry 1 (\"x5:right\")"), "{e}");
    let o = host_sim(&["--game-fps", "30"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--game-fps is for the built-in scene"));
}

#[test]
fn virtual_time_is_deterministic_and_a_cut_dump_is_caught() {
    let args = [
        "--seconds",
        "0.5",
        "--display",
        "256x144@119.88",
        "--game-fps",
        "60",
    ];
    let (a, out) = run("det-a", &args);
    let (b, _) = run("det-b", &args);
    assert_eq!(a.spans, b.spans, "two virtual-time runs differ");
    assert_eq!(a.refreshes, b.refreshes);
    // A truncated copy of a real dump: verify names the last good record.
    let dump = out.join("d.fgdump");
    let bytes = std::fs::read(&dump).unwrap();
    assert!(framegen_dump::verify(&dump).ok());
    let cut = out.join("cut.fgdump");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let rep = framegen_dump::verify(&cut);
    assert!(!rep.ok());
    let last = rep.last_good.expect("a last good record");
    assert!(
        rep.error
            .unwrap()
            .contains(&format!("record #{}", last.position.index + 1))
    );
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool} >/dev/null"))
        .status()
        .is_ok_and(|s| s.success())
}

/// An Xvfb server on a free display number, stopped on drop.
struct Xvfb {
    child: std::process::Child,
    display: String,
}

impl Xvfb {
    fn start() -> Option<Xvfb> {
        if !have("Xvfb") {
            assert!(
                std::env::var_os("CI").is_none(),
                "Xvfb is missing under CI (./x installs xvfb)"
            );
            eprintln!("skipped: Xvfb is not installed");
            return None;
        }
        for n in (90 + std::process::id() % 50)..200 {
            if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                || Path::new(&format!("/tmp/.X{n}-lock")).exists()
            {
                continue;
            }
            let child = Command::new("Xvfb")
                .args([
                    format!(":{n}").as_str(),
                    "-screen",
                    "0",
                    "800x600x24",
                    "-nolisten",
                    "tcp",
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .ok()?;
            let mut x = Xvfb {
                child,
                display: format!(":{n}"),
            };
            for _ in 0..100 {
                if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                    return Some(x);
                }
                if x.child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
        panic!("could not start Xvfb");
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn window_under_xvfb_shows_the_display() {
    let Some(x) = Xvfb::start() else { return };
    let out = tmp("window");
    let o = Command::new(env!("CARGO_BIN_EXE_host-sim"))
        .args([
            "--title",
            "scene",
            "--window",
            "--virtual-time",
            "--seconds",
            "0.5",
            "--display",
            "320x180@119.88",
            "--status-every",
            "0",
            "--no-dump",
            "--out",
            out.to_str().unwrap(),
            "--param-json",
            declared().to_str().unwrap(),
        ])
        .env("DISPLAY", &x.display)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let shown: u64 = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("window       ")
                .and_then(|r| r.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or_else(|| panic!("no window line in {stdout}"));
    assert!(shown > 0);
    // The window, read back from the X server: the scene is in it.
    let (w, h, rgba) = framegen_dump::png_io::read_png(&out.join("window.png")).unwrap();
    assert_eq!((w, h), (320, 180));
    let px = |x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        [rgba[i], rgba[i + 1], rgba[i + 2]]
    };
    // The sky (blue) above, the ground (green) below.
    let sky = px(160, 20);
    let ground = px(60, 170);
    assert!(sky[2] > sky[0] && sky[2] > 100, "sky {sky:?}");
    assert!(
        ground[1] > ground[0] && ground[1] > ground[2],
        "ground {ground:?}"
    );
    drop(x);
}

#[test]
fn no_window_without_an_x_server() {
    let o = Command::new(env!("CARGO_BIN_EXE_host-sim"))
        .args([
            "--title",
            "scene",
            "--window",
            "--virtual-time",
            "--seconds",
            "0.1",
            "--display",
            "64x64",
            "--no-dump",
            "--out",
            tmp("no-x").to_str().unwrap(),
        ])
        .env("DISPLAY", ":9999")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("cannot connect to the X server (DISPLAY=:9999)")
    );
}

/// The demo's own last line (its TTY, on host-sim's standard output):
/// frames and where the ship ended.
fn demo_end(stdout: &str) -> (u32, u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("demo: ") && l.contains(" frames, ship at "))
        .unwrap_or_else(|| panic!("the demo's last line is missing:\n{stdout}"));
    let nums: Vec<u32> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse().ok())
        .collect();
    (nums[0], nums[1], nums[2])
}

#[test]
fn the_recompiled_demo_is_the_default_title_and_its_frames_are_interpolated() {
    let out = tmp("demo");
    let dump = out.join("d.fgdump");
    let pj = declared();
    let o = host_sim(&[
        "--virtual-time",
        "--seconds",
        "1",
        "--display",
        "320x180",
        "--status-every",
        "0",
        "--param-json",
        pj.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--dump",
        dump.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let info = Info::read(&dump).unwrap();
    assert!(info.complete);
    assert_eq!(info.dropped, 0);
    // 30 fps at 119.88 Hz: x4 by default, three generated frames one
    // refresh each, then the game's, from frame 9 on.
    assert!(info.game_frames >= 25, "{} game frames", info.game_frames);
    assert!(
        info.generated_frames >= 3 * 15,
        "{} generated frames",
        info.generated_frames
    );
    assert_eq!(info.first_generated_frame, Some(9));
    let frames = per_game_frame(&info);
    assert!(frames.len() >= 15);
    for (i, (gens, game, _)) in frames.iter().enumerate() {
        assert_eq!((gens.as_slice(), *game), (&[1, 1, 1][..], 1), "frame {i}");
    }
    let sj: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sj["title"]["name"], "demo (recompiled)");
    assert_eq!(sj["multiplier"], 4);
    assert_eq!(sj["title_end"]["exit_status"], 0, "{}", sj["title_end"]);
    assert_eq!(
        sj["title_end"]["interpreted_instructions"], 0,
        "every instruction ran as lifted code: {}",
        sj["title_end"]
    );
    assert!(out.join("contact-sheet.png").exists());
    // The default pad script steers the ship right from game frame 15.
    let (n, x, y) = demo_end(&stdout);
    assert!(n >= 25);
    assert!(x > 640 && y == 360, "ship at {x},{y}");
}

#[test]
fn the_window_keyboard_steers_the_demo() {
    let Some(x) = Xvfb::start() else { return };
    let run = |name: &str, keys: Option<&str>| {
        let out = tmp(name);
        let mut args = vec![
            "--window",
            "--virtual-time",
            "--seconds",
            "0.6",
            "--display",
            "160x90",
            "--no-framegen",
            "--status-every",
            "0",
            "--no-dump",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(k) = keys {
            args.extend(["--window-keys", k]);
        }
        let o = Command::new(env!("CARGO_BIN_EXE_host-sim"))
            .args(&args)
            .env("DISPLAY", &x.display)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        demo_end(&stdout)
    };
    // Nothing typed: the ship stays in the middle (no pad script with a window).
    let (_, x0, y0) = run("keys-none", None);
    assert_eq!((x0, y0), (640, 360));
    // Right and X (boost) from game frame 3 on: it flies right.
    let (_, x1, y1) = run("keys-right", Some("3:Right+x"));
    assert!(x1 > 640 + 100 && y1 == 360, "ship at {x1},{y1}");
    drop(x);
}
