//! The in-process linker: one relocatable AMDGPU object (what LLVM emits
//! for a shaderc module: `.text`, `.rodata` with the kernel descriptors and
//! constant data, the `.note` with the metadata, their `.rela.*`) → an
//! ET_DYN code object laid out as `ld.lld-19 -shared --build-id=none` lays
//! out the same object, so kernel descriptors (which hold the PC-relative
//! offset of their kernel) come out byte-identical.
//!
//! The output (ELF-64 gABI; AMDGPUUsage "ELF Code Object"): PT_PHDR; a
//! read-only PT_LOAD with `.note`, `.dynsym`, `.gnu.hash`, `.hash`,
//! `.dynstr`, `.rodata`; an executable PT_LOAD with `.text`; a read-write
//! PT_LOAD with `.dynamic` (and the relro padding up to the page);
//! PT_DYNAMIC, PT_GNU_RELRO, PT_GNU_STACK and PT_NOTE over the note. Each
//! PT_LOAD begins on the next 4 KiB page with its file offset congruent to
//! its address (lld's no-separate-code layout, max page size 4 KiB for
//! AMDGPU). `.dynsym` exports the global symbols of default or protected
//! visibility (kernels, `STT_FUNC`, and their `.kd`, `STT_OBJECT`),
//! ordered for the GNU hash table as lld orders them.
//!
//! Relocations are resolved statically: PC-relative ones (`R_AMDGPU_REL32`,
//! `_LO`, `_HI`, `REL64`) against non-preemptible symbols. Anything else
//! (absolute relocations against section symbols, which a
//! position-independent object would need a dynamic relocation for,
//! undefined or preemptible targets, other sections) is a [`LinkError`],
//! and the caller links with ld.lld-19 instead.

/// Why the in-process linker did not link an object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// Not a 64-bit little-endian AMDGPU relocatable ELF.
    #[error("not a relocatable AMDGPU ELF-64 object")]
    NotRelocatable,
    /// A header, table or range lies outside the file.
    #[error("truncated or malformed object ({what})")]
    Malformed { what: &'static str },
    /// A section this linker does not place.
    #[error("section `{name}` (type {sh_type:#x}, flags {flags:#x}) is not supported")]
    UnsupportedSection {
        name: String,
        sh_type: u32,
        flags: u64,
    },
    /// A section the layout needs is missing.
    #[error("the object has no `{name}` section")]
    MissingSection { name: &'static str },
    /// A relocation type this linker does not resolve.
    #[error("relocation type {r_type} at {section}+{offset:#x} is not supported")]
    UnsupportedRelocation {
        r_type: u32,
        section: String,
        offset: u64,
    },
    /// An absolute relocation against a relocatable address: a
    /// position-independent code object needs a dynamic relocation there.
    #[error("absolute relocation type {r_type} against `{symbol}` needs a dynamic relocation")]
    NeedsDynamicRelocation { r_type: u32, symbol: String },
    /// A relocation against a symbol the object does not define.
    #[error("undefined symbol `{symbol}`")]
    UndefinedSymbol { symbol: String },
    /// A PC-relative relocation against a symbol another object could
    /// preempt (global, default visibility).
    #[error("relocation against preemptible symbol `{symbol}`")]
    PreemptibleSymbol { symbol: String },
    /// A symbol in a section index this linker does not handle (common,
    /// LDS, or an extended index).
    #[error("symbol `{symbol}` in section index {shndx:#x} is not supported")]
    UnsupportedSymbol { symbol: String, shndx: u16 },
    /// A 32-bit PC-relative value out of range.
    #[error("relocation at {section}+{offset:#x}: value {value:#x} does not fit in 32 bits")]
    Overflow {
        section: String,
        offset: u64,
        value: i64,
    },
    /// No symbol to export (a code object without kernels).
    #[error("the object exports no symbols")]
    NothingExported,
}

// ELF constants (ELF-64 gABI, /usr/include/elf.h).
const ET_REL: u16 = 1;
const ET_DYN: u16 = 3;
const EM_AMDGPU: u16 = 224;
const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_HASH: u32 = 5;
const SHT_DYNAMIC: u32 = 6;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const SHT_DYNSYM: u32 = 11;
const SHT_GNU_HASH: u32 = 0x6fff_fff6;
/// LLVM's address-significance table (only identical code folding reads it).
const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;
const SHF_WRITE: u64 = 1;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;
const SHN_UNDEF: u16 = 0;
const SHN_LORESERVE: u16 = 0xff00;
const SHN_ABS: u16 = 0xfff1;
const STB_LOCAL: u8 = 0;
const STT_NOTYPE: u8 = 0;
const STT_SECTION: u8 = 3;
const STT_FILE: u8 = 4;
const STV_DEFAULT: u8 = 0;
const STV_HIDDEN: u8 = 2;
const STV_PROTECTED: u8 = 3;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_NOTE: u32 = 4;
const PT_PHDR: u32 = 6;
const PT_GNU_STACK: u32 = 0x6474_e551;
const PT_GNU_RELRO: u32 = 0x6474_e552;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;
const DT_NULL: u64 = 0;
const DT_HASH: u64 = 4;
const DT_STRTAB: u64 = 5;
const DT_SYMTAB: u64 = 6;
const DT_STRSZ: u64 = 10;
const DT_SYMENT: u64 = 11;
const DT_GNU_HASH: u64 = 0x6fff_fef5;

// Relocation types (AMDGPUUsage, "Relocation Records").
const R_AMDGPU_NONE: u32 = 0;
const R_AMDGPU_ABS32_LO: u32 = 1;
const R_AMDGPU_ABS32_HI: u32 = 2;
const R_AMDGPU_ABS64: u32 = 3;
const R_AMDGPU_REL32: u32 = 4;
const R_AMDGPU_REL64: u32 = 5;
const R_AMDGPU_ABS32: u32 = 6;
const R_AMDGPU_REL32_LO: u32 = 10;
const R_AMDGPU_REL32_HI: u32 = 11;

/// lld's maximum (and common) page size for AMDGPU.
const PAGE: u64 = 0x1000;
const EHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;
const DYN_SIZE: u64 = 16;
/// PHDR, three PT_LOADs, DYNAMIC, GNU_RELRO, GNU_STACK, NOTE.
const PHNUM: u64 = 8;
/// lld's second GNU hash bloom filter shift.
const BLOOM_SHIFT: u32 = 26;

fn u16_at(b: &[u8], at: usize) -> Result<u16, LinkError> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or(LinkError::Malformed { what: "header" })
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, LinkError> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
        .ok_or(LinkError::Malformed { what: "header" })
}

