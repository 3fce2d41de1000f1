//! The translator against the interpreter: random blocks built from the
//! fast-path tests' instruction generator (fast/tests.rs), run from the
//! same wave state, LDS and memory through `interpret_block` and through
//! their translation; every register, SCC, LDS, memory and the outcome
//! (exit, or the error and its instruction count, with the PC of the
//! failed instruction) must match. Further tests run hand-built blocks of
//! lane-local runs, helper math and a block that loops on itself. Each
//! test runs with every back end this build has (Cranelift with the `jit`
//! feature; LLVM when libLLVM-19 loads, else it says it skips it); the
//! LLVM back end compiles each test's blocks as one module.

use std::cell::UnsafeCell;
use std::collections::BTreeSet;
use std::sync::Arc;

use super::abi::{callout, run_pair, run_translated};
use super::target::JitTarget;
use super::translation::Translation;
use crate::gfx11::code_cache::{Block, CodeCache};
use crate::gfx11::decode::decode;
use crate::gfx11::exec::Env;
use crate::gfx11::exec::fast::tests::{Rng, plain_encodings, random_encodings};
use crate::gfx11::exec::fast::{Fast, compile};
use crate::gfx11::exec::salu::fast::Scalar;
use crate::gfx11::run_block::interpret_block_for_tests as interpret_block;
use crate::gfx11::run_block::{BlockExit, EntryError};
use crate::gfx11::wave::{EXEC, NUM_VGPRS, Wave};
use crate::{Access, GpuMemory, MemoryFault, WaveLoop};

pub(super) const CODE: u64 = 0x1_0000;
const DATA: u64 = 0x40_0000;
pub(super) const DATA_LEN: usize = 1 << 16;
const LDS_LEN: usize = 1 << 16;

/// Code at `CODE` (fetch only) and a data buffer at `DATA`.
pub(super) struct Memory {
    pub(super) code: Vec<u8>,
    pub(super) data: UnsafeCell<Vec<u8>>,
}

// SAFETY: each test uses its memories from one thread only.
unsafe impl Sync for Memory {}

impl GpuMemory for Memory {
    fn translate(&self, addr: u64, len: u64, access: Access) -> Result<*mut u8, MemoryFault> {
        let fault = MemoryFault {
            address: addr,
            access,
        };
        let end = addr.checked_add(len).ok_or(fault)?;
        if access == Access::Execute {
            if addr < CODE || end > CODE + self.code.len() as u64 {
                return Err(fault);
            }
            return Ok(self.code.as_ptr().wrapping_add((addr - CODE) as usize) as *mut u8);
        }
        if addr < DATA || end > DATA + DATA_LEN as u64 {
            return Err(fault);
        }
        // SAFETY: single-threaded test; the pointer stays inside the vector.
        Ok(unsafe { (*self.data.get()).as_mut_ptr() }.wrapping_add((addr - DATA) as usize))
    }
}

impl Memory {
    fn data(&self) -> Vec<u8> {
        // SAFETY: single-threaded test, no pointer from translate is live here.
        unsafe { (*self.data.get()).clone() }
    }
}

fn env<'a>(mem: &'a Memory, lds: &'a mut [u8]) -> Env<'a> {
    crate::gfx11::exec::fast::tests::env_over(mem, lds, &mut [])
}

/// Is this form one the translator may inline (what the blocks favour)?
fn inlinable(f: &Fast) -> bool {
    matches!(
        f,
        Fast::Salu { .. }
            | Fast::Valu { .. }
            | Fast::Cndmask { .. }
            | Fast::Vcmp { .. }
            | Fast::AddCo { .. }
            | Fast::AddCoCi { .. }
            | Fast::AddPair(_)
            | Fast::MadU64 { .. }
            | Fast::LshlrevB64 { .. }
            | Fast::FmaF32 { .. }
            | Fast::Flt(_)
            | Fast::Fma32(_)
            | Fast::Fcmp(_)
            | Fast::Vopd(_)
            | Fast::Vint(_)
            | Fast::Scalar(
                Scalar::Op64 { .. }
                    | Scalar::Saveexec { .. }
                    | Scalar::Ctz64 { .. }
                    | Scalar::Sopk { .. }
            )
            | Fast::Readlane { .. }
            | Fast::Lane(_)
            | Fast::DsShuffle(_)
            | Fast::Branch { .. }
    )
}

/// The generator's encodings that decode, split into block bodies (the
/// inlinable ones and the rest) and block ends (branches, s_endpgm, ...).
/// Instructions whose result depends on the host clock are left out.
fn pools() -> [Vec<Vec<u32>>; 3] {
    let mut rng = Rng::new(0x51_7CC1_B727_220A);
    let mut all = plain_encodings();
    for _ in 0..8 {
        all.extend(random_encodings(&mut rng));
    }
    let (mut hot, mut cold, mut ends) = (Vec::new(), Vec::new(), Vec::new());
    for words in all {
        let Ok(inst) = decode(&words) else { continue };
        let name = inst.op.name();
        if ["getreg", "sendmsg", "memrealtime", "memtime", "sleep"]
            .iter()
            .any(|n| name.contains(n))
        {
            continue;
        }
        let w = words[..inst.len as usize].to_vec();
        if inst.ends_block() {
            ends.push(w);
        } else if inlinable(&compile(&inst, CODE)) {
            hot.push(w);
        } else {
            cold.push(w);
        }
    }
    [hot, cold, ends]
}

