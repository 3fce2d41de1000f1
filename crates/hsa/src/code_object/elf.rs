//! Reading an AMDGPU code object (ELF64, EM_AMDGPU, HSA OS ABI, code object
//! v4/v5/v6, ET_DYN as made by `ld.lld -shared`) and laying it out in memory.
//!
//! Parsing validates everything later steps index with (segment ranges,
//! descriptor locations, argument ranges), so `load_image` and the kernarg
//! builder never index out of bounds. The loader follows the segment view a
//! real loader uses: PT_LOAD segments define the image (vaddr 0 based), the
//! PT_NOTE segment carries the metadata, and the allocated `.rela.dyn`
//! section carries the dynamic relocations applied at load time.

use aqueduct_kfd::abi::KernelDescriptor;
use object::LittleEndian;
use object::elf;
use object::read::elf::{
    FileHeader, ProgramHeader, Rela, SectionHeader, SectionTable, Sym, SymbolTable,
};

use super::descriptor_rules::check_descriptor;
use super::elf_error::{
    ElfFault, ElfTable, ObjectError, RelocationFault, TruncatedPart, Unsupported,
};
use super::error::CodeObjectError;
use super::isa::IsaName;
use super::kernel::KernelInfo;
use super::metadata::{Metadata, parse_metadata};
use super::metadata_error::MetadataError;

type Header = elf::FileHeader64<LittleEndian>;
const LE: LittleEndian = LittleEndian;

/// `EM_AMDGPU`.
pub const EM_AMDGPU: u16 = 224;
/// `ELFOSABI_AMDGPU_HSA`.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// Note type of the msgpack metadata note (name "AMDGPU").
pub const NT_AMDGPU_METADATA: u32 = 32;

pub const R_AMDGPU_NONE: u32 = 0;
pub const R_AMDGPU_ABS32_LO: u32 = 1;
pub const R_AMDGPU_ABS32_HI: u32 = 2;
pub const R_AMDGPU_ABS64: u32 = 3;
pub const R_AMDGPU_ABS32: u32 = 6;
pub const R_AMDGPU_RELATIVE64: u32 = 13;

const PAGE_SIZE: u64 = 4096;
// e_ident indices.
const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;
const EI_OSABI: usize = 7;
const EI_ABIVERSION: usize = 8;
/// Largest image accepted; a corrupt p_memsz must not ask for terabytes.
const MAX_IMAGE_SIZE: u64 = 1 << 30;

/// One PT_LOAD segment (validated: file range inside the file, filesz <= memsz,
/// vaddr + memsz <= image size).
#[derive(Clone, Copy, Debug)]
struct LoadSegment {
    vaddr: u64,
    memsz: u64,
    file_offset: u64,
    filesz: u64,
    /// PF_X: the segment holds code.
    executable: bool,
}

/// What a relocation's symbol resolves to.
#[derive(Clone, Debug)]
enum RelocSymbol {
    /// Symbol index 0: S = 0.
    Null,
    /// Defined in the image: S = load base + value.
    Image(u64),
    /// SHN_ABS: S = value.
    Absolute(u64),
    /// Not defined here (no other objects are linked in): an error unless weak (S = 0).
    Undefined { name: String, weak: bool },
}

#[derive(Clone, Debug)]
struct DynamicRelocation {
    offset: u64,
    r_type: u32,
    symbol: RelocSymbol,
    addend: i64,
}

/// A parsed, validated code object, ready to be loaded at any base address.
#[derive(Clone, Debug)]
pub struct CodeObject {
    bytes: Vec<u8>,
    isa: IsaName,
    code_object_version: u32,
    e_flags: u32,
    metadata_version: [u32; 2],
    target: Option<String>,
    kernels: Vec<KernelInfo>,
    /// Function symbols in executable segments (kernels and the functions
    /// they call), by image address.
    functions: Vec<(u64, String)>,
    segments: Vec<LoadSegment>,
    relocations: Vec<DynamicRelocation>,
    image_size: u64,
    image_align: u64,
}

fn truncated(part: TruncatedPart) -> CodeObjectError {
    CodeObjectError::Truncated(part)
}

fn malformed(fault: ElfFault) -> CodeObjectError {
    CodeObjectError::MalformedElf(fault)
}

/// A table `object` could not read.
fn unreadable(table: ElfTable) -> impl FnOnce(ObjectError) -> CodeObjectError {
    move |source| malformed(ElfFault::Unreadable { table, source })
}

