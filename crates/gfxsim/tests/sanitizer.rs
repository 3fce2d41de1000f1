//! The sanitizer end to end: checked-in kernels (kernels/src) with a
//! deliberate bug each run through the runtime on a gfxsim device with the
//! sanitizer on, and the device's folded findings checked field by field;
//! clean kernels give none.

use aqueduct_gfxsim::{
    Allocation, Finding, SanitizerConfig, SanitizerReport, SimConfig, Site, Tool,
};
use aqueduct_isa::Access;
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Program, SIM_THREADS, read_u32};

/// `s_barrier` and `s_endpgm` (SOPP, no operand).
const S_BARRIER: u32 = 0xBFBD_0000;
const S_ENDPGM: u32 = 0xBFB0_0000;

fn gpu(tools: SanitizerConfig) -> Gpu {
    Gpu::with_config(SimConfig {
        threads: SIM_THREADS,
        sanitize: tools,
        ..SimConfig::default()
    })
}

/// The GPU address of `program`'s first instruction.
fn entry(program: &Program) -> u64 {
    program.exe.load_base() + program.kernel.info.entry_offset()
}

/// The instruction word at `pc`, as the GPU fetches it.
fn word_at(gpu: &Gpu, pc: u64) -> u32 {
    gpu.sim
        .with_gpu_memory(gpu.agent.gpu_id, |mem| {
            let p = mem
                .translate(pc, 4, Access::Execute)
                .expect("code is mapped");
            // SAFETY: translate gave 4 readable bytes that stay mapped while the memory is borrowed.
            unsafe { (p as *const u32).read_unaligned() }
        })
        .expect("the GPU")
}

/// A site's PC is its kernel's entry plus its offset.
fn assert_site(site: &Site, program: &Program, wave: u32, lane: Option<u32>) {
    assert_eq!(site.pc, entry(program) + site.offset, "{site:?}");
    assert_eq!((site.workgroup, site.wave, site.lane), ([0; 3], wave, lane));
}

fn only(reports: Vec<SanitizerReport>) -> SanitizerReport {
    assert_eq!(reports.len(), 1, "{reports:#?}");
    reports.into_iter().next().unwrap()
}

/// A store 4 bytes past a 1024-byte buffer lands in the BO's page (no fault,
/// the value is stored as hardware would) and is one memcheck finding with
/// the address, the allocation and the overrun.
#[test]
fn a_store_past_a_buffer_is_a_memcheck_finding() {
    let gpu = gpu(SanitizerConfig::all());
    let program = gpu.load("oob_write");
    let buffer = gpu.alloc(1024);
    let base = buffer.gpu_va();
    let target = base + 1024;
    gpu.run(
        &program.kernel,
        &[Arg::Ptr(target), Arg::U32(7)],
        [1, 1, 1],
        [1, 1, 1],
    )
    .expect("the store is inside the BO's page: no fault");
    let report = only(gpu.sim.sanitizer_reports());
    assert_eq!(report.tool(), Tool::Memcheck);
    assert_eq!(&*report.kernel, "oob_write");
    assert_eq!(report.kernel_object, program.kernel.kernel_object);
    assert_eq!(report.count, 1);
    let Finding::GlobalOverrun {
        at,
        access,
        address,
        size,
        allocation,
        overrun,
    } = report.finding
    else {
        panic!("{report:?}");
    };
    assert_site(&at, &program, 0, Some(0));
    assert_eq!(
        (access, address, size, overrun),
        (Access::Write, target, 4, 4)
    );
    assert_eq!(allocation, Allocation { base, size: 1024 });
    assert_eq!(
        report.to_string(),
        format!(
            "sanitizer memcheck: kernel oob_write+{:#x}: write of 4 bytes at {target:#x} \
             overruns the 1024-byte allocation at {base:#x} by 4 bytes (workgroup (0,0,0) \
             wave 0 lane 0)",
            at.offset
        )
    );
}

