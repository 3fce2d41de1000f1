//! Two processes share one vmem handle through a dma-buf fd.
//!
//! The parent creates a VRAM handle, maps it, writes pattern A through the
//! host, exports the handle and starts a child (this test binary again, run
//! for this one test with the fd number in an environment variable; the fd
//! is inherited across exec). The child has its own gfxsim and runtime: it
//! imports the fd, maps the handle in its own reserved range, checks with
//! a kernel that it sees pattern A, and a kernel writes pattern B over it.
//! After the child exits, the parent's kernel copies the shared range out
//! and finds pattern B. Each side then releases its handle, after which
//! no fd or mapping of the shared memory is left in it (closing all
//! handles releases the memory), and the parent's VRAM use is back where
//! it started.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::vmem::{Access, MemoryType, VirtualMemory};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Rng, assert_same, read_u32};

const TEST_NAME: &str = "two_processes_share_one_handle";
const CHILD_FD_ENV: &str = "AQUEDUCT_VMEM_IPC_CHILD_FD";
const SIZE: u64 = 64 << 10;
const WORDS: usize = (SIZE / 4) as usize;

fn pattern_a() -> Vec<u32> {
    Rng::new(0xa).u32s(WORDS)
}

fn pattern_b() -> Vec<u32> {
    Rng::new(0xb).u32s(WORDS)
}

/// How many of this process's fds and memory mappings refer to the file
/// with inode `ino` (the shared memory's memfd).
fn references_to(ino: u64) -> (usize, usize) {
    let fds = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            std::fs::metadata(e.path())
                .is_ok_and(|m| std::os::unix::fs::MetadataExt::ino(&m) == ino)
        })
        .count();
    let ino_text = ino.to_string();
    let maps = std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().nth(4) == Some(ino_text.as_str()))
        .count();
    (fds, maps)
}

fn inode(fd: BorrowedFd<'_>) -> u64 {
    rustix::fs::fstat(fd).unwrap().st_ino
}

/// vector_copy of all WORDS from `src` to `dst` on `gpu`.
fn copy(gpu: &Gpu, src: u64, dst: u64) {
    let program = gpu.load("vector_copy");
    gpu.run(
        &program.kernel,
        &[Arg::Ptr(src), Arg::Ptr(dst), Arg::U32(WORDS as u32)],
        [WORDS as u32, 1, 1],
        [64, 1, 1],
    )
    .expect("vector_copy");
}

#[test]
fn two_processes_share_one_handle() {
    if let Ok(fd) = std::env::var(CHILD_FD_ENV) {
        child(fd.parse().expect("fd number"));
        return;
    }
    let gpu = Gpu::new();
    let vram = || gpu.sim.vram_used(gpu.agent.gpu_id).unwrap();
    let start = vram();
    let vm = VirtualMemory::new(&gpu.rt).unwrap();
    let cpu = gpu.rt.cpu_agents().next().unwrap().clone();
    let coarse = gpu.rt.pool(&gpu.agent, PoolKind::CoarseDevice).unwrap();
    let h = vm.handle_create(coarse, SIZE, MemoryType::None).unwrap();
    assert_eq!(vram(), start + SIZE);
    let va = vm.reserve(SIZE, 0).unwrap();
    vm.map(va, SIZE, 0, h).unwrap();
    vm.set_access(
        va,
        SIZE,
        &[(&gpu.agent, Access::ReadWrite), (&cpu, Access::ReadWrite)],
    )
    .unwrap();
    // SAFETY: [va, va+SIZE) is mapped with host read-write access until the
    // unmap below, and nothing else in this process aliases it as Rust data.
    let host = unsafe { std::slice::from_raw_parts_mut(va as *mut u32, WORDS) };
    host.copy_from_slice(&pattern_a());

    let fd = vm.export_shareable_handle(h).unwrap();
    let ino = inode(fd.as_fd());
    let raw = fd.as_raw_fd();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
        .env(CHILD_FD_ENV, raw.to_string());
    // SAFETY: the closure only clears FD_CLOEXEC on the exported fd (one
    // fcntl, async-signal-safe) in the forked child before exec.
    unsafe {
        command.pre_exec(move || {
            let fd = BorrowedFd::borrow_raw(raw);
            rustix::io::fcntl_setfd(fd, rustix::io::FdFlags::empty()).map_err(std::io::Error::from)
        });
    }
    let output = command.output().expect("starting the child");
    drop(fd);
    assert!(
        output.status.success(),
        "child failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("child: pattern B written"),
        "the child ran the child role: {}",
        String::from_utf8_lossy(&output.stdout)
    );

    // The parent's kernel reads what the child's kernel wrote.
    let out = gpu.filled_u32(WORDS, 0);
    copy(&gpu, va, out.gpu_va());
    assert_same(&read_u32(&out, WORDS), &pattern_b(), "parent kernel reads");
    assert_same(host, &pattern_b(), "parent host reads");

    vm.unmap(va, SIZE).unwrap();
    vm.handle_release(h).unwrap();
    vm.free(va, SIZE).unwrap();
    assert_eq!(vram(), start, "the handle's VRAM is returned");
    assert_eq!(
        references_to(ino),
        (0, 0),
        "no fd or mapping of the shared memory is left"
    );
}

/// The child's side: import, check pattern A with a kernel, write B.
fn child(raw: i32) {
    // SAFETY: the parent passed this inherited descriptor to this process
    // alone; nothing else here owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let ino = inode(fd.as_fd());
    let gpu = Gpu::new();
    let vm = VirtualMemory::new(&gpu.rt).unwrap();
    let h = vm.import_shareable_handle(fd.as_fd()).unwrap();
    drop(fd); // the handle keeps the memory
    let p = vm.alloc_properties(h).unwrap();
    assert_eq!((p.pool.kind(), p.size), (PoolKind::CoarseDevice, SIZE));

    let va = vm.reserve(SIZE, 0).unwrap();
    vm.map(va, SIZE, 0, h).unwrap();
    vm.set_access(va, SIZE, &[(&gpu.agent, Access::ReadWrite)])
        .unwrap();
    let seen = gpu.filled_u32(WORDS, 0);
    copy(&gpu, va, seen.gpu_va());
    assert_same(&read_u32(&seen, WORDS), &pattern_a(), "child kernel reads");
    let b = gpu.upload_u32(&pattern_b());
    copy(&gpu, b.gpu_va(), va);
    vm.unmap(va, SIZE).unwrap();
    vm.handle_release(h).unwrap();
    vm.free(va, SIZE).unwrap();
    assert_eq!(
        references_to(ino),
        (0, 0),
        "child: releasing the handle closed every fd and mapping of it"
    );
    println!("child: pattern B written");
}
