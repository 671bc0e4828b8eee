//! SPIR-V reading and binding renumbering.
//!
//! A compute shader's descriptor bindings may be numbered sparsely (ours use
//! semantic numbers, FSR3's use 0, 100, 200, 300, 405 ...). Some drivers keep a
//! binding number in a byte and size a set's table by its highest binding
//! (ps5vk does: sparse numbers fail pipeline creation). [`renumber_bindings`]
//! rewrites every `Binding` decoration of a module to 0..n-1 per descriptor
//! set, in ascending order of the original numbers, and returns the table that
//! maps the originals to the new numbers together with each binding's
//! descriptor type, read from the module itself. The set layouts and the
//! descriptor writes are built from that table, so the three always agree.
//!
//! A module is a stream of 32-bit words: a five-word header, then
//! instructions whose first word holds the word count (high 16 bits) and the
//! opcode (low 16 bits). Only the handful of instructions needed to find the
//! descriptor variables and their types are interpreted.

use std::collections::HashMap;

use ash::vk;

/// The SPIR-V magic number, the first word of every module.
pub const MAGIC: u32 = 0x0723_0203;

const OP_TYPE_INT: u16 = 21;
const OP_TYPE_IMAGE: u16 = 25;
const OP_TYPE_SAMPLER: u16 = 26;
const OP_TYPE_SAMPLED_IMAGE: u16 = 27;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;
const OP_TYPE_STRUCT: u16 = 30;
const OP_TYPE_POINTER: u16 = 32;
const OP_CONSTANT: u16 = 43;
const OP_VARIABLE: u16 = 59;
const OP_DECORATE: u16 = 71;

const DECORATION_BLOCK: u32 = 2;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_STORAGE_BUFFER: u32 = 12;

const DIM_BUFFER: u32 = 5;

/// Why a word stream is not a SPIR-V module this reader can handle.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum SpirvError {
    /// Shorter than the header, or not a whole number of words.
    #[error("SPIR-V module is {0} bytes: not a whole number of words, or shorter than the header")]
    BadLength(usize),
    /// The first word is not the SPIR-V magic number.
    #[error("not a SPIR-V module: magic word is {0:#010x}, expected 0x07230203")]
    BadMagic(u32),
    /// An instruction's word count is zero or runs past the end of the module.
    #[error("malformed instruction at word {offset}: word count {count} (module has {len} words)")]
    BadInstruction {
        /// Word offset of the instruction.
        offset: usize,
        /// The word count it declares.
        count: usize,
        /// Words in the module.
        len: usize,
    },
    /// A descriptor variable has a `Binding` but its type is not one a
    /// compute pass may bind here.
    #[error("binding {binding} (set {set}, variable %{id}): unsupported descriptor type")]
    UnsupportedType {
        /// Descriptor set.
        set: u32,
        /// Original binding number.
        binding: u32,
        /// The variable's result id.
        id: u32,
    },
    /// Two variables of one set share a binding number.
    #[error("set {set}: binding {binding} is used by two variables")]
    DuplicateBinding {
        /// Descriptor set.
        set: u32,
        /// The duplicated original binding number.
        binding: u32,
    },
}

/// One descriptor binding of a module, after renumbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// Descriptor set number.
    pub set: u32,
    /// The number the source gave it.
    pub original: u32,
    /// The number it has now (0..n-1 within its set).
    pub binding: u32,
    /// The descriptor type, read from the variable's type.
    pub descriptor_type: vk::DescriptorType,
    /// Array length (1 for a plain variable).
    pub count: u32,
}

/// The bindings of a module, sorted by set, then binding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BindingTable {
    /// Every binding, sorted by `(set, binding)`.
    pub bindings: Vec<Binding>,
}

impl BindingTable {
    /// The binding whose source number was `original` in `set`.
    pub fn by_original(&self, set: u32, original: u32) -> Option<&Binding> {
        self.bindings
            .iter()
            .find(|b| b.set == set && b.original == original)
    }

    /// The bindings of one set.
    pub fn set(&self, set: u32) -> impl Iterator<Item = &Binding> {
        self.bindings.iter().filter(move |b| b.set == set)
    }
}