/// Checks e_ident and e_machine by hand (to tell "not ELF", "truncated",
/// "wrong machine" and "unsupported version" apart); returns the code object version.
fn check_identification(bytes: &[u8]) -> Result<u32, CodeObjectError> {
    if bytes.len() < 4 || bytes[..4] != elf::ELFMAG {
        return Err(CodeObjectError::NotElf);
    }
    if bytes.len() < size_of::<Header>() {
        return Err(truncated(TruncatedPart::Header {
            needed: size_of::<Header>(),
            len: bytes.len(),
        }));
    }
    let unsupported = CodeObjectError::Unsupported;
    if bytes[EI_CLASS] != elf::ELFCLASS64 {
        return Err(unsupported(Unsupported::ElfClass {
            class: bytes[EI_CLASS],
        }));
    }
    if bytes[EI_DATA] != elf::ELFDATA2LSB {
        return Err(unsupported(Unsupported::BigEndian));
    }
    let e_machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if e_machine != EM_AMDGPU {
        return Err(CodeObjectError::NotAmdgpu { e_machine });
    }
    let os_abi = bytes[EI_OSABI];
    if os_abi != ELFOSABI_AMDGPU_HSA {
        return Err(unsupported(Unsupported::OsAbi {
            os_abi,
            hsa: ELFOSABI_AMDGPU_HSA,
        }));
    }
    match bytes[EI_ABIVERSION] {
        2 => Ok(4),
        3 => Ok(5),
        4 => Ok(6),
        abi_version => Err(unsupported(Unsupported::AbiVersion { abi_version })),
    }
}

/// `(offset, size)` → end offset, if it fits in `len`.
fn file_range_end(offset: u64, size: u64, len: usize) -> Option<u64> {
    offset.checked_add(size).filter(|&end| end <= len as u64)
}