fn u64_at(b: &[u8], at: usize) -> Result<u64, LinkError> {
    b.get(at..at + 8)
        .map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
        .ok_or(LinkError::Malformed { what: "header" })
}

fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

/// The smallest offset ≥ `off` congruent to `addr` modulo the page.
fn congruent(off: u64, addr: u64) -> u64 {
    off + (addr.wrapping_sub(off) % PAGE)
}

/// The next segment's first address: the next page, same page offset (lld).
fn next_segment(end: u64, align: u64) -> u64 {
    align_up(align_up(end, PAGE) + end % PAGE, align)
}

/// A NUL-terminated name at `off` in string table `table`.
fn name_at(table: &[u8], off: u32) -> Result<String, LinkError> {
    let rest = table.get(off as usize..).ok_or(LinkError::Malformed {
        what: "string table",
    })?;
    let end = rest
        .iter()
        .position(|&c| c == 0)
        .ok_or(LinkError::Malformed {
            what: "string table",
        })?;
    Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
}

struct Section {
    name: String,
    sh_type: u32,
    flags: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
}

impl Section {
    fn data<'a>(&self, bytes: &'a [u8]) -> Result<&'a [u8], LinkError> {
        let start =
            usize::try_from(self.offset).map_err(|_| LinkError::Malformed { what: "section" })?;
        let len =
            usize::try_from(self.size).map_err(|_| LinkError::Malformed { what: "section" })?;
        bytes
            .get(
                start
                    ..start
                        .checked_add(len)
                        .ok_or(LinkError::Malformed { what: "section" })?,
            )
            .ok_or(LinkError::Malformed { what: "section" })
    }
}

struct Symbol {
    name: String,
    info: u8,
    other: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

impl Symbol {
    fn bind(&self) -> u8 {
        self.info >> 4
    }
    fn kind(&self) -> u8 {
        self.info & 0xf
    }
    fn visibility(&self) -> u8 {
        self.other & 3
    }
    /// Exported through `.dynsym` (and preemptible when of default visibility).
    fn exported(&self) -> bool {
        self.bind() != STB_LOCAL && matches!(self.visibility(), STV_DEFAULT | STV_PROTECTED)
    }
}

/// Which output section an input section becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placed {
    Note,
    Rodata,
    Text,
}

