//! Faults on gfxsim through aqueduct-hsa, each in the same scenario: a
//! faulting dispatch on queue A while queue B runs copies.
//!
//! Kinds: an out-of-bounds write and read (an unallocated page of the
//! runtime's aperture), a write to and a read from freed memory (a VRAM and
//! a system allocation dropped before the dispatch), a write to a vmem
//! mapping whose GPU access was revoked, an illegal instruction
//! word, s_trap, and a loop that never ends (stopped by the device's
//! watchdog, `SimConfig::dispatch_timeout`). For each: the wait on the
//! faulting dispatch fails with the right `QueueErrorReason`, the detail
//! names the exact PC of the faulting instruction (found by decoding the
//! kernel's code from the ELF) and the address where there is one; queue B
//! is never halted and all its copies complete with the right bytes while A
//! is still in error; a buffer nobody wrote keeps its contents; A recovers on
//! its next submission. The watchdog also must not stop a kernel that ends
//! within its limit, and with no limit a long kernel runs to its end.
//! Destroying a queue stops its endless kernel (watchdog off) and frees the
//! GPU's workers.
//!
//! Kernels: kernels/gfx1100/{oob_write,vector_copy}.co and
//! tests/kernels/gfx1100/faults.co (tests/kernels/src/faults.cl).
//! Each test has its own device and runtime (a queue error fails every wait
//! of its runtime until recovered). About 2 s in all on 2 cores.

use aqueduct_test_harness::hsa_sim;

use std::time::{Duration, Instant};

use aqueduct_gfxsim::SimConfig;
use aqueduct_hsa::{Allocation, HsaError, MemoryOrder, QueueErrorReason, QueueFaultDetail, Signal};
use aqueduct_isa::gfx11::decode::decode;
use aqueduct_test_harness::hsa_sim::{
    Arg, Gpu, Launch, Program, Rng, SIM_THREADS, TIMEOUT, assert_same, host_bytes_mut,
    oob_write_launch, read_u32, unallocated_in_aperture, wait_zero,
};
use object::{Object, ObjectSection, ObjectSymbol};

const PAGE: u64 = 4096;
/// Words per bystander copy.
const COPY_WORDS: usize = 4096;
/// The watchdog limit of the watchdog tests: long enough for the copies
/// beside it on a loaded CI machine, short enough to keep the test quick.
const WATCHDOG: Duration = Duration::from_millis(400);