/// A random block: mostly inlinable instructions, some others, and an end
/// (a block end, or nothing: the fetch past the code then faults).
fn random_code(rng: &mut Rng, pools: &[Vec<Vec<u32>>; 3]) -> Vec<u8> {
    let mut words = Vec::new();
    let n = 1 + rng.below(16);
    for _ in 0..n {
        let pool = if rng.below(4) == 0 {
            &pools[1]
        } else {
            &pools[0]
        };
        words.extend_from_slice(&pool[rng.below(pool.len() as u32) as usize]);
    }
    if rng.below(4) != 0 {
        let pool = &pools[2];
        words.extend_from_slice(&pool[rng.below(pool.len() as u32) as usize]);
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `block`'s instructions, for a failure's message.
pub(super) fn mnemonics(block: &Block) -> String {
    block
        .insts
        .iter()
        .map(|i| i.mnemonic.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The translated run (`got` and the wave it left) ended as the
/// interpreted one (`want`, its wave) did: the same outcome, SCC, SGPRs and
/// VGPRs, and after a failure the same PC (the wave loop sets the PC at
/// every exit but a failed instruction's, which `step` set in the
/// call-out that ran it).
pub(super) fn assert_same_run(
    what: &str,
    (got, quick): (&Result<BlockExit, EntryError>, &Wave),
    (want, slow): (&Result<BlockExit, EntryError>, &Wave),
) {
    assert_eq!(got, want, "{what}: outcome");
    assert_eq!(quick.scc, slow.scc, "{what}: SCC");
    if want.is_err() {
        assert_eq!(quick.pc, slow.pc, "{what}: PC");
    }
    assert_eq!(quick.sgpr, slow.sgpr, "{what}: SGPRs");
    for r in 0..NUM_VGPRS {
        assert_eq!(quick.vgpr[r], slow.vgpr[r], "{what}: v{r}");
    }
}

/// A back end under test.
#[derive(Clone, Copy, Debug)]
pub(super) enum Backend {
    #[cfg(feature = "jit")]
    Cranelift,
    #[cfg(unix)]
    Llvm,
}

impl Backend {
    /// Translations of `blocks`, in order.
    pub(super) fn translate(self, blocks: &[&Block]) -> Vec<Translation> {
        self.translate_for(blocks, JitTarget::Host)
    }

    /// Translations of `blocks`, in order, the LLVM back end's compiled
    /// for `target` (Cranelift's are for the host's CPU).
    #[cfg_attr(not(unix), allow(unused_variables))]
    pub(super) fn translate_for(self, blocks: &[&Block], target: JitTarget) -> Vec<Translation> {
        match self {
            #[cfg(feature = "jit")]
            Backend::Cranelift => blocks
                .iter()
                .map(|b| super::translate::translate(b).expect("the block translates"))
                .collect(),
            #[cfg(unix)]
            Backend::Llvm => {
                super::llvm::translate_all_for(blocks, false, target).expect("the blocks translate")
            }
        }
    }
}

/// The back ends to test here (saying why LLVM's is left out, if it is).
pub(super) fn backends() -> Vec<Backend> {
    let mut all = Vec::new();
    #[cfg(feature = "jit")]
    all.push(Backend::Cranelift);
    #[cfg(unix)]
    if super::llvm::available() {
        all.push(Backend::Llvm);
    } else {
        eprintln!("skipping the LLVM back end: libLLVM-19 does not load here");
    }
    all
}

/// One block to run from several wave states.
struct Case {
    block: std::sync::Arc<Block>,
    mem: Memory,
    wave: Wave,
    lds: Vec<u8>,
    level: WaveLoop,
    execs: Vec<u32>,
}

/// Run every case with every back end (LLVM's on the first `llvm_cases`
/// only: its compile costs about 5 ms per block in one module); returns
/// the inline entries, the runs and the instructions they ran, of the last
/// back end's runs, or None where no back end runs here (no `jit` feature
/// and no libLLVM-19), so that callers skip their counts.
fn run_cases(cases: &[Case], llvm_cases: usize) -> Option<(usize, usize, usize)> {
    run_cases_at(cases, llvm_cases, JitTarget::Host)
}

/// [`run_cases`] with the LLVM back end compiling for `target` (the
/// host's own CPU: every back end; another: the LLVM back end alone).
fn run_cases_at(
    cases: &[Case],
    llvm_cases: usize,
    target: JitTarget,
) -> Option<(usize, usize, usize)> {
    let (mut inlined, mut runs, mut insts) = (0, 0, 0);
    let mut backends = backends();
    #[cfg(unix)]
    if target != JitTarget::Host {
        backends.retain(|b| matches!(b, Backend::Llvm));
    }
    if backends.is_empty() {
        return None;
    }
    for backend in backends {
        let cases = match backend {
            #[cfg(unix)]
            Backend::Llvm => &cases[..cases.len().min(llvm_cases)],
            #[allow(unreachable_patterns)]
            _ => cases,
        };
        // Each distinct block once (cases may share one).
        let mut blocks: Vec<&Block> = Vec::new();
        let index: Vec<usize> = cases
            .iter()
            .map(
                |c| match blocks.iter().position(|b| std::ptr::eq(*b, &*c.block)) {
                    Some(k) => k,
                    None => {
                        blocks.push(&c.block);
                        blocks.len() - 1
                    }
                },
            )
            .collect();
        let ts = backend.translate_for(&blocks, target);
        (inlined, runs, insts) = (0, 0, 0);
        for (c, &k) in cases.iter().zip(&index) {
            let mut w = c.wave.clone();
            for &exec in &c.execs {
                w.sgpr[EXEC] = exec;
                inlined += compare(&ts[k], &c.block, &c.mem, &w, &c.lds, c.level);
                runs += 1;
                insts += c.block.insts.len();
            }
        }
    }
    Some((inlined, runs, insts))
}

/// Run `block` from `w0` both ways (`t` its translation for `w0`'s wave
/// size) and compare everything (a wave64 wave's high rows too).
pub(super) fn compare(
    t: &Translation,
    block: &Block,
    mem0: &Memory,
    w0: &Wave,
    lds0: &[u8],
    level: WaveLoop,
) -> usize {
    compare_counting(t, block, mem0, w0, lds0, level, false)
}

/// [`compare`], in a dispatch that counts LDS bank conflicts when `banks`
/// (both ways must count the same).
fn compare_counting(
    t: &Translation,
    block: &Block,
    mem0: &Memory,
    w0: &Wave,
    lds0: &[u8],
    level: WaveLoop,
    banks: bool,
) -> usize {
    let run = |jit: bool| {
        let mem = Memory {
            code: mem0.code.clone(),
            data: UnsafeCell::new(mem0.data()),
        };
        let mut lds = lds0.to_vec();
        let mut w = w0.clone();
        let (r, conflicts) = {
            let mut env = env(&mem, &mut lds);
            env.lds_bank_conflicts = banks.then_some(0);
            let r = if jit {
                // SAFETY: `t` translates `block` for `w`'s size and lives
                // across the call.
                unsafe {
                    run_translated(t.func(), callout(level), &mut w, &mut env, block, 0, &mut 0).0
                }
            } else {
                interpret_block(&mut w, &mut env, block, block.list(w0.wave64))
            };
            (r, env.lds_bank_conflicts)
        };
        (r, w, lds, mem.data(), conflicts)
    };
    let (want, slow, lds_slow, data_slow, conflicts_slow) = run(false);
    let (got, quick, lds_quick, data_quick, conflicts_quick) = run(true);
    let what = format!("{} (wave64 {})", mnemonics(block), w0.wave64);
    assert_same_run(&what, (&got, &quick), (&want, &slow));
    assert!(quick.vgpr_hi == slow.vgpr_hi, "{what}: lanes 32..63");
    assert!(lds_quick == lds_slow, "{what}: LDS");
    assert!(data_quick == data_slow, "{what}: memory");
    assert_eq!(conflicts_quick, conflicts_slow, "{what}: bank conflicts");
    t.inlined
}

/// Random blocks give the same wave, LDS, memory and outcome through the
/// translator as through the interpreter, under random, full and empty
/// EXEC masks, with call-outs at the baseline and the host's best level.
#[test]
fn translated_blocks_match_the_interpreter() {
    let pools = pools();
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let (mut cases, mut kinds) = (Vec::new(), BTreeSet::new());
    for trial in 0..1000 {
        let code = random_code(&mut rng, &pools);
        let mem = Memory {
            code,
            data: UnsafeCell::new((0..DATA_LEN).map(|i| (i * 7 + 3) as u8).collect()),
        };
        let block = CodeCache::new().block(CODE, &mem);
        for c in &block.compiled {
            kinds.insert(
                format!("{:?}", c.fast)
                    .split([' ', '('])
                    .next()
                    .map(str::to_owned),
            );
        }
        let mut w = rng.wave();
        // Now and then s[0:1] and v[0:1] point into the data buffer.
        if rng.below(2) == 0 {
            w.sgpr[0] = DATA as u32;
            w.sgpr[1] = (DATA >> 32) as u32;
            for l in 0..32 {
                w.vgpr[0][l] = DATA as u32 + 4 * l as u32;
                w.vgpr[1][l] = (DATA >> 32) as u32;
            }
        }
        let lds: Vec<u8> = (0..LDS_LEN).map(|i| (i * 13 + trial) as u8).collect();
        let level = if trial % 2 == 0 {
            WaveLoop::Baseline
        } else {
            WaveLoop::host_best()
        };
        let execs = vec![rng.value(), u32::MAX, 0];
        cases.push(Case {
            block,
            mem,
            wave: w,
            lds,
            level,
            execs,
        });
    }
    let Some((inlined, runs, _)) = run_cases(&cases, 200) else {
        return;
    };
    assert!(
        inlined > runs,
        "only {inlined} entries ran inline in {runs} runs"
    );
    // The LLVM back end's other way of keeping registers, each write
    // stored at once (llvm/emit.rs `WRITE_THROUGH`), on the same blocks.
    #[cfg(unix)]
    if super::llvm::available() {
        super::llvm::emit::FORCE_WRITE_THROUGH.set(true);
        let through = run_cases(&cases[..200], 200);
        super::llvm::emit::FORCE_WRITE_THROUGH.set(false);
        assert!(through.is_some_and(|(inlined, runs, _)| inlined > runs));
        // And with one copy per function (llvm/emit.rs `ONE_COPY_BYTES`):
        // a full EXEC runs the `any` copy.
        super::llvm::emit::FORCE_ONE_COPY.set(true);
        let one = run_cases(&cases[..200], 200);
        super::llvm::emit::FORCE_ONE_COPY.set(false);
        assert!(one.is_some_and(|(inlined, runs, _)| inlined > runs));
    }
    // Compiled for each lower x86-64 level this host runs (target.rs),
    // the translations are the code an AVX2-only or older host runs.
    #[cfg(unix)]
    if super::llvm::available() {
        for target in JitTarget::all_here() {
            if target != JitTarget::Host {
                let r = run_cases_at(&cases[..200], 200, target);
                assert!(
                    r.is_some_and(|(inlined, runs, _)| inlined > runs),
                    "{target:?}"
                );
            }
        }
    }
    // The same module compiles for AVX-512 hosts too, where libLLVM-19's
    // x86 code generator loops on some forms of lane masks (emit.rs
    // `Fx::mask_of`), whatever this host has.
    #[cfg(unix)]
    if super::llvm::available() {
        let blocks: Vec<&Block> = cases[..200].iter().map(|c| &*c.block).collect();
        let (ir, _, _) = super::llvm::module(&blocks, false, JitTarget::Host);
        super::llvm::compile_for_cpu(&ir, "x86-64-v4").expect("compiles for x86-64-v4");
    }
    for kind in [
        "Salu", "Valu", "Cndmask", "Vcmp", "FmaF32", "Flt", "Fma32", "Fcmp", "Vopd", "Branch",
    ] {
        assert!(
            kinds.contains(&Some(kind.to_owned())),
            "no {kind} entry in the blocks: {kinds:?}"
        );
    }
}

/// Wave64 waves (the LLVM back end, each vector entry once per 32-lane
/// half: llvm/wave64.rs) end the random blocks as the interpreter's wave64
/// path does: SGPRs, SCC, both VGPR halves, memory, LDS and the outcome,
/// under EXEC pairs with either half full, empty or random.
#[cfg(unix)]
#[test]
fn translated_wave64_blocks_match_the_interpreter() {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let pools = pools();
    let mut rng = Rng::new(0x6A09_E667_F3BC_C908);
    let mut cases = Vec::new();
    for trial in 0..160 {
        let code = random_code(&mut rng, &pools);
        let mem = Memory {
            code,
            data: UnsafeCell::new((0..DATA_LEN).map(|i| (i * 5 + 1) as u8).collect()),
        };
        let block = CodeCache::new().block(CODE, &mem);
        let w = rng.wave();
        let mut w = rng.wave64(&w);
        if rng.below(2) == 0 {
            w.sgpr[0] = DATA as u32;
            w.sgpr[1] = (DATA >> 32) as u32;
            for l in 0..32 {
                w.vgpr[0][l] = DATA as u32 + 4 * l as u32;
                w.vgpr_hi[0][l] = DATA as u32 + 4 * (l + 32) as u32;
                w.vgpr[1][l] = (DATA >> 32) as u32;
                w.vgpr_hi[1][l] = (DATA >> 32) as u32;
            }
        }
        let lds: Vec<u8> = (0..LDS_LEN).map(|i| (i * 11 + trial) as u8).collect();
        cases.push((block, mem, w, lds));
    }
    let blocks: Vec<&Block> = cases.iter().map(|c| &*c.0).collect();
    // Compiled for the host's CPU, then for each lower x86-64 level it
    // runs (target.rs).
    for target in JitTarget::all_here() {
        let ts =
            super::llvm::translate_all_for(&blocks, true, target).expect("the blocks translate");
        let (mut inlined, mut runs) = (0, 0);
        for (k, ((block, mem, w, lds), t)) in cases.iter().zip(&ts).enumerate() {
            let level = if k % 2 == 0 {
                WaveLoop::Baseline
            } else {
                WaveLoop::host_best()
            };
            let r = rng.value();
            for (lo, hi) in [
                (u32::MAX, u32::MAX),
                (rng.value(), rng.value()),
                (u32::MAX, 0),
                (0, u32::MAX),
                (r, r),
                (0, 0),
            ] {
                let mut w = w.clone();
                (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
                inlined += compare(t, block, mem, &w, lds, level);
                runs += 1;
            }
        }
        assert!(
            inlined > runs,
            "{target:?}: only {inlined} entries ran inline in {runs} runs"
        );
    }
}

/// The EXEC pairs (low, high word) the GFX9 block tests run each wave64
/// block under: full, random, low half only, high half only, empty.
fn wave64_exec_pairs(rng: &mut Rng) -> [(u32, u32); 5] {
    [
        (u32::MAX, u32::MAX),
        (rng.value(), rng.value()),
        (u32::MAX, 0),
        (0, rng.value()),
        (0, 0),
    ]
}

/// GFX9 blocks (gfx942 words: every SOP1, VOP1, VOP2, VOPC and VOP3
/// opcode with plain operands, fast/tests/gfx9.rs `encodings`) run as
/// wave64 waves end as the interpreter ends them, under six EXEC pairs:
/// GFX9's own forms (VOP2 carries writing VCC, v_lshl_add_u64, v_mov_b64,
/// v_fmac_f64) included.
#[cfg(unix)]
#[test]
fn translated_gfx9_blocks_match_the_interpreter() {
    use crate::Isa;
    use crate::gfx9::Target;
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let pool: Vec<Vec<u32>> = crate::gfx11::exec::fast::tests::gfx9::encodings(&["v_"])
        .into_iter()
        .filter_map(|words| {
            let inst = crate::gfx9::decode::decode(Target::Gfx942, &words).ok()?;
            let name = inst.mnemonic;
            // Results that depend on the host clock, or that end the block.
            if ["getreg", "sendmsg", "memtime", "memrealtime", "sleep"]
                .iter()
                .any(|n| name.contains(n))
            {
                return None;
            }
            Some(words[..inst.len as usize].to_vec())
        })
        .collect();
    let s_endpgm = 0xBF81_0000u32;
    assert_eq!(
        crate::gfx9::decode::decode(Target::Gfx942, &[s_endpgm])
            .expect("s_endpgm decodes")
            .mnemonic,
        "s_endpgm"
    );
    let mut rng = Rng::new(0xBB67_AE85_84CA_A73B);
    let mut cases = Vec::new();
    for _ in 0..120 {
        let mut words = Vec::new();
        for _ in 0..1 + rng.below(12) {
            words.extend_from_slice(&pool[rng.below(pool.len() as u32) as usize]);
        }
        if rng.below(4) != 0 {
            words.push(s_endpgm);
        }
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::for_isa(Isa::Gfx9(Target::Gfx942)).block(CODE, &mem);
        let w = rng.wave();
        let w = rng.wave64(&w);
        cases.push((block, mem, w));
    }
    let blocks: Vec<&Block> = cases.iter().map(|c| &*c.0).collect();
    let ts = super::llvm::translate_all(&blocks, true).expect("the blocks translate");
    let (mut inlined, mut runs) = (0, 0);
    for ((block, mem, w), t) in cases.iter().zip(&ts) {
        for (lo, hi) in wave64_exec_pairs(&mut rng) {
            let mut w = w.clone();
            (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
            inlined += compare(t, block, mem, &w, &[], WaveLoop::host_best());
            runs += 1;
        }
    }
    assert!(
        inlined > 2 * runs,
        "only {inlined} entries ran inline in {runs} runs"
    );
}

/// GFX9's address and scalar forms that the corpus's gfx942 code runs
/// most (v_lshl_add_u64, s_ff1_i32_b64, the SOPK moves, compares, adds and
/// multiplies), each of fast/tests/gfx9.rs `encodings` as a block of its
/// own, run inline in wave64 waves and end as the interpreter ends them
/// under five EXEC pairs: the random blocks above draw them too seldom
/// from the thousands of encodings to cover each.
#[cfg(unix)]
#[test]
fn translated_gfx9_address_and_scalar_forms_run_inline() {
    use crate::Isa;
    use crate::gfx9::Target;
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let s_endpgm = 0xBF81_0000u32;
    let mut rng = Rng::new(0x3C6E_F372_FE94_F82B);
    let mut cases = Vec::new();
    let mut names = BTreeSet::new();
    for words in crate::gfx11::exec::fast::tests::gfx9::encodings(&["v_lshl_add_u64"]) {
        let Ok(inst) = crate::gfx9::decode::decode(Target::Gfx942, &words) else {
            continue;
        };
        let name = inst.mnemonic;
        if ![
            "v_lshl_add_u64",
            "s_ff1_i32_b64",
            "s_movk",
            "s_cmpk",
            "s_addk",
            "s_mulk",
        ]
        .iter()
        .any(|p| name.starts_with(p))
        {
            continue;
        }
        names.insert(name);
        let mut code = words[..inst.len as usize].to_vec();
        code.push(s_endpgm);
        let mem = Memory {
            code: code.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::for_isa(Isa::Gfx9(Target::Gfx942)).block(CODE, &mem);
        let w = rng.wave();
        let w = rng.wave64(&w);
        cases.push((block, mem, w));
    }
    for want in [
        "v_lshl_add_u64",
        "s_ff1_i32_b64",
        "s_movk_i32",
        "s_cmpk_lt_u32",
        "s_addk_i32",
    ] {
        assert!(names.contains(want), "{want} not generated");
    }
    let blocks: Vec<&Block> = cases.iter().map(|c| &*c.0).collect();
    let ts = super::llvm::translate_all(&blocks, true).expect("the blocks translate");
    let mut fast = 0;
    for ((block, mem, w), t) in cases.iter().zip(&ts) {
        for (lo, hi) in wave64_exec_pairs(&mut rng) {
            let mut w = w.clone();
            (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
            let inlined = compare(t, block, mem, &w, &[], WaveLoop::host_best());
            // Operands the fast form does not take (a 64-bit source that
            // is no register pair or constant) leave the entry to `step`.
            if !matches!(block.compiled64[0].fast, Fast::Slow) {
                assert_eq!(
                    inlined,
                    block.compiled64.len(),
                    "{}: inline",
                    mnemonics(block)
                );
                fast += 1;
            }
        }
    }
    assert!(
        fast > 4 * cases.len(),
        "{fast} inline runs of {} blocks",
        cases.len()
    );
}

/// The dword DS loads and stores run inline (exec/lds.rs's forms, as
/// llvm-mc-19 encodes them) and match the interpreter: addresses random,
/// one lane's bytes apart (the masked vector path), all alike
/// (overlapping stores), unaligned, near the end of
/// the allocation and past it (the call-out's per-lane path), under full,
/// partial, one-lane and empty EXEC; with the address row written just
/// before the access (a dirty register on the call-out's side path) and
/// with a second access after it; and in a dispatch that counts bank
/// conflicts, where every access takes the call-out.
#[test]
fn ds_accesses_match_the_interpreter() {
    use crate::gfx11::exec::lds::tests::FORMS;
    const SMALL_LDS: u32 = 4096;
    let mut rng = Rng::new(0xD5A1_7E57_0F0D_5EED);
    let mut cases = Vec::new();
    for (n, f) in FORMS.iter().enumerate() {
        for variant in 0..16u32 {
            let form = |f: &crate::gfx11::exec::lds::tests::Form| {
                [0, 4].map(|k| u32::from_le_bytes(f.bytes[k..k + 4].try_into().unwrap()))
            };
            let mut words = Vec::new();
            if variant & 1 != 0 {
                words.extend(enc::vop1(1, 2, 256 + 3)); // v_mov_b32 v2, v3
            }
            words.extend(form(f));
            if variant & 2 != 0 {
                words.extend(form(&FORMS[(n + variant as usize) % FORMS.len()]));
            }
            words.push(0xBFB0_0000); // s_endpgm
            let mem = Memory {
                code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
                data: UnsafeCell::new(vec![0; DATA_LEN]),
            };
            let block = CodeCache::new().block(CODE, &mem);
            assert!(
                block.compiled.iter().any(|c| matches!(c.fast, Fast::Ds(_))),
                "{}: no Ds form",
                f.text
            );
            let mut w = rng.wave();
            let lds: Vec<u8> = (0..SMALL_LDS).map(|i| (i * 31 + variant) as u8).collect();
            let base = rng.below(SMALL_LDS / 2);
            // One lane's bytes: the step between the addresses of
            // neighbouring lanes whose elements lie one after the other.
            let dwords = f.dwords as u32;
            let stride = match f.offsets {
                [o0, o1] if *o1 == o0 + 4 * u64::from(dwords) => 8 * dwords,
                _ => 4 * dwords,
            };
            let top = f.offsets.iter().max().copied().unwrap_or(0) as u32 + 8 * dwords;
            let packed = rng.below(SMALL_LDS - 32 * stride - top) & !3;
            for l in 0..32u32 {
                let a = match variant >> 2 {
                    0 => rng.below(SMALL_LDS / 2) & !3,
                    1 => packed + stride * l,
                    2 => base,
                    _ => rng.below(SMALL_LDS / 2) | 1,
                };
                w.vgpr[2][l as usize] = a;
                w.vgpr[3][l as usize] = a;
            }
            let near_end = SMALL_LDS - 16 - f.offsets.iter().max().copied().unwrap_or(0) as u32;
            let lane = rng.below(32) as usize;
            match rng.below(4) {
                // One lane near the end (inside), one past it, or far out.
                0 => w.vgpr[2][lane] = near_end,
                1 => w.vgpr[2][lane] = SMALL_LDS - 2,
                2 => w.vgpr[2][lane] = 0xFFFF_FFF0,
                _ => {}
            }
            w.vgpr[3][lane] = w.vgpr[2][lane];
            let level = if variant % 3 == 0 {
                WaveLoop::Baseline
            } else {
                WaveLoop::host_best()
            };
            let execs = vec![
                u32::MAX,
                rng.value(),
                0,
                1 << lane,
                1 << rng.below(32),
                rng.next(),
            ];
            cases.push(Case {
                block,
                mem,
                wave: w,
                lds,
                level,
                execs,
            });
        }
    }
    // Wave64: half the variants of each form, the odd ones of one form
    // and the even ones of the next (a wave64 module is twice the size).
    let wave64: Vec<&Case> = cases
        .iter()
        .enumerate()
        .filter(|(k, _)| (k / 16 + k % 16).is_multiple_of(2))
        .map(|(_, c)| c)
        .collect();
    check_ds_cases(&cases, &wave64, (2, 3));
}

/// Run DS `cases` through each back end in wave32 under each case's EXEC
/// values, with and without bank counting, every entry inline in the
/// LLVM translation; then (LLVM) the `wave64` ones in wave64, each access
/// pass by pass, the high lanes addressing as the low ones with the
/// address rows `rows` swapped, under EXEC pairs.
fn check_ds_cases(cases: &[Case], wave64: &[&Case], rows: (usize, usize)) {
    for backend in backends() {
        let blocks: Vec<&Block> = cases.iter().map(|c| &*c.block).collect();
        let ts = backend.translate(&blocks);
        for (c, t) in cases.iter().zip(&ts) {
            let mut w = c.wave.clone();
            for &exec in &c.execs {
                w.sgpr[EXEC] = exec;
                for banks in [false, true] {
                    compare_counting(t, &c.block, &c.mem, &w, &c.lds, c.level, banks);
                }
            }
            #[cfg(unix)]
            if matches!(backend, Backend::Llvm) {
                assert_eq!(t.inlined, c.block.compiled.len(), "every entry inline");
            }
        }
    }
    #[cfg(unix)]
    if super::llvm::available() {
        let blocks: Vec<&Block> = wave64.iter().map(|c| &*c.block).collect();
        let ts = super::llvm::translate_all(&blocks, true).expect("the blocks translate");
        for (c, t) in wave64.iter().zip(&ts) {
            let mut w = c.wave.clone();
            w.wave64 = true;
            (w.vgpr_hi[rows.0], w.vgpr_hi[rows.1]) = (w.vgpr[rows.1], w.vgpr[rows.0]);
            for (k, &lo) in c.execs.iter().enumerate() {
                let hi = c.execs[(k + 2) % c.execs.len()];
                (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
                for banks in [false, true] {
                    compare_counting(t, &c.block, &c.mem, &w, &c.lds, c.level, banks);
                }
            }
            assert_eq!(t.inlined, c.block.compiled64.len(), "every entry inline");
        }
    }
}

/// The 8- and 16-bit DS loads and stores run inline
/// (exec/lds_subword.rs's forms, as llvm-mc-19 encodes them) and match the
/// interpreter: addresses random (overlapping lanes, any alignment), all
/// alike, or one lane's bytes apart; one lane exactly at the end,
/// straddling it or far out (the call-out); under full, partial, one-lane
/// and empty EXEC; alone or after a write of the address row, and with a
/// second access after it; in a dispatch that counts bank conflicts too
/// (every access a call-out), and in wave64 with the halves' rows swapped.
#[test]
fn ds_subword_accesses_match_the_interpreter() {
    use crate::gfx11::exec::lds_subword::tests::SUBWORD_FORMS;
    const SMALL_LDS: u32 = 4096;
    let mut rng = Rng::new(0x0B17_E5D5_0B17_E5D5);
    let mut cases = Vec::new();
    let words =
        |bytes: &[u8; 8]| [0, 4].map(|k| u32::from_le_bytes(bytes[k..k + 4].try_into().unwrap()));
    for (n, f) in SUBWORD_FORMS.iter().enumerate() {
        for variant in 0..8u32 {
            let mut code = Vec::new();
            if variant & 1 != 0 {
                code.extend(enc::vop1(1, 2, 256 + 4)); // v_mov_b32 v2, v4
            }
            code.extend(words(&f.bytes));
            if variant & 2 != 0 {
                code.extend(words(&SUBWORD_FORMS[(n + 5) % SUBWORD_FORMS.len()].bytes));
            }
            code.push(0xBFB0_0000); // s_endpgm
            let mem = Memory {
                code: code.iter().flat_map(|w| w.to_le_bytes()).collect(),
                data: UnsafeCell::new(vec![0; DATA_LEN]),
            };
            let block = CodeCache::new().block(CODE, &mem);
            assert!(
                block
                    .compiled
                    .iter()
                    .any(|c| matches!(c.fast, Fast::DsSubword(_))),
                "{}: no DsSubword form",
                f.text
            );
            let mut w = rng.wave();
            let lds: Vec<u8> = (0..SMALL_LDS).map(|i| (i * 37 + variant) as u8).collect();
            let base = rng.below(SMALL_LDS / 2);
            let packed = rng.below(SMALL_LDS / 2);
            for l in 0..32u32 {
                let a = match (variant >> 2) + rng.below(2) {
                    0 => rng.below(SMALL_LDS / 2),
                    1 => packed + f.size as u32 * l,
                    _ => base,
                };
                w.vgpr[2][l as usize] = a;
                w.vgpr[4][l as usize] = a;
            }
            let end = SMALL_LDS - f.offset as u32;
            let lane = rng.below(32) as usize;
            match rng.below(4) {
                0 => w.vgpr[2][lane] = end - f.size as u32,
                1 => w.vgpr[2][lane] = end - 1,
                2 => w.vgpr[2][lane] = 0xFFFF_FFF0,
                _ => {}
            }
            w.vgpr[4][lane] = w.vgpr[2][lane];
            let level = if variant % 3 == 0 {
                WaveLoop::Baseline
            } else {
                WaveLoop::host_best()
            };
            let execs = vec![u32::MAX, rng.value(), 0, 1 << lane, rng.next()];
            cases.push(Case {
                block,
                mem,
                wave: w,
                lds,
                level,
                execs,
            });
        }
    }
    let wave64: Vec<&Case> = cases.iter().collect();
    check_ds_cases(&cases, &wave64, (2, 4));
}

/// Encoders of the formats the lane-local run test uses (AMD "RDNA3
/// Instruction Set Architecture", Microcode Formats).
mod enc {
    pub fn vop1(op: u32, dst: u32, src0: u32) -> Vec<u32> {
        vec![0x7E00_0000 | dst << 17 | op << 9 | src0]
    }
    pub fn vop2(op: u32, dst: u32, src0: u32, vsrc1: u32) -> Vec<u32> {
        vec![op << 25 | dst << 17 | vsrc1 << 9 | src0]
    }
    pub fn vopc(op: u32, src0: u32, vsrc1: u32) -> Vec<u32> {
        vec![0x7C00_0000 | op << 17 | vsrc1 << 9 | src0]
    }
    /// VOP3 `op` (VOPC ops as they are, VOP2 ones at 0x100 + op) with neg bits.
    pub fn vop3(op: u32, dst: u32, src: [u32; 3], neg: u32) -> Vec<u32> {
        vec![
            0xD400_0000 | op << 16 | dst,
            src[0] | src[1] << 9 | src[2] << 18 | neg << 29,
        ]
    }
    pub fn sop2(op: u32, dst: u32, a: u32, b: u32) -> Vec<u32> {
        vec![0x8000_0000 | op << 23 | dst << 16 | b << 8 | a]
    }
    pub fn sopc(op: u32, a: u32, b: u32) -> Vec<u32> {
        vec![0xBF00_0000 | op << 16 | b << 8 | a]
    }
    /// VOPD: X = `opx`(src0x, v`vx1`) to v`dx`, Y likewise (Y's destination
    /// takes the parity opposite to X's).
    pub fn vopd(x: [u32; 4], y: [u32; 4]) -> Vec<u32> {
        let [opx, dx, src0x, vx1] = x;
        let [opy, dy, src0y, vy1] = y;
        vec![
            0xC800_0000 | opx << 22 | opy << 17 | vx1 << 9 | src0x,
            dx << 24 | (dy >> 1) << 17 | vy1 << 9 | src0y,
        ]
    }
}

/// VCC's operand code.
const VCC_CODE: u32 = 106;

/// A random instruction over v0..v5, s0..s3 and VCC: lane-local VALU ops
/// (f32 and integer arithmetic, compares to VCC or s2, cndmask on VCC or
/// s2, helper math), SALU ops on the same SGPRs, now and then a
/// lane-crossing op that ends a run. Returns its words and mnemonic.
fn run_inst(rng: &mut Rng) -> (Vec<u32>, &'static str) {
    let v = |rng: &mut Rng| 256 + rng.below(6);
    let vd = |rng: &mut Rng| rng.below(6);
    // A source: mostly VGPRs, else s0/s1, VCC or a float inline constant.
    let src = |rng: &mut Rng| match rng.below(8) {
        0 => rng.below(2),
        1 => VCC_CODE,
        2 => [128, 240, 242, 243, 244][rng.below(5) as usize],
        _ => 256 + rng.below(6),
    };
    let s = |rng: &mut Rng| rng.below(4);
    match rng.below(25) {
        0..=5 => {
            let (op, name) = [
                (3, "v_add_f32"),
                (4, "v_sub_f32"),
                (5, "v_subrev_f32"),
                (8, "v_mul_f32"),
                (0x2B, "v_fmac_f32"),
                (0x10, "v_max_f32"),
                (0x25, "v_add_nc_u32"),
                (0x26, "v_sub_nc_u32"),
                (0x1B, "v_and_b32"),
                (0x1D, "v_xor_b32"),
            ][rng.below(10) as usize];
            let (d, a, b) = (vd(rng), src(rng), rng.below(6));
            (enc::vop2(op, d, a, b), name)
        }
        6 | 7 => (
            enc::vop2(1, vd(rng), src(rng), rng.below(6)),
            "v_cndmask_b32",
        ),
        8 => {
            let mask = [VCC_CODE, 2][rng.below(2) as usize];
            (
                enc::vop3(0x101, vd(rng), [src(rng), v(rng), mask], 0),
                "v_cndmask_b32",
            )
        }
        9 | 10 => {
            let (op, name) = [
                (0x14, "v_cmp_gt_f32"),
                (0x11, "v_cmp_lt_f32"),
                (0x1B, "v_cmp_ngt_f32"),
                (0x4C, "v_cmp_gt_u32"),
            ][rng.below(4) as usize];
            (enc::vopc(op, src(rng), rng.below(6)), name)
        }
        11 => {
            let dst = [VCC_CODE, 2, 3][rng.below(3) as usize];
            (
                enc::vop3(0x11, dst, [src(rng), v(rng), 0], rng.below(4)),
                "v_cmp_lt_f32",
            )
        }
        12..=14 => {
            let (op, name) = [
                (1, "v_mov_b32"),
                (0x25, "v_exp_f32"),
                (0x2A, "v_rcp_f32"),
                (0x23, "v_rndne_f32"),
                (8, "v_cvt_i32_f32"),
                (6, "v_cvt_f32_u32"),
                (0x33, "v_sqrt_f32"),
                (0x40, "v_frexp_mant_f32"),
            ][rng.below(8) as usize];
            (enc::vop1(op, vd(rng), src(rng)), name)
        }
        15 | 16 => (
            enc::vop3(0x213, vd(rng), [src(rng), v(rng), v(rng)], rng.below(8)),
            "v_fma_f32",
        ),
        17 => (
            enc::vop3(0x31C, vd(rng), [v(rng), src(rng), 0], 0),
            "v_ldexp_f32",
        ),
        18 | 19 => {
            let (op, name) = [
                (2, "s_add_i32"),
                (0, "s_add_u32"),
                (0x16, "s_and_b32"),
                (4, "s_addc_u32"),
                (5, "s_subb_u32"),
            ][rng.below(5) as usize];
            let dst = [0, 1, 2, 3, VCC_CODE][rng.below(5) as usize];
            (enc::sop2(op, dst, s(rng), s(rng)), name)
        }
        20 => (enc::sopc(6, s(rng), s(rng)), "s_cmp_eq_u32"),
        23 => {
            // fmac, mul, add, mov, cndmask for X; fmac, add, sub, add_u32,
            // lshlrev, cndmask for Y.
            let opx = [0, 3, 4, 8, 9][rng.below(5) as usize];
            let opy = [0, 4, 5, 16, 17, 9][rng.below(6) as usize];
            let (dx, dy) = (vd(rng), vd(rng));
            let x = [opx, dx, src(rng), rng.below(6)];
            let y = [opy, dy, src(rng), rng.below(6)];
            (enc::vopd(x, y), "v_dual_")
        }
        21 => (
            // v_readfirstlane_b32 s1, vN: lane-crossing, it ends a run.
            enc::vop1(2, 1, v(rng)),
            "v_readfirstlane_b32",
        ),
        _ => {
            let d = vd(rng);
            (
                enc::vop2(0x18, d, 128 + rng.below(8), rng.below(6)),
                "v_lshlrev_b32",
            )
        }
    }
}

/// Blocks of lane-local runs (dependent ops on a few registers, compares
/// and cndmasks sharing masks, helper math, SALU in between) give the same
/// state through the translator as through the interpreter under partial
/// EXEC masks; a wrong chunk blend or mask assembly fails here.
#[test]
fn lane_local_runs_match_the_interpreter() {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut cases = Vec::new();
    let mut names = BTreeSet::new();
    for trial in 0..600 {
        let mut words = Vec::new();
        for _ in 0..2 + rng.below(20) {
            let (w, name) = run_inst(&mut rng);
            words.extend(w);
            names.insert(name);
        }
        words.push(0xBFB0_0000); // s_endpgm
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::new().block(CODE, &mem);
        for i in &block.insts {
            assert!(
                names.iter().any(|n| i.mnemonic.starts_with(n)) || i.mnemonic == "s_endpgm",
                "a test encoding decodes to {}",
                i.mnemonic
            );
        }
        let mut w = rng.wave();
        // Float-looking data in v0..v5 now and then (the edge values are
        // mostly integers, NaNs and infinities).
        if trial % 2 == 0 {
            for r in 0..6 {
                for l in 0..32 {
                    w.vgpr[r][l] = (rng.below(2000) as f32 / 100.0 - 10.0).to_bits();
                }
            }
        }
        let lds = vec![0u8; 64];
        let level = if trial % 2 == 0 {
            WaveLoop::Baseline
        } else {
            WaveLoop::host_best()
        };
        let execs = vec![
            rng.value(),
            u32::MAX,
            0x0000_FFFF,
            0xF0F0_F0F0,
            1 << 31,
            rng.next(),
        ];
        cases.push(Case {
            block,
            mem,
            wave: w,
            lds,
            level,
            execs,
        });
    }
    let Some((inlined, _, insts)) = run_cases(&cases, 150) else {
        return;
    };
    assert!(
        inlined * 10 > insts * 8,
        "only {inlined} of {insts} entries ran inline"
    );
}

/// The VOP1 math without a pre-resolved form runs in a run through its
/// helper (not a call-out), with the interpreter's results.
#[test]
fn helper_math_runs_inline() {
    let mut rng = Rng::new(0x3C6E_F372_FE94_F82B);
    let mut cases = Vec::new();
    for (op, name) in [
        (0x25, "v_exp_f32"),
        (0x27, "v_log_f32"),
        (0x23, "v_rndne_f32"),
        (8, "v_cvt_i32_f32"),
        (5, "v_cvt_f32_i32"),
    ] {
        let mut words = enc::vop1(op, 0, 257);
        words.push(0xBFB0_0000); // s_endpgm
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::new().block(CODE, &mem);
        assert!(block.insts[0].mnemonic.starts_with(name), "{name}");
        let w = rng.wave();
        cases.push(Case {
            block,
            mem,
            wave: w,
            lds: Vec::new(),
            level: WaveLoop::host_best(),
            execs: vec![rng.value()],
        });
    }
    // Two entries (the op and s_endpgm) inline in each block.
    let Some((inlined, runs, _)) = run_cases(&cases, cases.len()) else {
        return;
    };
    assert_eq!(inlined, 2 * runs, "a call-out");
}

/// A block that branches back to its start loops inside its translation
/// as often as the budget allows, each pass what one interpreted run of
/// the block does: a block of inline entries, one with inline division
/// helpers and 64-bit SALU, and one whose call-outs write a row the loop
/// carries (v_max_f64 writes v3) or no row (s_bfm_b32) while other
/// rows stay in host registers across them.
#[test]
fn self_loops_run_inside_the_translation() {
    let mut plain = Vec::new();
    plain.extend(enc::vop2(3, 0, 256, 1)); // v_add_f32 v0, v0, v1
    plain.extend(enc::vopc(0x14, 256, 2)); // v_cmp_gt_f32 vcc, v0, v2
    plain.extend(enc::vop2(1, 3, 257, 0)); // v_cndmask_b32 v3, v1, v0, vcc
    let tail = |first: [u32; 2], second: [u32; 1]| {
        let mut words = Vec::new();
        words.extend(enc::vop2(3, 0, 256, 1)); // v_add_f32 v0, v0, v1
        words.extend(first);
        words.extend(second);
        words.extend(enc::vop3(0x213, 2, [256, 259, 258], 0)); // v_fma_f32 v2, v0, v3, v2
        words.extend(enc::vopc(0x7E, 258, 1)); // v_cmp_class_f32 vcc, v2, v1
        words.extend(enc::vop2(1, 1, 257, 0)); // v_cndmask_b32 v1, v1, v0, vcc
        words
    };
    // v_div_scale_f32 v3, vcc, v1, v2, v1; s_lshl_b64 s[4:5], s[4:5], 1
    let inline = tail([0xD6FC_6A03, 0x0406_0501], [0x8484_8104]);
    // v_max_f64 v[3:4], v[1:2], v[1:2]; s_bfm_b32 s4, s4, 1
    let callouts = tail([0xD72A_0003, 0x0002_0301], [0x9504_8104]);
    // Instructions each pass hands to call-outs in the LLVM back end:
    // v_max_f64 and s_bfm_b32.
    for (mut words, called_out) in [(plain, 0), (inline, 0), (callouts, 2)] {
        words.extend(enc::sop2(2, 0, 0, 129)); // s_add_i32 s0, s0, 1
        words.extend(enc::sopc(7, 0, 1)); // s_cmp_lg_u32 s0, s1
        let back = -(words.len() as i32 + 1) as u16 as u32;
        words.push(0xBFA2_0000 | back); // s_cbranch_scc1 to the start
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::new().block(CODE, &mem);
        assert_eq!(
            block.insts.last().map(|i| i.mnemonic),
            Some("s_cbranch_scc1")
        );
        assert!(super::translation::worth_translating(&block, false));
        for backend in backends() {
            let t = &backend.translate(&[&block])[0];
            // The Cranelift back end inlines fewer forms: its call-outs are
            // the entries it does not inline (each one instruction here).
            let called_out = match backend {
                #[cfg(feature = "jit")]
                Backend::Cranelift => (block.compiled.len() - t.inlined) as u64,
                #[cfg(unix)]
                Backend::Llvm => called_out,
            };
            self_loop_passes(t, &block, &mem, called_out);
        }
    }
}

/// Run `t`'s two-wave translation (it must have one) of `block` for
/// wave32 waves `a` and `b`, with a self-loop budget of `budget`.
fn run_pair_on(
    t: &Translation,
    block: &Block,
    mem: &Memory,
    [a, b]: [&mut Wave; 2],
    budget: u32,
) -> super::abi::PairExit {
    let pair = t.pair().expect("a two-wave translation");
    let mut lds = vec![0u8; 64];
    let mut env = env(mem, &mut lds);
    // SAFETY: `pair` is the pair translation of `block`, alive with `t`;
    // both waves are wave32.
    unsafe {
        run_pair(
            pair,
            callout(WaveLoop::host_best()),
            a,
            b,
            &mut env,
            block,
            budget,
        )
    }
}

/// A block that only computes (`Block::sync`) has a two-wave translation
/// in the LLVM back end (llvm/emit/pair.rs): run on two waves at once it
/// leaves each as the interpreter does, under full and random EXEC; a NaN
/// f32 result in an active lane of either wave leaves both untouched (and
/// says so), while one in an inactive lane does not count.
#[test]
fn blocks_that_only_compute_run_two_waves_at_once() {
    // Straight-line code ends a block at MAX_BLOCK instructions, falling
    // through: 37 rounds of 7 make 259.
    let mut words = Vec::new();
    for k in 0..37 {
        words.extend(enc::vop2(3, 4, 256, 1)); // v_add_f32 v4, v0, v1
        words.extend(enc::vop2(8, 5, 260, 2)); // v_mul_f32 v5, v4, v2
        words.extend(enc::vop3(0x213, 0, [261, 257, 258], 0)); // v_fma_f32 v0, v5, v1, v2
        words.extend(enc::vopc(0x14, 256, 3)); // v_cmp_gt_f32 vcc, v0, v3
        words.extend(enc::vop2(1, 6, 257, 0)); // v_cndmask_b32 v6, v1, v0, vcc
        words.extend(enc::vop2(0x25, 7, 262, 7)); // v_add_nc_u32 v7, v6, v7
        words.extend(enc::sop2(2, k % 8, k % 8, 129)); // s_add_i32 sK, sK, 1
    }
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    assert!(block.sync, "{} entries", block.compiled.len());
    let t = &Backend::Llvm.translate(&[&block])[0];
    assert!(
        t.pair().is_some(),
        "a block that only computes has a pair form"
    );
    let mut rng = Rng::new(0x9A1E_D0C5_77E3_2B41);
    // (EXEC of each wave, the lane of wave b given a NaN source, whether
    // the pair runs)
    let cases = [
        ([u32::MAX, u32::MAX], None, true),
        ([0x0F0F_F0F1, u32::MAX], None, true),
        ([u32::MAX, 0x8000_0001], Some(31), false),
        ([u32::MAX, !(1 << 9)], Some(9), true),
        ([0x5555_5555, 0xAAAA_AAAA], Some(1), false),
    ];
    for (exec, nan_lane, runs) in cases {
        let mut w0 = [rng.wave(), rng.wave()];
        for (w, e) in w0.iter_mut().zip(exec) {
            w.sgpr[EXEC] = e;
            for row in &mut w.vgpr[..8] {
                for lane in row.iter_mut() {
                    *lane = division_value(&mut rng, false);
                }
            }
        }
        if let Some(l) = nan_lane {
            w0[1].vgpr[1][l] = 0x7FA0_0042;
        }
        let [mut a, mut b] = w0.clone();
        let exit = run_pair_on(t, &block, &mem, [&mut a, &mut b], 0);
        let case = format!("exec {exec:x?} NaN lane {nan_lane:?}");
        assert_eq!(exit.ran, runs, "{case}");
        assert_eq!((exit.taken, exit.loops), ([false; 2], [0; 2]), "{case}");
        for (k, (got, w)) in [a, b].into_iter().zip(w0).enumerate() {
            let mut want = w.clone();
            if runs {
                let mut lds = vec![0u8; 64];
                let mut env = env(&mem, &mut lds);
                let exit = interpret_block(&mut want, &mut env, &block, &block.compiled);
                assert!(matches!(exit, Ok(BlockExit::Fell)), "{case}");
            }
            assert_eq!(got.sgpr, want.sgpr, "wave {k}, {case}");
            assert_eq!(got.scc, want.scc, "wave {k}, {case}");
            for r in 0..8 {
                assert_eq!(got.vgpr[r], want.vgpr[r], "wave {k} v{r}, {case}");
            }
        }
    }
}

/// In a two-wave translation v_exp_f32 and v_ldexp_f32 take their short
/// path (llvm/math.rs `unless_rare`): a source past its range in an
/// active lane of either wave (an exp source beyond 126, an exponent
/// beyond 127, a NaN) leaves both waves to their one-wave translations,
/// in an inactive lane it does not count; a pair that runs leaves the
/// waves as the interpreter does.
#[test]
fn exp_and_ldexp_run_two_waves_at_once_in_their_range() {
    let mut words = Vec::new();
    for k in 0..6 {
        words.extend(enc::vop1(0x25, 4, 264 + k)); // v_exp_f32 v4, v(8 + k)
        words.extend(enc::vop3(0x31C, 5, [260, 257, 0], 0)); // v_ldexp_f32 v5, v4, v1
        words.extend(enc::vop2(3, 6, 261, 6)); // v_add_f32 v6, v5, v6
    }
    words.push(0xBFA0_0000); // s_branch to the next instruction
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    assert!(block.sync, "{} entries", block.compiled.len());
    let t = &Backend::Llvm.translate(&[&block])[0];
    assert!(t.pair().is_some(), "the block has a pair form");
    let mut rng = Rng::new(0xE7B2_0D1C_4A3F_9901);
    // (EXEC of each wave, wave b's lane given a value out of range: the
    // row and value, whether the pair runs)
    let cases = [
        ([u32::MAX, u32::MAX], None, true),
        ([0x0F0F_F0F1, u32::MAX], None, true),
        (
            [u32::MAX, u32::MAX],
            Some((3, 10, 126.5f32.to_bits())),
            false,
        ),
        (
            [u32::MAX, u32::MAX],
            Some((30, 13, (-140.0f32).to_bits())),
            false,
        ),
        ([u32::MAX, u32::MAX], Some((7, 1, 128)), false),
        ([u32::MAX, u32::MAX], Some((0, 11, 0x7FC0_0001)), false),
        ([u32::MAX, !(1 << 9)], Some((9, 1, -127i32 as u32)), true),
    ];
    for (exec, out, runs) in cases {
        let mut w0 = [rng.wave(), rng.wave()];
        for (w, e) in w0.iter_mut().zip(exec) {
            w.sgpr[EXEC] = e;
            for l in 0..32 {
                for r in 8..14 {
                    w.vgpr[r][l] = (rng.below(25_000) as f32 / 100.0 - 125.0).to_bits();
                }
                w.vgpr[1][l] = (rng.below(254) as i32 - 126) as u32;
                w.vgpr[6][l] = (rng.below(1000) as f32 / 10.0).to_bits();
            }
        }
        if let Some((l, r, v)) = out {
            w0[1].vgpr[r][l] = v;
        }
        let [mut a, mut b] = w0.clone();
        let exit = run_pair_on(t, &block, &mem, [&mut a, &mut b], 0);
        let case = format!("exec {exec:x?} out of range {out:x?}");
        assert_eq!(exit.ran, runs, "{case}");
        for (k, (got, w)) in [a, b].into_iter().zip(w0).enumerate() {
            let mut want = w.clone();
            if runs {
                let mut lds = vec![0u8; 64];
                let mut env = env(&mem, &mut lds);
                let exit = interpret_block(&mut want, &mut env, &block, &block.compiled);
                assert!(exit.is_ok(), "{case}");
            }
            for r in 0..14 {
                assert_eq!(got.vgpr[r], want.vgpr[r], "wave {k} v{r}, {case}");
            }
        }
    }
}

/// A block that only computes and ends in a branch has a two-wave
/// translation too, each wave leaving by its own branch; a self-loop goes
/// round inside it while both waves take the back branch and the budget
/// lasts. Against a model built on the interpreter, pass by pass: trip
/// counts equal and unequal, a short budget, partial EXEC, a NaN in the
/// first pass or a later one (both waves then stand at that pass's start,
/// the passes before it done), and a forward branch.
#[test]
fn blocks_that_compute_and_branch_run_two_waves_at_once() {
    // Five rounds of f32 and integer work over v0..v8, then a counter in
    // s0 against s1 and a branch on SCC: `back` to the start or 3 words on.
    let block_of = |back: bool| {
        let mut words = Vec::new();
        for _ in 0..5 {
            words.extend(enc::vop2(3, 4, 256, 1)); // v_add_f32 v4, v0, v1
            words.extend(enc::vop2(8, 5, 260, 2)); // v_mul_f32 v5, v4, v2
            words.extend(enc::vop3(0x213, 0, [261, 257, 258], 0)); // v_fma_f32 v0, v5, v1, v2
            words.extend(enc::vopc(0x14, 256, 3)); // v_cmp_gt_f32 vcc, v0, v3
            words.extend(enc::vop2(1, 6, 257, 0)); // v_cndmask_b32 v6, v1, v0, vcc
            words.extend(enc::vop2(0x25, 7, 262, 7)); // v_add_nc_u32 v7, v6, v7
            words.extend(enc::vop2(4, 8, 256, 0)); // v_sub_f32 v8, v0, v0
        }
        words.extend(enc::sop2(2, 0, 0, 129)); // s_add_i32 s0, s0, 1
        words.extend(enc::sopc(7, 0, 1)); // s_cmp_lg_u32 s0, s1
        let offset = if back {
            -(words.len() as i32 + 1) as u16 as u32
        } else {
            3
        };
        words.push(0xBFA2_0000 | offset); // s_cbranch_scc1
        Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        }
    };
    // Active lanes of the f32 results that are NaN (a NaN in an
    // intermediate v4 or v5 reaches v0 in the same round).
    let nan_in = |w: &Wave| {
        (0..32).any(|l| {
            w.sgpr[EXEC] >> l & 1 != 0
                && [0, 4, 5, 8]
                    .iter()
                    .any(|&r| f32::from_bits(w.vgpr[r][l]).is_nan())
        })
    };
    let mut rng = Rng::new(0x5E1F_100B_2A77_C0DE);
    let mut nan_later = false;
    for back in [true, false] {
        let mem = block_of(back);
        let block = CodeCache::new().block(CODE, &mem);
        assert!(block.sync, "{} entries", block.compiled.len());
        let t = &Backend::Llvm.translate(&[&block])[0];
        assert!(
            t.pair().is_some(),
            "a block that computes and branches has a pair form"
        );
        // (trips of each wave, the budget, EXEC of each, a lane of wave b
        // that grows ninefold a round until it overflows, a lane of wave
        // b whose v1 is a NaN)
        type Case = ([u32; 2], u32, [u32; 2], Option<usize>, Option<usize>);
        let cases: [Case; 8] = [
            ([5, 5], 100, [u32::MAX; 2], None, None),
            ([3, 6], 100, [u32::MAX; 2], None, None),
            ([6, 3], 100, [0x0F0F_F0F1, u32::MAX], None, None),
            ([7, 7], 2, [u32::MAX; 2], None, None),
            ([1, 1], 100, [u32::MAX; 2], None, None),
            ([12, 12], 100, [u32::MAX; 2], Some(5), None),
            ([12, 12], 100, [u32::MAX, !(1 << 5)], Some(5), None),
            ([4, 4], 100, [0x5555_5555, u32::MAX], None, Some(2)),
        ];
        for (trips, budget, exec, grows, nan_lane) in cases {
            let mut w0 = [rng.wave(), rng.wave()];
            for (k, w) in w0.iter_mut().enumerate() {
                w.sgpr[EXEC] = exec[k];
                (w.sgpr[0], w.sgpr[1]) = (0, trips[k]);
                for l in 0..32 {
                    // Values in [0.5, 1): nothing overflows in 12 passes.
                    for r in 0..4 {
                        w.vgpr[r][l] =
                            (0.5 + (rng.next() >> 8) as f32 / (1u32 << 25) as f32).to_bits();
                    }
                }
            }
            if let Some(l) = grows {
                (w0[1].vgpr[1][l], w0[1].vgpr[2][l]) = (3f32.to_bits(), 3f32.to_bits());
            }
            if let Some(l) = nan_lane {
                w0[1].vgpr[1][l] = 0x7FA0_0042;
            }
            let case = format!(
                "back {back} trips {trips:?} budget {budget} exec {exec:x?} grows {grows:?} NaN {nan_lane:?}"
            );
            // The model: passes of both while neither makes a NaN.
            let mut want = w0.clone();
            let mut loops = 0;
            let expected = loop {
                let mut next = want.clone();
                let mut taken = [false; 2];
                for (w, took) in next.iter_mut().zip(&mut taken) {
                    let mut lds = vec![0u8; 64];
                    let mut env = env(&mem, &mut lds);
                    match interpret_block(w, &mut env, &block, &block.compiled) {
                        Ok(BlockExit::Flow { .. }) => *took = true,
                        Ok(BlockExit::Fell) => {}
                        other => panic!("{case}: {other:?}"),
                    }
                }
                if next.iter().any(nan_in) {
                    nan_later |= loops > 0;
                    break (false, [false; 2], loops);
                }
                want = next;
                if !(back && taken == [true; 2] && loops < budget) {
                    break (true, taken, loops);
                }
                loops += 1;
            };
            let [mut a, mut b] = w0.clone();
            let exit = run_pair_on(t, &block, &mem, [&mut a, &mut b], budget);
            let (ran, taken, loops) = expected;
            assert_eq!(exit.ran, ran, "{case}");
            if ran {
                assert_eq!(exit.taken, taken, "{case}");
            }
            assert_eq!(exit.loops, [loops; 2], "{case}");
            for (k, (got, want)) in [a, b].iter().zip(&want).enumerate() {
                assert_eq!(got.sgpr, want.sgpr, "wave {k}, {case}");
                assert_eq!(got.scc, want.scc, "wave {k}, {case}");
                for r in 0..9 {
                    assert_eq!(got.vgpr[r], want.vgpr[r], "wave {k} v{r}, {case}");
                }
            }
        }
    }
    assert!(nan_later, "no case made a NaN after its first pass");
}

/// Tiered translation leaves short blocks that do not loop on themselves
/// to the interpreter, and takes long ones.
#[test]
fn short_blocks_that_do_not_loop_stay_interpreted() {
    let block_of = |n: usize| {
        let mut words = Vec::new();
        for _ in 0..n {
            words.extend(enc::sop2(2, 0, 0, 129)); // s_add_i32 s0, s0, 1
        }
        words.extend(enc::sopc(7, 0, 1)); // s_cmp_lg_u32 s0, s1
        words.push(0xBFA2_0001); // s_cbranch_scc1 past the next word
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        CodeCache::new().block(CODE, &mem)
    };
    let short = block_of(super::translation::MIN_TRANSLATED_ENTRIES - 3);
    assert_eq!(
        short.compiled.len(),
        super::translation::MIN_TRANSLATED_ENTRIES - 1
    );
    assert!(!super::translation::worth_translating(&short, false));
    assert!(super::translation::worth_translating(
        &block_of(super::translation::MIN_TRANSLATED_ENTRIES - 2),
        false
    ));
    // A short block with vector work is taken.
    let mut words = enc::vop2(3, 0, 256, 1); // v_add_f32 v0, v0, v1
    words.extend(enc::sopc(7, 0, 1)); // s_cmp_lg_u32 s0, s1
    words.push(0xBFA2_0001); // s_cbranch_scc1 past the next word
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let vector = CodeCache::new().block(CODE, &mem);
    assert!(vector.compiled.len() < super::translation::MIN_TRANSLATED_ENTRIES);
    assert!(super::translation::worth_translating(&vector, false));
}

/// The checks of [`self_loops_run_inside_the_translation`] on translation
/// `t`, whose every pass runs `called_out` instructions through call-outs.
fn self_loop_passes(t: &Translation, block: &Block, mem: &Memory, called_out: u64) {
    let mut rng = Rng::new(0xB5AD_4ECE_DA1C_E2A9);
    for (passes, budget) in [(1, 0), (1, 5), (4, 2), (4, 3), (4, 100), (9, 8)] {
        let mut w0 = rng.wave();
        w0.sgpr[EXEC] = rng.value();
        w0.sgpr[0] = 0;
        w0.sgpr[1] = passes;
        let lds = vec![0u8; 64];
        // The translation, once.
        let mut quick = w0.clone();
        let mut counted = 0;
        let (got, loops) = {
            let mut lds = lds.clone();
            let mut env = env(mem, &mut lds);
            // SAFETY: `t` translates `block` and lives across the call; wave32.
            unsafe {
                run_translated(
                    t.func(),
                    callout(WaveLoop::host_best()),
                    &mut quick,
                    &mut env,
                    block,
                    budget,
                    &mut counted,
                )
            }
        };
        assert_eq!(
            loops,
            budget.min(passes - 1),
            "passes {passes} budget {budget}"
        );
        assert_eq!(
            counted,
            (u64::from(loops) + 1) * called_out,
            "instructions called out, passes {passes} budget {budget}"
        );
        // The interpreter, once per pass the translation made, and one more.
        let mut slow = w0.clone();
        let mut want = None;
        for _ in 0..=loops {
            let mut lds = lds.clone();
            let mut env = env(mem, &mut lds);
            want = Some(interpret_block(&mut slow, &mut env, block, &block.compiled));
        }
        assert_eq!(Some(got), want);
        assert_eq!(quick.sgpr, slow.sgpr);
        assert_eq!(quick.scc, slow.scc);
        for r in 0..4 {
            assert_eq!(quick.vgpr[r], slow.vgpr[r], "v{r}");
        }
    }
}

/// An f32 for the division helpers: a normal value of moderate exponent
/// (the common case), or with `wild` now and then zeros, infinities, NaNs
/// (quiet, signalling, with payloads), denormals, the common case's
/// boundary exponents, any exponent, raw bits: exponent ratios that make
/// v_div_scale scale, quotients that overflow or turn denormal.
fn division_value(rng: &mut Rng, wild: bool) -> u32 {
    let sign = rng.below(2) << 31;
    let with_exp = |rng: &mut Rng, e: u32| (rng.next() & 0x807F_FFFF) | e << 23;
    if !wild || rng.below(3) == 0 {
        let e = 127 - 30 + rng.below(60);
        return with_exp(rng, e);
    }
    match rng.below(5) {
        0 => {
            let special = [
                0,
                0x7F80_0000,
                0x7FC0_0000,
                0x7FC0_1234,
                0x7F80_0001,
                0x7FA0_0042,
                0x0080_0000,
                0x7F7F_FFFF,
                1,
            ];
            special[rng.below(special.len() as u32) as usize] | sign
        }
        1 => (rng.next() & 0x007F_FFFF) | sign,
        2 => {
            let e = [
                1, 2, 23, 24, 25, 30, 126, 127, 128, 200, 225, 251, 252, 253, 254,
            ];
            let e = e[rng.below(e.len() as u32) as usize];
            with_exp(rng, e)
        }
        3 => {
            let e = 1 + rng.below(254);
            with_exp(rng, e)
        }
        _ => rng.next(),
    }
}

/// Each of `blocks` (instruction words) followed by s_endpgm, decoded as
/// a block at `CODE`, with its memory (zeroed data).
#[cfg(unix)]
fn ended_blocks(blocks: Vec<Vec<u32>>) -> Vec<(Arc<Block>, Memory)> {
    blocks
        .into_iter()
        .map(|mut words| {
            words.push(0xBFB0_0000); // s_endpgm
            let mem = Memory {
                code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
                data: UnsafeCell::new(vec![0; DATA_LEN]),
            };
            (CodeCache::new().block(CODE, &mem), mem)
        })
        .collect()
}

/// Wave64 waves run the f32 division helpers inline, once per 32-lane
/// half (llvm/wave64.rs: v_div_scale's mask in its half's word, its
/// sources reading that SGPR as before the low pass; v_div_fmas reading
/// its half's VCC word), and match the interpreter's wave64 path: the
/// division sequence and each form alone, lanes common, one wild or all
/// wild in both halves, random VCC pairs and five EXEC pairs.
#[cfg(unix)]
fn division_runs_inline_in_wave64(division: &[u32], singles: &[Vec<u32>]) {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let mut blocks: Vec<Vec<u32>> = vec![division.to_vec()];
    blocks.extend(singles.iter().cloned());
    let blocks = ended_blocks(blocks);
    let refs: Vec<&Block> = blocks.iter().map(|(b, _)| &**b).collect();
    let ts = super::llvm::translate_all(&refs, true).expect("the blocks translate");
    let mut rng = Rng::new(0xD1F6_4CA1_E64B_17ED);
    for ((block, mem), t) in blocks.iter().zip(&ts) {
        for trial in 0..12 {
            let w = rng.wave();
            let mut w = rng.wave64(&w);
            let odd = rng.below(64) as usize;
            for r in 0..8 {
                for l in 0..64 {
                    let wild = trial % 3 == 2 || (trial % 3 == 1 && l == odd);
                    let v = division_value(&mut rng, wild);
                    if l < 32 {
                        w.vgpr[r][l] = v;
                    } else {
                        w.vgpr_hi[r][l - 32] = v;
                    }
                }
            }
            w.sgpr[4] = division_value(&mut rng, trial % 3 != 0);
            for k in [106, 107] {
                w.sgpr[k] = [0, rng.next(), 1 << (odd % 32)][rng.below(3) as usize];
            }
            for (lo, hi) in [
                (rng.value(), rng.value()),
                (u32::MAX, 0),
                (0, u32::MAX),
                (0, 0),
                (u32::MAX, u32::MAX),
            ] {
                let mut w = w.clone();
                (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
                let inlined = compare(t, block, mem, &w, &[], WaveLoop::host_best());
                assert_eq!(inlined, block.compiled64.len(), "a call-out");
            }
        }
    }
}

/// The f32 division helpers (the compilers' whole division sequence, and
/// each with abs/neg, SGPR and constant sources, VCC, an SGPR and EXEC as
/// v_div_scale's mask) and the 64-bit SALU forms (s127's pair, null, M0
/// and EXEC destinations included) run inline with the interpreter's
/// results: waves whose active lanes are all in the common case, waves
/// with one lane outside it (active or not), and waves of edge values
/// everywhere, under random VCC and EXEC masks.
#[test]
fn division_and_64_bit_salu_run_inline() {
    let division: Vec<u32> = vec![
        0xD6FC_7C03,
        0x040A_0301, // v_div_scale_f32 v3, null, v1, v1, v2
        0xD6FC_6A04,
        0x040A_0302, // v_div_scale_f32 v4, vcc_lo, v2, v1, v2
        0x7E0A_5503, // v_rcp_f32 v5, v3
        0xD613_0006,
        0x23CA_0B03, // v_fma_f32 v6, -v3, v5, 1.0
        0x560A_0B06, // v_fmac_f32 v5, v6, v5
        0x100C_0B04, // v_mul_f32 v6, v4, v5
        0xD613_0007,
        0x2412_0D03, // v_fma_f32 v7, -v3, v6, v4
        0x560C_0B07, // v_fmac_f32 v6, v7, v5
        0xD613_0003,
        0x2412_0D03, // v_fma_f32 v3, -v3, v6, v4
        0xD637_0003,
        0x041A_0B03, // v_div_fmas_f32 v3, v3, v5, v6
        0xD627_0000,
        0x040A_0303, // v_div_fixup_f32 v0, v3, v1, v2
    ];
    let singles: Vec<Vec<u32>> = vec![
        vec![0xD6FC_0200, 0x240E_0501], // v_div_scale_f32 v0, s2, -|v1|, v2, v3
        vec![0xD6FC_6A00, 0x040E_0503], // v_div_scale_f32 v0, vcc_lo, v3, v2, v3
        vec![0xD6FC_7E00, 0x0012_0502], // v_div_scale_f32 v0, exec_lo, v2, v2, s4
        vec![0xD6FC_0400, 0x0012_0302], // v_div_scale_f32 v0, s4, v2, v1, s4
        vec![0xD637_0000, 0x440E_0501], // v_div_fmas_f32 v0, v1, -v2, v3
        vec![0xD637_0500, 0x840E_0501], // v_div_fmas_f32 v0, |v1|, v2, -|v3|
        vec![0xD627_0200, 0x840E_0501], // v_div_fixup_f32 v0, v1, |v2|, -v3
        vec![0xD627_0000, 0x03CA_0404], // v_div_fixup_f32 v0, s4, v2, 1.0
    ];
    let scalar: Vec<u32> = vec![
        0x8484_0602, // s_lshl_b64 s[4:5], s[2:3], s6
        0x8584_0602, // s_lshr_b64 s[4:5], s[2:3], s6
        0x8682_A102, // s_ashr_i64 s[2:3], s[2:3], 33
        0x8B84_0602, // s_and_b64 s[4:5], s[2:3], s[6:7]
        0x9084_C102, // s_xnor_b64 s[4:5], s[2:3], -1
        0xBF10_0602, // s_cmp_eq_u64 s[2:3], s[6:7]
        0x9884_FF02,
        0x1234,      // s_cselect_b64 s[4:5], s[2:3], 0x1234
        0xBF11_8002, // s_cmp_lg_u64 s[2:3], 0
        0xBE84_0106, // s_mov_b64 s[4:5], s[6:7]
        0xBE84_0302, // s_cmov_b64 s[4:5], s[2:3]
        0xBE86_1F04, // s_not_b64 s[6:7], s[4:5]
        0x84FF_817F, // s_lshl_b64 s[127:128], s[127:128], 1
        0x84FC_8102, // s_lshl_b64 s[124:125], s[2:3], 1
        0x8CFE_7E02, // s_or_b64 exec, s[2:3], exec
        0x560A_0B06, // v_fmac_f32 v5, v6, v5 (under the new EXEC)
    ];
    #[cfg(unix)]
    division_runs_inline_in_wave64(&division, &singles);
    let mut blocks = vec![division, scalar];
    blocks.extend(singles);
    let mut rng = Rng::new(0xD1F1_5CA1_E64B_17ED);
    let mut cases = Vec::new();
    for words in blocks {
        let mut words = words;
        words.push(0xBFB0_0000); // s_endpgm
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::new().block(CODE, &mem);
        assert!(
            block
                .insts
                .iter()
                .all(|i| i.mnemonic.starts_with("v_") || i.mnemonic.starts_with("s_")),
            "a test encoding does not decode"
        );
        for trial in 0..24 {
            let mut w = rng.wave();
            // 0: all lanes common, 1: one lane wild, else wild lanes.
            let odd = rng.below(32) as usize;
            for r in 0..8 {
                for l in 0..32 {
                    let wild = trial % 3 == 2 || (trial % 3 == 1 && l == odd);
                    w.vgpr[r][l] = division_value(&mut rng, wild);
                }
            }
            w.sgpr[4] = division_value(&mut rng, trial % 3 != 0);
            w.sgpr[106] = [0, rng.next(), 1 << odd][rng.below(3) as usize];
            let execs = vec![rng.next(), u32::MAX, 1 << odd, 1 << ((odd + 1) % 32)];
            cases.push(Case {
                block: block.clone(),
                mem: Memory {
                    code: mem.code.clone(),
                    data: UnsafeCell::new(mem.data()),
                },
                wave: w,
                lds: Vec::new(),
                level: WaveLoop::host_best(),
                execs,
            });
        }
    }
    let want: usize = cases
        .iter()
        .map(|c| c.block.compiled.len() * c.execs.len())
        .sum();
    let Some((inlined, _, _)) = run_cases(&cases, cases.len()) else {
        return;
    };
    assert_eq!(inlined, want, "a call-out");
}

/// The integer forms wider than a lane (llvm/wide.rs) and the integer
/// VOP3 ops beside them (high and 24-bit multiplies, xad, bfe, alignbit)
/// run inline in the LLVM back end and match the interpreter: each alone,
/// and all in one block, on carry-prone values (0, 1, all ones, the sign
/// bit, random) with carry-in masks and EXEC random, full and one lane.
#[test]
fn address_arithmetic_runs_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0xD73C_0002, 0x0002_0082], // v_lshlrev_b64 v[2:3], 2, v[0:1]
        vec![0xD73C_0002, 0x0002_0104], // v_lshlrev_b64 v[2:3], v4, v[0:1]
        vec![0xD73C_0000, 0x0000_0883], // v_lshlrev_b64 v[0:1], 3, s[4:5]
        vec![0xD73C_0000, 0x0002_0806], // v_lshlrev_b64 v[0:1], s6, v[4:5]
        vec![0xD73C_00FE, 0x0003_FD01], // v_lshlrev_b64 v[254:255], v1, v[254:255]
        vec![0xD700_6A02, 0x0002_0404], // v_add_co_u32 v2, vcc_lo, s4, v2
        vec![0xD700_6A02, 0x0002_04FF, 0x1234_5678], // v_add_co_u32 v2, vcc_lo, 0x12345678, v2
        vec![0x4006_0605],              // v_add_co_ci_u32_e32 v3, vcc_lo, s5, v3, vcc_lo
        vec![0xD700_0205, 0x0002_0300], // v_add_co_u32 v5, s2, v0, v1
        vec![0xD520_0306, 0x000A_0901], // v_add_co_ci_u32_e64 v6, s3, v1, v4, s2
        vec![0xD701_0205, 0x0002_0300], // v_sub_co_u32 v5, s2, v0, v1
        vec![0xD702_6A05, 0x0002_0300], // v_subrev_co_u32 v5, vcc_lo, v0, v1
        vec![0x420C_0901],              // v_sub_co_ci_u32_e32 v6, vcc_lo, v1, v4, vcc_lo
        vec![0xD522_0306, 0x000A_0901], // v_subrev_co_ci_u32_e64 v6, s3, v1, v4, s2
        vec![0xD521_7C06, 0x000A_0901], // v_sub_co_ci_u32_e64 v6, null, v1, v4, s2
        vec![0xD6FE_7C02, 0x0412_0300], // v_mad_u64_u32 v[2:3], null, v0, v1, v[4:5]
        vec![0xD6FE_0202, 0x0408_0900], // v_mad_u64_u32 v[2:3], s2, v0, s4, v[2:3]
        vec![0xD6FE_0304, 0x021D_FF01, 0x0001_2345], // v_mad_u64_u32 v[4:5], s3, v1, 0x12345, 7
        vec![0xD6FE_6A00, 0x001A_0204], // v_mad_u64_u32 v[0:1], vcc_lo, s4, v1, s[6:7]
        vec![0xD6FE_6A00, 0x0400_0A04], // v_mad_u64_u32 v[0:1], vcc_lo, s4, s5, v[0:1]
        vec![0xD72D_0002, 0x0002_0300], // v_mul_hi_u32 v2, v0, v1
        vec![0xD72E_0003, 0x0000_0901], // v_mul_hi_i32 v3, v1, s4
        vec![0x1608_0300],              // v_mul_u32_u24_e32 v4, v0, v1
        vec![0xD60B_0005, 0x040A_0300], // v_mad_u32_u24 v5, v0, v1, v2
        vec![0xD645_0000, 0x040E_0501], // v_xad_u32 v0, v1, v2, v3
        vec![0xD610_0001, 0x0412_0702], // v_bfe_u32 v1, v2, v3, v4
        vec![0xD611_0002, 0x0416_0903], // v_bfe_i32 v2, v3, v4, v5
        vec![0xD611_0002, 0x0221_1103], // v_bfe_i32 v2, v3, 8, 8
        vec![0xD616_0003, 0x0402_0B04], // v_alignbit_b32 v3, v4, v5, v0
    ];
    let mut rng = Rng::new(0xADD5_C0C1_B64A_7E11);
    let value = |rng: &mut Rng| match rng.below(6) {
        0 => 0,
        1 => 1,
        2 => u32::MAX,
        3 => 0x8000_0000,
        4 => rng.below(64),
        _ => rng.next(),
    };
    each_alone_and_together_inline(&singles, &mut rng, |rng, w, _| {
        for r in (0..8).chain(254..256) {
            for l in 0..32 {
                w.vgpr[r][l] = value(rng);
            }
        }
        for s in 2..8 {
            w.sgpr[s] = value(rng);
        }
    });
}

/// f64 arithmetic, ldexp, the f32 <-> f64 conversions and the f64
/// compares (llvm/float64.rs) run inline in the LLVM back end and match
/// the interpreter on NaNs (quiet and signalling, both signs), infinities,
/// zeros, denormals, values near the range's ends and random bits, with
/// abs/neg, SGPR pairs and constants, each alone and all in one block.
#[test]
fn f64_arithmetic_runs_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0xD614_0000, 0x041A_0902], // v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]
        vec![0xD614_0100, 0x23C8_0902], // v_fma_f64 v[0:1], -|v[2:3]|, s[4:5], 1.0
        vec![0xD614_0408, 0xC412_0500], // v_fma_f64 v[8:9], v[0:1], -v[2:3], -|v[4:5]|
        vec![0xD728_0000, 0x0002_0902], // v_mul_f64 v[0:1], v[2:3], v[4:5]
        vec![0xD728_0006, 0x2001_E102], // v_mul_f64 v[6:7], -v[2:3], 0.5
        vec![0xD727_0000, 0x0002_0902], // v_add_f64 v[0:1], v[2:3], v[4:5]
        vec![0xD727_0104, 0x0000_0D06], // v_add_f64 v[4:5], |v[6:7]|, s[6:7]
        vec![0x7E00_5F02],              // v_rcp_f64_e32 v[0:1], v[2:3]
        vec![0x7E00_6304],              // v_rsq_f64_e32 v[0:1], v[4:5]
        vec![0x7E04_6906],              // v_sqrt_f64_e32 v[2:3], v[6:7]
        vec![0xD5B4_0002, 0x2000_0106], // v_sqrt_f64_e64 v[2:3], -v[6:7]
        vec![0xD72B_0000, 0x0002_1102], // v_ldexp_f64 v[0:1], v[2:3], v8
        vec![0xD72B_0000, 0x2000_0902], // v_ldexp_f64 v[0:1], -v[2:3], s4
        vec![0xD72B_0004, 0x0001_FF02, 0x0000_07D0], // v_ldexp_f64 v[4:5], v[2:3], 0x7d0
        vec![0x7E00_2108],              // v_cvt_f64_f32_e32 v[0:1], v8
        vec![0xD590_0100, 0x2000_0109], // v_cvt_f64_f32_e64 v[0:1], -|v9|
        vec![0x7E10_1F02],              // v_cvt_f32_f64_e32 v8, v[2:3]
        vec![0xD58F_0009, 0x2000_0104], // v_cvt_f32_f64_e64 v9, -v[4:5]
        vec![0x7C48_0902],              // v_cmp_gt_f64_e32 vcc_lo, v[2:3], v[4:5]
        vec![0xD429_0002, 0x0000_0900], // v_cmp_nge_f64_e64 s2, v[0:1], s[4:5]
        vec![0xD428_0203, 0x2002_0506], // v_cmp_u_f64_e64 s3, -v[6:7], |v[2:3]|
        vec![0x7C44_00F2],              // v_cmp_eq_f64_e32 vcc_lo, 1.0, v[0:1]
        vec![0xD425_0002, 0x0001_0104], // v_cmp_lg_f64_e64 s2, v[4:5], 0
        vec![0xD6FD_6A00, 0x0412_0502], // v_div_scale_f64 v[0:1], vcc_lo, v[2:3], v[2:3], v[4:5]
        vec![0xD6FD_0A06, 0x0412_0504], // v_div_scale_f64 v[6:7], s10, v[4:5], v[2:3], v[4:5]
        vec![0xD638_0000, 0x041A_0902], // v_div_fmas_f64 v[0:1], v[2:3], v[4:5], v[6:7]
        vec![0xD638_0408, 0x2412_0500], // v_div_fmas_f64 v[8:9], -v[0:1], v[2:3], |v[4:5]|
        vec![0xD628_0000, 0x041A_0902], // v_div_fixup_f64 v[0:1], v[2:3], v[4:5], v[6:7]
        vec![0xD628_0006, 0x4412_0500], // v_div_fixup_f64 v[6:7], v[0:1], -v[2:3], v[4:5]
        vec![0x7CFE_1102],              // v_cmp_class_f64_e32 vcc_lo, v[2:3], v8
        vec![0xD47F_010B, 0x2002_1304], // v_cmp_class_f64_e64 s11, -|v[4:5]|, v9
        vec![0xD47F_000C, 0x0001_FF06, 0x0000_03FF], // v_cmp_class_f64_e64 s12, v[6:7], 0x3ff
    ];
    const EDGES: [u64; 17] = [
        0x7FF8_0000_0000_0000, // quiet NaN
        0xFFF4_0000_0000_1234, // signalling NaN, negative, with payload
        0x7FF0_0000_0000_0001, // signalling NaN
        0x7FF0_0000_0000_0000, // +inf
        0xFFF0_0000_0000_0000, // -inf
        0,
        1 << 63,               // -0
        1,                     // the least denormal
        0x000F_FFFF_FFFF_FFFF, // the greatest denormal
        0x0010_0000_0000_0000, // the least normal
        0x7FEF_FFFF_FFFF_FFFF, // the greatest finite
        0x3FF0_0000_0000_0000, // 1.0
        0xBFF8_0000_0000_0000, // -1.5
        0x4000_0000_0000_0001, // 2 and an ulp
        0x3810_0000_0000_0000, // near f32's least normal
        0x47EF_FFFF_F000_0000, // near f32's greatest
        // Just below 1.0: over the greatest denormal, a quotient just
        // below 2^-1022 (v_div_scale's flag).
        0x3FEF_FFFF_FFFF_FFFF,
    ];
    let value = |rng: &mut Rng| match rng.below(3) {
        0 => EDGES[rng.below(EDGES.len() as u32) as usize],
        1 => u64::from(rng.next()) << 32 | u64::from(rng.next()),
        // Moderate magnitudes: sums and products that round.
        _ => (0x3F00 + u64::from(rng.below(0x200))) << 52 >> 4 << 4 | u64::from(rng.next()),
    };
    let mut rng = Rng::new(0xF640_A417_0C0D_E5E1);
    each_alone_and_together_inline(&singles, &mut rng, |rng, w, trial| {
        // Trial 0: every lane the same value; else each its own.
        let common: Vec<u64> = (0..5).map(|_| value(rng)).collect();
        for pair in 0..5 {
            for l in 0..32 {
                let v = if trial == 0 { common[pair] } else { value(rng) };
                w.vgpr[2 * pair][l] = v as u32;
                w.vgpr[2 * pair + 1][l] = (v >> 32) as u32;
            }
        }
        // v8 and v9 as f32s or ldexp exponents.
        for r in 8..10 {
            for l in 0..32 {
                w.vgpr[r][l] = match rng.below(4) {
                    0 => {
                        [0x7FC0_0000, 0xFF80_0001, 0x0000_0001, 0x8000_0000][rng.below(4) as usize]
                    }
                    1 => [0, 1, 1000, 2200, 5000, u32::MAX, 0xFFFF_FC18, 0x8000_0000]
                        [rng.below(8) as usize],
                    2 => rng.below(4400).wrapping_sub(2200),
                    _ => rng.next(),
                };
            }
        }
        for s in 4..8 {
            w.sgpr[s] = value(rng) as u32;
        }
        w.sgpr[4] = [0, 7, 0xFFFF_FFF9, 3000][rng.below(4) as usize];
    });
}

/// v_div_scale_f64 runs its whole rule inline (llvm/float64.rs
/// `div_scale_rule64`) and matches the interpreter on every pair of
/// denominator and numerator drawn from each exponent field class near the
/// rule's thresholds (zero, subnormal, 52-55, around 1022, 1790-1792,
/// 2043-2047) with the least, a middle and the greatest fraction, both
/// signs mixed in:
/// as the numerator call (s0 = s2) and the denominator call (s0 = s1),
/// under full and random EXEC and each lane alone, with the flag mask in
/// VCC, an SGPR and null. Every entry is inline; only the waves with a
/// lane whose quotient sits at 2^-1022 take its call-out.
#[test]
fn div_scale_f64_runs_its_rule_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let words: [u32; 7] = [
        0xD6FD_6A00,
        0x0412_0502, // v_div_scale_f64 v[0:1], vcc_lo, v[2:3], v[2:3], v[4:5]
        0xD6FD_0A06,
        0x0412_0504, // v_div_scale_f64 v[6:7], s10, v[4:5], v[2:3], v[4:5]
        0xD6FD_7C08,
        0x0412_0502, // v_div_scale_f64 v[8:9], null, v[2:3], v[2:3], v[4:5]
        0xBFB0_0000, // s_endpgm
    ];
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    let fields = [
        0u64, 1, 2, 52, 53, 54, 55, 700, 1000, 1021, 1022, 1023, 1024, 1100, 1790, 1791, 1792,
        2043, 2044, 2045, 2046, 2047,
    ];
    let values: Vec<u64> = fields
        .iter()
        .flat_map(|&e| [e << 52, e << 52 | 1 << 51, e << 52 | ((1 << 52) - 1)])
        .collect();
    let pairs: Vec<(u64, u64)> = values
        .iter()
        .flat_map(|&y| values.iter().map(move |&z| (y, z)))
        .collect();
    let mut rng = Rng::new(0xD1F5_CA1E_0F64_0001);
    let mut cases = Vec::new();
    for chunk in pairs.chunks(32) {
        let mut w = rng.wave();
        for (l, &(y, z)) in chunk.iter().enumerate() {
            let (y, z) = (
                y | u64::from(rng.below(2)) << 63,
                z | u64::from(rng.below(2)) << 63,
            );
            (w.vgpr[2][l], w.vgpr[3][l]) = (y as u32, (y >> 32) as u32);
            (w.vgpr[4][l], w.vgpr[5][l]) = (z as u32, (z >> 32) as u32);
        }
        cases.push(Case {
            block: block.clone(),
            mem: Memory {
                code: mem.code.clone(),
                data: UnsafeCell::new(mem.data()),
            },
            wave: w,
            lds: Vec::new(),
            level: WaveLoop::host_best(),
            // Each lane alone too: a wave with a lane at the edge calls
            // out for all of them.
            execs: [u32::MAX, rng.next()]
                .into_iter()
                .chain((0..32).map(|l| 1 << l))
                .collect(),
        });
    }
    let Some((inlined, runs, _)) = run_cases(&cases, cases.len()) else {
        return;
    };
    #[cfg(unix)]
    if super::llvm::available() {
        assert_eq!(inlined, runs * block.compiled.len(), "every entry inline");
    }
}

/// The forms that write EXEC (v_cmpx, the saveexec and wrexec forms), the
/// 64-bit compares and right shifts, v_mbcnt and v_trunc_f32 run inline in
/// the LLVM back end and match the interpreter, each alone and all in one
/// block (where each EXEC write narrows the lanes of what follows), on
/// 64-bit values that differ only in one dword, f32 NaNs, infinities,
/// zeros, halves and random bits.
#[test]
fn exec_writes_and_wide_compares_run_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0x7E00_4301],              // v_trunc_f32_e32 v0, v1
        vec![0xD5A1_0102, 0x2000_0103], // v_trunc_f32_e64 v2, -|v3|
        vec![0xD4CC_007E, 0x0002_0501], // v_cmpx_gt_u32_e64 v1, v2
        vec![0x7D22_0903],              // v_cmpx_lt_f32_e32 v3, v4
        vec![0xD4FE_007E, 0x0002_0D05], // v_cmpx_class_f32_e64 v5, v6
        vec![0xBE84_2005],              // s_and_saveexec_b32 s4, s5
        vec![0xBE86_2207],              // s_or_saveexec_b32 s6, s7
        vec![0xBE88_3009],              // s_and_not1_saveexec_b32 s8, s9
        vec![0xBE8A_250C],              // s_xor_saveexec_b64 s[10:11], s[12:13]
        vec![0xBE8E_340F],              // s_and_not0_wrexec_b32 s14, s15
        vec![0x7CBA_0500],              // v_cmp_ne_u64_e32 vcc_lo, v[0:1], v[2:3]
        vec![0xD451_0002, 0x0000_0D04], // v_cmp_lt_i64_e64 s2, v[4:5], s[6:7]
        vec![0x7DB4_1106],              // v_cmpx_eq_u64_e32 v[6:7], v[8:9]
        vec![0xD45E_0003, 0x0002_0085], // v_cmp_ge_u64_e64 s3, 5, v[0:1]
        vec![0xD73D_000A, 0x0002_0501], // v_lshrrev_b64 v[10:11], v1, v[2:3]
        vec![0xD73E_000C, 0x0002_08A1], // v_ashrrev_i64 v[12:13], 33, v[4:5]
        vec![0xD71F_000E, 0x0002_0501], // v_mbcnt_lo_u32_b32 v14, v1, v2
        vec![0xD720_000F, 0x0002_0604], // v_mbcnt_hi_u32_b32 v15, s4, v3
        vec![0xD71F_0010, 0x0001_00C1], // v_mbcnt_lo_u32_b32 v16, -1, 0
    ];
    const EDGES: [u32; 12] = [
        0x7FC0_0000, // quiet NaN
        0xFF80_0001, // signalling NaN, negative
        0x7F80_0000, // +inf
        0x8000_0000, // -0
        0,
        1,           // the least denormal
        0x3F00_0000, // 0.5
        0xBFC0_0000, // -1.5
        0x4B00_0001, // 2^23 + 1: already an integer
        0xCB7F_FFFF, // -(2^24 - 1)
        0x3F7F_FFFF, // just below 1
        u32::MAX,
    ];
    let mut rng = Rng::new(0xE8EC_5A7E_C0DE_64B1);
    each_alone_and_together_inline(&singles, &mut rng, |rng, w, trial| {
        let pick = |rng: &mut Rng| match rng.below(3) {
            0 => EDGES[rng.below(12) as usize],
            1 => rng.below(70),
            _ => rng.next(),
        };
        for r in 0..10 {
            for l in 0..32 {
                w.vgpr[r][l] = pick(rng);
            }
        }
        // Trial 0: pairs equal in one dword and apart in the other.
        if trial == 0 {
            for l in 0..32 {
                w.vgpr[2][l] = w.vgpr[0][l];
                w.vgpr[8][l] = w.vgpr[6][l] ^ 1;
                w.vgpr[9][l] = w.vgpr[7][l];
            }
        }
        for s in 2..16 {
            w.sgpr[s] = [rng.next(), u32::MAX, 0][rng.below(3) as usize];
        }
        w.sgpr[127] = rng.next();
    });
}