impl CodeObject {
    /// Parse and validate a code object. The bytes are copied.
    pub fn parse(bytes: &[u8]) -> Result<CodeObject, CodeObjectError> {
        let code_object_version = check_identification(bytes)?;
        let header = Header::parse(bytes).map_err(unreadable(ElfTable::Header))?;
        let e_type = header.e_type(LE);
        if e_type != elf::ET_DYN {
            return Err(CodeObjectError::NotLoadable { e_type });
        }
        let e_flags = header.e_flags(LE);
        let isa = IsaName::from_e_flags(e_flags).ok_or(CodeObjectError::Unsupported(
            Unsupported::Processor { e_flags },
        ))?;

        let phoff = header.e_phoff(LE);
        let phsize = u64::from(header.e_phnum(LE)) * u64::from(header.e_phentsize(LE));
        if file_range_end(phoff, phsize, bytes.len()).is_none() {
            return Err(truncated(TruncatedPart::ProgramHeaders));
        }
        let shoff = header.e_shoff(LE);
        let shsize = u64::from(header.e_shnum(LE)) * u64::from(header.e_shentsize(LE));
        if file_range_end(shoff, shsize, bytes.len()).is_none() {
            return Err(truncated(TruncatedPart::SectionHeaders));
        }
        let program_headers = header
            .program_headers(LE, bytes)
            .map_err(unreadable(ElfTable::ProgramHeaders))?;

        let (segments, image_size, image_align) = load_segments(program_headers, bytes.len())?;
        let metadata = read_metadata(program_headers, bytes)?;
        if let Some(target) = metadata.target.as_deref() {
            match IsaName::parse(target) {
                Some(named) if named.gfx == isa.gfx => {}
                _ => tracing::warn!(
                    target,
                    e_flags_isa = %isa,
                    "code object metadata target disagrees with e_flags; using e_flags"
                ),
            }
        }

        let sections = header
            .sections(LE, bytes)
            .map_err(unreadable(ElfTable::SectionHeaders))?;
        let dynsym = sections
            .symbols(LE, bytes, elf::SHT_DYNSYM)
            .map_err(unreadable(ElfTable::DynamicSymbols))?;
        let symtab = sections
            .symbols(LE, bytes, elf::SHT_SYMTAB)
            .map_err(unreadable(ElfTable::Symbols))?;

        let image_end = segments
            .iter()
            .map(|s| s.vaddr + s.memsz)
            .max()
            .unwrap_or(0);
        let Metadata {
            version: metadata_version,
            target,
            kernels: kernel_metadata,
        } = metadata;
        let mut kernels = Vec::with_capacity(kernel_metadata.len());
        for km in kernel_metadata {
            let value = find_symbol(&[&dynsym, &symtab], &km.symbol).ok_or_else(|| {
                CodeObjectError::from(MetadataError::MissingDescriptor {
                    kernel: km.name.clone(),
                    symbol: km.symbol.clone(),
                })
            })?;
            if value & 63 != 0 {
                return Err(malformed(ElfFault::DescriptorAlign {
                    symbol: km.symbol.clone(),
                    value,
                }));
            }
            let kd_bytes = read_image_bytes(&segments, bytes, value, KernelDescriptor::SIZE as u64)
                .ok_or_else(|| {
                    malformed(ElfFault::DescriptorOutsideSegments {
                        symbol: km.symbol.clone(),
                        value,
                    })
                })?;
            let mut raw = [0u8; KernelDescriptor::SIZE];
            raw.copy_from_slice(kd_bytes);
            let descriptor = KernelDescriptor::from_bytes(&raw);
            let entry = i128::from(value) + i128::from(descriptor.kernel_code_entry_byte_offset);
            if entry < 0 || entry >= i128::from(image_end) {
                return Err(malformed(ElfFault::EntryOutsideImage {
                    kernel: km.name.clone(),
                    entry,
                }));
            }
            check_descriptor(&isa, &descriptor).map_err(|fault| {
                CodeObjectError::BadDescriptor {
                    kernel: km.name.clone(),
                    gfx: isa.gfx.clone(),
                    fault,
                }
            })?;
            if descriptor.kernarg_size != km.kernarg_segment_size {
                tracing::warn!(
                    kernel = %km.name,
                    descriptor = descriptor.kernarg_size,
                    metadata = km.kernarg_segment_size,
                    "kernarg size in the descriptor differs from the metadata"
                );
            }
            kernels.push(KernelInfo::new(km, value, descriptor, &isa));
        }

        let relocations = dynamic_relocations(&sections, bytes)?;
        tracing::debug!(
            isa = %isa,
            version = code_object_version,
            kernels = kernels.len(),
            relocations = relocations.len(),
            image_size,
            "parsed code object"
        );
        let mut functions: Vec<(u64, String)> = [&dynsym, &symtab]
            .iter()
            .flat_map(|table| {
                table.iter().filter_map(|sym| {
                    if sym.st_type() != elf::STT_FUNC || sym.is_undefined(LE) {
                        return None;
                    }
                    let at = sym.st_value(LE);
                    let in_code = segments
                        .iter()
                        .any(|s| s.executable && s.vaddr <= at && at < s.vaddr + s.memsz);
                    let name = table.symbol_name(LE, sym).ok()?;
                    in_code.then(|| (at, String::from_utf8_lossy(name).into_owned()))
                })
            })
            .collect();
        functions.sort();
        functions.dedup();
        Ok(CodeObject {
            bytes: bytes.to_vec(),
            isa,
            code_object_version,
            e_flags,
            metadata_version,
            target,
            kernels,
            functions,
            segments,
            relocations,
            image_size,
            image_align,
        })
    }

    /// The ISA from e_flags.
    pub fn isa(&self) -> &IsaName {
        &self.isa
    }

    /// 4, 5 or 6.
    pub fn code_object_version(&self) -> u32 {
        self.code_object_version
    }

    /// The raw ELF e_flags.
    pub fn e_flags(&self) -> u32 {
        self.e_flags
    }

    /// `amdhsa.version` of the metadata note ([1, 1] for v4, [1, 2] for v5).
    pub fn metadata_version(&self) -> [u32; 2] {
        self.metadata_version
    }

