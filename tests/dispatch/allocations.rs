//! Heap allocations of recording and submitting dispatches in steady
//! state: once a program has recorded and submitted the same kind of work
//! a few times, a dispatch that binds its own buffers and bind group
//! allocates nothing, and a whole encode + submit allocates as much for
//! few dispatches as for many (the recording's linear storage and the
//! queue's lists are reused: src/command/arena.rs, src/command/pool.rs).
//! Allocations are counted per thread, so tests running beside this one
//! and gfxsim's threads leave the count alone.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use aqueduct::{BindGroup, Buffer, PollType};
use aqueduct_test_harness::facade::*;

struct CountingAllocator;

thread_local! {
    /// Allocations (and reallocations) made by this thread.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn note_allocation() {
    // A const-initialised thread-local without a destructor is always
    // there; `try_with` only guards against thread teardown.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every method forwards to the system allocator unchanged; counting touches only a thread-local Cell.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract for `alloc_zeroed` is passed on unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation();
        // SAFETY: the caller's contract for `realloc` is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Bind groups of distinct buffers, as many as the benchmark's `distinct`
/// mode would need to leave the hazard tracker's short list.
const GROUPS: usize = 96;
/// Words each dispatch copies.
const WORDS: u32 = 16;

/// One encoder, one pass, per bind group a `set_bind_group` and a
/// dispatch, one submit, then a wait; returns the allocations of the
/// dispatch loop and of everything from the encoder's creation to
/// `submit`'s return.
fn round(c: &Ctx, pipeline: &aqueduct::ComputePipeline, groups: &[BindGroup]) -> (u64, u64) {
    let start = allocations();
    let mut enc = c.device.create_command_encoder(&Default::default());
    let in_loop;
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_immediates(0, &WORDS.to_le_bytes());
        let before = allocations();
        for g in groups {
            pass.set_bind_group(0, g, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        in_loop = allocations() - before;
    }
    c.queue.submit([enc.finish()]);
    let total = allocations() - start;
    c.device
        .poll(PollType::wait_indefinitely())
        .expect("poll(wait)");
    (in_loop, total)
}

#[test]
fn steady_state_dispatches_allocate_nothing() {
    let c = ctx();
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let pipeline = auto_pipeline(&c.device, &module, "vector_copy");
    let pairs: Vec<(Buffer, Buffer)> = (0..GROUPS as u32)
        .map(|i| {
            let words: Vec<u32> = (0..WORDS).map(|w| i * 1000 + w).collect();
            (storage_init(&c.device, &words), storage(&c.device, 64))
        })
        .collect();
    let groups: Vec<BindGroup> = pairs
        .iter()
        .map(|(src, dst)| bind_group(&c.device, &pipeline, 0, &[src, dst]))
        .collect();
    // Warm up: the storage grows to what a round needs.
    for _ in 0..5 {
        round(&c, &pipeline, &groups);
    }
    let (in_loop, all) = round(&c, &pipeline, &groups);
    let (half_loop, half) = round(&c, &pipeline, &groups[..GROUPS / 2]);
    assert_eq!(
        (in_loop, half_loop),
        (0, 0),
        "allocations while recording {GROUPS} and {} dispatches",
        GROUPS / 2
    );
    assert_eq!(
        all,
        half,
        "encode + submit of {GROUPS} dispatches allocates as much as of {}",
        GROUPS / 2
    );
    // And every dispatch ran, with its own buffers.
    for (i, (_, dst)) in pairs.iter().enumerate().step_by(19) {
        let expected: Vec<u32> = (0..WORDS).map(|w| i as u32 * 1000 + w).collect();
        assert_eq!(read_words(&c, dst), expected, "pair {i}");
    }
}