/// Compares' lanes read back through the SALU ops and saveexec forms that
/// combine them (the emitter keeps such results' lanes instead of testing
/// their bits, emit.rs `bitwise_mask`): every combination read as a
/// `v_cndmask` mask, and every new EXEC by a VALU op after it, in one block.
#[test]
fn combined_compare_masks_run_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0x7C98_0501],              // v_cmp_gt_u32_e32 vcc_lo, v1, v2
        vec![0xD411_0004, 0x0002_0903], // v_cmp_lt_f32_e64 s4, v3, v4
        vec![0x8B05_046A],              // s_and_b32 s5, vcc_lo, s4
        vec![0xD501_0005, 0x0016_0501], // v_cndmask_b32_e64 v5, v1, v2, s5
        vec![0x8C06_6A04],              // s_or_b32 s6, s4, vcc_lo
        vec![0xD501_0006, 0x001A_0903], // v_cndmask_b32_e64 v6, v3, v4, s6
        vec![0x8D07_046A],              // s_xor_b32 s7, vcc_lo, s4
        vec![0xD501_0007, 0x001E_0701], // v_cndmask_b32_e64 v7, v1, v3, s7
        vec![0x9108_046A],              // s_and_not1_b32 s8, vcc_lo, s4
        vec![0xD501_0008, 0x0022_0902], // v_cndmask_b32_e64 v8, v2, v4, s8
        vec![0x9209_6A04],              // s_or_not1_b32 s9, s4, vcc_lo
        vec![0xD501_0009, 0x0026_0304], // v_cndmask_b32_e64 v9, v4, v1, s9
        vec![0x8B0A_6A7E],              // s_and_b32 s10, exec_lo, vcc_lo
        vec![0xD501_000A, 0x002A_0501], // v_cndmask_b32_e64 v10, v1, v2, s10
        vec![0xBE8B_206A],              // s_and_saveexec_b32 s11, vcc_lo
        vec![0x4A16_0501],              // v_add_nc_u32_e32 v11, v1, v2
        vec![0xD501_000C, 0x0012_0501], // v_cndmask_b32_e64 v12, v1, v2, s4
        vec![0xBE8C_2204],              // s_or_saveexec_b32 s12, s4
        vec![0x4C1A_0501],              // v_sub_nc_u32_e32 v13, v1, v2
        vec![0xBE8D_2C6A],              // s_and_not0_saveexec_b32 s13, vcc_lo
        vec![0x3A1C_0501],              // v_xor_b32_e32 v14, v1, v2
        vec![0xBE8E_3004],              // s_and_not1_saveexec_b32 s14, s4
        vec![0x381E_0701],              // v_or_b32_e32 v15, v1, v3
        vec![0xBE8F_326A],              // s_or_not1_saveexec_b32 s15, vcc_lo
        vec![0x3620_0702],              // v_and_b32_e32 v16, v2, v3
        vec![0xBE90_2404],              // s_xor_saveexec_b32 s16, s4
        vec![0xD72C_0011, 0x0002_0501], // v_mul_lo_u32 v17, v1, v2
        vec![0xBE91_2E6A],              // s_or_not0_saveexec_b32 s17, vcc_lo
        vec![0x4A24_0903],              // v_add_nc_u32_e32 v18, v3, v4
    ];
    let mut rng = Rng::new(0x3A5C_0FF5_E7B1_7E55);
    each_alone_and_together_inline(&singles, &mut rng, |rng, w, _| {
        for r in 1..5 {
            for l in 0..32 {
                w.vgpr[r][l] = rng.below(8);
            }
        }
    });
}

