//! What the emitter tests share: an executable image made of a few words.

use ppu_elf::{Abi, Image, PF_R, PF_X, PT_LOAD, Segment};

/// Where the words are loaded.
pub const BASE: u32 = 0x10000;

/// A Linux executable image whose only segment holds `words` at [`BASE`].
pub fn image(words: &[u32]) -> Image {
    let data: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    Image {
        abi: Abi::Linux,
        entry: 0,
        segments: vec![Segment {
            kind: PT_LOAD,
            flags: PF_R | PF_X,
            offset: 0,
            vaddr: BASE,
            filesz: data.len() as u32,
            memsz: data.len() as u32,
            header_offset: 0,
        }],
        data,
        sections: Vec::new(),
        symbols: Vec::new(),
        phoff: 0,
        phnum: 0,
    }
}
