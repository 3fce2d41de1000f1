//! The corpus's kernel table: for every kernel in corpus/src, its language, category and
//! the dispatches it is checked with (inputs, arguments, grid) plus the host reference.
//!
//! This module is plain Rust with no dependencies so that both the integration test
//! (crates/hsa/tests/corpus.rs) and the benchmark (benches/corpus.rs) include it with
//! `#[path]` and drive it through their own runtime handles: a [`Case`] says what to put in
//! memory and what must come back; the runner allocates, dispatches and calls
//! [`Case::check`]. The reference runs on the host when asked ([`Case::reference`]), so the
//! benchmark can time it as the peer of the simulated dispatch.
#![allow(dead_code)] // the test and the benchmark each use a different subset

mod atomics;
mod calls;
pub mod data;
mod integer;
mod math;
mod memory;
mod scans;
mod waves;

use std::fmt::Debug;

/// The source language of a corpus kernel (which build.sh rule built it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lang {
    OpenCl,
    Hip,
    Asm,
}

impl Lang {
    /// The variants build.sh makes: `NAME.O0.co` and `NAME.O3.co` for compiled sources,
    /// `NAME.co` for assembly.
    pub fn variants(self) -> &'static [&'static str] {
        match self {
            Lang::OpenCl | Lang::Hip => &["O0", "O3"],
            Lang::Asm => &[""],
        }
    }
}

/// What a kernel exercises (the list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    ScanReduce,
    Atomics,
    Wave64,
    Scratch,
    F64F16,
    IntDiv,
    Calls,
    CrossLane,
    Wmma,
    Lds,
    General,
}

/// One kernel of the corpus.
pub struct Kernel {
    pub name: &'static str,
    pub lang: Lang,
    pub category: Category,
    pub cases: fn() -> Vec<Case>,
}

impl Kernel {
    /// The code object file name of `variant` ("O0", "O3" or "" for assembly).
    pub fn file(&self, variant: &str) -> String {
        if variant.is_empty() {
            format!("{}.co", self.name)
        } else {
            format!("{}.{variant}.co", self.name)
        }
    }
}

/// One explicit kernel argument, in the order of the kernel's metadata.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// The GPU address of buffer `i` of the case.
    Buf(usize),
    U32(u32),
    U64(u64),
    F32(f32),
}