/// Turns a byte slice into words (little-endian, as glslc writes them).
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, SpirvError> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return Err(SpirvError::BadLength(bytes.len()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Turns words back into bytes (little-endian).
pub fn bytes_from_words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// An instruction: its word offset, opcode and operand words.
struct Inst {
    offset: usize,
    opcode: u16,
    count: usize,
}

fn instructions(words: &[u32]) -> Result<Vec<Inst>, SpirvError> {
    if words.len() < 5 {
        return Err(SpirvError::BadLength(words.len() * 4));
    }
    if words[0] != MAGIC {
        return Err(SpirvError::BadMagic(words[0]));
    }
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = (words[i] & 0xffff) as u16;
        if count == 0 || i + count > words.len() {
            return Err(SpirvError::BadInstruction {
                offset: i,
                count,
                len: words.len(),
            });
        }
        out.push(Inst {
            offset: i,
            opcode,
            count,
        });
        i += count;
    }
    Ok(out)
}

#[derive(Clone, Copy)]
enum Ty {
    Image { dim: u32, sampled: u32 },
    Sampler,
    SampledImage,
    Array { elem: u32, len_id: u32 },
    RuntimeArray,
    Struct,
    Pointer { storage: u32, pointee: u32 },
    Int,
}

/// Renumbers the `Binding` decorations of `words` in place to 0..n-1 per
/// set (keeping their order) and returns the table of old and new numbers.
pub fn renumber_bindings(words: &mut [u32]) -> Result<BindingTable, SpirvError> {
    let insts = instructions(words)?;
    let mut types: HashMap<u32, Ty> = HashMap::new();
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut variables: HashMap<u32, u32> = HashMap::new(); // id -> pointer type id
    let mut set_of: HashMap<u32, u32> = HashMap::new();
    let mut binding_of: HashMap<u32, (u32, usize)> = HashMap::new(); // id -> (binding, word offset)
    let mut buffer_block: HashMap<u32, bool> = HashMap::new(); // struct id -> BufferBlock?

    for inst in &insts {
        let w = &words[inst.offset..inst.offset + inst.count];
        match inst.opcode {
            OP_DECORATE if w.len() >= 3 => {
                let target = w[1];
                match w[2] {
                    DECORATION_DESCRIPTOR_SET if w.len() >= 4 => {
                        set_of.insert(target, w[3]);
                    }
                    DECORATION_BINDING if w.len() >= 4 => {
                        binding_of.insert(target, (w[3], inst.offset + 3));
                    }
                    DECORATION_BLOCK => {
                        buffer_block.entry(target).or_insert(false);
                    }
                    DECORATION_BUFFER_BLOCK => {
                        buffer_block.insert(target, true);
                    }
                    _ => {}
                }
            }
            OP_TYPE_INT if w.len() >= 2 => {
                types.insert(w[1], Ty::Int);
            }
            OP_TYPE_IMAGE if w.len() >= 8 => {
                types.insert(
                    w[1],
                    Ty::Image {
                        dim: w[3],
                        sampled: w[7],
                    },
                );
            }
            OP_TYPE_SAMPLER if w.len() >= 2 => {
                types.insert(w[1], Ty::Sampler);
            }
            OP_TYPE_SAMPLED_IMAGE if w.len() >= 3 => {
                types.insert(w[1], Ty::SampledImage);
            }
            OP_TYPE_ARRAY if w.len() >= 4 => {
                types.insert(
                    w[1],
                    Ty::Array {
                        elem: w[2],
                        len_id: w[3],
                    },
                );
            }
            OP_TYPE_RUNTIME_ARRAY if w.len() >= 3 => {
                types.insert(w[1], Ty::RuntimeArray);
            }
            OP_TYPE_STRUCT if w.len() >= 2 => {
                types.insert(w[1], Ty::Struct);
            }
            OP_TYPE_POINTER if w.len() >= 4 => {
                types.insert(
                    w[1],
                    Ty::Pointer {
                        storage: w[2],
                        pointee: w[3],
                    },
                );
            }
            OP_CONSTANT if w.len() >= 4 => {
                if matches!(types.get(&w[1]), Some(Ty::Int)) {
                    constants.insert(w[2], w[3]);
                }
            }
            OP_VARIABLE if w.len() >= 4 => {
                variables.insert(w[2], w[1]);
            }
            _ => {}
        }
    }

    // Resolve each decorated variable's descriptor type.
    let mut found: Vec<(u32, u32, u32, vk::DescriptorType, u32, usize)> = Vec::new();
    for (&id, &(binding, offset)) in &binding_of {
        let Some(&ptr_ty) = variables.get(&id) else {
            continue; // a Binding on something that is not a variable: leave it.
        };
        let set = set_of.get(&id).copied().unwrap_or(0);
        let unsupported = SpirvError::UnsupportedType { set, binding, id };
        let Some(Ty::Pointer { storage, pointee }) = types.get(&ptr_ty).copied() else {
            return Err(unsupported);
        };
        let mut ty_id = pointee;
        let mut count = 1u32;
        if let Some(Ty::Array { elem, len_id }) = types.get(&ty_id).copied() {
            count = constants.get(&len_id).copied().ok_or(unsupported.clone())?;
            ty_id = elem;
        }
        let dtype = match (storage, types.get(&ty_id).copied()) {
            (STORAGE_UNIFORM_CONSTANT, Some(Ty::SampledImage)) => {
                vk::DescriptorType::COMBINED_IMAGE_SAMPLER
            }
            (STORAGE_UNIFORM_CONSTANT, Some(Ty::Sampler)) => vk::DescriptorType::SAMPLER,
            (STORAGE_UNIFORM_CONSTANT, Some(Ty::Image { dim, sampled })) => {
                match (dim == DIM_BUFFER, sampled) {
                    (false, 2) => vk::DescriptorType::STORAGE_IMAGE,
                    (false, _) => vk::DescriptorType::SAMPLED_IMAGE,
                    (true, 2) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                    (true, _) => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                }
            }
            (STORAGE_STORAGE_BUFFER, Some(Ty::Struct)) => vk::DescriptorType::STORAGE_BUFFER,
            (STORAGE_UNIFORM, Some(Ty::Struct)) => {
                if buffer_block.get(&ty_id).copied().unwrap_or(false) {
                    vk::DescriptorType::STORAGE_BUFFER
                } else {
                    vk::DescriptorType::UNIFORM_BUFFER
                }
            }
            _ => return Err(unsupported),
        };
        found.push((set, binding, id, dtype, count, offset));
    }
    found.sort_by_key(|f| (f.0, f.1));

    let mut table = BindingTable::default();
    let mut next = 0u32;
    let mut current_set = None;
    for (i, &(set, original, _id, descriptor_type, count, offset)) in found.iter().enumerate() {
        if i > 0 && found[i - 1].0 == set && found[i - 1].1 == original {
            return Err(SpirvError::DuplicateBinding {
                set,
                binding: original,
            });
        }
        if current_set != Some(set) {
            current_set = Some(set);
            next = 0;
        }
        words[offset] = next;
        table.bindings.push(Binding {
            set,
            original,
            binding: next,
            descriptor_type,
            count,
        });
        next += 1;
    }
    Ok(table)
}

/// Reads the bindings of a module without changing it (the table's `binding`
/// equals `original`).
pub fn reflect_bindings(words: &[u32]) -> Result<BindingTable, SpirvError> {
    let mut copy = words.to_vec();
    let mut table = renumber_bindings(&mut copy)?;
    for b in &mut table.bindings {
        b.binding = b.original;
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_input() {
        assert_eq!(words_from_bytes(&[1, 2, 3]), Err(SpirvError::BadLength(3)));
        let mut w = vec![0x1234_5678u32, 0, 0, 0, 0];
        assert_eq!(
            renumber_bindings(&mut w),
            Err(SpirvError::BadMagic(0x1234_5678))
        );
        // An instruction claiming more words than the module has.
        let mut w = vec![MAGIC, 0x0001_0000, 0, 10, 0, (9 << 16) | 71, 1];
        assert!(matches!(
            renumber_bindings(&mut w),
            Err(SpirvError::BadInstruction {
                offset: 5,
                count: 9,
                len: 7
            })
        ));
    }
}
