//! The FIFO processor against hand-written command streams.

use std::sync::{Arc, Mutex};

use guest_mem::{CheckMode, GuestMemory, Prot};
use rsx::methods::*;
use rsx::{
    DisplayBuffer, FLIP_STATUS_DONE, FLIP_STATUS_WAITING, Frame, FrameSink, Host, Layout, Rsx, Step,
};

const IO: u32 = 0x3000_0000;
const CONTROL: u32 = 0x4010_0040;
const LABELS: u32 = 0x4030_0000;
const LOCAL: u32 = 0xC000_0000;

struct TestHost {
    mem: &'static GuestMemory,
    flipped: Mutex<Vec<u32>>,
}

impl Host for TestHost {
    fn memory(&self) -> &GuestMemory {
        self.mem
    }
    fn running(&self) -> bool {
        true
    }
    fn now_us(&self) -> u64 {
        1234
    }
    fn idle(&self) {}
    fn flipped(&self, buffer: u32) {
        self.flipped.lock().unwrap().push(buffer);
    }
}

#[derive(Default)]
struct Frames(Mutex<Vec<Frame>>);
impl FrameSink for Frames {
    fn present(&self, frame: Frame) {
        self.0.lock().unwrap().push(frame);
    }
}

struct Setup {
    rsx: Rsx,
    mem: &'static GuestMemory,
    host: Arc<TestHost>,
    frames: Arc<Frames>,
    /// Where the next command word goes (IO offset).
    at: u32,
}

impl Setup {
    fn new() -> Setup {
        let mem: &'static GuestMemory = Box::leak(Box::new(
            GuestMemory::with_mode(CheckMode::Checked).expect("memory"),
        ));
        mem.map(IO, 0x10_0000, Prot::RW).expect("io");
        mem.map(0x4000_0000, 0x40_0000, Prot::RW).expect("context");
        mem.map(LOCAL, 0x10_0000, Prot::RW).expect("local");
        let host = Arc::new(TestHost {
            mem,
            flipped: Mutex::new(Vec::new()),
        });
        let frames = Arc::new(Frames::default());
        let layout = Layout {
            control: CONTROL,
            labels: LABELS,
            local_base: LOCAL,
            local_size: 0x10_0000,
        };
        let rsx = Rsx::new(host.clone(), layout, Some(frames.clone()));
        rsx.map_io(IO, 0, 0x10_0000);
        rsx.reset(0x1000);
        mem.write_u32(CONTROL, 0x1000);
        Setup {
            rsx,
            mem,
            host,
            frames,
            at: 0x1000,
        }
    }

    fn word(&mut self, w: u32) -> &mut Self {
        self.mem.write_u32(IO + self.at, w);
        self.at += 4;
        self
    }

    fn method(&mut self, m: u32, args: &[u32]) -> &mut Self {
        self.word((args.len() as u32) << 18 | m);
        for &a in args {
            self.word(a);
        }
        self
    }

    fn put(&self) {
        self.mem.write_u32(CONTROL, self.at);
    }

    /// Steps until idle (or `limit` steps); returns the last step.
    fn run(&self, limit: usize) -> Step {
        let mut last = Step::Idle;
        for _ in 0..limit {
            last = self.rsx.step();
            if last != Step::Command {
                break;
            }
        }
        last
    }

    fn get(&self) -> u32 {
        self.mem.read_u32(CONTROL + 4)
    }
    fn reference(&self) -> u32 {
        self.mem.read_u32(CONTROL + 8)
    }
    fn label(&self, i: u32) -> u32 {
        self.mem.read_u32(LABELS + 0x10 * i)
    }
}

#[test]
fn reference_and_labels() {
    let mut s = Setup::new();
    s.method(NV406E_SET_REFERENCE, &[0x42])
        .method(NV406E_SEMAPHORE_OFFSET, &[0x10 * 3])
        .method(NV406E_SEMAPHORE_RELEASE, &[0xCAFE])
        .method(NV4097_SET_SEMAPHORE_OFFSET, &[0x10 * 4])
        .method(
            NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE,
            &[rsx::swizzle_back_end(0x1122_3344)],
        )
        .method(NV4097_TEXTURE_READ_SEMAPHORE_RELEASE, &[7]);
    assert_eq!(s.run(100), Step::Idle, "nothing to do before PUT moves");
    s.put();
    assert_eq!(s.run(100), Step::Idle);
    assert_eq!(s.reference(), 0x42);
    assert_eq!(s.label(3), 0xCAFE);
    assert_eq!(s.label(4), 7);
    assert_eq!(s.get(), s.at, "GET is published");
}

#[test]
fn back_end_values_are_swizzled_on_the_way() {
    let mut s = Setup::new();
    s.method(NV4097_SET_SEMAPHORE_OFFSET, &[0x10])
        .method(NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE, &[0x1122_3344]);
    s.put();
    s.run(100);
    assert_eq!(s.label(1), 0x1144_3322);
    assert_eq!(
        rsx::swizzle_back_end(rsx::swizzle_back_end(0xA1B2_C3D4)),
        0xA1B2_C3D4
    );
}