    /// `amdhsa.target` of the metadata note, if present.
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    /// Function symbols (STT_FUNC) in executable segments, sorted by image
    /// address: the kernels' entry points and the functions they call.
    pub fn functions(&self) -> &[(u64, String)] {
        &self.functions
    }

    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    /// A kernel by metadata `.name` (e.g. `saxpy`) or descriptor symbol (`saxpy.kd`).
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels
            .iter()
            .find(|k| k.name == name)
            .or_else(|| self.kernels.iter().find(|k| k.symbol == name))
    }

    /// Like [`CodeObject::kernel`], with an error that lists the kernels there are.
    pub fn require_kernel(&self, name: &str) -> Result<&KernelInfo, CodeObjectError> {
        self.kernel(name)
            .ok_or_else(|| CodeObjectError::KernelNotFound {
                name: name.to_string(),
                available: self.kernels.iter().map(|k| k.name.clone()).collect(),
            })
    }

    /// Image ranges (offsets from the load base) of the executable PT_LOAD
    /// segments, in address order: where the kernels' code lives.
    pub fn code_ranges(&self) -> Vec<std::ops::Range<u64>> {
        let mut ranges: Vec<_> = self
            .segments
            .iter()
            .filter(|s| s.executable)
            .map(|s| s.vaddr..s.vaddr + s.memsz)
            .collect();
        ranges.sort_by_key(|r| r.start);
        ranges
    }

    /// Bytes spanned by the PT_LOAD segments from vaddr 0, rounded up to 4 KiB.
    pub fn image_size(&self) -> u64 {
        self.image_size
    }

    /// Alignment the load base needs: the largest PT_LOAD p_align, at least 4 KiB.
    pub fn image_align(&self) -> u64 {
        self.image_align
    }

    /// Number of dynamic relocations `load_image` applies.
    pub fn relocation_count(&self) -> usize {
        self.relocations.len()
    }

    /// Copy PT_LOAD segments to dest (zero-filling memsz > filesz and the gaps
    /// between segments), then apply dynamic relocations
    /// (R_AMDGPU_RELATIVE64: base + addend; R_AMDGPU_ABS64/ABS32(_LO/_HI):
    /// symbol value + base + addend) as if the image lives at GPU address
    /// `load_base`. `dest` must hold at least `image_size()` bytes and
    /// `load_base` must be a multiple of `image_align()`. Errors (never panics)
    /// for a relocation outside the image, an unknown relocation type, an
    /// undefined symbol, a dest that is too small.
    pub fn load_image(&self, dest: &mut [u8], load_base: u64) -> Result<(), CodeObjectError> {
        if (dest.len() as u64) < self.image_size {
            return Err(CodeObjectError::ImageTooSmall {
                needed: self.image_size,
                got: dest.len() as u64,
            });
        }
        if load_base & (self.image_align - 1) != 0 {
            return Err(CodeObjectError::MisalignedBase {
                load_base,
                align: self.image_align,
            });
        }
        // Checked at parse time: image_size <= MAX_IMAGE_SIZE, so it fits usize.
        let image = &mut dest[..self.image_size as usize];
        image.fill(0);
        for segment in &self.segments {
            // Validated at parse time: both ranges are in bounds.
            let dst = segment.vaddr as usize;
            let src = segment.file_offset as usize;
            let len = segment.filesz as usize;
            image[dst..dst + len].copy_from_slice(&self.bytes[src..src + len]);
        }
        for reloc in &self.relocations {
            apply_relocation(image, load_base, reloc)?;
        }
        Ok(())
    }
}

/// Validate the PT_LOAD segments; returns them with the image size and alignment.
fn load_segments(
    program_headers: &[elf::ProgramHeader64<LittleEndian>],
    file_len: usize,
) -> Result<(Vec<LoadSegment>, u64, u64), CodeObjectError> {
    let mut segments = Vec::new();
    let mut image_end = 0u64;
    let mut image_align = PAGE_SIZE;
    for (index, ph) in program_headers.iter().enumerate() {
        if ph.p_type(LE) != elf::PT_LOAD {
            continue;
        }
        let segment = LoadSegment {
            vaddr: ph.p_vaddr(LE),
            memsz: ph.p_memsz(LE),
            file_offset: ph.p_offset(LE),
            filesz: ph.p_filesz(LE),
            executable: ph.p_flags(LE) & elf::PF_X != 0,
        };
        if segment.filesz > segment.memsz {
            return Err(malformed(ElfFault::FileszExceedsMemsz {
                index,
                filesz: segment.filesz,
                memsz: segment.memsz,
            }));
        }
        if file_range_end(segment.file_offset, segment.filesz, file_len).is_none() {
            return Err(truncated(TruncatedPart::LoadSegment {
                index,
                offset: segment.file_offset,
                size: segment.filesz,
            }));
        }
        let end = segment
            .vaddr
            .checked_add(segment.memsz)
            .filter(|&end| end <= MAX_IMAGE_SIZE)
            .ok_or_else(|| {
                malformed(ElfFault::SegmentTooLarge {
                    index,
                    vaddr: segment.vaddr,
                    memsz: segment.memsz,
                    limit: MAX_IMAGE_SIZE,
                })
            })?;
        let align = ph.p_align(LE);
        if align > 1 && (!align.is_power_of_two() || align > MAX_IMAGE_SIZE) {
            return Err(malformed(ElfFault::SegmentAlign { index, align }));
        }
        image_end = image_end.max(end);
        image_align = image_align.max(align);
        segments.push(segment);
    }
    if segments.is_empty() {
        return Err(malformed(ElfFault::NoLoadSegments));
    }
    // image_end <= 1 GiB, so rounding cannot overflow.
    let image_size = image_end.div_ceil(PAGE_SIZE) * PAGE_SIZE;
    Ok((segments, image_size, image_align))
}

