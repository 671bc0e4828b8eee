//! Guest memory: mapping, big-endian accessors, faults, reservations.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use guest_mem::{
    Access, CheckMode, FaultKind, GuestFault, GuestMemory, MemError, Prot, Reservation, catch_fault,
};

fn mem(mode: CheckMode) -> GuestMemory {
    GuestMemory::with_mode(mode).unwrap()
}

#[test]
fn accessors_are_big_endian_and_unaligned_ok() {
    for mode in [CheckMode::Checked, CheckMode::Trap, CheckMode::Both] {
        let m = mem(mode);
        m.map(0x1_0000, 0x1_0000, Prot::RW).unwrap();
        m.write_u32(0x1_0001, 0x1122_3344);
        assert_eq!(m.read_u8(0x1_0001), 0x11);
        assert_eq!(m.read_u16(0x1_0003), 0x3344);
        m.write_u64(0x1_0010, 0x0102_0304_0506_0708);
        assert_eq!(m.read_u64(0x1_0010), 0x0102_0304_0506_0708);
        assert_eq!(m.read_u32(0x1_0014), 0x0506_0708);
        m.write_u128(0x1_0020, 0x00112233_44556677_8899aabb_ccddeeff);
        assert_eq!(m.read_u8(0x1_0020), 0x00);
        assert_eq!(m.read_u8(0x1_002f), 0xff);
        m.write_f32(0x1_0040, 1.5);
        assert_eq!(m.read_u32(0x1_0040), 0x3FC0_0000);
        m.write_f64(0x1_0048, -2.0);
        assert_eq!(m.read_u64(0x1_0048), 0xC000_0000_0000_0000);
        assert_eq!(m.try_read_u16(0x1_0001), Ok(0x1122));
    }
}

#[test]
fn mapping_rules() {
    let m = mem(CheckMode::Checked);
    assert!(
        matches!(m.map(0x0, 0x100, Prot::RW), Err(MemError::BadRange { .. })),
        "page 0 stays unmapped"
    );
    assert!(matches!(
        m.map(0xFFFF_0000, 0x2_0000, Prot::RW),
        Err(MemError::BadRange { .. })
    ));
    m.map(0x2_0010, 0x10, Prot::RW).unwrap(); // rounds out to the 64 KiB page
    assert_eq!(m.prot_at(0x2_0000), Prot::RW);
    assert_eq!(m.prot_at(0x2_FFFF), Prot::RW);
    assert_eq!(m.prot_at(0x3_0000), Prot::empty());
    m.write_u32(0x2_0000, 7);
    m.map(0x2_0000, 0x1_0000, Prot::READ).unwrap(); // remap keeps content
    assert_eq!(m.read_u32(0x2_0000), 7);
    m.unmap(0x2_0000, 0x1_0000).unwrap();
    m.map(0x2_0000, 0x1_0000, Prot::RW).unwrap();
    assert_eq!(m.read_u32(0x2_0000), 0, "unmapped pages come back zeroed");
    assert!(matches!(
        m.protect(0x5_0000, 4, Prot::RW),
        Err(MemError::NotMapped { addr: 0x5_0000 })
    ));
    assert_eq!(
        m.find_free(0x2_0000, 0x1_0000, 0x1_0000, 0x10_0000),
        Some(0x3_0000)
    );
}