/// The f16 forms on the low halves (add, sub, subrev, mul, max, min and
/// fmac with abs/neg, constants and SGPRs, and v_pack_b32_f16) and the packed ones
/// (v_pk_add/mul/max/min/fma_f16 with op_sel, op_sel_hi, neg_lo and neg_hi)
/// run inline and match the interpreter, each alone and all in one block,
/// on f16 NaNs (quiet and signalling), infinities, zeros, subnormals, the
/// largest finite values and random bits, with random high halves.
#[test]
fn f16_arithmetic_runs_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0x6400_0501],              // v_add_f16_e32 v0, v1, v2
        vec![0xD532_0203, 0x2002_0501], // v_add_f16_e64 v3, -v1, |v2|
        vec![0x6608_0702],              // v_sub_f16_e32 v4, v2, v3
        vec![0x680A_0901],              // v_subrev_f16_e32 v5, v1, v4
        vec![0x6A0C_0505],              // v_mul_f16_e32 v6, v5, v2
        vec![0xD535_0107, 0x2000_0906], // v_mul_f16_e64 v7, -|v6|, s4
        vec![0x7210_0F01],              // v_max_f16_e32 v8, v1, v7
        vec![0xD53A_0009, 0x4002_0508], // v_min_f16_e64 v9, v8, -v2
        vec![0x6A14_12F2],              // v_mul_f16_e32 v10, 1.0, v9
        vec![0xD711_000B, 0x0002_1300], // v_pack_b32_f16 v11, v0, v9
        vec![0xD711_020C, 0x2002_0B03], // v_pack_b32_f16 v12, -v3, |v5|
        vec![0x641A_18F2],              // v_add_f16_e32 v13, 1.0, v12
        vec![0xCC0F_4000, 0x1802_0501], // v_pk_add_f16 v0, v1, v2
        // v_pk_add_f16 v3, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]
        vec![0xCC0F_4803, 0x1002_0501],
        // v_pk_mul_f16 v4, v3, v2 neg_lo:[1,0] neg_hi:[0,1]
        vec![0xCC10_4204, 0x3802_0503],
        // v_pk_max_f16 v5, v1, v4 op_sel:[0,1] op_sel_hi:[1,0]
        vec![0xCC12_5005, 0x0802_0901],
        // v_pk_min_f16 v6, v5, s4 neg_lo:[0,1] neg_hi:[1,1]
        vec![0xCC11_4306, 0x5800_0905],
        // v_pk_mul_f16 v7, s4, v6 op_sel:[1,1] op_sel_hi:[0,0]
        vec![0xCC10_5807, 0x0002_0C04],
        vec![0xCC12_4008, 0x1802_0301], // v_pk_max_f16 v8, v1, v1
        vec![0x6C10_0505],              // v_fmac_f16_e32 v8, v5, v2
        vec![0xD536_0109, 0x2000_0906], // v_fmac_f16_e64 v9, -|v6|, s4
        vec![0x6C06_12F2],              // v_fmac_f16_e32 v3, 1.0, v9
        vec![0xCC0E_4009, 0x1C0E_0501], // v_pk_fma_f16 v9, v1, v2, v3
        // v_pk_fma_f16 v10, v1, v2, v9 op_sel:[1,0,1] op_sel_hi:[0,1,0]
        vec![0xCC0E_280A, 0x1426_0501],
        // v_pk_fma_f16 v11, v10, s4, v2 neg_lo:[1,0,1] neg_hi:[0,1,1]
        vec![0xCC0E_460B, 0xBC08_090A],
        vec![0xCC0E_4003, 0x1C0E_0703], // v_pk_fma_f16 v3, v3, v3, v3
    ];
    const EDGES: [u16; 12] = [
        0x7E00, // quiet NaN
        0xFD01, // signalling NaN, negative, with payload
        0x7C01, // signalling NaN
        0x7C00, // +inf
        0xFC00, // -inf
        0, 0x8000, // -0
        0x0001, // the least subnormal
        0x03FF, // the greatest subnormal
        0x7BFF, // the greatest finite
        0x3C00, // 1.0
        0xBE00, // -1.5
    ];
    let mut rng = Rng::new(0xF16A_5EED_0BAD_CAFE);
    each_alone_and_together_inline(&singles, &mut rng, |rng, w, trial| {
        for r in 0..14 {
            for l in 0..32 {
                let low = match rng.below(3) {
                    0 => EDGES[rng.below(12) as usize],
                    // Moderate magnitudes: sums and products that round.
                    1 => 0x3000 + rng.below(0x1000) as u16,
                    _ => rng.next() as u16,
                };
                w.vgpr[r][l] = rng.next() & 0xFFFF_0000 | u32::from(low);
            }
        }
        // Trial 0: a NaN against a signalling NaN in every lane (max and
        // min return the second, which the conversions quiet).
        if trial == 0 {
            for l in 0..32 {
                w.vgpr[1][l] = 0x7E00;
                for r in [2, 7] {
                    w.vgpr[r][l] = [0xFD01, 0x7C01][l % 2];
                }
            }
        }
        // Trial 1: v_fmac_f16 v8, v5, v2 on sums just off a tie of f16,
        // rounded once: 1 + 2^-10 + 2^-11 - 2^-31 goes down to 1 + 2^-10
        // (through nearest f32 it would land on the tie and go to the even
        // 1 + 2^-9), 1 + 2^-9 + 2^-11 + 78 * 2^-32 up to 1 + 2^-9 + 2^-10
        // (truncated to f32 without the sticky last bit it would be the
        // tie, to the even 1 + 2^-9). Odd lanes the same negated.
        if trial == 1 {
            for l in 0..32 {
                let sign = if l % 2 == 1 { 0x8000 } else { 0 };
                let case = if l % 4 < 2 {
                    [(5, 0x0FFE), (2, 0x3C01), (8, 0x3C01 | sign)]
                } else {
                    [(5, 0x3C16), (2, 0x0FD5), (8, 0x3C02 | sign)]
                };
                for (r, h) in case {
                    let h = if r == 5 { h | sign } else { h };
                    w.vgpr[r][l] = w.vgpr[r][l] & 0xFFFF_0000 | h;
                }
                // v_pk_fma_f16 v9, v1, v2, v3 on both sums: the low
                // halves the first, the high halves the second.
                w.vgpr[1][l] = 0x3C16_0FFE;
                w.vgpr[2][l] = 0x0FD5_3C01;
                w.vgpr[3][l] = 0x3C02_3C01;
            }
        }
        w.sgpr[4] = rng.next() & 0xFFFF_0000 | u32::from(EDGES[rng.below(12) as usize]);
    });
}

