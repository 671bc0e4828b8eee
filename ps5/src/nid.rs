//! NIDs: the 11-character names under which the console's system libraries
//! export their symbols.
//!
//! The NID of a symbol name is SHA-1(name ‖ salt), its first 8 bytes in
//! reverse order, encoded in base64 with the alphabet `A-Z a-z 0-9 + -` and
//! no padding (../shared/FACTS.md, "NID"). The kernel computes the same
//! hash when `sys_dynlib_dlsym` is given a name, so a NID is what to look for
//! in a module's export table when an import does not resolve.

use sha1::{Digest, Sha1};

/// The salt appended to every symbol name before hashing.
pub const NID_SALT: [u8; 16] = [
    0x51, 0x8D, 0x64, 0xA6, 0x35, 0xDE, 0xD8, 0xC1, 0xE6, 0xB0, 0x39, 0xB1, 0xC3, 0xE5, 0x52, 0x30,
];

/// The base64 alphabet of NIDs (`-` where standard base64 has `/`).
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-";

/// The length of a NID in characters.
pub const NID_LEN: usize = 11;

/// A symbol's NID: 11 ASCII characters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Nid([u8; NID_LEN]);

impl Nid {
    /// The NID of `name` (the symbol's name without any version suffix).
    pub fn of(name: &[u8]) -> Nid {
        let mut sha = Sha1::new();
        sha.update(name);
        sha.update(NID_SALT);
        let digest = sha.finalize();
        let mut bytes = [0u8; 9];
        for (i, b) in bytes.iter_mut().take(8).enumerate() {
            *b = digest[7 - i];
        }
        let mut out = [0u8; NID_LEN];
        for (group, chunk) in bytes.chunks(3).enumerate() {
            let v = (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]);
            for k in 0..4 {
                let pos = group * 4 + k;
                if pos < NID_LEN {
                    out[pos] = ALPHABET[((v >> (18 - 6 * k)) & 0x3F) as usize];
                }
            }
        }
        Nid(out)
    }

    /// The NID as text.
    pub fn as_str(&self) -> &str {
        // The alphabet is ASCII, so this cannot fail.
        core::str::from_utf8(&self.0).unwrap_or("???????????")
    }

    /// Whether `text` has the shape of a NID (11 characters of the alphabet).
    pub fn is_nid_shaped(text: &str) -> bool {
        text.len() == NID_LEN && text.bytes().all(|b| ALPHABET.contains(&b))
    }
}

impl core::fmt::Display for Nid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::fmt::Debug for Nid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Nid({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vectors of ../shared/FACTS.md.
    #[test]
    fn facts_vectors() {
        for (name, nid) in [
            ("sceKernelAllocateDirectMemory", "rTXw65xmLIA"),
            ("sceKernelUsleep", "1jfXLRVzisc"),
            ("sceKernelLoadStartModule", "wzvqT4UqKX8"),
            ("sceAppInstUtilAppInstallTitleDir", "Wudg3Xe3heE"),
        ] {
            assert_eq!(Nid::of(name.as_bytes()).as_str(), nid, "NID of {name}");
        }
    }

    /// An independent vector: the public loader (elfldr) resolves `getpid`
    /// by the NID `HoLVWNanBBc`.
    #[test]
    fn elfldr_vector() {
        assert_eq!(Nid::of(b"getpid").as_str(), "HoLVWNanBBc");
    }

    #[test]
    fn shape() {
        assert!(Nid::is_nid_shaped("rTXw65xmLIA"));
        assert!(Nid::is_nid_shaped("a-b+c012345"));
        assert!(!Nid::is_nid_shaped("rTXw65xmLI"));
        assert!(!Nid::is_nid_shaped("rTXw65xmLI/"));
        let n = Nid::of(b"x");
        assert!(Nid::is_nid_shaped(n.as_str()));
    }
}