#[test]
fn faults_name_address_and_pc_in_checked_mode() {
    let m = mem(CheckMode::Checked);
    m.map(0x1_0000, 0x1_0000, Prot::READ).unwrap();
    // try_ accessors return the fault.
    let f = m.try_read_u32(0x20).unwrap_err();
    assert_eq!(
        (f.addr, f.size, f.access, f.kind),
        (0x20, 4, Access::Read, FaultKind::Unmapped)
    );
    let f = m.try_write_u8(0x1_0004, 1).unwrap_err();
    assert_eq!(f.kind, FaultKind::ReadOnly);
    // A read crossing into an unmapped page faults.
    assert_eq!(
        m.try_read_u64(0x1_FFFC).unwrap_err().kind,
        FaultKind::Unmapped
    );
    assert_eq!(
        m.try_read_u32(0xFFFF_FFFE).unwrap_err().kind,
        FaultKind::Wraps
    );
    // Plain accessors raise; catch_fault returns it with the registered PC.
    let pc = 0x0001_2340u32;
    // SAFETY: `pc` outlives the registration (unregistered below).
    unsafe { guest_mem::fault::set_pc_slot(&pc) };
    let r = catch_fault(|| m.write_u32(0x1_0008, 5));
    // SAFETY: unregistering.
    unsafe { guest_mem::fault::set_pc_slot(std::ptr::null()) };
    let f: GuestFault = r.unwrap_err();
    assert_eq!(
        (f.addr, f.access, f.kind, f.pc),
        (0x1_0008, Access::Write, FaultKind::ReadOnly, Some(pc))
    );
    let msg = f.to_string();
    assert!(
        msg.contains("0x00010008") && msg.contains("0x00012340") && msg.contains("read-only"),
        "{msg}"
    );
    // Memory still works after a caught fault.
    assert_eq!(catch_fault(|| m.read_u32(0x1_0000)), Ok(0));
}

#[test]
fn trap_mode_reports_the_fault_and_exits() {
    // Runs itself in a child process: the fault ends that process.
    if std::env::var_os("GUEST_MEM_TRAP_CHILD").is_some() {
        let m = mem(CheckMode::Trap);
        m.map(0x1_0000, 0x1_0000, Prot::READ).unwrap();
        let pc = 0x0002_0000u32;
        // SAFETY: lives until the process exits.
        unsafe { guest_mem::fault::set_pc_slot(&pc) };
        let _ = m.read_u32(0x1_0000);
        m.write_u32(0x1_0010, 1); // read-only: the host MMU traps
        unreachable!("the write must have faulted");
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "trap_mode_reports_the_fault_and_exits",
            "--nocapture",
        ])
        .env("GUEST_MEM_TRAP_CHILD", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(guest_mem::fault::TRAP_EXIT_CODE),
        "stderr: {err}"
    );
    assert!(
        err.contains("guest memory fault: write at guest address 0x00010010"),
        "{err}"
    );
    assert!(err.contains("guest pc 0x00020000"), "{err}");
}

#[test]
fn dcbz_zeroes_the_whole_128_byte_line() {
    let m = mem(CheckMode::Checked);
    m.map(0x1_0000, 0x1_0000, Prot::RW).unwrap();
    m.fill(0x1_0000, 0x200, 0xAA).unwrap();
    m.zero_line(0x1_0093).unwrap();
    for a in 0x1_0000..0x1_0200u32 {
        let want = if (0x1_0080..0x1_0100).contains(&a) {
            0
        } else {
            0xAA
        };
        assert_eq!(m.read_u8(a), want, "at {a:#x}");
    }
}

