//! The host platform: files, console capture, pads, time.

use platform::host::HostPlatform;
use platform::{FileKind, OpenMode, PadButtons, PadState, Platform, SeekFrom};

#[test]
fn files_round_trip_and_errors_keep_their_kind() {
    let p = HostPlatform::capturing();
    let dir = std::env::temp_dir().join(format!("cellport-platform-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    p.mkdir_all(&dir.join("a/b")).expect("mkdir_all");
    let f = dir.join("a/b/f.bin");
    let mut h = p
        .open(
            &f,
            OpenMode {
                read: true,
                write: true,
                create: true,
                ..OpenMode::default()
            },
        )
        .expect("create");
    assert_eq!(h.write(b"hello world").expect("write"), 11);
    assert_eq!(h.seek(SeekFrom::Start(6)).expect("seek"), 6);
    let mut buf = [0u8; 16];
    assert_eq!(h.read(&mut buf).expect("read"), 5);
    assert_eq!(&buf[..5], b"world");
    h.set_len(4).expect("truncate");
    assert_eq!(h.stat().expect("fstat").size, 4);
    drop(h);
    let e = p
        .open(
            &f,
            OpenMode {
                write: true,
                create: true,
                exclusive: true,
                ..OpenMode::default()
            },
        )
        .err()
        .expect("exclusive create of an existing file fails");
    assert_eq!(e.io_kind(), std::io::ErrorKind::AlreadyExists);
    assert!(
        e.to_string().contains("f.bin"),
        "the error names the path: {e}"
    );
    let list = p.read_dir(&dir.join("a")).expect("read_dir");
    assert_eq!(list.len(), 1);
    assert_eq!((list[0].name.as_str(), list[0].kind), ("b", FileKind::Dir));
    p.rename(&f, &dir.join("g.bin")).expect("rename");
    assert_eq!(
        p.stat(&dir.join("g.bin")).expect("stat").kind,
        FileKind::File
    );
    p.unlink(&dir.join("g.bin")).expect("unlink");
    assert_eq!(
        p.stat(&dir.join("g.bin")).err().map(|e| e.io_kind()),
        Some(std::io::ErrorKind::NotFound)
    );
    p.rmdir(&dir.join("a/b")).expect("rmdir");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn console_capture_pads_and_time() {
    let p = HostPlatform::capturing();
    p.console_write(0, b"one ");
    p.console_write(1, b"two");
    assert_eq!(p.take_console(), b"one two");
    assert!(!p.pads().any_connected());
    let s = PadState {
        buttons: PadButtons(PadButtons::CROSS | PadButtons::LEFT),
        ..PadState::default()
    };
    p.set_pad(0, Some(s));
    assert_eq!(p.pads().get(0), Some(s));
    assert_eq!((s.buttons.digital1(), s.buttons.digital2()), (0x80, 0x40));
    p.set_pad(9, Some(s)); // ignored
    let t0 = p.monotonic_ns();
    p.sleep(std::time::Duration::from_millis(2));
    assert!(p.monotonic_ns() - t0 >= 2_000_000);
    assert!(p.wall_clock().0 > 1_600_000_000);
    let (tz, _) = p.timezone();
    assert!((-14 * 60..=14 * 60).contains(&tz));
}