/// Find and decode the NT_AMDGPU_METADATA notes in the PT_NOTE segments. An
/// object linked from several compiled objects (`ld.lld -shared a.o b.o`) has
/// one note per input; their kernels are merged (the first note gives the
/// version and target).
fn read_metadata(
    program_headers: &[elf::ProgramHeader64<LittleEndian>],
    bytes: &[u8],
) -> Result<Metadata, CodeObjectError> {
    let bad_note = |source: ObjectError| CodeObjectError::BadNote { source };
    let mut merged: Option<Metadata> = None;
    for ph in program_headers {
        let Some(mut notes) = ph.notes(LE, bytes).map_err(bad_note)? else {
            continue;
        };
        while let Some(note) = notes.next().map_err(bad_note)? {
            if note.name() != b"AMDGPU" || note.n_type(LE) != NT_AMDGPU_METADATA {
                continue;
            }
            let metadata = parse_metadata(note.desc())?;
            match &mut merged {
                None => merged = Some(metadata),
                Some(first) => {
                    if first.version != metadata.version || first.target != metadata.target {
                        tracing::warn!(
                            first = ?(first.version, &first.target),
                            other = ?(metadata.version, &metadata.target),
                            "metadata notes disagree on version or target"
                        );
                    }
                    first.kernels.extend(metadata.kernels);
                }
            }
        }
    }
    let merged = merged.ok_or(CodeObjectError::MissingMetadata)?;
    for (i, kernel) in merged.kernels.iter().enumerate() {
        if merged.kernels[..i].iter().any(|k| k.name == kernel.name) {
            return Err(MetadataError::DuplicateKernel {
                kernel: kernel.name.clone(),
            }
            .into());
        }
    }
    Ok(merged)
}

/// Value of the first defined symbol called `name` in the given tables.
fn find_symbol<'data>(
    tables: &[&SymbolTable<'data, Header, &'data [u8]>],
    name: &str,
) -> Option<u64> {
    tables.iter().find_map(|table| {
        table.iter().find_map(|sym| {
            let matches = table.symbol_name(LE, sym).ok() == Some(name.as_bytes());
            (matches && !sym.is_undefined(LE)).then(|| sym.st_value(LE))
        })
    })
}

/// The file bytes backing image range `vaddr..vaddr+len`, if one segment's file data holds it all.
fn read_image_bytes<'a>(
    segments: &[LoadSegment],
    bytes: &'a [u8],
    vaddr: u64,
    len: u64,
) -> Option<&'a [u8]> {
    segments.iter().find_map(|s| {
        let start = vaddr.checked_sub(s.vaddr)?;
        let end = start.checked_add(len)?;
        if end > s.filesz {
            return None;
        }
        let from = usize::try_from(s.file_offset + start).ok()?;
        bytes.get(from..from + len as usize)
    })
}