#[test]
fn host_write_fills_read_only_pages() {
    for mode in [CheckMode::Checked, CheckMode::Trap] {
        let m = mem(mode);
        m.map(0x1_0000, 0x2_0000, Prot::RX).unwrap();
        m.host_write(0x1_FFFE, &[1, 2, 3, 4]).unwrap();
        assert_eq!(m.read_u32(0x1_FFFE), 0x0102_0304);
        assert_eq!(m.fetch_u32(0x1_FFFE), Ok(0x0102_0304));
        assert!(m.try_write_u8(0x1_0000, 0).is_err());
        assert_eq!(m.read_cstr(0x1_FFFE, 8).unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(m.read_cstr(0x1_FFFE, 3).unwrap_err().addr, 0x1_FFFE);
    }
}

#[test]
fn reservation_single_thread() {
    let m = mem(CheckMode::Checked);
    m.map(0x1_0000, 0x1_0000, Prot::RW).unwrap();
    let mut r = Reservation::default();
    m.write_u32(0x1_0100, 5);
    assert_eq!(m.load_reserved_u32(&mut r, 0x1_0100), Ok(5));
    assert_eq!(m.live_reservations(), 1);
    assert_eq!(m.store_conditional_u32(&mut r, 0x1_0100, 6), Ok(true));
    assert_eq!(m.read_u32(0x1_0100), 6);
    assert_eq!(m.live_reservations(), 0);
    // No reservation: fails.
    assert_eq!(m.store_conditional_u32(&mut r, 0x1_0100, 7), Ok(false));
    // Own store of a different value: the compare fails.
    m.load_reserved_u32(&mut r, 0x1_0100).unwrap();
    m.write_u32(0x1_0100, 9);
    assert_eq!(m.store_conditional_u32(&mut r, 0x1_0100, 7), Ok(false));
    // Own store elsewhere in the line keeps the reservation (as on hardware).
    m.load_reserved_u64(&mut r, 0x1_0108).unwrap();
    m.write_u32(0x1_0120, 1);
    assert_eq!(m.store_conditional_u64(&mut r, 0x1_0108, 3), Ok(true));
    // Unaligned reservation accesses fault.
    assert_eq!(
        m.load_reserved_u32(&mut r, 0x1_0102).unwrap_err().kind,
        FaultKind::Unaligned
    );
}

#[test]
fn another_threads_store_to_the_line_breaks_the_reservation() {
    let m = Arc::new(mem(CheckMode::Trap));
    m.map(0x1_0000, 0x1_0000, Prot::RW).unwrap();
    let mut r = Reservation::default();
    m.write_u32(0x1_0200, 1);
    m.load_reserved_u32(&mut r, 0x1_0200).unwrap();
    // Another thread stores the same value to another word of the line.
    let m2 = Arc::clone(&m);
    std::thread::spawn(move || m2.write_u32(0x1_0278, 0))
        .join()
        .unwrap();
    assert_eq!(m.store_conditional_u32(&mut r, 0x1_0200, 2), Ok(false));
    // A store to another line does not.
    m.load_reserved_u32(&mut r, 0x1_0200).unwrap();
    let m2 = Arc::clone(&m);
    std::thread::spawn(move || m2.write_u32(0x1_0280, 0))
        .join()
        .unwrap();
    assert_eq!(m.store_conditional_u32(&mut r, 0x1_0200, 2), Ok(true));
    // dcbz by another thread breaks it too.
    m.load_reserved_u32(&mut r, 0x1_0200).unwrap();
    let m2 = Arc::clone(&m);
    std::thread::spawn(move || m2.zero_line(0x1_0200).unwrap())
        .join()
        .unwrap();
    assert_eq!(m.store_conditional_u32(&mut r, 0x1_0200, 2), Ok(false));
}

#[test]
fn atomic_increments_from_many_threads_add_up() {
    // lwarx/stwcx. loops on one counter, plus plain stores hammering the
    // same line: no increment may be lost.
    let m = Arc::new(mem(CheckMode::Trap));
    m.map(0x1_0000, 0x1_0000, Prot::RW).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let noise = {
        let (m, stop) = (Arc::clone(&m), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                m.write_u32(0x1_0304, 0xDEAD);
            }
        })
    };
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let m = Arc::clone(&m);
            std::thread::spawn(move || {
                let mut r = Reservation::default();
                for _ in 0..2000 {
                    loop {
                        let v = m.load_reserved_u32(&mut r, 0x1_0300).unwrap();
                        if m.store_conditional_u32(&mut r, 0x1_0300, v + 1).unwrap() {
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    noise.join().unwrap();
    assert_eq!(m.read_u32(0x1_0300), 6000);
    assert_eq!(m.live_reservations(), 0);
}
