//! The guest address map LV2 hands out (in the manner of the PS3's: the
//! executable from 0x10000, user memory at 0x30000000, the RSX context at
//! 0x40000000, RSX local memory at 0xC0000000, stacks at 0xD0000000).

/// Where `sys_memory_allocate` and the runtime's own allocations go.
pub const USER_MEMORY_BASE: u32 = 0x3000_0000;
/// End of the user memory area.
pub const USER_MEMORY_END: u32 = 0x4000_0000;
/// The RSX context area (control register, labels; cellGcmSys).
pub const RSX_CONTEXT_BASE: u32 = 0x4000_0000;
/// Size of the RSX context area.
pub const RSX_CONTEXT_SIZE: u32 = 0x0040_0000;
/// RSX local (video) memory.
pub const RSX_LOCAL_BASE: u32 = 0xC000_0000;
/// Size of RSX local memory the runtime maps (256 MiB).
pub const RSX_LOCAL_SIZE: u32 = 0x1000_0000;
/// PPU thread stacks.
pub const STACK_BASE: u32 = 0xD000_0000;
/// End of the stack area.
pub const STACK_END: u32 = 0xE000_0000;
/// The HLE area: one 4-byte code address per HLE function, never executed
/// (a branch there calls the HLE function), ...
pub const HLE_CODE_BASE: u32 = 0xE800_0000;
/// ... then one 8-byte descriptor per HLE function (code, TOC 0), which
/// import stubs load.
pub const HLE_OPD_BASE: u32 = 0xE802_0000;
/// How many HLE functions fit.
pub const HLE_MAX_FUNCTIONS: u32 = 0x4000;
/// Size of the mapped HLE area.
pub const HLE_AREA_SIZE: u32 = 0x4_0000;
/// The link register value guest code returns to when the runtime called
/// it (a thread's entry, a callback): reaching it ends the call.
pub const RETURN_TO_HOST: u32 = HLE_CODE_BASE + 0x1_FFF0;

/// The HLE function index a branch target names, if it is in the HLE area.
#[inline]
pub fn hle_index(addr: u32) -> Option<u32> {
    let off = addr.wrapping_sub(HLE_CODE_BASE);
    (off < HLE_MAX_FUNCTIONS * 4 && off.is_multiple_of(4)).then_some(off / 4)
}

/// The code address of HLE function `index`.
pub fn hle_code(index: u32) -> u32 {
    HLE_CODE_BASE + 4 * index
}

/// The descriptor of HLE function `index`.
pub fn hle_opd(index: u32) -> u32 {
    HLE_OPD_BASE + 8 * index
}

// The HLE area's parts do not overlap.
const _: () = {
    assert!(HLE_CODE_BASE + 4 * HLE_MAX_FUNCTIONS <= RETURN_TO_HOST);
    assert!(RETURN_TO_HOST < HLE_OPD_BASE);
    assert!(HLE_OPD_BASE + 8 * HLE_MAX_FUNCTIONS <= HLE_CODE_BASE + HLE_AREA_SIZE);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hle_indices() {
        assert_eq!(hle_index(hle_code(7)), Some(7));
        assert_eq!(hle_index(RETURN_TO_HOST), None);
        assert_eq!(hle_index(0x10000), None);
    }
}