/// vector_copy told one element more than its buffers hold: the read and
/// the write past them are one finding each, folded over the workgroups
/// that run them; with the right bound, nothing.
#[test]
fn a_wrong_bound_overruns_both_buffers_once_each() {
    let gpu = gpu(SanitizerConfig::off().with(Tool::Memcheck));
    let program = gpu.load("vector_copy");
    let n = 100u32;
    let src = gpu.upload_u32(&(0..n).collect::<Vec<_>>());
    let dst = gpu.filled_u32(n as usize, 0);
    let args = |n| [Arg::Ptr(src.gpu_va()), Arg::Ptr(dst.gpu_va()), Arg::U32(n)];
    gpu.run(&program.kernel, &args(n), [n, 1, 1], [32, 1, 1])
        .unwrap();
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    gpu.run(&program.kernel, &args(n + 1), [n + 1, 1, 1], [32, 1, 1])
        .unwrap();
    assert_eq!(read_u32(&dst, n as usize), (0..n).collect::<Vec<_>>());
    let reports = gpu.sim.sanitizer_reports();
    assert_eq!(reports.len(), 2, "{reports:#?}");
    let mut seen = Vec::new();
    for r in &reports {
        let Finding::GlobalOverrun {
            at,
            access,
            address,
            allocation,
            overrun,
            ..
        } = r.finding
        else {
            panic!("{r:?}");
        };
        // Work-item 100 is lane 4 of workgroup 3's only wave.
        assert_eq!((at.workgroup, at.wave, at.lane), ([3, 0, 0], 0, Some(4)));
        assert_eq!((overrun, r.count), (4, 1));
        assert_eq!(address, allocation.end());
        seen.push((access, allocation.base));
    }
    seen.sort_by_key(|&(a, _)| a == Access::Write);
    assert_eq!(
        seen,
        vec![(Access::Read, src.gpu_va()), (Access::Write, dst.gpu_va())]
    );
}

/// Work-items 32..63 (wave 1) read LDS no one wrote: one initcheck
/// finding, at wave 1's first lane; when every entry is written, none.
#[test]
fn reading_unwritten_lds_is_an_initcheck_finding() {
    let gpu = gpu(SanitizerConfig::all());
    let program = gpu.load("lds_uninit");
    let input = gpu.upload_u32(&(0..64).collect::<Vec<_>>());
    let out = gpu.filled_u32(64, 0);
    let run = |written| {
        gpu.run(
            &program.kernel,
            &[
                Arg::Ptr(input.gpu_va()),
                Arg::Ptr(out.gpu_va()),
                Arg::U32(written),
            ],
            [64, 1, 1],
            [64, 1, 1],
        )
        .unwrap()
    };
    run(64);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    run(32);
    let report = only(gpu.sim.sanitizer_reports());
    assert_eq!(report.tool(), Tool::Initcheck);
    let Finding::UninitializedLds { at, offset, size } = report.finding else {
        panic!("{report:?}");
    };
    assert_site(&at, &program, 1, Some(0));
    assert_eq!((offset, size), (128, 4));
    assert!(
        report
            .to_string()
            .starts_with("sanitizer initcheck: kernel lds_uninit+0x"),
        "{report}"
    );
}

