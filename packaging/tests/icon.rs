//! The committed icon is what the code draws (`./x package icon` redraws it).

mod common;

use std::process::Command;

#[test]
fn committed_icon_is_current() {
    let committed = std::fs::read(common::repo_root().join("sce_sys/icon0.png")).unwrap();
    let drawn = packaging::icon::icon_png();
    assert!(
        committed == drawn,
        "sce_sys/icon0.png differs from what packaging/src/icon.rs draws; run ./x package icon"
    );
}

#[test]
fn icon_is_a_512_rgb_png_with_art() {
    let png = packaging::icon::icon_png();
    let mut reader = png::Decoder::new(std::io::Cursor::new(&png))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (512, 512));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    // Drawn, not flat: many colours (anti-aliased edges and gradients).
    let mut colours: Vec<[u8; 3]> = buf.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 1000, "{} colours", colours.len());
}

#[test]
fn icon_check_command() {
    let dir = common::scratch("icon-cmd");
    let file = dir.join("icon0.png");
    let run = |check: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_package"));
        c.args(["icon", "--out"]).arg(&file);
        if check {
            c.arg("--check");
        }
        c.output().unwrap().status.code()
    };
    assert_eq!(run(false), Some(0));
    assert_eq!(std::fs::read(&file).unwrap(), packaging::icon::icon_png());
    assert_eq!(run(true), Some(0));
    std::fs::write(&file, b"stale").unwrap();
    assert_eq!(run(true), Some(1));
}
