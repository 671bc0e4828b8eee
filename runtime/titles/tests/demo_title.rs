//! The recompiled demo as a title on a real device (lavapipe): each frame
//! the game flips reaches the title's picture (read back: a new picture
//! every frame, the ship where the script steers it), frames come at
//! the game's step in `GameSteps` timing, and the game ends when asked,
//! having run no instruction on the interpreter.

use framegen::headless::{Headless, Options};
use titles::demo::{DemoTiming, DemoTitle, DemoTitleOptions};
use titles::{RenderSlot, Title};

/// The centre of the ship (its colour, 0xE04020) in an RGBA picture.
fn ship(rgba: &[u8], width: u32) -> Option<(u32, u32)> {
    let (mut sx, mut sy, mut n) = (0u64, 0u64, 0u64);
    for (i, px) in rgba.chunks_exact(4).enumerate() {
        if px[..3] == [0xE0, 0x40, 0x20] {
            sx += u64::from(i as u32 % width);
            sy += u64::from(i as u32 / width);
            n += 1;
        }
    }
    (n > 0).then(|| ((sx / n) as u32, (sy / n) as u32))
}

#[test]
fn the_demo_title_shows_the_games_frames() {
    let h = Headless::new(&Options::default()).expect("a Vulkan device (lavapipe)");
    // SAFETY: the headless instance and its physical device.
    let props = unsafe {
        h.instance
            .get_physical_device_memory_properties(h.physical_device)
    };
    let mut title = DemoTitle::start(
        &h.device,
        &props,
        DemoTitleOptions {
            pad_script: Some("0:;4:right+cross".into()),
            fs_root: std::env::temp_dir().join("cellport-titles-test"),
            timing: DemoTiming::GameSteps,
            ..DemoTitleOptions::default()
        },
    )
    .expect("start the demo");
    assert_eq!(title.tick_hz(), 59.94);
    assert_eq!(title.frame_limit_fps(), Some(29.97));
    let mut ships = Vec::new();
    let mut last: Vec<u8> = Vec::new();
    for n in 0..12usize {
        let slot = n % 3;
        let tf = h
            .submit_and_wait(|cmd| {
                title
                    .render(RenderSlot {
                        cmd,
                        slot,
                        slots: 3,
                    })
                    .expect("render")
                    .expect("the demo runs")
            })
            .unwrap();
        // Read the picture back.
        let staging = h.staging((tf.width * tf.height * 4) as usize).unwrap();
        let image = title.picture().unwrap();
        h.submit_and_wait(|cmd| staging.copy_from_image(cmd, image, tf.width, tf.height))
            .unwrap();
        let rgba = staging.read().to_vec();
        assert_eq!((tf.width, tf.height, tf.ticks), (1280, 720, 2));
        // The game's own pixels: opaque, and the frame counter changes them.
        assert!(rgba.chunks_exact(4).all(|p| p[3] == 0xFF));
        assert_ne!(rgba, last, "frame {n} is a new picture");
        ships.push(ship(&rgba, tf.width).expect("the ship is drawn"));
        last = rgba;
    }
    let (x0, y0) = ships[2];
    let (x1, y1) = ships[11];
    assert!(
        x0.abs_diff(640) <= 1 && y0.abs_diff(360) <= 1,
        "the ship starts in the middle: {x0},{y0}"
    );
    assert!(
        x1 > x0 + 40 && y1 == y0,
        "the script steers it right: {x0},{y0} -> {x1},{y1}"
    );
    let end = title.end();
    assert_eq!(end["exit_status"], 0, "the game quits when asked: {end}");
    assert_eq!(end["frames"], 12);
    assert_eq!(
        (
            end["interpreter_entries"].as_u64(),
            end["interpreted_instructions"].as_u64()
        ),
        (Some(0), Some(0)),
        "recompiled, nothing ran on the interpreter: {end}"
    );
    // Ended: no more frames.
    let none = h
        .submit_and_wait(|cmd| {
            title
                .render(RenderSlot {
                    cmd,
                    slot: 0,
                    slots: 3,
                })
                .unwrap()
        })
        .unwrap();
    assert!(none.is_none());
}