/// private_overrun on gfx90a reads its private array past its end through
/// MUBUF and the scratch buffer resource (the bytes past a lane's segment are
/// the next rows of the wave's slot: no fault, as on hardware). The finding
/// names the first lane whose read ends past the kernel's private segment,
/// in either half of the wave64, at its offset in the lane's private
/// segment; reads inside the segment (the array, then the bytes after it)
/// are clean and load what the host expects.
#[test]
fn a_gfx90a_private_read_past_the_segment_is_a_memcheck_finding() {
    use aqueduct_gfxsim::SimPart;
    let input: Vec<u32> = (0..32).map(|j| 0x100 * j + 7).collect();
    let a = |j: u32| input[j as usize] ^ j;
    let gfx = "gfx90a";
    // Work-items from `first` on read a[index..]; one device per run
    // (a device folds the findings of all its dispatches).
    for (index, first) in [(0, 32), (31, 0), (31, 32)] {
        let gpu = Gpu::with_config(SimConfig {
            part: SimPart::Mi250xGcd,
            threads: SIM_THREADS,
            sanitize: SanitizerConfig::all(),
            ..SimConfig::default()
        });
        let code = aqueduct_test_support::repo::kernel(&format!("{gfx}/private_overrun.co"));
        let program = gpu.load_bytes(&code, "private_overrun").unwrap();
        let private = u64::from(program.kernel.info.private_segment_fixed_size);
        let input_buffer = gpu.upload_u32(&input);
        let out = gpu.filled_u32(64, 0);
        gpu.run(
            &program.kernel,
            &[
                Arg::Ptr(input_buffer.gpu_va()),
                Arg::Ptr(out.gpu_va()),
                Arg::U32(index),
                Arg::U32(first),
            ],
            [64, 1, 1],
            [64, 1, 1],
        )
        .unwrap();
        let got = read_u32(&out, 64);
        let reports = gpu.sim.sanitizer_reports();
        // Lane l >= first reads a[index + l - first] at 4 * (index + l - first).
        let Some(lane) = (first..64).find(|&l| 4 * u64::from(index + l - first) + 4 > private)
        else {
            assert_eq!(reports, vec![], "{gfx}");
            let want: Vec<u32> = (0..64).map(|l| a(l % 32)).collect();
            assert_eq!(got, want, "{gfx}");
            continue;
        };
        let report = only(reports);
        let Finding::PrivateOverrun {
            at,
            access,
            offset,
            size,
            private_bytes,
        } = report.finding
        else {
            panic!("{gfx}: {report:?}");
        };
        let waves = gpu.agent.wavefront_size;
        assert_site(&at, &program, lane / waves, Some(lane % waves));
        assert_eq!(
            (access, offset, size, u64::from(private_bytes)),
            (
                Access::Read,
                4 * u64::from(index + lane - first),
                4,
                private
            ),
            "{gfx}"
        );
        assert_eq!(got[first as usize], a(31), "{gfx}");
    }
}

/// gfx9_buffer_overrun on gfx90a and gfx942: a raw V# claiming 128 bytes
/// over a 64-byte buffer lets work-items 16..31's buffer_load_dword pass
/// GFX9's raw range check (offset < NUM_RECORDS) and read past the buffer:
/// one memcheck finding, at lane 16 of the wave64, with the address, the
/// allocation and the overrun. With the V# claiming the buffer's 64 bytes
/// those loads read 0 without an access: no finding.
#[test]
fn a_gfx9_raw_buffer_load_past_its_allocation_is_a_memcheck_finding() {
    use aqueduct_gfxsim::SimPart;
    for (part, gfx) in [(SimPart::Mi250xGcd, "gfx90a"), (SimPart::Mi300x, "gfx942")] {
        let gpu = Gpu::with_config(SimConfig {
            part,
            threads: SIM_THREADS,
            sanitize: SanitizerConfig::off().with(Tool::Memcheck),
            ..SimConfig::default()
        });
        let code = aqueduct_test_support::repo::kernel(&format!("{gfx}/gfx9_buffer_overrun.co"));
        let program = gpu.load_bytes(&code, "gfx9_buffer_overrun").unwrap();
        let buffer = gpu.upload_u32(&(100..116).collect::<Vec<_>>());
        let out = gpu.filled_u32(32, 1);
        let run = |num_records| {
            gpu.run(
                &program.kernel,
                &[
                    Arg::Ptr(buffer.gpu_va()),
                    Arg::U32(num_records),
                    Arg::Ptr(out.gpu_va()),
                ],
                [32, 1, 1],
                [32, 1, 1],
            )
            .unwrap()
        };
        run(64);
        assert_eq!(gpu.sim.sanitizer_reports(), vec![], "{gfx}");
        let want: Vec<u32> = (0..32).map(|g| if g < 16 { 100 + g } else { 0 }).collect();
        assert_eq!(read_u32(&out, 32), want, "{gfx}");
        run(128);
        let (at, access, address, size, allocation, overrun) =
            global_overrun(gpu.sim.sanitizer_reports());
        assert_site(&at, &program, 0, Some(16));
        assert_eq!(
            (access, address, size, overrun),
            (Access::Read, buffer.gpu_va() + 64, 4, 4),
            "{gfx}"
        );
        assert_eq!(
            allocation,
            Allocation {
                base: buffer.gpu_va(),
                size: 64
            },
            "{gfx}"
        );
    }
}

