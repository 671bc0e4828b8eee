//! RSX method numbers (register byte offsets) the processor executes.

/// `NV406E_SET_REFERENCE`: the control register's `ref` takes the value.
pub const NV406E_SET_REFERENCE: u32 = 0x0050;
/// `NV406E_SEMAPHORE_OFFSET`: the front end's semaphore (label) offset.
pub const NV406E_SEMAPHORE_OFFSET: u32 = 0x0064;
/// `NV406E_SEMAPHORE_ACQUIRE`: wait until the semaphore holds the value.
pub const NV406E_SEMAPHORE_ACQUIRE: u32 = 0x0068;
/// `NV406E_SEMAPHORE_RELEASE`: write the value to the semaphore.
pub const NV406E_SEMAPHORE_RELEASE: u32 = 0x006C;
/// `NV4097_SET_SEMAPHORE_OFFSET`: the back end's semaphore offset.
pub const NV4097_SET_SEMAPHORE_OFFSET: u32 = 0x1D6C;
/// `NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE`: write the (swizzled) value
/// once the back end is done.
pub const NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE: u32 = 0x1D70;
/// `NV4097_TEXTURE_READ_SEMAPHORE_RELEASE`: write the value once textures
/// are read.
pub const NV4097_TEXTURE_READ_SEMAPHORE_RELEASE: u32 = 0x1D74;
/// `GCM_FLIP_HEAD` (head 0): flip to the display buffer given.
pub const GCM_FLIP_HEAD: u32 = 0xE920;
/// `GCM_FLIP_HEAD` (head 1).
pub const GCM_FLIP_HEAD_1: u32 = 0xE924;
/// `GCM_FLIP_COMMAND`: flip to the display buffer given (libgcm's
/// `cellGcmSetFlip`).
pub const GCM_FLIP_COMMAND: u32 = 0xFEAC;

/// Whether the processor executes method `m` itself.
pub fn is_known(m: u32) -> bool {
    matches!(
        m,
        NV406E_SET_REFERENCE
            | NV406E_SEMAPHORE_OFFSET
            | NV406E_SEMAPHORE_ACQUIRE
            | NV406E_SEMAPHORE_RELEASE
            | NV4097_SET_SEMAPHORE_OFFSET
            | NV4097_BACK_END_WRITE_SEMAPHORE_RELEASE
            | NV4097_TEXTURE_READ_SEMAPHORE_RELEASE
            | GCM_FLIP_HEAD
            | GCM_FLIP_HEAD_1
            | GCM_FLIP_COMMAND
    )
}
