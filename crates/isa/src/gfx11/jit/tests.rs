//! The translator against the interpreter: random blocks built from the
//! fast-path tests' instruction generator (fast/tests.rs), run from the
//! same wave state, LDS and memory through `interpret_block` and through
//! their translation; every register, SCC, the PC, LDS, memory and the
//! outcome (exit, or the error and its instruction count) must match.

use std::cell::UnsafeCell;
use std::collections::BTreeSet;

use super::abi::{callout, run_translated};
use super::translate::translate;
use crate::gfx11::code_cache::{Block, CodeCache};
use crate::gfx11::decode::decode;
use crate::gfx11::exec::Env;
use crate::gfx11::exec::fast::tests::{Rng, plain_encodings, random_encodings};
use crate::gfx11::exec::fast::{Fast, compile};
use crate::gfx11::run_block::interpret_block;
use crate::gfx11::wave::{EXEC, NUM_VGPRS, Wave};
use crate::{Access, GpuMemory, MemoryFault, WaveLoop};

const CODE: u64 = 0x1_0000;
const DATA: u64 = 0x40_0000;
const DATA_LEN: usize = 1 << 16;
const LDS_LEN: usize = 1 << 16;

/// Code at `CODE` (fetch only) and a data buffer at `DATA`.
struct Memory {
    code: Vec<u8>,
    data: UnsafeCell<Vec<u8>>,
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
    Env {
        mem,
        lds,
        scratch: &mut [],
        scratch_va: 0,
        scratch_wave_bytes: 0,
        scratch_wave64: false,
        scratch_per_lane: 0,
        shared_base: 0,
        private_base: 0,
        spans: Default::default(),
    }
}

/// Is this form one the translator may inline (what the blocks favour)?
fn inlinable(f: &Fast) -> bool {
    matches!(
        f,
        Fast::Salu { .. }
            | Fast::Valu { .. }
            | Fast::Cndmask { .. }
            | Fast::Vcmp { .. }
            | Fast::FmaF32 { .. }
            | Fast::Flt(_)
            | Fast::Fma32(_)
            | Fast::Fcmp(_)
            | Fast::Vopd(_)
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

/// Run `block` from `w0` both ways and compare everything.
fn compare(block: &Block, mem0: &Memory, w0: &Wave, lds0: &[u8], level: WaveLoop) -> usize {
    let t = translate(block).expect("the block translates");
    let run = |jit: bool| {
        let mem = Memory {
            code: mem0.code.clone(),
            data: UnsafeCell::new(mem0.data()),
        };
        let mut lds = lds0.to_vec();
        let mut w = w0.clone();
        let r = {
            let mut env = env(&mem, &mut lds);
            if jit {
                // SAFETY: `t` translates `block` and lives across the call; wave32.
                unsafe { run_translated(t.func(), callout(level), &mut w, &mut env, block) }
            } else {
                interpret_block(&mut w, &mut env, block, &block.compiled)
            }
        };
        (r, w, lds, mem.data())
    };
    let (want, slow, lds_slow, data_slow) = run(false);
    let (got, quick, lds_quick, data_quick) = run(true);
    let what = block
        .insts
        .iter()
        .map(|i| i.mnemonic.to_string())
        .collect::<Vec<_>>()
        .join("; ");
    assert_eq!(got, want, "{what}: outcome");
    assert_eq!(quick.scc, slow.scc, "{what}: SCC");
    assert_eq!(quick.pc, slow.pc, "{what}: PC");
    assert_eq!(quick.sgpr, slow.sgpr, "{what}: SGPRs");
    for r in 0..NUM_VGPRS {
        assert_eq!(quick.vgpr[r], slow.vgpr[r], "{what}: v{r}");
    }
    assert!(lds_quick == lds_slow, "{what}: LDS");
    assert!(data_quick == data_slow, "{what}: memory");
    t.inlined
}

/// Random blocks give the same wave, LDS, memory and outcome through the
/// translator as through the interpreter, under random, full and empty
/// EXEC masks, with call-outs at the baseline and the host's best level.
#[test]
fn translated_blocks_match_the_interpreter() {
    let pools = pools();
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let (mut inlined, mut kinds) = (0, BTreeSet::new());
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
        for exec in [rng.value(), u32::MAX, 0] {
            w.sgpr[EXEC] = exec;
            inlined += compare(&block, &mem, &w, &lds, level);
        }
    }
    assert!(inlined > 3000, "only {inlined} entries ran inline");
    for kind in [
        "Salu", "Valu", "Cndmask", "Vcmp", "FmaF32", "Flt", "Fma32", "Fcmp", "Vopd", "Branch",
    ] {
        assert!(
            kinds.contains(&Some(kind.to_owned())),
            "no {kind} entry in the blocks: {kinds:?}"
        );
    }
}