/// The one memcheck finding of `reports`: a global overrun, returned as
/// (site, access, address, size, allocation, overrun).
fn global_overrun(reports: Vec<SanitizerReport>) -> (Site, Access, u64, u32, Allocation, u64) {
    let report = only(reports);
    assert_eq!(
        (report.tool(), report.count),
        (Tool::Memcheck, 1),
        "{report}"
    );
    let Finding::GlobalOverrun {
        at,
        access,
        address,
        size,
        allocation,
        overrun,
    } = report.finding
    else {
        panic!("{report:?}");
    };
    (at, access, address, size, allocation, overrun)
}

/// A uniform index one past a 16-word table: the wave's scalar load
/// (s_load_b32) reads past the table, one finding with no lane; the last
/// element's load, none.
#[test]
fn a_scalar_load_past_a_buffer_is_a_memcheck_finding() {
    let gpu = gpu(SanitizerConfig::off().with(Tool::Memcheck));
    let program = gpu.load("scalar_overrun");
    let table = gpu.upload_u32(&(100..116).collect::<Vec<_>>());
    let out = gpu.filled_u32(32, 0);
    let run = |k| {
        gpu.run(
            &program.kernel,
            &[
                Arg::Ptr(table.gpu_va()),
                Arg::Ptr(out.gpu_va()),
                Arg::U32(k),
            ],
            [32, 1, 1],
            [32, 1, 1],
        )
        .unwrap()
    };
    run(15);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    assert_eq!(read_u32(&out, 32), vec![115; 32]);
    run(16);
    let (at, access, address, size, allocation, overrun) =
        global_overrun(gpu.sim.sanitizer_reports());
    assert_site(&at, &program, 0, None);
    assert_eq!(
        (access, address, size, overrun),
        (Access::Read, table.gpu_va() + 64, 4, 4)
    );
    assert_eq!(
        allocation,
        Allocation {
            base: table.gpu_va(),
            size: 64
        }
    );
}

/// A raw buffer resource (V#) claiming 128 bytes over a 64-byte buffer:
/// lanes 16..31's buffer_store_b32 pass the range check and land past the
/// buffer, one finding at lane 16. With the V# claiming the buffer's 64
/// bytes the range check drops those stores (RDNA3 ISA guide, buffer range
/// checking): no access, no finding.
#[test]
fn a_buffer_store_past_its_allocation_is_a_memcheck_finding() {
    let gpu = gpu(SanitizerConfig::off().with(Tool::Memcheck));
    let program = gpu.load("buffer_overrun");
    let buffer = gpu.filled_u32(16, 0);
    let run = |num_records| {
        gpu.run(
            &program.kernel,
            &[
                Arg::Ptr(buffer.gpu_va()),
                Arg::U32(num_records),
                Arg::U32(7),
            ],
            [32, 1, 1],
            [32, 1, 1],
        )
        .unwrap()
    };
    run(64);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    assert_eq!(read_u32(&buffer, 16), vec![7; 16]);
    run(128);
    let (at, access, address, size, allocation, overrun) =
        global_overrun(gpu.sim.sanitizer_reports());
    assert_site(&at, &program, 0, Some(16));
    assert_eq!(
        (access, address, size, overrun),
        (Access::Write, buffer.gpu_va() + 64, 4, 4)
    );
    assert_eq!(allocation.size, 64);
}