/// The bytes of tests/kernels/gfx1100/faults.co.
fn faults_co() -> Vec<u8> {
    let path = format!(
        "{}/../../tests/kernels/gfx1100/faults.co",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// A gfxsim device with the watchdog at `limit`, and a runtime over it.
fn gpu_with_watchdog(limit: Option<Duration>) -> Gpu {
    Gpu::with_config(SimConfig {
        threads: SIM_THREADS,
        dispatch_timeout: limit,
        ..SimConfig::default()
    })
}

/// The GPU address of the first instruction of `kernel` that `pick`
/// accepts, given its mnemonic (None: a word no encoding decodes) and its
/// first dword; found by decoding the kernel's code in `elf` from its entry.
fn pc_of(
    gpu_program: &Program,
    elf: &[u8],
    kernel: &str,
    pick: impl Fn(Option<&str>, u32) -> bool,
) -> u64 {
    let file = object::read::elf::ElfFile64::<object::Endianness>::parse(elf).expect("ELF");
    let symbol = file
        .symbols()
        .find(|s| s.name() == Ok(kernel) && s.kind() == object::SymbolKind::Text)
        .expect("kernel symbol");
    let section = file
        .section_by_index(symbol.section_index().expect("symbol's section"))
        .expect("section");
    let (start, _) = section.file_range().expect("section in file");
    let at = (start + symbol.address() - section.address()) as usize;
    let words: Vec<u32> = elf[at..at + symbol.size() as usize]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let entry = gpu_program.exe.load_base() + gpu_program.kernel.info.entry_offset();
    let mut i = 0;
    while i < words.len() {
        let window = &words[i..(i + 3).min(words.len())];
        let (mnemonic, len) = match decode(window) {
            Ok(inst) => (Some(inst.mnemonic), inst.len as usize),
            Err(_) => (None, 1),
        };
        if pick(mnemonic, words[i]) {
            return entry + 4 * i as u64;
        }
        i += len;
    }
    panic!("no matching instruction in {kernel}");
}

/// The copies queue B runs beside the fault: sources, destinations and
/// signals, with the data each must end with.
struct Bystanders {
    /// vector_copy, kept loaded while its dispatches may run.
    _program: Program,
    jobs: Vec<(Allocation, Allocation, Launch, Signal, Vec<u32>)>,
}

impl Bystanders {
    fn new(gpu: &Gpu, count: u64) -> Bystanders {
        let program = gpu.load("vector_copy");
        let jobs = (0..count)
            .map(|k| {
                let words = Rng::new(100 + k).u32s(COPY_WORDS);
                let src = gpu.upload_u32(&words);
                let dst = gpu.filled_u32(COPY_WORDS, 0);
                let launch = gpu.launch(
                    &program.kernel,
                    &[
                        Arg::Ptr(src.gpu_va()),
                        Arg::Ptr(dst.gpu_va()),
                        Arg::U32(COPY_WORDS as u32),
                    ],
                    [COPY_WORDS as u32, 1, 1],
                    [64, 1, 1],
                );
                (src, dst, launch, gpu.signal(1), words)
            })
            .collect();
        Bystanders {
            _program: program,
            jobs,
        }
    }

    fn submit(&self, queue: &aqueduct_hsa::Queue, range: std::ops::Range<usize>) {
        for (_, _, launch, done, _) in &self.jobs[range] {
            let mut d = launch.dispatch;
            d.completion_signal = done.handle();
            queue
                .submit_dispatch(&d.to_packet().unwrap())
                .expect("bystander submit");
        }
    }

    /// Every copy completes (watched by loads, not waits: a wait fails while
    /// any queue of the runtime is in error) with exactly its source's words.
    fn check_all_done(&self) {
        let start = Instant::now();
        for (k, (_, dst, _, done, words)) in self.jobs.iter().enumerate() {
            while done.load(MemoryOrder::Acquire) != 0 {
                assert!(
                    start.elapsed() < TIMEOUT,
                    "bystander copy {k} never completed"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            assert_same(
                &read_u32(dst, COPY_WORDS),
                words,
                &format!("bystander copy {k}"),
            );
        }
    }
}

/// A fine-grained buffer of 1024 known words that no dispatch touches.
fn untouched(gpu: &Gpu) -> (Allocation, Vec<u32>) {
    let words = Rng::new(7).u32s(1024);
    let mut a = gpu.alloc_vram(4096);
    host_bytes_mut(&mut a).copy_from_slice(bytemuck::cast_slice(&words));
    (a, words)
}

/// The scenario every fault kind goes through: the dispatch `make_fault`
/// builds on queue A between queue B's copies; returns the error and checks
/// everything around it. `make_fault` runs after the scenario's own
/// allocations, so memory it frees is not reused before the fault.
fn run_fault_scenario(gpu: &Gpu, make_fault: impl FnOnce() -> Launch) -> HsaError {
    let (intact, intact_words) = untouched(gpu);
    let bystanders = Bystanders::new(gpu, 6);
    let qa = gpu.queue(64);
    let qb = gpu.queue(64);
    let failed = gpu.signal(1);
    let fault = make_fault();

    bystanders.submit(&qb, 0..3);
    let mut d = fault.dispatch;
    d.completion_signal = failed.handle();
    qa.submit_dispatch(&d.to_packet().unwrap())
        .expect("fault submit");
    bystanders.submit(&qb, 3..6);

    let err = wait_zero(&failed).expect_err("the faulting dispatch must fail");
    match &err {
        HsaError::QueueError { queue_id, .. } => assert_eq!(*queue_id, qa.id(), "{err}"),
        other => panic!("expected a queue error, got {other:?}"),
    }
    assert_eq!(failed.load(MemoryOrder::Acquire), 1, "it never completed");
    assert!(qa.error().is_some(), "queue A reports its error");

    // Queue B goes on while A is still in error.
    bystanders.check_all_done();
    assert!(qb.error().is_none(), "queue B was halted: {:?}", qb.error());
    assert_eq!(qb.recreations(), 0);
    assert_same(&read_u32(&intact, 1024), &intact_words, "untouched buffer");

    // A recovers on its next submission; B's waits work again.
    let recovery = Bystanders::new(gpu, 2);
    for (q, job) in [(&qa, 0), (&qb, 1)] {
        let (_, dst, launch, _, words) = &recovery.jobs[job];
        gpu.run_on(q, launch).expect("a copy after the fault");
        assert_same(&read_u32(dst, COPY_WORDS), words, "copy after recovery");
    }
    assert_eq!(qa.recreations(), 1);
    assert_eq!(qb.recreations(), 0);
    err
}

/// The error is a memory violation at `address`'s page whose detail names
/// the exact address and `pc`.
fn expect_memory_violation(gpu: &Gpu, err: &HsaError, address: u64, access: &str, pc: u64) {
    match err {
        HsaError::QueueError {
            reason: QueueErrorReason::MemoryViolation { address: reported },
            detail: Some(QueueFaultDetail::MemoryFault(fault)),
            queue_id,
        } => {
            assert_eq!(*reported, Some(address & !(PAGE - 1)), "{err}");
            assert_eq!(
                (fault.gpu_id, fault.address),
                (gpu.agent.gpu_id, address & !(PAGE - 1)),
                "KFD's MEMORY event data"
            );
            let detail = gpu.sim.wave_error(*queue_id).expect("gfxsim's account");
            assert!(
                detail.contains(&format!("{access} at address {address:#x}")),
                "{access} at {address:#x}: {detail}"
            );
            assert!(
                detail.contains(&format!("pc {pc:#x}")),
                "pc {pc:#x}: {detail}"
            );
        }
        other => panic!("expected a memory violation at {address:#x}, got {other:?}"),
    }
}

fn is_global_store(m: Option<&str>, _: u32) -> bool {
    m.is_some_and(|m| m.starts_with("global_store"))
}

fn is_global_load(m: Option<&str>, _: u32) -> bool {
    m.is_some_and(|m| m.starts_with("global_load"))
}

/// A write to an unallocated page of the aperture, and to freed VRAM.
#[test]
fn out_of_bounds_and_freed_writes_fault_at_their_address() {
    let gpu = Gpu::new();
    let program = gpu.load("oob_write");
    let elf = hsa_sim::kernel_file("oob_write.co");
    let store_pc = pc_of(&program, &elf, "oob_write", is_global_store);

    let hole = unallocated_in_aperture(&gpu) + 0x44;
    let err = run_fault_scenario(&gpu, || oob_write_launch(&gpu, &program, hole, 1));
    expect_memory_violation(&gpu, &err, hole, "Write", store_pc);

    // Freed memory: the address was valid until the allocation was dropped.
    let mut freed = 0;
    let err = run_fault_scenario(&gpu, || {
        let victim = gpu.alloc_vram(64 << 10);
        freed = victim.gpu_va() + 0x1234;
        oob_write_launch(&gpu, &program, freed, 2)
    });
    expect_memory_violation(&gpu, &err, freed, "Write", store_pc);
}

/// A read of an unallocated page (read_at) and of freed system memory
/// (vector_copy's source).
#[test]
fn out_of_bounds_and_freed_reads_fault_at_their_address() {
    let gpu = Gpu::new();
    let elf = faults_co();
    let read_at = gpu.load_bytes(&elf, "read_at").expect("faults.co");
    let load_pc = pc_of(&read_at, &elf, "read_at", is_global_load);
    let out = gpu.filled_u32(1, 0x5555_5555);
    let hole = unallocated_in_aperture(&gpu) + 0x80;
    let err = run_fault_scenario(&gpu, || {
        gpu.launch(
            &read_at.kernel,
            &[Arg::Ptr(out.gpu_va()), Arg::Ptr(hole)],
            [64, 1, 1],
            [64, 1, 1],
        )
    });
    expect_memory_violation(&gpu, &err, hole, "Read", load_pc);
    assert_eq!(read_u32(&out, 1), [0x5555_5555], "nothing was read");

    let copy = gpu.load("vector_copy");
    let copy_elf = hsa_sim::kernel_file("vector_copy.co");
    let copy_load_pc = pc_of(&copy, &copy_elf, "vector_copy", is_global_load);
    let dst = gpu.filled_u32(64, 9);
    let mut freed = 0;
    let err = run_fault_scenario(&gpu, || {
        let victim = gpu.alloc(64 << 10);
        freed = victim.gpu_va();
        gpu.launch(
            &copy.kernel,
            &[Arg::Ptr(freed), Arg::Ptr(dst.gpu_va()), Arg::U32(64)],
            [64, 1, 1],
            [64, 1, 1],
        )
    });
    // Lane 0 of the wave reads the first word: the lowest faulting address.
    expect_memory_violation(&gpu, &err, freed, "Read", copy_load_pc);
    assert_eq!(read_u32(&dst, 64), vec![9; 64], "no word was copied");
}

/// A word no gfx11 encoding decodes, after the kernel's own store.
#[test]
fn an_illegal_instruction_names_its_word_and_pc() {
    let gpu = Gpu::new();
    let elf = faults_co();
    let program = gpu.load_bytes(&elf, "illegal_word").expect("faults.co");
    let pc = pc_of(&program, &elf, "illegal_word", |m, _| m.is_none());
    let out = gpu.filled_u32(64, 0);
    let launch = || {
        gpu.launch(
            &program.kernel,
            &[Arg::Ptr(out.gpu_va())],
            [64, 1, 1],
            [32, 1, 1],
        )
    };
    match run_fault_scenario(&gpu, launch) {
        HsaError::QueueError {
            reason: QueueErrorReason::IllegalInstruction,
            queue_id,
            detail: None,
            ..
        } => {
            let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(detail.contains("[0xffffffff]"), "{detail}");
            assert!(
                detail.contains(&format!("pc {pc:#x}")),
                "pc {pc:#x}: {detail}"
            );
        }
        other => panic!("expected an illegal instruction, got {other:?}"),
    }
}

/// s_trap 2 (llvm.trap) after every work-item's store.
#[test]
fn s_trap_names_its_code_and_pc() {
    let gpu = Gpu::new();
    let elf = faults_co();
    let program = gpu.load_bytes(&elf, "trap_now").expect("faults.co");
    let pc = pc_of(&program, &elf, "trap_now", |m, _| m == Some("s_trap"));
    let out = gpu.filled_u32(128, 0);
    let launch = || {
        gpu.launch(
            &program.kernel,
            &[Arg::Ptr(out.gpu_va()), Arg::U32(128)],
            [128, 1, 1],
            [64, 1, 1],
        )
    };
    match run_fault_scenario(&gpu, launch) {
        HsaError::QueueError {
            reason: QueueErrorReason::Trap,
            queue_id,
            detail: None,
            ..
        } => {
            let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
            assert!(
                detail.contains(&format!("s_trap 2 at pc {pc:#x}")),
                "{detail}"
            );
        }
        other => panic!("expected a trap, got {other:?}"),
    }
}

/// The backward branch of spin's loop.
fn spin_branch_pc(program: &Program, elf: &[u8]) -> u64 {
    pc_of(program, elf, "spin", |m, word| {
        m.is_some_and(|m| m.starts_with("s_cbranch") || m == "s_branch") && (word as u16 as i16) < 0
    })
}

/// A kernel that never ends (spin on a flag nobody sets), 1 and then 6
/// workgroups: the watchdog stops every wave after about its limit and the
/// queue error names the loop's branch.
#[test]
fn an_endless_kernel_is_stopped_by_the_watchdog() {
    let gpu = gpu_with_watchdog(Some(WATCHDOG));
    let elf = faults_co();
    let program = gpu.load_bytes(&elf, "spin").expect("faults.co");
    let branch = spin_branch_pc(&program, &elf);
    for workgroups in [1u32, 6] {
        let flag = gpu.filled_u32(2, 0);
        let start = Instant::now();
        let err = run_fault_scenario(&gpu, || {
            gpu.launch(
                &program.kernel,
                &[Arg::Ptr(flag.gpu_va())],
                [64 * workgroups, 1, 1],
                [64, 1, 1],
            )
        });
        let took = start.elapsed();
        match &err {
            HsaError::QueueError {
                reason: QueueErrorReason::Trap,
                queue_id,
                detail: None,
                ..
            } => {
                let detail = gpu.sim.wave_error(*queue_id).expect("gfxsim's account");
                assert!(
                    detail.contains(&format!(
                        "watchdog: the dispatch ran longer than its {} ms time limit; stopped at pc {branch:#x}",
                        WATCHDOG.as_millis()
                    )),
                    "{detail}"
                );
            }
            other => panic!("expected a watchdog abort, got {other:?}"),
        }
        assert!(
            took >= WATCHDOG,
            "{workgroups} workgroups: stopped after {took:?}"
        );
        assert!(
            took < TIMEOUT / 2,
            "{workgroups} workgroups: stopped only after {took:?}"
        );
        assert_eq!(read_u32(&flag, 2), [0, 0], "the loop never ended");
    }
}

/// A kernel under the limit runs to its end: spin released by the host
/// after 100 ms with a 400 ms watchdog, and after 600 ms with none.
#[test]
fn the_watchdog_spares_kernels_that_end() {
    for (limit, release_after) in [
        (Some(WATCHDOG), Duration::from_millis(100)),
        (None, WATCHDOG + Duration::from_millis(200)),
    ] {
        let gpu = gpu_with_watchdog(limit);
        let program = gpu.load_bytes(&faults_co(), "spin").expect("faults.co");
        let mut flag = gpu.filled_u32(2, 0);
        let flag_word = flag.gpu_va();
        let launch = gpu.launch(
            &program.kernel,
            &[Arg::Ptr(flag_word)],
            [128, 1, 1],
            [64, 1, 1],
        );
        let queue = gpu.queue(64);
        let done = gpu.signal(1);
        let mut d = launch.dispatch;
        d.completion_signal = done.handle();
        queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
        std::thread::sleep(release_after);
        assert_eq!(
            done.load(MemoryOrder::Acquire),
            1,
            "{limit:?}: still spinning"
        );
        let word = &mut host_bytes_mut(&mut flag)[..4];
        // SAFETY: the slice is 4 aligned bytes of a live host-mapped allocation; the kernel reads them with atomic-width loads.
        let atomic = unsafe { std::sync::atomic::AtomicU32::from_ptr(word.as_mut_ptr().cast()) };
        atomic.store(1, std::sync::atomic::Ordering::Release);
        wait_zero(&done).unwrap_or_else(|e| panic!("{limit:?}: {e}"));
        assert_eq!(read_u32(&flag, 2), [1, 1], "{limit:?}");
        assert!(queue.error().is_none());
    }
}

/// Destroying a queue stops its endless kernel, as KFD's queue destroy
/// preempts running waves (with the watchdog off, DESTROY_QUEUE used to
/// wait for the kernel forever); the GPU's workers are free again after.
#[test]
fn destroying_a_queue_stops_its_endless_kernel() {
    let gpu = gpu_with_watchdog(None);
    let program = gpu.load_bytes(&faults_co(), "spin").expect("faults.co");
    let flag = gpu.filled_u32(2, 0);
    // As many workgroups as workers, and more: every worker spins.
    let launch = gpu.launch(
        &program.kernel,
        &[Arg::Ptr(flag.gpu_va())],
        [64 * 2 * SIM_THREADS as u32, 1, 1],
        [64, 1, 1],
    );
    let queue = gpu.queue(64);
    let done = gpu.signal(1);
    let mut d = launch.dispatch;
    d.completion_signal = done.handle();
    queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(done.load(MemoryOrder::Acquire), 1, "still spinning");

    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(queue);
        let _ = tx.send(());
    });
    if rx.recv_timeout(Duration::from_secs(20)).is_err() {
        // The device cannot be dropped either (its workers spin): leak it
        // so the failure is reported instead of hanging.
        std::mem::forget(gpu);
        panic!("destroying the queue did not stop its kernel");
    }
    assert_eq!(done.load(MemoryOrder::Acquire), 1, "it never completed");
    assert_eq!(read_u32(&flag, 2), [0, 0]);

    // The workers run other queues' work again.
    let copy = Bystanders::new(&gpu, 1);
    let (_, dst, launch, _, words) = &copy.jobs[0];
    gpu.run_on(&gpu.queue(64), launch)
        .expect("a copy after the destroy");
    assert_same(&read_u32(dst, COPY_WORDS), words, "copy after the destroy");
}

/// Access without permission (helper V's vmem API): a mapping the GPU read
/// while it had access faults once that access is revoked, at its address,
/// in the usual scenario; the mapped words stay as the host wrote them.
/// (A GPU ReadOnly grant maps read-write: KFD has no per-GPU read-only
/// mapping, vmem/access.rs says; so revoking is the permission test.)
#[test]
fn an_access_after_it_is_revoked_faults_at_its_address() {
    use aqueduct_hsa::memory::PoolKind;
    use aqueduct_hsa::vmem::{Access, MemoryType, VirtualMemory};

    let gpu = Gpu::new();
    let vm = VirtualMemory::new(&gpu.rt).expect("vmem");
    let cpu = gpu.rt.cpu_agents().next().expect("a CPU agent").clone();
    let pool = gpu
        .rt
        .pool(&gpu.agent, PoolKind::FineSystem)
        .expect("fine-grained pool");
    let va = vm.reserve(PAGE, 0).expect("reserve");
    let handle = vm
        .handle_create(pool, PAGE, MemoryType::None)
        .expect("handle");
    vm.map(va, PAGE, 0, handle).expect("map");
    vm.set_access(
        va,
        PAGE,
        &[(&cpu, Access::ReadWrite), (&gpu.agent, Access::ReadWrite)],
    )
    .expect("set_access");
    let words = Rng::new(31).u32s(64);
    for (i, w) in words.iter().enumerate() {
        // SAFETY: the host has read-write access to the mapped page at va; i < 64 words stay inside it.
        unsafe { std::ptr::write_volatile((va as *mut u32).add(i), *w) };
    }

    // The GPU reads it.
    let copy = gpu.load("vector_copy");
    let dst = gpu.filled_u32(64, 0);
    let launch = gpu.launch(
        &copy.kernel,
        &[Arg::Ptr(va), Arg::Ptr(dst.gpu_va()), Arg::U32(64)],
        [64, 1, 1],
        [64, 1, 1],
    );
    gpu.run_on(&gpu.queue(64), &launch)
        .expect("a read while the GPU has access");
    assert_eq!(read_u32(&dst, 64), words);

    // Revoked: the GPU may not touch it.
    vm.set_access(va, PAGE, &[(&gpu.agent, Access::None)])
        .expect("revoke");
    let program = gpu.load("oob_write");
    let store_pc = pc_of(
        &program,
        &hsa_sim::kernel_file("oob_write.co"),
        "oob_write",
        is_global_store,
    );
    let target = va + 0x20;
    let err = run_fault_scenario(&gpu, || oob_write_launch(&gpu, &program, target, 0xbad));
    expect_memory_violation(&gpu, &err, target, "Write", store_pc);
    for (i, w) in words.iter().enumerate() {
        // SAFETY: as above: a word of the host-readable mapped page.
        let got = unsafe { std::ptr::read_volatile((va as *const u32).add(i)) };
        assert_eq!(got, *w, "word {i} of the mapping");
    }
    vm.unmap(va, PAGE).expect("unmap");
    vm.handle_release(handle).expect("release");
    vm.free(va, PAGE).expect("free");
}