/// The classic System V ELF hash (gABI, "Hash Table").
fn sysv_hash(name: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in name {
        h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

/// The GNU hash (DJB: h * 33 + c from 5381).
fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn put64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// An output symbol record.
fn put_sym(out: &mut Vec<u8>, name: u32, info: u8, other: u8, shndx: u16, value: u64, size: u64) {
    put32(out, name);
    out.push(info);
    out.push(other);
    put16(out, shndx);
    put64(out, value);
    put64(out, size);
}

// Output section indices, in lld's order for this shape: .note, .dynsym,
// .gnu.hash, .hash, .dynstr, .rodata, .text, .dynamic, .relro_padding, then
// the non-allocated .symtab, .shstrtab, .strtab.
const OUT_NOTE: u16 = 1;
const OUT_DYNSYM: u16 = 2;
const OUT_DYNSTR: u16 = 5;
const OUT_RODATA: u16 = 6;
const OUT_TEXT: u16 = 7;
const OUT_DYNAMIC: u16 = 8;
const OUT_SHSTRTAB: u16 = 11;
const OUT_STRTAB: u16 = 12;
const OUT_SECTIONS: u16 = 13;

/// Link relocatable object `object` into a code object (see the module
/// comment for what is supported).
pub fn link(object: &[u8]) -> Result<Vec<u8>, LinkError> {
    if object.get(..4) != Some(b"\x7fELF".as_slice())
        || object.get(4) != Some(&2)
        || object.get(5) != Some(&1)
        || u16_at(object, 16)? != ET_REL
        || u16_at(object, 18)? != EM_AMDGPU
    {
        return Err(LinkError::NotRelocatable);
    }
    let e_flags = u32_at(object, 48)?;
    let shoff = u64_at(object, 40)? as usize;
    let shentsize = u16_at(object, 58)? as usize;
    let shnum = u16_at(object, 60)? as usize;
    let shstrndx = u16_at(object, 62)? as usize;
    let table_end = shnum
        .checked_mul(shentsize)
        .and_then(|size| size.checked_add(shoff));
    if shentsize != SHDR_SIZE as usize
        || shnum == 0
        || shstrndx >= shnum
        || table_end.is_none_or(|end| end > object.len())
    {
        return Err(LinkError::Malformed {
            what: "section headers",
        });
    }
    let mut raw = Vec::with_capacity(shnum);
    for i in 0..shnum {
        let h = shoff + i * shentsize;
        raw.push((
            u32_at(object, h)?,
            Section {
                name: String::new(),
                sh_type: u32_at(object, h + 4)?,
                flags: u64_at(object, h + 8)?,
                offset: u64_at(object, h + 24)?,
                size: u64_at(object, h + 32)?,
                link: u32_at(object, h + 40)?,
                info: u32_at(object, h + 44)?,
                align: u64_at(object, h + 48)?.max(1),
            },
        ));
    }
    let shstr = raw[shstrndx].1.data(object)?.to_vec();
    let mut sections = Vec::with_capacity(shnum);
    for (name, mut s) in raw {
        s.name = name_at(&shstr, name)?;
        sections.push(s);
    }

    // Classify the input sections.
    let mut placed: Vec<Option<Placed>> = vec![None; shnum];
    let mut symtab_index = None;
    let mut relas = Vec::new();
    for (i, s) in sections.iter().enumerate().skip(1) {
        let unsupported = || LinkError::UnsupportedSection {
            name: s.name.clone(),
            sh_type: s.sh_type,
            flags: s.flags,
        };
        let alloc = s.flags & SHF_ALLOC != 0;
        // The layout places sections within a page: larger or odd
        // alignments are left to ld.lld.
        if alloc && (!s.align.is_power_of_two() || s.align > PAGE) {
            return Err(unsupported());
        }
        // Only these flags may appear (no groups, merging, TLS, ...).
        if s.flags
            & !(SHF_WRITE | SHF_ALLOC | SHF_EXECINSTR | 0x40 /* SHF_INFO_LINK */ | 0x8000_0000/* SHF_EXCLUDE */)
            != 0
        {
            return Err(unsupported());
        }
        match s.sh_type {
            SHT_SYMTAB if symtab_index.is_none() => symtab_index = Some(i),
            SHT_STRTAB if !alloc => {}
            SHT_RELA if !alloc => relas.push(i),
            SHT_LLVM_ADDRSIG => {}
            SHT_NOTE if alloc && s.flags & (SHF_WRITE | SHF_EXECINSTR) == 0 => {
                if placed.contains(&Some(Placed::Note)) {
                    return Err(unsupported());
                }
                placed[i] = Some(Placed::Note);
            }
            SHT_PROGBITS if !alloc && s.size == 0 => {} // .note.GNU-stack
            SHT_PROGBITS if s.name == ".text" && s.flags == SHF_ALLOC | SHF_EXECINSTR => {
                placed[i] = Some(Placed::Text);
            }
            SHT_PROGBITS if s.name == ".rodata" && s.flags == SHF_ALLOC => {
                placed[i] = Some(Placed::Rodata);
            }
            _ => return Err(unsupported()),
        }
    }
    let find = |what: Placed, name: &'static str| {
        placed
            .iter()
            .position(|p| *p == Some(what))
            .ok_or(LinkError::MissingSection { name })
    };
    let note = find(Placed::Note, ".note")?;
    let rodata = find(Placed::Rodata, ".rodata")?;
    let text = find(Placed::Text, ".text")?;
    let symtab_index = symtab_index.ok_or(LinkError::MissingSection { name: ".symtab" })?;
    // Every placed section lies inside the file (which bounds the layout).
    for (i, p) in placed.iter().enumerate() {
        if p.is_some() {
            sections[i].data(object)?;
        }
    }

    // Symbols.
    let symtab = &sections[symtab_index];
    let strtab = sections
        .get(symtab.link as usize)
        .ok_or(LinkError::Malformed {
            what: "symbol table link",
        })?
        .data(object)?;
    let sym_bytes = symtab.data(object)?;
    let mut symbols = Vec::with_capacity(sym_bytes.len() / SYM_SIZE as usize);
    for rec in sym_bytes.chunks_exact(SYM_SIZE as usize) {
        let shndx = u16_at(rec, 6)?;
        let mut name = name_at(strtab, u32_at(rec, 0)?)?;
        // Section symbols are unnamed; errors name their section.
        if rec[4] & 0xf == STT_SECTION
            && name.is_empty()
            && let Some(s) = sections.get(shndx as usize)
        {
            name = s.name.clone();
        }
        symbols.push(Symbol {
            name,
            info: rec[4],
            other: rec[5],
            shndx,
            value: u64_at(rec, 8)?,
            size: u64_at(rec, 16)?,
        });
    }

    if symbols.is_empty() {
        return Err(LinkError::Malformed {
            what: "symbol table",
        });
    }

    // Layout of the read-only segment.
    let mut exported: Vec<usize> = (1..symbols.len())
        .filter(|&i| symbols[i].exported() && symbols[i].shndx != SHN_UNDEF)
        .collect();
    for s in &symbols[1..] {
        if s.shndx == SHN_UNDEF && s.kind() != STT_FILE {
            return Err(LinkError::UndefinedSymbol {
                symbol: s.name.clone(),
            });
        }
        if s.shndx >= SHN_LORESERVE && s.shndx != SHN_ABS {
            return Err(LinkError::UnsupportedSymbol {
                symbol: s.name.clone(),
                shndx: s.shndx,
            });
        }
        if s.shndx < SHN_LORESERVE
            && s.shndx != SHN_UNDEF
            && placed.get(s.shndx as usize).copied().flatten().is_none()
            && s.kind() != STT_SECTION
        {
            return Err(LinkError::UnsupportedSymbol {
                symbol: s.name.clone(),
                shndx: s.shndx,
            });
        }
    }
    if exported.is_empty() {
        return Err(LinkError::NothingExported);
    }
    let n_exported = exported.len() as u64;
    // .dynstr holds the names in symbol table order (before the hash sort).
    let mut dynstr = vec![0u8];
    let mut dyn_name = vec![0u32; symbols.len()];
    for &i in &exported {
        dyn_name[i] = dynstr.len() as u32;
        dynstr.extend_from_slice(symbols[i].name.as_bytes());
        dynstr.push(0);
    }
    // GNU hash table geometry as lld sizes it: a bucket per 4 symbols, 12
    // bloom bits per symbol rounded to the next power of two of 64-bit words.
    let n_buckets = (n_exported / 4).max(1);
    let mask_words = ((n_exported * 12) / 64 + 1).next_power_of_two();
    let hashes: Vec<u32> = symbols
        .iter()
        .map(|s| gnu_hash(s.name.as_bytes()))
        .collect();
    exported.sort_by_key(|&i| u64::from(hashes[i]) % n_buckets);

    let note_sec = &sections[note];
    let ro_sec = &sections[rodata];
    let text_sec = &sections[text];
    let mut off = EHDR_SIZE + PHNUM * PHDR_SIZE;
    let note_addr = align_up(off, note_sec.align);
    off = note_addr + note_sec.size;
    let dynsym_addr = align_up(off, 8);
    let dynsym_size = (n_exported + 1) * SYM_SIZE;
    off = dynsym_addr + dynsym_size;
    let gnu_hash_addr = align_up(off, 8);
    let gnu_hash_size = 16 + 8 * mask_words + 4 * n_buckets + 4 * n_exported;
    off = gnu_hash_addr + gnu_hash_size;
    let hash_addr = align_up(off, 4);
    let hash_size = 8 + 8 * (n_exported + 1);
    off = hash_addr + hash_size;
    let dynstr_addr = off;
    off = dynstr_addr + dynstr.len() as u64;
    let rodata_addr = align_up(off, ro_sec.align);
    let ro_end = rodata_addr + ro_sec.size;
    // The executable segment.
    let text_addr = next_segment(ro_end, text_sec.align);
    let text_off = congruent(ro_end, text_addr);
    let text_end = text_addr + text_sec.size;
    // The read-write segment: .dynamic, then padding to the page (relro).
    let dynamic_addr = next_segment(text_end, 8);
    let dynamic_off = congruent(text_off + text_sec.size, dynamic_addr);
    let dynamic_size = 7 * DYN_SIZE;
    let dynamic_end = dynamic_addr + dynamic_size;
    let relro_padding = align_up(dynamic_end, PAGE) - dynamic_end;
    let file_alloc_end = dynamic_off + dynamic_size;

    let section_addr = |shndx: u16| -> u64 {
        match placed.get(shndx as usize).copied().flatten() {
            Some(Placed::Note) => note_addr,
            Some(Placed::Rodata) => rodata_addr,
            Some(Placed::Text) => text_addr,
            None => 0,
        }
    };
    let out_index = |shndx: u16| -> u16 {
        match placed.get(shndx as usize).copied().flatten() {
            Some(Placed::Note) => OUT_NOTE,
            Some(Placed::Rodata) => OUT_RODATA,
            Some(Placed::Text) => OUT_TEXT,
            None => shndx,
        }
    };
    let symbol_addr = |s: &Symbol| -> u64 {
        if s.shndx == SHN_ABS {
            s.value
        } else {
            section_addr(s.shndx).wrapping_add(s.value)
        }
    };

    // Apply the relocations to copies of the sections.
    let mut text_bytes = text_sec.data(object)?.to_vec();
    let mut ro_bytes = ro_sec.data(object)?.to_vec();
    let mut note_bytes = note_sec.data(object)?.to_vec();
    for &r in &relas {
        let rs = &sections[r];
        if rs.link as usize != symtab_index {
            return Err(LinkError::Malformed {
                what: "relocation symbol table",
            });
        }
        let target = rs.info as usize;
        let (bytes, base, name) = match placed.get(target).copied().flatten() {
            Some(Placed::Text) => (&mut text_bytes, text_addr, ".text"),
            Some(Placed::Rodata) => (&mut ro_bytes, rodata_addr, ".rodata"),
            Some(Placed::Note) => (&mut note_bytes, note_addr, ".note"),
            None => {
                return Err(LinkError::UnsupportedSection {
                    name: rs.name.clone(),
                    sh_type: rs.sh_type,
                    flags: rs.flags,
                });
            }
        };
        for rec in rs.data(object)?.chunks_exact(24) {
            let offset = u64_at(rec, 0)?;
            let info = u64_at(rec, 8)?;
            let addend = u64_at(rec, 16)? as i64;
            let r_type = (info & 0xffff_ffff) as u32;
            let sym = symbols
                .get((info >> 32) as usize)
                .ok_or(LinkError::Malformed {
                    what: "relocation symbol",
                })?;
            if r_type == R_AMDGPU_NONE {
                continue;
            }
            if sym.shndx != SHN_ABS && placed.get(sym.shndx as usize).copied().flatten().is_none() {
                return Err(LinkError::UnsupportedSymbol {
                    symbol: sym.name.clone(),
                    shndx: sym.shndx,
                });
            }
            let s = symbol_addr(sym);
            let p = base.wrapping_add(offset);
            let value = s.wrapping_add_signed(addend);
            let relative = value.wrapping_sub(p) as i64;
            let absolute_ok = || {
                if sym.shndx == SHN_ABS {
                    Ok(value)
                } else {
                    Err(LinkError::NeedsDynamicRelocation {
                        r_type,
                        symbol: sym.name.clone(),
                    })
                }
            };
            if matches!(
                r_type,
                R_AMDGPU_REL32 | R_AMDGPU_REL64 | R_AMDGPU_REL32_LO | R_AMDGPU_REL32_HI
            ) && sym.exported()
                && sym.visibility() == STV_DEFAULT
                && sym.kind() != STT_SECTION
            {
                return Err(LinkError::PreemptibleSymbol {
                    symbol: sym.name.clone(),
                });
            }
            let (word, width): (u64, usize) = match r_type {
                R_AMDGPU_REL64 => (relative as u64, 8),
                R_AMDGPU_REL32 => {
                    if i32::try_from(relative).is_err() {
                        return Err(LinkError::Overflow {
                            section: name.into(),
                            offset,
                            value: relative,
                        });
                    }
                    (relative as u64, 4)
                }
                R_AMDGPU_REL32_LO => (relative as u64 & 0xffff_ffff, 4),
                R_AMDGPU_REL32_HI => ((relative as u64) >> 32, 4),
                R_AMDGPU_ABS64 => (absolute_ok()?, 8),
                R_AMDGPU_ABS32_LO | R_AMDGPU_ABS32 => (absolute_ok()? & 0xffff_ffff, 4),
                R_AMDGPU_ABS32_HI => (absolute_ok()? >> 32, 4),
                _ => {
                    return Err(LinkError::UnsupportedRelocation {
                        r_type,
                        section: name.into(),
                        offset,
                    });
                }
            };
            let at = usize::try_from(offset).map_err(|_| LinkError::Malformed {
                what: "relocation offset",
            })?;
            let slot = bytes
                .get_mut(at..at.saturating_add(width))
                .filter(|s| s.len() == width)
                .ok_or(LinkError::Malformed {
                    what: "relocation offset",
                })?;
            slot.copy_from_slice(&word.to_le_bytes()[..width]);
        }
    }

    // .dynsym, .gnu.hash, .hash.
    let mut dynsym = Vec::with_capacity(dynsym_size as usize);
    dynsym.resize(SYM_SIZE as usize, 0);
    for &i in &exported {
        let s = &symbols[i];
        let shndx = if s.shndx == SHN_ABS {
            SHN_ABS
        } else {
            out_index(s.shndx)
        };
        put_sym(
            &mut dynsym,
            dyn_name[i],
            s.info,
            s.other,
            shndx,
            symbol_addr(s),
            s.size,
        );
    }
    let mut gnu = Vec::with_capacity(gnu_hash_size as usize);
    put32(&mut gnu, n_buckets as u32);
    put32(&mut gnu, 1); // symoffset: every exported symbol is hashed
    put32(&mut gnu, mask_words as u32);
    put32(&mut gnu, BLOOM_SHIFT);
    let mut bloom = vec![0u64; mask_words as usize];
    for &i in &exported {
        let h = hashes[i];
        let word = &mut bloom[((h / 64) as u64 % mask_words) as usize];
        *word |= 1 << (h % 64);
        *word |= 1 << ((h >> BLOOM_SHIFT) % 64);
    }
    for w in bloom {
        put64(&mut gnu, w);
    }
    let mut buckets = vec![0u32; n_buckets as usize];
    for (k, &i) in exported.iter().enumerate().rev() {
        buckets[(u64::from(hashes[i]) % n_buckets) as usize] = k as u32 + 1;
    }
    for b in buckets {
        put32(&mut gnu, b);
    }
    for (k, &i) in exported.iter().enumerate() {
        let bucket = u64::from(hashes[i]) % n_buckets;
        let last = exported
            .get(k + 1)
            .is_none_or(|&j| u64::from(hashes[j]) % n_buckets != bucket);
        put32(&mut gnu, (hashes[i] & !1) | u32::from(last));
    }
    let n_dynsym = n_exported as u32 + 1;
    let mut sysv_buckets = vec![0u32; n_dynsym as usize];
    let mut chains = vec![0u32; n_dynsym as usize];
    for (k, &i) in exported.iter().enumerate() {
        let index = k as u32 + 1;
        let b = (sysv_hash(symbols[i].name.as_bytes()) % n_dynsym) as usize;
        chains[index as usize] = sysv_buckets[b];
        sysv_buckets[b] = index;
    }
    let mut hash = Vec::with_capacity(hash_size as usize);
    put32(&mut hash, n_dynsym);
    put32(&mut hash, n_dynsym);
    for v in sysv_buckets.into_iter().chain(chains) {
        put32(&mut hash, v);
    }
    let mut dynamic = Vec::with_capacity(dynamic_size as usize);
    for (tag, value) in [
        (DT_SYMTAB, dynsym_addr),
        (DT_SYMENT, SYM_SIZE),
        (DT_STRTAB, dynstr_addr),
        (DT_STRSZ, dynstr.len() as u64),
        (DT_GNU_HASH, gnu_hash_addr),
        (DT_HASH, hash_addr),
        (DT_NULL, 0),
    ] {
        put64(&mut dynamic, tag);
        put64(&mut dynamic, value);
    }

    // .symtab: the object's named local symbols, _DYNAMIC, hidden globals
    // (made local), then the exported ones in their .dynsym order.
    let mut strtab_out = vec![0u8];
    let mut add_str = |name: &str| -> u32 {
        let at = strtab_out.len() as u32;
        strtab_out.extend_from_slice(name.as_bytes());
        strtab_out.push(0);
        at
    };
    let mut symtab_out = vec![0u8; SYM_SIZE as usize];
    let mut n_local = 1u32;
    for s in &symbols[1..] {
        if s.bind() == STB_LOCAL
            && !matches!(s.kind(), STT_SECTION | STT_FILE)
            && !s.name.is_empty()
        {
            let name = add_str(&s.name);
            put_sym(
                &mut symtab_out,
                name,
                s.info,
                s.other,
                out_index(s.shndx),
                symbol_addr(s),
                s.size,
            );
            n_local += 1;
        }
    }
    let name = add_str("_DYNAMIC");
    put_sym(
        &mut symtab_out,
        name,
        STT_NOTYPE,
        STV_HIDDEN,
        OUT_DYNAMIC,
        dynamic_addr,
        0,
    );
    n_local += 1;
    for s in &symbols[1..] {
        if s.bind() != STB_LOCAL && !s.exported() {
            let name = add_str(&s.name);
            put_sym(
                &mut symtab_out,
                name,
                s.kind(),
                s.other,
                out_index(s.shndx),
                symbol_addr(s),
                s.size,
            );
            n_local += 1;
        }
    }
    for s in symbols[1..].iter().filter(|s| s.exported()) {
        let name = add_str(&s.name);
        let shndx = if s.shndx == SHN_ABS {
            SHN_ABS
        } else {
            out_index(s.shndx)
        };
        put_sym(
            &mut symtab_out,
            name,
            s.info,
            s.other,
            shndx,
            symbol_addr(s),
            s.size,
        );
    }
    let names = [
        "",
        ".note",
        ".dynsym",
        ".gnu.hash",
        ".hash",
        ".dynstr",
        ".rodata",
        ".text",
        ".dynamic",
        ".relro_padding",
        ".symtab",
        ".shstrtab",
        ".strtab",
    ];
    let mut shstrtab = Vec::new();
    let mut sh_name = Vec::with_capacity(names.len());
    for n in names {
        sh_name.push(shstrtab.len() as u32);
        shstrtab.extend_from_slice(n.as_bytes());
        shstrtab.push(0);
    }
    let symtab_off = align_up(file_alloc_end, 8);
    let shstrtab_off = symtab_off + symtab_out.len() as u64;
    let strtab_off = shstrtab_off + shstrtab.len() as u64;
    let shoff_out = align_up(strtab_off + strtab_out.len() as u64, 8);
    let total = shoff_out + u64::from(OUT_SECTIONS) * SHDR_SIZE;

    let mut out = Vec::with_capacity(total as usize);
    // ELF header: the input's identification (class, data, OS ABI and ABI
    // version) and flags (the gfx target and its features).
    out.extend_from_slice(&object[..16]);
    put16(&mut out, ET_DYN);
    put16(&mut out, EM_AMDGPU);
    put32(&mut out, 1);
    put64(&mut out, 0);
    put64(&mut out, EHDR_SIZE);
    put64(&mut out, shoff_out);
    put32(&mut out, e_flags);
    put16(&mut out, EHDR_SIZE as u16);
    put16(&mut out, PHDR_SIZE as u16);
    put16(&mut out, PHNUM as u16);
    put16(&mut out, SHDR_SIZE as u16);
    put16(&mut out, OUT_SECTIONS);
    put16(&mut out, OUT_SHSTRTAB);
    let phdr = |out: &mut Vec<u8>,
                p_type: u32,
                flags: u32,
                off: u64,
                addr: u64,
                filesz: u64,
                memsz: u64,
                align: u64| {
        put32(out, p_type);
        put32(out, flags);
        put64(out, off);
        put64(out, addr);
        put64(out, addr);
        put64(out, filesz);
        put64(out, memsz);
        put64(out, align);
    };
    let phdrs_size = PHNUM * PHDR_SIZE;
    let rw_memsz = dynamic_size + relro_padding;
    phdr(
        &mut out, PT_PHDR, PF_R, EHDR_SIZE, EHDR_SIZE, phdrs_size, phdrs_size, 8,
    );
    phdr(&mut out, PT_LOAD, PF_R, 0, 0, ro_end, ro_end, PAGE);
    phdr(
        &mut out,
        PT_LOAD,
        PF_R | PF_X,
        text_off,
        text_addr,
        text_sec.size,
        text_sec.size,
        PAGE,
    );
    phdr(
        &mut out,
        PT_LOAD,
        PF_R | PF_W,
        dynamic_off,
        dynamic_addr,
        dynamic_size,
        rw_memsz,
        PAGE,
    );
    phdr(
        &mut out,
        PT_DYNAMIC,
        PF_R | PF_W,
        dynamic_off,
        dynamic_addr,
        dynamic_size,
        dynamic_size,
        8,
    );
    phdr(
        &mut out,
        PT_GNU_RELRO,
        PF_R,
        dynamic_off,
        dynamic_addr,
        dynamic_size,
        rw_memsz,
        1,
    );
    phdr(&mut out, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0);
    phdr(
        &mut out,
        PT_NOTE,
        PF_R,
        note_addr,
        note_addr,
        note_sec.size,
        note_sec.size,
        note_sec.align,
    );
    let place = |out: &mut Vec<u8>, at: u64, bytes: &[u8]| {
        out.resize(at as usize, 0);
        out.extend_from_slice(bytes);
    };
    place(&mut out, note_addr, &note_bytes);
    place(&mut out, dynsym_addr, &dynsym);
    place(&mut out, gnu_hash_addr, &gnu);
    place(&mut out, hash_addr, &hash);
    place(&mut out, dynstr_addr, &dynstr);
    place(&mut out, rodata_addr, &ro_bytes);
    place(&mut out, text_off, &text_bytes);
    place(&mut out, dynamic_off, &dynamic);
    place(&mut out, symtab_off, &symtab_out);
    place(&mut out, shstrtab_off, &shstrtab);
    place(&mut out, strtab_off, &strtab_out);
    out.resize(shoff_out as usize, 0);
    struct Shdr {
        sh_type: u32,
        flags: u64,
        addr: u64,
        off: u64,
        size: u64,
        link: u16,
        info: u32,
        align: u64,
        entsize: u64,
    }
    let headers = [
        Shdr {
            sh_type: 0,
            flags: 0,
            addr: 0,
            off: 0,
            size: 0,
            link: 0,
            info: 0,
            align: 0,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_NOTE,
            flags: SHF_ALLOC,
            addr: note_addr,
            off: note_addr,
            size: note_sec.size,
            link: 0,
            info: 0,
            align: note_sec.align,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_DYNSYM,
            flags: SHF_ALLOC,
            addr: dynsym_addr,
            off: dynsym_addr,
            size: dynsym_size,
            link: OUT_DYNSTR,
            info: 1,
            align: 8,
            entsize: SYM_SIZE,
        },
        Shdr {
            sh_type: SHT_GNU_HASH,
            flags: SHF_ALLOC,
            addr: gnu_hash_addr,
            off: gnu_hash_addr,
            size: gnu_hash_size,
            link: OUT_DYNSYM,
            info: 0,
            align: 8,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_HASH,
            flags: SHF_ALLOC,
            addr: hash_addr,
            off: hash_addr,
            size: hash_size,
            link: OUT_DYNSYM,
            info: 0,
            align: 4,
            entsize: 4,
        },
        Shdr {
            sh_type: SHT_STRTAB,
            flags: SHF_ALLOC,
            addr: dynstr_addr,
            off: dynstr_addr,
            size: dynstr.len() as u64,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_PROGBITS,
            flags: SHF_ALLOC,
            addr: rodata_addr,
            off: rodata_addr,
            size: ro_sec.size,
            link: 0,
            info: 0,
            align: ro_sec.align,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_PROGBITS,
            flags: SHF_ALLOC | SHF_EXECINSTR,
            addr: text_addr,
            off: text_off,
            size: text_sec.size,
            link: 0,
            info: 0,
            align: text_sec.align,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_DYNAMIC,
            flags: SHF_WRITE | SHF_ALLOC,
            addr: dynamic_addr,
            off: dynamic_off,
            size: dynamic_size,
            link: OUT_DYNSTR,
            info: 0,
            align: 8,
            entsize: DYN_SIZE,
        },
        Shdr {
            sh_type: SHT_NOBITS,
            flags: SHF_WRITE | SHF_ALLOC,
            addr: dynamic_end,
            off: file_alloc_end,
            size: relro_padding,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_SYMTAB,
            flags: 0,
            addr: 0,
            off: symtab_off,
            size: symtab_out.len() as u64,
            link: OUT_STRTAB,
            info: n_local,
            align: 8,
            entsize: SYM_SIZE,
        },
        Shdr {
            sh_type: SHT_STRTAB,
            flags: 0,
            addr: 0,
            off: shstrtab_off,
            size: shstrtab.len() as u64,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
        },
        Shdr {
            sh_type: SHT_STRTAB,
            flags: 0,
            addr: 0,
            off: strtab_off,
            size: strtab_out.len() as u64,
            link: 0,
            info: 0,
            align: 1,
            entsize: 0,
        },
    ];
    for (h, name) in headers.iter().zip(&sh_name) {
        put32(&mut out, *name);
        put32(&mut out, h.sh_type);
        put64(&mut out, h.flags);
        put64(&mut out, h.addr);
        put64(&mut out, h.off);
        put64(&mut out, h.size);
        put32(&mut out, u32::from(h.link));
        put32(&mut out, h.info);
        put64(&mut out, h.align);
        put64(&mut out, h.entsize);
    }
    debug_assert_eq!(out.len() as u64, total);
    Ok(out)
}