impl Arg {
    /// The argument's bytes as the kernarg segment holds them (not for buffers).
    pub fn scalar_bytes(&self) -> Vec<u8> {
        match *self {
            Arg::Buf(_) => Vec::new(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::U64(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
        }
    }
}

/// Checks on all of a case's buffers at once (for results only a relation pins down).
pub type Relation = Box<dyn Fn(&[&[u8]]) -> Result<(), String>>;

/// What one buffer must hold after the dispatch.
pub enum Expect {
    U32(Vec<u32>),
    U64(Vec<u64>),
    /// f32 values within `ulp` units in the last place (NaN matches NaN).
    F32 {
        want: Vec<f32>,
        ulp: u32,
    },
    F64 {
        want: Vec<f64>,
        ulp: u64,
    },
    /// f16 bit patterns within `ulp`.
    F16 {
        want: Vec<u16>,
        ulp: u32,
    },
    /// A check over every buffer of the case.
    Relation(Relation),
}

/// One dispatch of a kernel: buffers with their initial bytes, arguments, shape, and the
/// host reference giving the expected contents of the checked buffers.
pub struct Case {
    pub label: String,
    pub grid: [u32; 3],
    pub workgroup: [u16; 3],
    pub buffers: Vec<Vec<u8>>,
    pub args: Vec<Arg>,
    reference: Box<dyn Fn() -> Vec<(usize, Expect)>>,
}

impl Case {
    /// A 1D dispatch of `grid` work-items in groups of `wg`.
    pub fn linear(label: impl Into<String>, grid: u32, wg: u16) -> Case {
        Case::shaped(label, [grid, 1, 1], [wg, 1, 1])
    }

    pub fn shaped(label: impl Into<String>, grid: [u32; 3], workgroup: [u16; 3]) -> Case {
        Case {
            label: label.into(),
            grid,
            workgroup,
            buffers: Vec::new(),
            args: Vec::new(),
            reference: Box::new(Vec::new),
        }
    }

    /// Adds a buffer holding `bytes` and passes its address as the next argument.
    pub fn buf(mut self, bytes: Vec<u8>) -> Case {
        self.args.push(Arg::Buf(self.buffers.len()));
        self.buffers.push(bytes);
        self
    }

    /// Passes a scalar as the next argument.
    pub fn arg(mut self, arg: Arg) -> Case {
        self.args.push(arg);
        self
    }

    /// Sets the host reference: (buffer index, expected contents) for each checked buffer.
    pub fn expect(mut self, reference: impl Fn() -> Vec<(usize, Expect)> + 'static) -> Case {
        self.reference = Box::new(reference);
        self
    }

    /// Runs the host reference computation.
    pub fn reference(&self) -> Vec<(usize, Expect)> {
        (self.reference)()
    }

    /// Compares the buffers read back after the dispatch with the reference; the error
    /// names the buffer and the first differing element.
    pub fn check(&self, got: &[&[u8]]) -> Result<(), String> {
        for (index, expect) in self.reference() {
            let bytes = got.get(index).ok_or(format!("no buffer {index}"))?;
            let result = match &expect {
                Expect::U32(want) => exact(&data::words::<u32>(bytes), want),
                Expect::U64(want) => exact(&data::words::<u64>(bytes), want),
                Expect::F32 { want, ulp } => within(
                    &data::words::<u32>(bytes),
                    want,
                    *ulp as u64,
                    |v| v.to_bits() as u64,
                    32,
                ),
                Expect::F64 { want, ulp } => {
                    within(&data::words::<u64>(bytes), want, *ulp, |v| v.to_bits(), 64)
                }
                Expect::F16 { want, ulp } => within(
                    &data::words::<u16>(bytes),
                    want,
                    *ulp as u64,
                    |v| *v as u64,
                    16,
                ),
                Expect::Relation(relation) => relation(got),
            };
            result.map_err(|e| format!("buffer {index}: {e}"))?;
        }
        Ok(())
    }
}

fn exact<T: PartialEq + Debug + Copy + data::Hex>(got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() < want.len() {
        return Err(format!("{} elements, want {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{} of {} elements differ; first at [{i}]: got {:?} ({}), want {:?} ({})",
            bad.len(),
            want.len(),
            got[i],
            got[i].hex(),
            want[i],
            want[i].hex()
        )),
    }
}

/// Float comparison on bit patterns `got` against values `want`, allowing `ulp` steps
/// between them (distance on the sign-magnitude ordering; NaN only matches NaN).
fn within<B: Copy + Into<u64>, F: Debug>(
    got: &[B],
    want: &[F],
    ulp: u64,
    bits: impl Fn(&F) -> u64,
    width: u32,
) -> Result<(), String> {
    if got.len() < want.len() {
        return Err(format!("{} elements, want {}", got.len(), want.len()));
    }
    let bad: Vec<(usize, u64)> = (0..want.len())
        .filter_map(|i| {
            let d = data::ulp_distance(got[i].into(), bits(&want[i]), width);
            (d > ulp).then_some((i, d))
        })
        .collect();
    match bad.first() {
        None => Ok(()),
        Some(&(i, d)) => Err(format!(
            "{} of {} elements beyond {ulp} ulp; first at [{i}]: got bits {:#x}, want {:?} \
             (bits {:#x}), {} ulp apart",
            bad.len(),
            want.len(),
            got[i].into(),
            want[i],
            bits(&want[i]),
            if d == u64::MAX {
                "NaN/non-NaN".to_string()
            } else {
                d.to_string()
            }
        )),
    }
}

/// Every kernel of the corpus, in a fixed order.
pub fn all() -> Vec<Kernel> {
    let mut kernels = Vec::new();
    kernels.extend(scans::kernels());
    kernels.extend(atomics::kernels());
    kernels.extend(waves::kernels());
    kernels.extend(memory::kernels());
    kernels.extend(math::kernels());
    kernels.extend(integer::kernels());
    kernels.extend(calls::kernels());
    kernels
}

/// The kernel called `name`.
pub fn find(name: &str) -> Option<Kernel> {
    all().into_iter().find(|k| k.name == name)
}
