//! What can be wrong in a code object's ELF container: the parts of
//! [`CodeObjectError`](super::CodeObjectError) for a truncated file
//! ([`TruncatedPart`]), an unsupported one ([`Unsupported`]), a malformed
//! one ([`ElfFault`]) and a relocation that cannot be applied
//! ([`RelocationFault`]).

use thiserror::Error;

/// `object`'s ELF reader error (a static description of what it rejected).
pub type ObjectError = object::read::Error;

/// The part of the file that ends early.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TruncatedPart {
    #[error("ELF header needs {needed} bytes, file has {len}")]
    Header { needed: usize, len: usize },
    #[error("program header table")]
    ProgramHeaders,
    #[error("section header table")]
    SectionHeaders,
    #[error("PT_LOAD {index} data at {offset:#x}+{size:#x}")]
    LoadSegment {
        index: usize,
        offset: u64,
        size: u64,
    },
}

/// A code object this loader does not take.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Unsupported {
    #[error("ELF class {class} (code objects are ELFCLASS64)")]
    ElfClass { class: u8 },
    #[error("big-endian ELF (code objects are little-endian)")]
    BigEndian,
    #[error("EI_OSABI {os_abi} (only {hsa}, AMDGPU HSA, is loadable)")]
    OsAbi { os_abi: u8, hsa: u8 },
    #[error("EI_ABIVERSION {abi_version} (code object v{}); v4, v5 and v6 are supported", u32::from(*abi_version) + 2)]
    AbiVersion { abi_version: u8 },
    #[error("unknown processor in e_flags {e_flags:#x}")]
    Processor { e_flags: u32 },
    #[error("metadata amdhsa.version {major}.{minor} (expected 1.x)")]
    MetadataVersion { major: u32, minor: u32 },
}

/// A table of the ELF file that `object` could not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElfTable {
    Header,
    ProgramHeaders,
    SectionHeaders,
    DynamicSymbols,
    Symbols,
    RelocationSymbols,
    /// The relocations of section `index`.
    Relocations {
        section: usize,
    },
}

impl std::fmt::Display for ElfTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ElfTable::Header => f.write_str("ELF header"),
            ElfTable::ProgramHeaders => f.write_str("program headers"),
            ElfTable::SectionHeaders => f.write_str("section headers"),
            ElfTable::DynamicSymbols => f.write_str(".dynsym"),
            ElfTable::Symbols => f.write_str(".symtab"),
            ElfTable::RelocationSymbols => f.write_str("relocation symbol table"),
            ElfTable::Relocations { section } => write!(f, "section {section}"),
        }
    }
}

/// A malformed ELF structure.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ElfFault {
    #[error("{table}: {source}")]
    Unreadable {
        table: ElfTable,
        #[source]
        source: ObjectError,
    },
    #[error("PT_LOAD {index}: p_filesz {filesz:#x} > p_memsz {memsz:#x}")]
    FileszExceedsMemsz {
        index: usize,
        filesz: u64,
        memsz: u64,
    },
    #[error("PT_LOAD {index} at {vaddr:#x}+{memsz:#x} exceeds the {limit:#x}-byte image limit")]
    SegmentTooLarge {
        index: usize,
        vaddr: u64,
        memsz: u64,
        limit: u64,
    },
    #[error("PT_LOAD {index}: bad p_align {align:#x}")]
    SegmentAlign { index: usize, align: u64 },
    #[error("no PT_LOAD segments")]
    NoLoadSegments,
    #[error("kernel descriptor `{symbol}` at {value:#x} is not 64-byte aligned")]
    DescriptorAlign { symbol: String, value: u64 },
    #[error(
        "kernel descriptor `{symbol}` at {value:#x} is not inside a loaded segment's file data"
    )]
    DescriptorOutsideSegments { symbol: String, value: u64 },
    #[error("kernel `{kernel}`: entry point {entry:#x} is outside the image")]
    EntryOutsideImage { kernel: String, entry: i128 },
    #[error("section {section}: SHT_REL relocations (code objects use Elf64_Rela)")]
    RelRelocations { section: usize },
}

/// Why one dynamic relocation cannot be read or applied.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RelocationFault {
    #[error("symbol {index}: {source}")]
    Symbol {
        index: usize,
        #[source]
        source: ObjectError,
    },
    #[error("symbol {index} but the section has no symbol table")]
    NoSymbolTable { index: usize },
    #[error("undefined symbol `{name}`")]
    UndefinedSymbol { name: String },
    #[error("R_AMDGPU_ABS32 value {value:#x} does not fit in 32 bits")]
    Abs32Overflow { value: u64 },
    #[error("unsupported relocation type {r_type}")]
    UnsupportedType { r_type: u32 },
    #[error("{width}-byte target is outside the {image_len:#x}-byte image")]
    TargetOutsideImage { width: usize, image_len: usize },
}