/// A raw V# claiming 128 bytes over a 64-byte buffer: the wave's
/// s_buffer_load_b32 of byte 64 and lanes 16..31's tbuffer_store_format_x
/// pass the range check and land past the buffer, a finding each (the
/// scalar one with no lane). With the V# claiming 64 bytes the range check
/// drops both (the load reads 0): no finding.
#[test]
fn scalar_and_typed_buffer_accesses_past_their_allocation_are_findings() {
    let gpu = gpu(SanitizerConfig::off().with(Tool::Memcheck));
    let program = gpu.load("typed_buffer_overrun");
    let buffer = gpu.filled_u32(16, 0);
    let out = gpu.filled_u32(32, 1);
    let run = |num_records| {
        gpu.run(
            &program.kernel,
            &[
                Arg::Ptr(buffer.gpu_va()),
                Arg::U32(num_records),
                Arg::U32(5),
                Arg::Ptr(out.gpu_va()),
            ],
            [32, 1, 1],
            [32, 1, 1],
        )
        .unwrap()
    };
    run(64);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    assert_eq!(read_u32(&buffer, 16), vec![5; 16]);
    assert_eq!(read_u32(&out, 32), vec![0; 32]);
    run(128);
    let mut found: Vec<_> = gpu
        .sim
        .sanitizer_reports()
        .into_iter()
        .map(|r| match r.finding {
            Finding::GlobalOverrun {
                at,
                access,
                address,
                size,
                allocation,
                overrun,
            } => {
                assert_eq!(allocation.base, buffer.gpu_va());
                assert_eq!((address, size, overrun), (buffer.gpu_va() + 64, 4, 4));
                (access, at.lane)
            }
            _ => panic!("{r:?}"),
        })
        .collect();
    found.sort_by_key(|&(access, _)| access == Access::Write);
    assert_eq!(found, vec![(Access::Read, None), (Access::Write, Some(16))]);
}

/// global_store_addtid_b32 addresses the SGPR base plus 4 * lane: a wave32
/// writes 128 bytes from the base of a 64-byte buffer, so lane 16 is the
/// first past it.
#[test]
fn an_addtid_store_past_a_buffer_is_a_memcheck_finding() {
    let gpu = gpu(SanitizerConfig::off().with(Tool::Memcheck));
    let program = gpu.load("addtid_overrun");
    let small = gpu.filled_u32(16, 0);
    let large = gpu.filled_u32(32, 0);
    let run = |buffer: u64| {
        gpu.run(
            &program.kernel,
            &[Arg::Ptr(buffer), Arg::U32(9)],
            [32, 1, 1],
            [32, 1, 1],
        )
        .unwrap()
    };
    run(large.gpu_va());
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    assert_eq!(read_u32(&large, 32), vec![9; 32]);
    run(small.gpu_va());
    let (at, access, address, size, allocation, overrun) =
        global_overrun(gpu.sim.sanitizer_reports());
    assert_site(&at, &program, 0, Some(16));
    assert_eq!(
        (access, address, size, overrun),
        (Access::Write, small.gpu_va() + 64, 4, 4)
    );
    assert_eq!(allocation.base, small.gpu_va());
}

