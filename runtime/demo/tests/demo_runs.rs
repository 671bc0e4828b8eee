//! The demo runs headless, on the interpreter and recompiled: its frames
//! arrive at 30 fps (2 ticks of the 59.94 Hz clock), 1280x720, with the
//! ship where the pad script steers it, and it quits with status 0 (its
//! own check that every frame's RSX reference and label arrived).
//! Recompiled, nothing runs on the interpreter, and the game also ends
//! properly when its threads park instead of unwinding (the PS5 build's
//! way, `GuestExit::Park`).

use std::time::Duration;

use demo::{Demo, DemoFrame, DemoOptions, GuestExit};

/// The centre of the ship (its colour, 0xE04020) in a frame.
fn ship(f: &DemoFrame) -> Option<(u32, u32)> {
    let (mut sx, mut sy, mut n) = (0u64, 0u64, 0u64);
    for (i, px) in f.rgba.chunks_exact(4).enumerate() {
        if px[..3] == [0xE0, 0x40, 0x20] {
            sx += (i as u32 % f.width) as u64;
            sy += (i as u32 / f.width) as u64;
            n += 1;
        }
    }
    (n > 0).then(|| ((sx / n) as u32, (sy / n) as u32))
}

fn run(lifted: bool, guest_exit: GuestExit) {
    let fs = std::env::temp_dir().join(format!("cellport-demo-test-{lifted}-{guest_exit:?}"));
    let demo = Demo::start(DemoOptions {
        lifted,
        guest_exit,
        frames: Some(30),
        pad_script: Some("0:;10:right+cross".into()),
        fs_root: fs,
        ..DemoOptions::default()
    })
    .expect("start the demo");
    let mut frames = Vec::new();
    while let Some(f) = demo.next_frame(Duration::from_secs(20)) {
        frames.push(f);
    }
    let status = demo.stop(Duration::from_secs(10));
    assert_eq!(status, Some(0), "the demo's own checks");
    if lifted {
        assert_eq!(
            demo.interpreted(),
            Some((0, 0)),
            "recompiled, every thread and callback runs lifted code (interpreter entries, instructions)"
        );
    }
    assert_eq!(frames.len(), 30);
    let first = &frames[0];
    assert_eq!(
        (first.width, first.height, first.rgba.len()),
        (1280, 720, 1280 * 720 * 4)
    );
    assert_eq!(
        frames.iter().map(|f| f.flip).collect::<Vec<_>>(),
        (1..=30).collect::<Vec<u64>>()
    );
    // The game's timer paces it at 30 fps: never faster (a slow host may
    // make it slower, which is not an error).
    let ticks: Vec<u32> = frames[1..].iter().map(|f| f.ticks).collect();
    let sum: u32 = ticks.iter().sum();
    assert!(
        ticks.iter().all(|&t| t >= 1) && sum * 10 >= 18 * ticks.len() as u32,
        "30 fps or slower: {ticks:?}"
    );
    let (x0, y0) = ship(&frames[5]).expect("the ship is drawn");
    assert!(
        x0.abs_diff(640) <= 1 && y0.abs_diff(360) <= 1,
        "the ship starts in the middle: {x0},{y0}"
    );
    let (x1, y1) = ship(&frames[29]).expect("the ship is drawn");
    assert!(
        x1 > x0 + 100 && y1 == y0,
        "steered right at boost speed: {x0},{y0} -> {x1},{y1}"
    );
    assert_ne!(frames[3].rgba, frames[4].rgba, "the scene moves");
}

#[test]
fn runs_on_the_interpreter() {
    run(false, GuestExit::Unwind);
}

#[test]
fn runs_recompiled() {
    run(true, GuestExit::Unwind);
}

#[test]
fn runs_recompiled_with_threads_parking_at_their_end() {
    run(true, GuestExit::Park);
}