/// Collect the relocations of allocated SHT_RELA sections (`.rela.dyn`).
fn dynamic_relocations<'data>(
    sections: &SectionTable<'data, Header, &'data [u8]>,
    bytes: &'data [u8],
) -> Result<Vec<DynamicRelocation>, CodeObjectError> {
    let mut relocations = Vec::new();
    for (index, section) in sections.enumerate() {
        let allocated = section.sh_flags(LE) & u64::from(elf::SHF_ALLOC) != 0;
        if !allocated {
            continue;
        }
        if section.sh_type(LE) == elf::SHT_REL {
            return Err(malformed(ElfFault::RelRelocations { section: index.0 }));
        }
        let Some((relas, link)) = section
            .rela(LE, bytes)
            .map_err(unreadable(ElfTable::Relocations { section: index.0 }))?
        else {
            continue;
        };
        let symbols = if link.0 == 0 {
            None
        } else {
            Some(
                sections
                    .symbol_table_by_index(LE, bytes, link)
                    .map_err(unreadable(ElfTable::RelocationSymbols))?,
            )
        };
        for rela in relas {
            let offset = rela.r_offset(LE);
            let symbol = match (rela.symbol(LE, false), &symbols) {
                (None, _) => RelocSymbol::Null,
                (Some(sym_index), Some(table)) => {
                    let sym =
                        table
                            .symbol(sym_index)
                            .map_err(|source| CodeObjectError::Relocation {
                                offset,
                                fault: RelocationFault::Symbol {
                                    index: sym_index.0,
                                    source,
                                },
                            })?;
                    match sym.st_shndx(LE) {
                        elf::SHN_UNDEF => RelocSymbol::Undefined {
                            name: String::from_utf8_lossy(
                                table.symbol_name(LE, sym).unwrap_or(b"?"),
                            )
                            .into_owned(),
                            weak: sym.st_bind() == elf::STB_WEAK,
                        },
                        elf::SHN_ABS => RelocSymbol::Absolute(sym.st_value(LE)),
                        _ => RelocSymbol::Image(sym.st_value(LE)),
                    }
                }
                (Some(sym_index), None) => {
                    return Err(CodeObjectError::Relocation {
                        offset,
                        fault: RelocationFault::NoSymbolTable { index: sym_index.0 },
                    });
                }
            };
            relocations.push(DynamicRelocation {
                offset,
                r_type: rela.r_type(LE, false),
                symbol,
                addend: rela.r_addend(LE),
            });
        }
    }
    Ok(relocations)
}

fn apply_relocation(
    image: &mut [u8],
    load_base: u64,
    reloc: &DynamicRelocation,
) -> Result<(), CodeObjectError> {
    let error = |fault: RelocationFault| CodeObjectError::Relocation {
        offset: reloc.offset,
        fault,
    };
    let symbol_value = || -> Result<u64, CodeObjectError> {
        Ok(match &reloc.symbol {
            RelocSymbol::Null => 0,
            RelocSymbol::Image(value) => load_base.wrapping_add(*value),
            RelocSymbol::Absolute(value) => *value,
            RelocSymbol::Undefined { weak: true, .. } => 0,
            RelocSymbol::Undefined { name, weak: false } => {
                return Err(error(RelocationFault::UndefinedSymbol {
                    name: name.clone(),
                }));
            }
        })
    };
    let (value, width): (u64, usize) = match reloc.r_type {
        R_AMDGPU_NONE => return Ok(()),
        R_AMDGPU_RELATIVE64 => (load_base.wrapping_add_signed(reloc.addend), 8),
        R_AMDGPU_ABS64 => (symbol_value()?.wrapping_add_signed(reloc.addend), 8),
        R_AMDGPU_ABS32_LO => (
            symbol_value()?.wrapping_add_signed(reloc.addend) & 0xffff_ffff,
            4,
        ),
        R_AMDGPU_ABS32_HI => (symbol_value()?.wrapping_add_signed(reloc.addend) >> 32, 4),
        R_AMDGPU_ABS32 => {
            let value = symbol_value()?.wrapping_add_signed(reloc.addend);
            if value > u64::from(u32::MAX) {
                return Err(error(RelocationFault::Abs32Overflow { value }));
            }
            (value, 4)
        }
        r_type => return Err(error(RelocationFault::UnsupportedType { r_type })),
    };
    let image_len = image.len();
    let start = usize::try_from(reloc.offset).ok();
    let target = start
        .and_then(|start| image.get_mut(start..start.checked_add(width)?))
        .ok_or_else(|| error(RelocationFault::TargetOutsideImage { width, image_len }))?;
    target.copy_from_slice(&value.to_le_bytes()[..width]);
    Ok(())
}

/// The ISA of an ELF code object, from its identification and e_flags only
/// (no full parse).
pub(crate) fn isa_of(bytes: &[u8]) -> Result<IsaName, CodeObjectError> {
    check_identification(bytes)?;
    let e_flags = u32::from_le_bytes([bytes[48], bytes[49], bytes[50], bytes[51]]);
    IsaName::from_e_flags(e_flags).ok_or(CodeObjectError::Unsupported(Unsupported::Processor {
        e_flags,
    }))
}