#[test]
fn non_incrementing_methods_repeat_one_register() {
    let mut s = Setup::new();
    s.word(0x4000_0000 | 3 << 18 | NV406E_SET_REFERENCE)
        .word(1)
        .word(2)
        .word(3);
    s.put();
    s.run(100);
    assert_eq!(s.reference(), 3);
    assert_eq!(s.rsx.register(NV406E_SET_REFERENCE), 3);
}

#[test]
fn jumps_calls_and_returns() {
    let mut s = Setup::new();
    // 0x1000: old-style jump to 0x2000, which calls 0x3000, returns, sets
    // the reference and new-style jumps to 0x4000 (PUT).
    s.word(0x2000_0000 | 0x2000);
    s.at = 0x2000;
    s.word(0x3000 | 2)
        .method(NV406E_SET_REFERENCE, &[0x22])
        .word(0x4000 | 1);
    s.at = 0x3000;
    s.method(NV406E_SEMAPHORE_OFFSET, &[0])
        .method(NV406E_SEMAPHORE_RELEASE, &[0x33])
        .word(0x0002_0000);
    s.mem.write_u32(CONTROL, 0x4000);
    assert_eq!(s.run(100), Step::Idle);
    assert_eq!(s.label(0), 0x33);
    assert_eq!(s.reference(), 0x22);
    assert_eq!(s.get(), 0x4000);
}

#[test]
fn a_semaphore_acquire_waits_for_its_value() {
    let mut s = Setup::new();
    s.method(NV406E_SEMAPHORE_OFFSET, &[0x10 * 9])
        .method(NV406E_SEMAPHORE_ACQUIRE, &[5])
        .method(NV406E_SET_REFERENCE, &[0x77]);
    s.put();
    assert_eq!(s.run(100), Step::Waiting);
    assert_eq!(s.run(100), Step::Waiting);
    assert_ne!(s.reference(), 0x77);
    s.mem.write_u32(LABELS + 0x90, 5);
    assert_eq!(s.run(100), Step::Idle);
    assert_eq!(s.reference(), 0x77);
}

#[test]
fn a_flip_presents_the_display_buffer() {
    let mut s = Setup::new();
    // A 4x2 buffer with a pitch of 32 bytes at local offset 0x1000.
    for y in 0..2u32 {
        for x in 0..4u32 {
            s.mem.write_u32(
                LOCAL + 0x1000 + y * 32 + x * 4,
                0xFF00_0000 | (x * 0x40) << 16 | (y * 0x80) << 8 | 0x11,
            );
        }
    }
    s.rsx.set_display_buffer(
        1,
        DisplayBuffer {
            offset: 0x1000,
            pitch: 32,
            width: 4,
            height: 2,
        },
    );
    s.rsx.set_flip_status(FLIP_STATUS_WAITING);
    s.method(GCM_FLIP_COMMAND, &[1]);
    s.put();
    s.run(100);
    assert_eq!(s.rsx.flip_status(), FLIP_STATUS_DONE);
    assert_eq!(s.rsx.flips(), 1);
    assert_eq!(s.rsx.last_flip_us(), 1234);
    assert_eq!(*s.host.flipped.lock().unwrap(), [1]);
    let frames = s.frames.0.lock().unwrap();
    let f = &frames[0];
    assert_eq!((f.width, f.height, f.buffer, f.flip), (4, 2, 1, 1));
    assert_eq!(
        &f.rgba[..8],
        &[0x00, 0x00, 0x11, 0xFF, 0x40, 0x00, 0x11, 0xFF]
    );
    assert_eq!(
        &f.rgba[4 * 4..4 * 4 + 4],
        &[0x00, 0x80, 0x11, 0xFF],
        "row 1 starts a pitch further"
    );
}

#[test]
fn a_bad_get_stops_the_fifo_without_crashing() {
    let mut s = Setup::new();
    s.word(0x2000_0000 | 0x0080_0000); // jump outside the 1 MiB IO map
    s.put();
    assert_eq!(s.run(100), Step::Stuck);
    assert_eq!(s.run(100), Step::Stuck);
    assert_eq!(s.get(), 0x0080_0000);
}

#[test]
fn io_mappings_translate_both_ways() {
    let s = Setup::new();
    assert_eq!(s.rsx.io_to_ea(0x1234), Some(IO + 0x1234));
    assert_eq!(s.rsx.ea_to_io(IO + 0x10), Some(0x10));
    assert_eq!(s.rsx.io_to_ea(0x10_0000), None);
    s.rsx.map_io(0x3100_0000, 0x10_0000, 0x10_0000);
    assert_eq!(s.rsx.io_to_ea(0x10_0004), Some(0x3100_0004));
    assert!(s.rsx.unmap_io(0x10_0000));
    assert_eq!(s.rsx.io_to_ea(0x10_0004), None);
}
