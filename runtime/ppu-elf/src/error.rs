//! [`ElfError`]: why a file was refused, and where.

/// A malformed or unsupported executable: the file offset of the offending
/// bytes and what is wrong with them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at file offset {offset:#x}: {reason}")]
pub struct ElfError {
    /// File offset of the field or record that is wrong.
    pub offset: u64,
    /// What is wrong.
    pub reason: String,
}

impl ElfError {
    /// An error at `offset`.
    pub fn new(offset: u64, reason: impl Into<String>) -> ElfError {
        ElfError {
            offset,
            reason: reason.into(),
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, ElfError>;