/// Wave64 waves run v_pk_add/mul/max/min_f16, v_pk_fma_f16 and
/// v_fmac_f16 inline, once per 32-lane half (llvm/wave64.rs; a half with
/// a NaN among the fused forms' results calls out for that pass alone),
/// and match the interpreter's wave64 path, each alone and all in one
/// block, on f16 edge values and random bits in both halves of every
/// lane, under EXEC pairs with either half full, empty or random.
#[cfg(unix)]
#[test]
fn packed_f16_runs_inline_in_wave64() {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0xCC0F_4000, 0x1802_0501], // v_pk_add_f16 v0, v1, v2
        // v_pk_mul_f16 v4, v3, v2 neg_lo:[1,0] neg_hi:[0,1]
        vec![0xCC10_4204, 0x3802_0503],
        // v_pk_max_f16 v5, v1, v4 op_sel:[0,1] op_sel_hi:[1,0]
        vec![0xCC12_5005, 0x0802_0901],
        // v_pk_min_f16 v6, v5, s4 neg_lo:[0,1] neg_hi:[1,1]
        vec![0xCC11_4306, 0x5800_0905],
        vec![0xCC0E_4007, 0x1C0E_0501], // v_pk_fma_f16 v7, v1, v2, v3
        // v_pk_fma_f16 v7, v1, s4, v3 op_sel:[0,1,1] op_sel_hi:[1,0,1]
        // neg_lo:[1,0,0] neg_hi:[0,0,1]
        vec![0xCC0E_7407, 0x2C0C_0901],
        vec![0x6C10_0501], // v_fmac_f16_e32 v8, v1, v2
    ];
    const EDGES: [u16; 8] = [
        0x7E00, 0xFD01, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x7BFF, 0x3C00,
    ];
    let mut blocks: Vec<Vec<u32>> = singles.clone();
    blocks.push(singles.concat());
    let blocks = ended_blocks(blocks);
    let refs: Vec<&Block> = blocks.iter().map(|(b, _)| &**b).collect();
    let ts = super::llvm::translate_all(&refs, true).expect("the blocks translate");
    let mut rng = Rng::new(0x9A4C_F16E_0064_5EED);
    for ((block, mem), t) in blocks.iter().zip(&ts) {
        for _ in 0..16 {
            let w = rng.wave();
            let mut w = rng.wave64(&w);
            let half = |rng: &mut Rng| -> u32 {
                if rng.below(2) == 0 {
                    u32::from(EDGES[rng.below(8) as usize])
                } else {
                    rng.next() & 0xFFFF
                }
            };
            for r in 0..9 {
                for l in 0..32 {
                    w.vgpr[r][l] = half(&mut rng) | half(&mut rng) << 16;
                    w.vgpr_hi[r][l] = half(&mut rng) | half(&mut rng) << 16;
                }
            }
            w.sgpr[4] = half(&mut rng) | half(&mut rng) << 16;
            for (lo, hi) in [
                (rng.value(), rng.value()),
                (u32::MAX, 0),
                (0, u32::MAX),
                (0, 0),
                (u32::MAX, u32::MAX),
            ] {
                (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
                let inlined = compare(t, block, mem, &w, &[], WaveLoop::host_best());
                assert_eq!(inlined, block.compiled64.len(), "a call-out");
            }
        }
    }
}