/// Each wave stores its half of the tile and loads the other half with no
/// barrier between. Wave 0 runs first (up to its end: no barrier), so wave
/// 1's store overwrites what wave 0 read, and wave 1's load reads what wave
/// 0 wrote: two racecheck findings, each naming both accesses.
#[test]
fn lds_accessed_by_two_waves_without_a_barrier_is_a_race() {
    let gpu = gpu(SanitizerConfig::off().with(Tool::Racecheck));
    let program = gpu.load("lds_race");
    let input = gpu.upload_u32(&(0..64).collect::<Vec<_>>());
    let out = gpu.filled_u32(64, 0);
    gpu.run(
        &program.kernel,
        &[Arg::Ptr(input.gpu_va()), Arg::Ptr(out.gpu_va())],
        [64, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
    let reports = gpu.sim.sanitizer_reports();
    assert_eq!(reports.len(), 2, "{reports:#?}");
    let mut races: Vec<_> = reports
        .iter()
        .map(|r| match r.finding {
            Finding::LdsRace {
                at,
                access,
                earlier,
                earlier_access,
                offset,
            } => {
                // Wave 1's lane 0 is work-item 32: it stores tile[32] and loads tile[31].
                assert_site(&at, &program, 1, Some(0));
                assert_site(&earlier, &program, 0, Some(31));
                assert_eq!(r.count, 1);
                (access, earlier_access, offset)
            }
            _ => panic!("{r:?}"),
        })
        .collect();
    races.sort_by_key(|&(access, ..)| access == Access::Read);
    assert_eq!(
        races,
        vec![
            (Access::Write, Access::Read, 128),
            (Access::Read, Access::Write, 124)
        ]
    );
}

/// racecheck-global: four workgroups storing to the same 64 words race
/// (each later workgroup's store meets an earlier one's); with `check` set,
/// the reads of `flags[0]` race with workgroup 0's write. `all` leaves the
/// tool out.
#[test]
fn workgroups_writing_the_same_global_words_race() {
    let all = gpu(SanitizerConfig::all());
    let program = all.load("global_race");
    let out = all.filled_u32(128, 0);
    let flags = all.filled_u32(1, 0);
    let args = |check| {
        [
            Arg::Ptr(out.gpu_va()),
            Arg::Ptr(flags.gpu_va()),
            Arg::U32(check),
        ]
    };
    all.run(&program.kernel, &args(0), [256, 1, 1], [64, 1, 1])
        .unwrap();
    assert_eq!(all.sim.sanitizer_reports(), vec![]);

    let gpu = gpu(SanitizerConfig::off().with(Tool::RacecheckGlobal));
    let program = gpu.load("global_race");
    let out = gpu.filled_u32(128, 0);
    let flags = gpu.filled_u32(1, 0);
    let args = |check| {
        [
            Arg::Ptr(out.gpu_va()),
            Arg::Ptr(flags.gpu_va()),
            Arg::U32(check),
        ]
    };
    gpu.run(&program.kernel, &args(0), [256, 1, 1], [64, 1, 1])
        .unwrap();
    let report = only(gpu.sim.sanitizer_reports());
    assert_eq!(report.tool(), Tool::RacecheckGlobal);
    // Two wave32 stores per workgroup; the first workgroup to store races with nothing.
    assert_eq!(report.count, 6);
    let Finding::GlobalRace {
        at,
        access,
        earlier,
        earlier_access,
        address,
    } = report.finding
    else {
        panic!("{report:?}");
    };
    assert_eq!((access, earlier_access), (Access::Write, Access::Write));
    assert_eq!(at.offset, earlier.offset, "the one store instruction");
    assert_ne!(at.workgroup, earlier.workgroup);
    assert_eq!((at.wave, at.lane), (earlier.wave, earlier.lane));
    let lane = u64::from(at.wave * 32 + at.lane.unwrap());
    assert_eq!(address, out.gpu_va() + 4 * lane);
    assert_eq!(word_at(&gpu, at.pc), word_at(&gpu, earlier.pc));

    gpu.run(&program.kernel, &args(1), [256, 1, 1], [64, 1, 1])
        .unwrap();
    let reads: Vec<_> = gpu
        .sim
        .sanitizer_reports()
        .into_iter()
        .filter_map(|r| match r.finding {
            Finding::GlobalRace {
                address,
                access,
                earlier_access,
                ..
            } if address == flags.gpu_va() => Some((access, earlier_access)),
            _ => None,
        })
        .collect();
    assert!(!reads.is_empty());
    assert!(
        reads
            .iter()
            .all(|&pair| pair == (Access::Read, Access::Write)
                || pair == (Access::Write, Access::Read)),
        "{reads:?}"
    );
}

/// Workgroups that share only what they read, or meet only through
/// atomics, do not race.
#[test]
fn reads_and_atomics_shared_by_workgroups_do_not_race() {
    let gpu = gpu(SanitizerConfig::all().with(Tool::RacecheckGlobal));
    let copy = gpu.load("vector_copy");
    let n = 4096u32;
    let src = gpu.upload_u32(&(0..n).collect::<Vec<_>>());
    let dst = gpu.filled_u32(n as usize, 0);
    copy_u32(&gpu, &copy, src.gpu_va(), dst.gpu_va(), n);
    assert_eq!(read_u32(&dst, n as usize), (0..n).collect::<Vec<_>>());
    histogram_of_every_byte_16_times(&gpu, "histogram_global", 1);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
}

/// vector_copy of `n` u32s from `src` to `dst`.
fn copy_u32(gpu: &Gpu, program: &Program, src: u64, dst: u64, n: u32) {
    gpu.run(
        &program.kernel,
        &[Arg::Ptr(src), Arg::Ptr(dst), Arg::U32(n)],
        [n, 1, 1],
        [64, 1, 1],
    )
    .unwrap();
}

/// initcheck on device memory: a kernel reading VRAM that nothing wrote is
/// a finding naming the first unwritten byte; bytes a kernel or an SDMA
/// fill wrote read cleanly, and so does VRAM the host maps (its writes are
/// not seen).
#[test]
fn reading_device_memory_nothing_wrote_is_an_initcheck_finding() {
    let gpu = gpu(SanitizerConfig::off().with(Tool::Initcheck));
    let copy = gpu.load("vector_copy");
    let vram = gpu.alloc_device_only(1024);
    let out = gpu.filled_u32(256, 0);
    let input = gpu.upload_u32(&(0..256).collect::<Vec<_>>());
    // A kernel writes the first 64 words; the copy reads 128.
    copy_u32(&gpu, &copy, input.gpu_va(), vram.gpu_va(), 64);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    copy_u32(&gpu, &copy, vram.gpu_va(), out.gpu_va(), 128);
    let report = only(gpu.sim.take_sanitizer_reports());
    assert_eq!(report.tool(), Tool::Initcheck);
    // Work-items 64..127: two wave32 loads, one per wave of workgroup 1.
    assert_eq!(report.count, 2);
    let Finding::UninitializedGlobal {
        at,
        access,
        address,
        size,
        allocation,
    } = report.finding
    else {
        panic!("{report:?}");
    };
    assert_eq!((access, size), (Access::Read, 4));
    assert_eq!(address, vram.gpu_va() + 4 * 64);
    assert_eq!((at.workgroup, at.wave, at.lane), ([1, 0, 0], 0, Some(0)));
    assert_eq!((allocation.base, allocation.size), (vram.gpu_va(), 1024));
    assert_eq!(read_u32(&out, 64), (0..64).collect::<Vec<_>>());

    // An SDMA fill of the rest counts as written.
    let sdma = gpu.rt.create_sdma_queue(&gpu.agent).expect("SDMA queue");
    let done = gpu.signal(1);
    sdma.fill(vram.gpu_va() + 256, 7, 768, &[], Some(&done))
        .unwrap();
    aqueduct_test_harness::hsa_sim::wait_zero(&done).unwrap();
    copy_u32(&gpu, &copy, vram.gpu_va(), out.gpu_va(), 256);
    assert_eq!(gpu.sim.take_sanitizer_reports(), vec![]);
    assert_eq!(read_u32(&out, 256)[64..], vec![7; 192][..]);

    // VRAM the host maps is written by the host as far as the device can tell.
    let mapped = gpu.alloc_vram(1024);
    copy_u32(&gpu, &copy, mapped.gpu_va(), out.gpu_va(), 256);
    assert_eq!(gpu.sim.take_sanitizer_reports(), vec![]);
}

/// A barrier inside a branch only wave 0 takes: wave 1 ends while wave 0
/// waits, one synccheck finding at wave 1's s_endpgm naming wave 0's
/// s_barrier; when both waves take the branch, none.
#[test]
fn a_barrier_in_divergent_control_flow_is_a_synccheck_finding() {
    let gpu = gpu(SanitizerConfig::all());
    let program = gpu.load("divergent_barrier");
    let input = gpu.upload_u32(&(0..64).collect::<Vec<_>>());
    let out = gpu.filled_u32(64, 0);
    let run = |limit| {
        gpu.run(
            &program.kernel,
            &[
                Arg::Ptr(input.gpu_va()),
                Arg::Ptr(out.gpu_va()),
                Arg::U32(limit),
            ],
            [64, 1, 1],
            [64, 1, 1],
        )
        .unwrap()
    };
    run(64);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
    run(32);
    let report = only(gpu.sim.sanitizer_reports());
    let Finding::EndedAtBarrier { at, waiting } = report.finding else {
        panic!("{report:?}");
    };
    assert_site(&at, &program, 1, None);
    assert_site(&waiting, &program, 0, None);
    assert_eq!(word_at(&gpu, at.pc), S_ENDPGM);
    assert_eq!(word_at(&gpu, waiting.pc), S_BARRIER);
    assert_eq!(
        report.to_string(),
        format!(
            "sanitizer synccheck: kernel divergent_barrier+{:#x}: workgroup (0,0,0) wave 1 \
             ended while workgroup (0,0,0) wave 0 waits at the barrier at +{:#x}",
            at.offset, waiting.offset
        )
    );
}

/// Kernels that use LDS, barriers and atomics correctly give no finding
/// with every tool on, in several workgroups of several waves.
#[test]
fn clean_kernels_give_no_findings() {
    let gpu = gpu(SanitizerConfig::all());
    let reduce = gpu.load("reduce_lds");
    let n = 1000u32;
    let input = gpu.upload_u32(&(0..n).collect::<Vec<_>>());
    let sums = gpu.filled_u32(8, 0);
    gpu.run(
        &reduce.kernel,
        &[
            Arg::Ptr(input.gpu_va()),
            Arg::Ptr(sums.gpu_va()),
            Arg::U32(n),
        ],
        [1024, 1, 1],
        [128, 1, 1],
    )
    .unwrap();
    let want: Vec<u32> = (0..8)
        .map(|g| (g * 128..(g + 1) * 128).filter(|&i| i < n).sum())
        .collect();
    assert_eq!(read_u32(&sums, 8), want);
    histogram_of_every_byte_16_times(&gpu, "histogram", 7);
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
}

/// `name` (histogram or histogram_global) over 4096 bytes `i * step % 256`
/// (step odd: each byte value 16 times) gives 16 in every bin.
fn histogram_of_every_byte_16_times(gpu: &Gpu, name: &str, step: u32) {
    let histogram = gpu.load(name);
    let data = gpu.upload(
        &(0..4096u32)
            .map(|i| (i * step % 256) as u8)
            .collect::<Vec<_>>(),
    );
    let bins = gpu.filled_u32(256, 0);
    gpu.run(
        &histogram.kernel,
        &[
            Arg::Ptr(data.gpu_va()),
            Arg::Ptr(bins.gpu_va()),
            Arg::U32(4096),
        ],
        [4096, 1, 1],
        [256, 1, 1],
    )
    .unwrap();
    assert_eq!(read_u32(&bins, 256), vec![16; 256]);
}

/// With the sanitizer off the same overrun goes unreported.
#[test]
fn without_the_sanitizer_nothing_is_reported() {
    let gpu = gpu(SanitizerConfig::off());
    let program = gpu.load("oob_write");
    let buffer = gpu.alloc(1024);
    gpu.run(
        &program.kernel,
        &[Arg::Ptr(buffer.gpu_va() + 1024), Arg::U32(7)],
        [1, 1, 1],
        [1, 1, 1],
    )
    .unwrap();
    assert_eq!(gpu.sim.sanitizer_reports(), vec![]);
}