#[test]
fn single_lane_forms_run_inline() {
    // With them the scalar forms of the loops around them: s_ctz, s_getpc.
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0xD760_0004, 0x0000_0B01], // v_readlane_b32 s4, v1, s5
        vec![0xD760_0006, 0x0001_2302], // v_readlane_b32 s6, v2, 17
        vec![0xD760_006A, 0x0000_0F03], // v_readlane_b32 vcc_lo, v3, s7
        vec![0xD761_0004, 0x0000_1208], // v_writelane_b32 v4, s8, s9
        vec![0xD761_0005, 0x0001_06FF, 0x0000_1234], // v_writelane_b32 v5, 0x1234, 3
        vec![0xD761_0001, 0x0000_160A], // v_writelane_b32 v1, s10, s11
        vec![0x7E18_0504],              // v_readfirstlane_b32 s12, v4
        vec![0x7E1A_0501],              // v_readfirstlane_b32 s13, v1
        vec![0xBE8E_080F],              // s_ctz_i32_b32 s14, s15
        vec![0xBE90_0880],              // s_ctz_i32_b32 s16, 0
        vec![0xD760_0011, 0x0000_2105], // v_readlane_b32 s17, v5, s16
        vec![0xBE94_4700],              // s_getpc_b64 s[20:21]
    ];
    // Lane indices: in range, past the wave (taken modulo its size) and
    // random; s15 (s_ctz's source) also 0 and one bit.
    let fill = |rng: &mut Rng, w: &mut Wave, trial: u32| {
        for s in [5, 7, 9, 11, 15] {
            w.sgpr[s] = match rng.below(4) {
                0 => rng.below(64),
                1 => 64 + rng.below(100),
                2 if s == 15 => [0, 1 << rng.below(32)][(trial % 2) as usize],
                _ => rng.next(),
            };
        }
    };
    let mut rng = Rng::new(0x5167_1E1A_4E00_0B32);
    each_alone_and_together_inline(&singles, &mut rng, fill);

    // Wave64: lanes 32..63 in the high rows, readfirstlane over the EXEC
    // pair; each block alone and all together, every entry inline.
    #[cfg(unix)]
    if super::llvm::available() {
        let mut blocks: Vec<Vec<u32>> = singles.clone();
        blocks.push(singles.concat());
        let blocks = ended_blocks(blocks);
        let refs: Vec<&Block> = blocks.iter().map(|(b, _)| &**b).collect();
        let ts = super::llvm::translate_all(&refs, true).expect("the blocks translate");
        for ((block, mem), t) in blocks.iter().zip(&ts) {
            for trial in 0..16 {
                let w = rng.wave();
                let mut w = rng.wave64(&w);
                fill(&mut rng, &mut w, trial);
                for (lo, hi) in [
                    (rng.value(), rng.value()),
                    (0, 1 << rng.below(32)),
                    (0, 0),
                    (u32::MAX, u32::MAX),
                ] {
                    (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
                    let inlined = compare(t, block, mem, &w, &[], WaveLoop::host_best());
                    assert_eq!(inlined, block.compiled64.len(), "a call-out");
                }
            }
        }
    }
}

#[test]
fn lane_shuffles_and_bit_counts_run_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0xDACC_0000, 0x0200_0301], // ds_bpermute_b32 v2, v1, v3
        vec![0xDACC_000C, 0x0400_0305], // ds_bpermute_b32 v4, v5, v3 offset:12
        vec![0xD8D4_80B1, 0x0600_0003], // ds_swizzle_b32 v6, v3 (QUAD_PERM,1,0,3,2)
        vec![0xD8D4_0907, 0x0700_0003], // ds_swizzle_b32 v7, v3 (BITMASK_PERM,"01pip")
        vec![0xD8D4_401F, 0x0800_0003], // ds_swizzle_b32 v8, v3 (SWAP,16)
        vec![0xBE84_1E05],              // s_not_b32 s4, s5
        vec![0xBE86_0405],              // s_brev_b32 s6, s5
        vec![0xBE87_1608],              // s_bcnt0_i32_b32 s7, s8
        vec![0xBE89_1808],              // s_bcnt1_i32_b32 s9, s8
        vec![0xBE8A_150B],              // s_abs_i32 s10, s11
        vec![0x7E12_7103],              // v_bfrev_b32_e32 v9, v3
        vec![0xBE8C_1880],              // s_bcnt1_i32_b32 s12, 0
        vec![0xD65B_000A, 0x0020_0B03], // v_permlane16_b32 v10, v3, s5, s8
        vec![0xD65C_000B, 0x0014_1703], // v_permlanex16_b32 v11, v3, s11, s5
    ];
    let mut rng = Rng::new(0xB9E3_7A1E_5417_C0DE);
    let fill = |rng: &mut Rng, w: &mut Wave, trial: u32| {
        // Addresses: small (lane indices times 4, some past 32 lanes) in
        // even trials, random bits in odd ones.
        for r in [1, 5] {
            for l in 0..32 {
                w.vgpr[r][l] = if trial.is_multiple_of(2) {
                    4 * rng.below(80)
                } else {
                    rng.next()
                };
            }
        }
        // Scalars: 0, all ones, the most negative and random.
        for s in [5, 8, 11] {
            w.sgpr[s] = [0, u32::MAX, 0x8000_0000, rng.next()][rng.below(4) as usize];
        }
    };
    each_alone_and_together_inline(&singles, &mut rng, fill);

    // Wave64: gfx11's ds_bpermute and ds_swizzle shuffle within each half,
    // each half from its own rows and EXEC word; each alone and all
    // together, every entry inline.
    #[cfg(unix)]
    if super::llvm::available() {
        let shuffles = &singles[..5];
        let mut blocks: Vec<Vec<u32>> = shuffles.to_vec();
        blocks.push(shuffles.concat());
        let blocks = ended_blocks(blocks);
        let refs: Vec<&Block> = blocks.iter().map(|(b, _)| &**b).collect();
        let ts = super::llvm::translate_all(&refs, true).expect("the blocks translate");
        for ((block, mem), t) in blocks.iter().zip(&ts) {
            for trial in 0..8 {
                let mut w = rng.wave();
                fill(&mut rng, &mut w, trial);
                let mut w = rng.wave64(&w);
                for r in [1, 3, 5] {
                    for l in 0..32 {
                        w.vgpr_hi[r][l] = w.vgpr[r][31 - l].rotate_left(trial + 2);
                    }
                }
                for (lo, hi) in wave64_exec_pairs(&mut rng) {
                    (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
                    let inlined = compare(t, block, mem, &w, &[], WaveLoop::host_best());
                    assert_eq!(inlined, block.compiled64.len(), "a wave64 call-out");
                }
            }
        }
    }
}

/// The VALU ops without a pre-resolved form that the LLVM back end emits
/// (llvm/slow_valu.rs) agree with the interpreter on edge values (NaNs,
/// infinities, zeros, the conversions' range limits, f16 NaNs in the low
/// half, permute selectors of every kind) and random bits, each alone and
/// all in one block, in wave32 and in wave64, every entry inline.
#[test]
fn slow_valu_forms_run_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let singles: Vec<Vec<u32>> = vec![
        vec![0x7E04_6F01],                           // v_not_b32_e32 v2, v1
        vec![0x7E06_7301],                           // v_clz_i32_u32_e32 v3, v1
        vec![0x7E08_7501],                           // v_ctz_i32_b32_e32 v4, v1
        vec![0x7E0A_7701],                           // v_cls_i32_e32 v5, v1
        vec![0xD586_0006, 0x0000_0101],              // v_cvt_f32_u32_e64 v6, v1
        vec![0x7E0C_2301],                           // v_cvt_f32_ubyte0_e32 v6, v1
        vec![0x7E0C_2501],                           // v_cvt_f32_ubyte1_e32 v6, v1
        vec![0x7E0C_2701],                           // v_cvt_f32_ubyte2_e32 v6, v1
        vec![0x7E0E_2901],                           // v_cvt_f32_ubyte3_e32 v7, v1
        vec![0x7E10_2D01],                           // v_cvt_f64_u32_e32 v[8:9], v1
        vec![0x7E14_0905],                           // v_cvt_f64_i32_e32 v[10:11], v5
        vec![0x7E18_4901],                           // v_floor_f32_e32 v12, v1
        vec![0xD5A4_010C, 0x0000_0101],              // v_floor_f32_e64 v12, |v1|
        vec![0xD5A2_000D, 0x2000_0101],              // v_ceil_f32_e64 v13, -v1
        vec![0xD587_010E, 0x0000_0101],              // v_cvt_u32_f32_e64 v14, |v1|
        vec![0xD588_000F, 0x2000_0101],              // v_cvt_i32_f32_e64 v15, -v1
        vec![0x7E20_1701],                           // v_cvt_f32_f16_e32 v16, v1
        vec![0xD71E_0011, 0x0002_0501],              // v_bcnt_u32_b32 v17, v1, v2
        vec![0xD71E_0011, 0x0001_0101],              // v_bcnt_u32_b32 v17, v1, 0
        vec![0xD71D_0012, 0x0002_0B01],              // v_bfm_b32 v18, v1, v5
        vec![0x3C26_0B01],                           // v_xnor_b32_e32 v19, v1, v5
        vec![0x1828_0B01],                           // v_mul_hi_u32_u24_e32 v20, v1, v5
        vec![0x122A_0B01],                           // v_mul_i32_i24_e32 v21, v1, v5
        vec![0x142C_0B01],                           // v_mul_hi_i32_i24_e32 v22, v1, v5
        vec![0xD60A_0017, 0x040E_0B01],              // v_mad_i32_i24 v23, v1, v5, v3
        vec![0xD620_0018, 0x040E_0B01],              // v_med3_i32 v24, v1, v5, v3
        vec![0xD621_0018, 0x0016_0B01],              // v_med3_u32 v24, v1, v5, s5
        vec![0xD61D_0018, 0x040E_0B01],              // v_max3_i32 v24, v1, v5, v3
        vec![0xD61B_0018, 0x040E_0B01],              // v_min3_u32 v24, v1, v5, v3
        vec![0xD664_0018, 0x040E_0B01],              // v_maxmin_i32 v24, v1, v5, v3
        vec![0xD663_0018, 0x040E_0B01],              // v_minmax_u32 v24, v1, v5, v3
        vec![0xD612_0019, 0x0416_0205],              // v_bfi_b32 v25, s5, v1, v5
        vec![0xD617_001A, 0x040E_0B01],              // v_alignbyte_b32 v26, v1, v5, v3
        vec![0xD644_001B, 0x03FE_0B01, 0x0705_0301], // v_perm_b32 v27, v1, v5, 0x7050301
        vec![0xD644_001C, 0x0492_0B01],              // v_perm_b32 v28, v1, v5, v36
        vec![0xD703_001D, 0x0002_0B01],              // v_add_nc_u16 v29, v1, v5
        vec![0xD704_481D, 0x0002_0B01],              // v_sub_nc_u16 v29, v1, v5 op_sel:[1,0,1]
        vec![0xD705_001E, 0x0001_2501],              // v_mul_lo_u16 v30, v1, 18
        vec![0xD738_001F, 0x0002_0B01],              // v_lshlrev_b16 v31, v1, v5
        vec![0xD739_001F, 0x0002_0B01],              // v_lshrrev_b16 v31, v1, v5
        vec![0xD73A_0020, 0x0002_0B03],              // v_ashrrev_i16 v32, v3, v5
        vec![0xD709_0020, 0x0002_0B01],              // v_max_u16 v32, v1, v5
        vec![0xD70C_0020, 0x0002_0B01],              // v_min_i16 v32, v1, v5
        vec![0xD70A_0021, 0x0002_0B01],              // v_max_i16 v33, v1, v5
        vec![0xD70B_0021, 0x0000_0B01],              // v_min_u16 v33, v1, s5
        vec![0xD641_0021, 0x040E_0B01],              // v_mad_u16 v33, v1, v5, v3
        vec![0xD653_6822, 0x040E_0B01],              // v_mad_i16 v34, v1, v5, v3 op_sel:[1,0,1,1]
        vec![0xD659_0023, 0x040E_0B01],              // v_mad_u32_u16 v35, v1, v5, v3
        vec![0xD65A_1823, 0x040E_0B01], // v_mad_i32_i16 v35, v1, v5, v3 op_sel:[1,1,0,0]
        vec![0xD703_5025, 0x0002_0B01], // v_add_nc_u16 v37, v1, v5 op_sel:[0,1,1]
    ];
    const EDGES: [u32; 20] = [
        0x7FC0_0000,
        0xFF80_0001,
        0x7F80_0000,
        0xFF80_0000,
        0,
        0x8000_0000,
        1,
        0x4F80_0000,
        0x4F00_0000,
        0xCF00_0000,
        0xCF00_0001,
        0x3F00_0000,
        0xBF40_0000,
        0x4B00_0001,
        0x7F7F_FFFF,
        u32::MAX,
        0x0000_7E01,
        0x0000_7C01,
        0x8000_FC00,
        0x00FF_FF80,
    ];
    let mut rng = Rng::new(0x5107_7A1E_0FF5_E7ED);
    let fill = |rng: &mut Rng, w: &mut Wave, _trial: u32| {
        for r in [1, 2, 5] {
            for l in 0..32 {
                w.vgpr[r][l] = if rng.below(2) == 0 {
                    EDGES[rng.below(EDGES.len() as u32) as usize]
                } else {
                    rng.next()
                };
            }
        }
        // Selectors and shift counts: mostly bytes below 16.
        for r in [3, 36] {
            for l in 0..32 {
                w.vgpr[r][l] = if rng.below(4) == 0 {
                    rng.next()
                } else {
                    (0..4).fold(0, |acc, n| acc | rng.below(16) << (8 * n))
                };
            }
        }
        w.sgpr[5] = [0, u32::MAX, 0x8000_0000, rng.next()][rng.below(4) as usize];
    };
    each_alone_and_together_inline(&singles, &mut rng, fill);
    if !super::llvm::available() {
        return;
    }
    let mut words = singles.concat();
    words.push(0xBFB0_0000); // s_endpgm
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    let ts = super::llvm::translate_all(&[&block], true).expect("the block translates");
    for trial in 0..8 {
        let mut w = rng.wave();
        fill(&mut rng, &mut w, trial);
        let mut w = rng.wave64(&w);
        for r in [1, 2, 3, 5, 36] {
            for l in 0..32 {
                w.vgpr_hi[r][l] = w.vgpr[r][31 - l].rotate_left(trial);
            }
        }
        for (lo, hi) in wave64_exec_pairs(&mut rng) {
            (w.sgpr[EXEC], w.sgpr[EXEC + 1]) = (lo, hi);
            let inlined = compare(&ts[0], &block, &mem, &w, &[], WaveLoop::host_best());
            assert_eq!(inlined, block.list(true).len(), "a wave64 call-out");
        }
    }
}

/// Blocks that end in a call or a return (s_swappc_b64, s_setpc_b64, one
/// whose destination is its own source pair, s_call_b64 forward and
/// back) leave the LLVM back end's
/// code inline, with the interpreter's target and return address, in
/// wave32 and wave64.
#[test]
fn calls_and_returns_leave_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding.
    let blocks: Vec<Vec<u32>> = vec![
        vec![0xBE9E_4904], // s_swappc_b64 s[30:31], s[4:5]
        vec![0xBE84_4904], // s_swappc_b64 s[4:5], s[4:5]
        vec![0xBE80_481E], // s_setpc_b64 s[30:31]
        vec![
            0xBE8A_4700, // s_getpc_b64 s[10:11]
            0x800A_FF0A, // s_add_u32 s10, s10, 0x100
            0x0000_0100,
            0x820B_800B, // s_addc_u32 s11, s11, 0
            0x4A02_0702, // v_add_nc_u32_e32 v1, v2, v3
            0xBE9E_490A, // s_swappc_b64 s[30:31], s[10:11]
        ],
        vec![0xBA1E_0004],              // s_call_b64 s[30:31], 4
        vec![0x4A02_0702, 0xBA04_FFFD], // v_add_nc_u32_e32 v1, v2, v3; s_call_b64 s[4:5], -3
    ];
    let mut rng = Rng::new(0xCA11_5E75_0000_F00D);
    let mut cases = Vec::new();
    for words in &blocks {
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::new().block(CODE, &mem);
        assert_eq!(
            block.insts.len(),
            block.list(false).len(),
            "{}",
            mnemonics(&block)
        );
        for _ in 0..4 {
            let mut w = rng.wave();
            w.sgpr[5] = rng.below(4);
            cases.push(Case {
                block: block.clone(),
                mem: Memory {
                    code: mem.code.clone(),
                    data: UnsafeCell::new(mem.data()),
                },
                wave: w,
                lds: Vec::new(),
                level: WaveLoop::host_best(),
                execs: vec![rng.next(), u32::MAX],
            });
        }
    }
    let want: usize = cases
        .iter()
        .map(|c| c.block.compiled.len() * c.execs.len())
        .sum();
    let Some((inlined, _, _)) = run_cases(&cases, cases.len()) else {
        return;
    };
    if !super::llvm::available() {
        return;
    }
    assert_eq!(inlined, want, "a call-out");
    for c in cases.iter().step_by(4) {
        let ts = super::llvm::translate_all(&[&c.block], true).expect("the block translates");
        let w = rng.wave64(&c.wave);
        let inlined = compare(&ts[0], &c.block, &c.mem, &w, &[], WaveLoop::host_best());
        assert_eq!(inlined, c.block.list(true).len(), "a wave64 call-out");
    }
}

#[test]
fn dpp_rows_run_inline() {
    // Encodings from llvm-mc-19 -arch=amdgcn -mcpu=gfx1100 -show-encoding:
    // every row control, masked rows and banks, bound_ctrl, fi, DPP8,
    // modifiers, VOP3 and VOPC forms, and a destination that is src0.
    let singles: Vec<Vec<u32>> = vec![
        vec![0x7E04_02FA, 0xFF00_B101], // v_mov_b32_dpp v2, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
        vec![0x7E06_02FA, 0xFF09_1101], // v_mov_b32_dpp v3, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
        vec![0x7E08_02FA, 0xA501_0301], // v_mov_b32_dpp v4, v1 row_shl:3 row_mask:0xa bank_mask:0x5
        vec![0x060A_0CFA, 0xFF05_2401], // v_add_f32_dpp v5, v1, v6 row_ror:4 row_mask:0xf bank_mask:0xf fi:1
        vec![0x4A0E_0EFA, 0xFF01_4001], // v_add_nc_u32_dpp v7, v1, v7 row_mirror row_mask:0xf bank_mask:0xf
        vec![0x2410_10FA, 0xFF09_4101], // v_max_i32_dpp v8, v1, v8 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1
        vec![0x7E12_02FA, 0xFF01_5501], // v_mov_b32_dpp v9, v1 row_share:5 row_mask:0xf bank_mask:0xf
        vec![0x7E14_02FA, 0x3E05_6301], // v_mov_b32_dpp v10, v1 row_xmask:3 row_mask:0x3 bank_mask:0xe fi:1
        vec![0x7E16_02E9, 0x0539_7701], // v_mov_b32_dpp v11, v1 dpp8:[7,6,5,4,3,2,1,0]
        vec![0x7E18_02EA, 0xDE54_C101], // v_mov_b32_dpp v12, v1 dpp8:[1,0,3,2,5,4,7,6] fi:1
        vec![0x081A_04FA, 0xFF91_1201], // v_sub_f32_dpp v13, -v1, |v2| row_shr:2 row_mask:0xf bank_mask:0xf
        vec![0x7E1C_02FA, 0xFF01_110E], // v_mov_b32_dpp v14, v14 row_shr:1 row_mask:0xf bank_mask:0xf
        vec![0xD655_000F, 0x040E_04FA, 0xFF01_1101], // v_add3_u32_e64_dpp v15, v1, v2, v3 row_shr:1 row_mask:0xf bank_mask:0xf
        vec![0x0220_04FA, 0xFF01_0101], // v_cndmask_b32_dpp v16, v1, v2, vcc_lo row_shl:1 row_mask:0xf bank_mask:0xf
        vec![0x7C98_04FA, 0xFF00_1B01], // v_cmp_gt_u32 vcc_lo, v1, v2 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
        vec![0xD441_0014, 0x0002_04FA, 0xFF01_2701], // v_cmp_lt_i32_e64_dpp s20, v1, v2 row_ror:7 row_mask:0xf bank_mask:0xf
        vec![0x7E22_02FA, 0xFF0D_1F01], // v_mov_b32_dpp v17, v1 row_shr:15 row_mask:0xf bank_mask:0xf bound_ctrl:1 fi:1
    ];
    let mut rng = Rng::new(0xD0FF_5EED_1234_ABCD);
    each_alone_and_together_inline(&singles, &mut rng, |_, _, _| {});
}

/// Run each of the blocks `singles` (ended by s_endpgm) alone and all of
/// them in one block, from 16 wave states each (`fill` sets registers on a
/// random wave, given the trial's number; VCC is random) under a random,
/// a full and a one-lane EXEC, through the translator and the interpreter;
/// with the LLVM back end every entry must run inline.
fn each_alone_and_together_inline(
    singles: &[Vec<u32>],
    rng: &mut Rng,
    mut fill: impl FnMut(&mut Rng, &mut Wave, u32),
) {
    let mut blocks: Vec<Vec<u32>> = singles.to_vec();
    blocks.push(singles.concat());
    let mut cases = Vec::new();
    for mut words in blocks {
        words.push(0xBFB0_0000); // s_endpgm
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::new().block(CODE, &mem);
        assert!(
            block.insts.iter().all(|i| ["v_", "s_", "ds_"]
                .iter()
                .any(|p| i.mnemonic.starts_with(p))),
            "a test encoding does not decode: {:?}",
            block.insts.iter().map(|i| i.mnemonic).collect::<Vec<_>>()
        );
        for trial in 0..16 {
            let mut w = rng.wave();
            fill(rng, &mut w, trial);
            w.sgpr[106] = rng.next();
            let execs = vec![rng.next(), u32::MAX, 1 << rng.below(32)];
            cases.push(Case {
                block: block.clone(),
                mem: Memory {
                    code: mem.code.clone(),
                    data: UnsafeCell::new(mem.data()),
                },
                wave: w,
                lds: Vec::new(),
                level: WaveLoop::host_best(),
                execs,
            });
        }
    }
    let want: usize = cases
        .iter()
        .map(|c| c.block.compiled.len() * c.execs.len())
        .sum();
    let Some((inlined, _, _)) = run_cases(&cases, cases.len()) else {
        return;
    };
    #[cfg(unix)]
    if super::llvm::available() {
        assert_eq!(inlined, want, "a call-out");
    }
}

/// The math the translator emits inline (lane_inline.rs) against the
/// interpreter on edge values: NaNs (quiet and signalling, both signs),
/// infinities, zeros, subnormals, values near the f32 range limits of
/// exp2, and random bits and magnitudes; every lane's bits must match.
#[test]
fn inline_lane_math_matches_the_interpreter_on_edge_values() {
    let edges: [u32; 24] = [
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F80_0001,
        0xFFA0_0000,
        0x7F80_0000,
        0xFF80_0000,
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x3F7F_FFFF,
        0x3F80_0001,
        128f32.to_bits(),
        (-150f32).to_bits(),
        (-149.5f32).to_bits(),
        127.99999f32.to_bits(),
        (-126.5f32).to_bits(),
        0x7F7F_FFFF,
        0x3FB5_04F3,
        0x3FB5_04F4,
    ];
    let mut rng = Rng::new(0xA076_1D64_78BD_642F);
    let ops: [(Vec<u32>, &str); 13] = [
        (enc::vop1(0x25, 0, 257), "v_exp_f32"),
        (enc::vop1(0x27, 0, 257), "v_log_f32"),
        (enc::vop1(0x2A, 0, 257), "v_rcp_f32"),
        (enc::vop1(0x2E, 0, 257), "v_rsq_f32"),
        (enc::vop1(0x40, 0, 257), "v_frexp_mant_f32"),
        (enc::vop1(0x3F, 0, 257), "v_frexp_exp_i32_f32"),
        (enc::vop2(0x10, 0, 257, 2), "v_max_f32"),
        (enc::vop2(0x0F, 0, 257, 2), "v_min_f32"),
        (enc::vop3(0x31C, 0, [257, 258, 0], 0), "v_ldexp_f32"),
        (enc::vop3(0x31C, 0, [257, 258, 0], 1), "v_ldexp_f32"),
        (enc::vop3(0x110, 0, [257, 258, 0], 3), "v_max_f32"),
        (enc::vopc(0x7E, 257, 2), "v_cmp_class_f32"),
        (enc::vop3(0x47E, 2, [257, 258, 0], 1), "v_cmp_class_f32"),
    ];
    let mut cases = Vec::new();
    for (words, name) in ops {
        let mut words = words.clone();
        words.push(0xBFB0_0000); // s_endpgm
        let mem = Memory {
            code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            data: UnsafeCell::new(vec![0; DATA_LEN]),
        };
        let block = CodeCache::new().block(CODE, &mem);
        assert!(block.insts[0].mnemonic.starts_with(name), "{name}");
        for trial in 0..64 {
            let mut w = rng.wave();
            for l in 0..32 {
                let pick = |rng: &mut Rng, k: usize| match rng.below(4) {
                    0 => edges[(k + trial) % edges.len()],
                    1 => rng.next(),
                    // Magnitudes across the whole f32 range.
                    2 => (rng.below(1 << 23) | (rng.below(256) << 23)) ^ (rng.below(2) << 31),
                    _ => (rng.below(60_000) as f32 / 100.0 - 300.0).to_bits(),
                };
                w.vgpr[1][l] = pick(&mut rng, l);
                w.vgpr[2][l] = pick(&mut rng, l + 7);
            }
            // v_ldexp's exponent: small, large and extreme integers.
            for l in 0..32 {
                w.vgpr[2][l] = match rng.below(3) {
                    0 => rng.below(600).wrapping_sub(300),
                    1 => w.vgpr[2][l],
                    _ => [i32::MIN as u32, i32::MAX as u32, 601, -601i32 as u32]
                        [rng.below(4) as usize],
                };
            }
            // Every lane in v_exp's and v_ldexp's short range (math.rs):
            // exp's source in [-126, 126] (its ends, results that are
            // denormal), ldexp's exponent in [-126, 127], no NaN.
            if trial % 4 == 3 {
                for l in 0..32 {
                    w.vgpr[1][l] = match rng.below(4) {
                        0 => [126f32, -126.0, -125.5, 125.99999, -0.0, 0.0][rng.below(6) as usize]
                            .to_bits(),
                        1 => (rng.below(25_200_001) as f32 / 100_000.0 - 126.0).to_bits(),
                        2 => rng.next() & !(0xFF << 23) | (rng.below(120) << 23),
                        _ => (rng.below(2_000) as f32 / 1000.0 - 1.0).to_bits(),
                    };
                    w.vgpr[2][l] = (rng.below(254) as i32 - 126) as u32;
                    // Now and then a lane just past the range.
                    if rng.below(64) == 0 {
                        w.vgpr[1][l] =
                            [126.3f32, -127.4, 128.6, -150.2][rng.below(4) as usize].to_bits();
                    }
                    if rng.below(64) == 0 {
                        w.vgpr[2][l] = [128, -127i32 as u32][rng.below(2) as usize];
                    }
                }
            }
            let exec = if trial % 3 == 0 {
                rng.value()
            } else {
                u32::MAX
            };
            cases.push(Case {
                block: block.clone(),
                mem: Memory {
                    code: mem.code.clone(),
                    data: UnsafeCell::new(mem.data()),
                },
                wave: w,
                lds: Vec::new(),
                level: WaveLoop::host_best(),
                execs: vec![exec],
            });
        }
    }
    // Two entries (the op and s_endpgm) inline in each block.
    let Some((inlined, runs, _)) = run_cases(&cases, cases.len()) else {
        return;
    };
    assert_eq!(inlined, 2 * runs, "a call-out");
}

/// v_ldexp_f32 against the interpreter where rounding happens: results
/// near and inside the denormal range (ties to even included), denormal
/// sources scaled up and down, overflow and underflow at the clamp limits,
/// zeros, infinities and NaNs.
#[test]
fn ldexp_rounds_once_like_the_interpreter() {
    let mut words = enc::vop3(0x31C, 0, [257, 258, 0], 0); // v_ldexp_f32 v0, v1, v2
    words.push(0xBFB0_0000); // s_endpgm
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    // (x, e): ties at half the smallest denormal (to 0, to 2^-148), a
    // value just above a tie, denormals up to normal, to 2^127 and past
    // it, the largest value down to zero, the clamp limits.
    let fixed: [(u32, i32); 20] = [
        (0x3F80_0000, -150),
        (0x4040_0000, -150),
        (0x3FC0_0000, -150),
        (0x3F80_0001, -150),
        (0x3FFF_FFFF, -127),
        (0xBFFF_FFFF, -140),
        (1, 149),
        (1, 276),
        (1, 277),
        (0x807F_FFFF, 1),
        (0x007F_FFFF, -1),
        (0x7F7F_FFFF, -277),
        (0x7F7F_FFFF, -276),
        (0x7F7F_FFFF, 1),
        (0x3F80_0000, i32::MIN),
        (0x3F80_0000, i32::MAX),
        (0x8000_0000, -5),
        (0xFF80_0000, -400),
        (0x7F80_0001, 3),
        (0xFFC0_1234, -3),
    ];
    let mut rng = Rng::new(0x6A09_E667_F3BC_C908);
    let mut cases = Vec::new();
    for trial in 0..24 {
        let mut w = rng.wave();
        for l in 0..32 {
            let (x, e) = if trial == 0 && l < fixed.len() {
                fixed[l]
            } else {
                // Any magnitude, scaled to land within 40 binades of the
                // smallest normal, or anywhere.
                let x = rng.next();
                let exp = (x >> 23 & 0xFF) as i32;
                let e = match rng.below(4) {
                    0 => rng.below(700) as i32 - 350,
                    _ => -126 - exp + 127 + rng.below(60) as i32 - 40,
                };
                // Odd trials: every exponent in [-126, 127] (math.rs's
                // one-multiply path where no x is a NaN).
                let (x, e) = if trial % 2 == 1 {
                    let x = if x & 0x7F80_0000 == 0x7F80_0000 {
                        x & !(1 << 30)
                    } else {
                        x
                    };
                    (x, e.clamp(-126, 127))
                } else {
                    (x, e)
                };
                (x, e)
            };
            w.vgpr[1][l] = x;
            w.vgpr[2][l] = e as u32;
        }
        cases.push(Case {
            block: block.clone(),
            mem: Memory {
                code: mem.code.clone(),
                data: UnsafeCell::new(mem.data()),
            },
            wave: w,
            lds: Vec::new(),
            level: WaveLoop::host_best(),
            execs: vec![u32::MAX],
        });
    }
    let Some((inlined, runs, _)) = run_cases(&cases, cases.len()) else {
        return;
    };
    assert_eq!(inlined, 2 * runs, "a call-out");
}

/// LLVM compiles the IR as written: a product then a sum stay two
/// roundings (no FMA contraction) and sums stay in program order (no
/// reassociation); the values make either rewrite visible.
#[cfg(unix)]
#[test]
fn llvm_keeps_ieee_operations_as_written() {
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let mut words = Vec::new();
    words.extend(enc::vop2(8, 0, 257, 2)); // v_mul_f32 v0, v1, v2
    words.extend(enc::vop2(3, 0, 256, 3)); // v_add_f32 v0, v0, v3
    words.extend(enc::vop2(3, 10, 263, 8)); // v_add_f32 v10, v7, v8
    words.extend(enc::vop2(3, 10, 266, 9)); // v_add_f32 v10, v10, v9
    words.push(0xBFB0_0000); // s_endpgm
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    let t = &Backend::Llvm.translate(&[&block])[0];
    // (1 + 2^-12)^2 rounds to 1 + 2^-11 (a tie, to even); fused, the sum
    // with -(1 + 2^-11) would keep the 2^-24 the product dropped.
    let (a, c) = (f32::from_bits(0x3F80_0800), f32::from_bits(0xBF80_1000));
    let (big, one) = (1e20f32, 1.0f32);
    let mut w = Rng::new(0x1234_5678_9ABC_DEF1).wave();
    for l in 0..32 {
        (w.vgpr[1][l], w.vgpr[2][l], w.vgpr[3][l]) = (a.to_bits(), a.to_bits(), c.to_bits());
        (w.vgpr[7][l], w.vgpr[8][l], w.vgpr[9][l]) =
            (big.to_bits(), (-big).to_bits(), one.to_bits());
    }
    w.sgpr[EXEC] = u32::MAX;
    compare(t, &block, &mem, &w, &[], WaveLoop::host_best());
    let mut quick = w.clone();
    {
        let mut lds = Vec::new();
        let mut env = env(&mem, &mut lds);
        // SAFETY: `t` translates `block` and lives across the call; wave32.
        let _ = unsafe {
            run_translated(
                t.func(),
                callout(WaveLoop::host_best()),
                &mut quick,
                &mut env,
                &block,
                0,
                &mut 0,
            )
        };
    }
    let product_sum = std::hint::black_box(a) * a + c;
    assert_ne!(product_sum.to_bits(), a.mul_add(a, c).to_bits());
    assert_eq!(quick.vgpr[0][5], product_sum.to_bits(), "contracted");
    assert_eq!(quick.vgpr[10][5], one.to_bits(), "reassociated");
}

/// A block handed to the background compiler comes back through its slot
/// (empty until then) as a translation that agrees with the interpreter.
#[cfg(unix)]
#[test]
fn llvm_compiles_in_the_background() {
    use super::shared::Slot;
    use std::sync::Arc;
    if !super::llvm::available() {
        eprintln!("skipped: libLLVM-19 does not load here");
        return;
    }
    let mut words = Vec::new();
    words.extend(enc::vop2(3, 0, 256, 1)); // v_add_f32 v0, v0, v1
    words.extend(enc::vop1(0x25, 2, 256)); // v_exp_f32 v2, v0
    words.push(0xBFB0_0000); // s_endpgm
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    let slot = Arc::new(Slot::default());
    assert!(slot.try_get().is_none());
    super::llvm::submit(block.clone(), Vec::new(), false, slot.clone(), false, false);
    let t = slot.wait().expect("the block compiles");
    assert!(slot.try_get().is_some_and(|t| t.is_some()));
    let mut w = Rng::new(0x0DDB_A11C_AFE5_EED5).wave();
    w.sgpr[EXEC] = 0x7FFF_FFFE;
    assert_eq!(compare(&t, &block, &mem, &w, &[], WaveLoop::host_best()), 3);
}

/// A region (jit/region.rs, llvm/emit/region.rs) runs a loop over two
/// blocks, its exit block and a call-out in a member other than the head
/// as the interpreter runs them block by block: the same registers and
/// instruction count for loops of 1 to 6 passes, full and partial EXEC,
/// and jump budgets from none (every taken branch between members leaves
/// the region, as the wave loop's watchdog check needs) to plenty, for a
/// wave that starts at the head and for one that enters the region at
/// each other member.
#[test]
fn regions_run_blocks_as_the_interpreter_does() {
    region_runs_as_the_interpreter_does(false);
}

/// As [`regions_run_blocks_as_the_interpreter_does`], with the loop's
/// second block dropping a lane of EXEC on every pass: a wave that enters
/// with every lane goes on in the region's `any` copy at the back edge
/// (the full copy's members take EXEC as -1).
#[test]
fn a_region_leaves_its_full_exec_copy_where_lanes_drop() {
    region_runs_as_the_interpreter_does(true);
}

/// The region test above; with `narrowing`, the loop's second block
/// shifts EXEC right by one before its VALU instruction.
fn region_runs_as_the_interpreter_does(narrowing: bool) {
    use super::abi::run_region;
    use crate::gfx11::exec::Flow;
    if !super::llvm::available() {
        eprintln!("skipping: libLLVM-19 is not usable here");
        return;
    }
    // `s_cbranch_*`/`s_branch` at word `at` to word `to` (SOPP, simm16 in
    // dwords from the next instruction).
    let branch = |op: u32, at: usize, to: usize| {
        0xBF80_0000 | op << 16 | ((to as i32 - at as i32 - 1) as u16 as u32)
    };
    let mut words = Vec::new();
    // B0 (the head): count a pass, exit the loop when s0 reaches s1.
    words.extend(enc::sop2(2, 0, 0, 129)); // s_add_i32 s0, s0, 1
    words.extend(enc::vop2(3, 0, 256, 1)); // v_add_f32 v0, v0, v1
    words.extend(enc::sopc(7, 0, 1)); // s_cmp_lg_u32 s0, s1
    let exit_branch = words.len();
    words.push(0); // s_cbranch_scc0 to B2, below
    // B1: a call-out (v_max_f64, LLVM back end), then back to the head.
    words.extend([0xD72A_0003, 0x0002_0301]); // v_max_f64 v[3:4], v[1:2], v[1:2]
    if narrowing {
        words.push(0x857E_817E); // s_lshr_b32 exec_lo, exec_lo, 1
    }
    words.extend(enc::vop2(3, 2, 258, 0)); // v_add_f32 v2, v2, v0
    let back = words.len();
    words.push(branch(0x20, back, 0)); // s_branch to B0
    // B2: the end.
    let b2 = words.len();
    words[exit_branch] = branch(0x21, exit_branch, b2); // s_cbranch_scc0
    words.extend(enc::vop2(8, 5, 256, 2)); // v_mul_f32 v5, v0, v2
    words.push(0xBFB0_0000); // s_endpgm
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let cache = CodeCache::new();
    let head = cache.block(CODE, &mem);
    let b1 = cache.block(head.end, &mem);
    cache.block(CODE + 4 * b2 as u64, &mem);
    assert_eq!(b1.insts.last().map(|i| i.mnemonic), Some("s_branch"));
    let members = super::region::members(&head, &cache, cache.generation(), false);
    assert_eq!(members.len(), 3, "the head, its loop block and its exit");
    let refs: Vec<&Block> = members.iter().map(|b| &**b).collect();
    let (ir, inlined) = super::llvm::region_module(&refs, false, JitTarget::Host);
    let entries = refs.iter().map(|b| b.compiled.len()).sum();
    let labels = [super::llvm::label(&head, &members, false)];
    let t = super::llvm::load(
        &ir,
        &[inlined],
        &[false],
        &[entries],
        &labels,
        JitTarget::Host,
    )
    .expect("the region compiles")
    .pop()
    .expect("one translation")
    .with_members(members);
    assert_eq!(inlined + 1, entries, "all but the call-out inline");
    // Run from `from` to s_endpgm as the wave loop does: the region (with
    // `t`) from whichever member the wave stands at, every other block
    // interpreted. Returns the instructions run and the region's calls at
    // its head.
    let run = |t: Option<&Translation>, w: &mut Wave, budget: u32, from: u64| -> (u64, u32) {
        let (mut pc, mut insts, mut calls, mut called_out) = (from, 0u64, 0u32, 0u64);
        loop {
            let mut lds = vec![0u8; 64];
            let mut env = env(&mem, &mut lds);
            let member = t.and_then(|t| t.members().iter().position(|b| b.start == pc));
            let (block, exit) = match (t, member) {
                (Some(t), Some(entry)) => {
                    calls += u32::from(entry == 0);
                    // SAFETY: `t` translates the region of its members for
                    // wave32 waves and lives across the call.
                    let r = unsafe {
                        run_region(
                            t.func(),
                            callout(WaveLoop::host_best()),
                            w,
                            &mut env,
                            t.members(),
                            entry,
                            budget,
                            &mut called_out,
                            std::ptr::null_mut(),
                        )
                    };
                    assert!(r.jumps <= budget, "taken branches past the budget");
                    insts += r.passed;
                    (t.members()[r.member].clone(), r.exit)
                }
                _ => {
                    let b = cache.block(pc, &mem);
                    let exit = interpret_block(w, &mut env, &b, &b.compiled);
                    (b, exit)
                }
            };
            match exit.expect("no fault") {
                BlockExit::Fell => {
                    insts += block.insts.len() as u64;
                    pc = block.end;
                }
                BlockExit::Flow { entry, flow } => {
                    insts += u64::from(block.compiled[entry].last) + 1;
                    match flow {
                        Flow::Jump(target) => pc = target,
                        Flow::End => return (insts, calls),
                        other => panic!("unexpected flow {other:?}"),
                    }
                }
            }
        }
    };
    let mut rng = Rng::new(0x6E61_7265_6769_6F6E);
    let starts: Vec<u64> = t.members().iter().map(|b| b.start).collect();
    for passes in 1..=6u32 {
        for budget in [0u32, 1, 3, 100] {
            for exec in [u32::MAX, rng.value()] {
                for (entry, &from) in starts.iter().enumerate() {
                    let mut w0 = rng.wave();
                    w0.sgpr[EXEC] = exec;
                    (w0.sgpr[0], w0.sgpr[1]) = (0, passes);
                    let mut slow = w0.clone();
                    let (want, _) = run(None, &mut slow, budget, from);
                    let mut quick = w0.clone();
                    let (got, calls) = run(Some(&t), &mut quick, budget, from);
                    let what = format!(
                        "passes {passes} budget {budget} exec {exec:#x} from member {entry}"
                    );
                    assert_eq!(got, want, "{what}: instructions");
                    assert_eq!(quick.sgpr, slow.sgpr, "{what}: SGPRs");
                    assert_eq!(quick.scc, slow.scc, "{what}: SCC");
                    for r in 0..6 {
                        assert_eq!(quick.vgpr[r], slow.vgpr[r], "{what}: v{r}");
                    }
                    // From the head, each call follows at most `budget`
                    // taken branches back to it, and the first entry is a
                    // call.
                    if entry == 0 {
                        let backs = passes - 1;
                        assert_eq!(calls, 1 + backs / (budget + 1), "{what}: region calls");
                    }
                }
            }
        }
    }
}

/// A translation is weighed by the entries it runs: up to a barrier in
/// the middle of its block (the wave goes on in the block after it), not
/// the entries past it.
#[test]
fn entries_past_a_barrier_do_not_count_against_a_translation() {
    let mut words = Vec::new();
    words.extend(enc::sop2(2, 0, 0, 129)); // s_add_i32 s0, s0, 1
    words.push(0xBFBD_0000); // s_barrier
    words.extend(enc::vop2(3, 0, 256, 1)); // v_add_f32 v0, v0, v1
    words.extend(enc::vop2(3, 2, 258, 0)); // v_add_f32 v2, v2, v0
    words.push(0xBFB0_0000); // s_endpgm
    let mem = Memory {
        code: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        data: UnsafeCell::new(vec![0; DATA_LEN]),
    };
    let block = CodeCache::new().block(CODE, &mem);
    assert_eq!(block.insts[1].mnemonic, "s_barrier");
    assert_eq!(block.compiled.len(), 5);
    assert_eq!(super::translation::run_entries(&block.compiled), 2);
    let no_barrier = &block.compiled[2..];
    assert_eq!(super::translation::run_entries(no_barrier), 3);
}
