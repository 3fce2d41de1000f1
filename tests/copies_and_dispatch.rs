//! Copies, clears, writes and dispatches, after wgpu's GPU tests
//! `buffer_copy.rs` (COPY_ALIGNMENT), `buffer.rs` (CLEAR_OFFSET_*),
//! `regression/issue_4122.rs` (CLEAR_BUFFER_RANGE_RESPECTED),
//! `dispatch_workgroups_indirect.rs` (NUM_WORKGROUPS, DISCARD_DISPATCH,
//! RESET_BIND_GROUPS, ZERO_SIZED_BUFFER) and kernels with workgroup memory,
//! atomics and 2D grids.

use aqueduct_test_harness::facade::*;

use aqueduct::*;

#[test]
fn write_buffer_and_copy_alignment_errors() {
    let c = ctx();
    let b = storage(&c.device, 64);
    let o = storage(&c.device, 64);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::WriteUnaligned { offset: 2, size: 4 })
            )
        },
        || c.queue.write_buffer(&b, 2, &[0; 4]),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::WriteUnaligned { offset: 0, size: 3 })
            )
        },
        || c.queue.write_buffer(&b, 0, &[0; 3]),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::WriteOverrun {
                    offset: 60,
                    end: 68,
                    ..
                })
            )
        },
        || c.queue.write_buffer(&b, 60, &[0; 8]),
    );
    let copy_error = |e: &ValidationError| match command_error(e) {
        Some(CommandError::Copy(copy)) => Some(copy.clone()),
        _ => None,
    };
    let unaligned = |field| move |e: Option<CopyError>| matches!(e, Some(CopyError::Unaligned { field: f, .. }) if f == field);
    type Expected = Box<dyn Fn(Option<CopyError>) -> bool>;
    let cases: [(u64, u64, u64, Expected); 4] = [
        (2, 0, 4, Box::new(unaligned(CopyField::SourceOffset))),
        (0, 6, 4, Box::new(unaligned(CopyField::DestinationOffset))),
        (0, 0, 6, Box::new(unaligned(CopyField::Size))),
        (
            32,
            0,
            64,
            Box::new(|e| {
                matches!(
                    e,
                    Some(CopyError::Overrun {
                        side: CopySide::Source,
                        offset: 32,
                        end: 96,
                        ..
                    })
                )
            }),
        ),
    ];
    for (so, dof, size, expected) in cases {
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&b, so, &o, dof, size);
        expect_validation(&c.device, |e| expected(copy_error(e)), || enc.finish());
    }
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&b, 0, &b, 32, 16);
    expect_validation(
        &c.device,
        |e| matches!(copy_error(e), Some(CopyError::SameBuffer { .. })),
        || enc.finish(),
    );
    let ro = readback_buffer(&c.device, 64);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&ro, 0, &o, 0, 16);
    expect_validation(
        &c.device,
        |e| matches!(copy_error(e), Some(CopyError::MissingCopySrc { .. })),
        || enc.finish(),
    );
}

#[test]
fn clear_buffer_respects_its_range_and_bounds() {
    let c = ctx();
    let words: Vec<u32> = (1..=64).collect();
    let b = storage_init(&c.device, &words);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.clear_buffer(&b, 16, Some(32));
    enc.clear_buffer(&b, 240, None);
    c.queue.submit([enc.finish()]);
    let mut want = words.clone();
    want[4..12].fill(0);
    want[60..].fill(0);
    assert_eq!(read_words(&c, &b), want);
    type Expected = fn(&ClearError) -> bool;
    let cases: [(u64, Option<u64>, Expected); 5] = [
        (2, Some(4), |e| {
            matches!(e, ClearError::UnalignedOffset { offset: 2 })
        }),
        (0, Some(6), |e| {
            matches!(e, ClearError::UnalignedSize { size: 6 })
        }),
        (128, Some(256), |e| {
            matches!(
                e,
                ClearError::Overrun {
                    offset: 128,
                    end: 384,
                    ..
                }
            )
        }),
        (
            u64::MAX - 3,
            Some(8),
            |e| matches!(e, ClearError::Overrun { end, .. } if *end == u64::MAX as u128 + 5),
        ),
        (512, None, |e| {
            matches!(e, ClearError::OffsetPastEnd { offset: 512, .. })
        }),
    ];
    for (off, size, expected) in cases {
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&b, off, size);
        expect_validation(
            &c.device,
            |e| matches!(command_error(e), Some(CommandError::Clear(clear)) if expected(clear)),
            || enc.finish(),
        );
    }
}

/// The copy_bytes/fill_u32 blit kernels over several workgroups with a
/// partial last one: exactly the range changes, neighbours keep their bytes.
#[test]
fn copies_and_clears_span_workgroups_exactly() {
    let c = ctx();
    let n = 1300usize; // words: 5 full workgroups of 256 and a partial one
    let src_words: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 7)
        .collect();
    let dst_words: Vec<u32> = (0..n as u32).map(|i| !i).collect();
    let src = storage_init(&c.device, &src_words);
    let dst = storage_init(&c.device, &dst_words);
    let (so, dof, words) = (12usize, 40usize, 1003usize);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&src, so as u64 * 4, &dst, dof as u64 * 4, words as u64 * 4);
    enc.clear_buffer(&src, 4 * 300, Some(4 * 517));
    c.queue.submit([enc.finish()]);
    let mut want_dst = dst_words.clone();
    want_dst[dof..dof + words].copy_from_slice(&src_words[so..so + words]);
    assert_eq!(read_words(&c, &dst), want_dst);
    let mut want_src = src_words.clone();
    want_src[300..817].fill(0);
    assert_eq!(read_words(&c, &src), want_src);
}

/// Copies and clears of every size from 4 to 68 bytes at source and
/// destination offsets of every 4-byte phase of the kernels' 16-byte
/// groups (whole groups, a partial group at either end, both, or one
/// partial group alone), all in one submission, each into its own range of
/// one buffer with no barrier between them: exactly the range changes.
#[test]
fn copies_and_clears_around_the_16_byte_groups_move_exactly_their_range() {
    let c = ctx();
    let words = 4096usize;
    let src_words: Vec<u32> = (0..words as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x55)
        .collect();
    let dst_words: Vec<u32> = (0..words as u32).map(|i| !i).collect();
    let src = storage_init(&c.device, &src_words);
    let dst = storage_init(&c.device, &dst_words);
    let mut want_dst = dst_words.clone();
    let mut want_src = src_words.clone();
    let mut enc = c.device.create_command_encoder(&Default::default());
    // Destination slots of 32 words; consecutive copies sit in neighbouring
    // slots, and a clear in the source's second half.
    let mut slot = 0usize;
    for len in 1..=17usize {
        for (src_phase, dst_phase) in [(0usize, 0usize), (1, 1), (0, 3), (2, 1), (3, 2)] {
            let so = 4 * (slot % 32) + src_phase;
            let dof = 32 * slot + dst_phase;
            enc.copy_buffer_to_buffer(&src, so as u64 * 4, &dst, dof as u64 * 4, len as u64 * 4);
            want_dst[dof..dof + len].copy_from_slice(&src_words[so..so + len]);
            let co = 2048 + 16 * slot + dst_phase;
            let clear_len = len.min(12);
            enc.clear_buffer(&src, co as u64 * 4, Some(clear_len as u64 * 4));
            want_src[co..co + clear_len].fill(0);
            slot += 1;
        }
    }
    assert!(32 * slot <= words && 2048 + 16 * slot <= words);
    c.queue.submit([enc.finish()]);
    assert_eq!(read_words(&c, &dst), want_dst);
    assert_eq!(read_words(&c, &src), want_src);
}

#[test]
fn write_buffer_is_ordered_with_submissions() {
    let c = ctx();
    let b = storage(&c.device, 16);
    let snap1 = storage(&c.device, 16);
    let snap2 = storage(&c.device, 16);
    c.queue
        .write_buffer(&b, 0, bytemuck::cast_slice(&[1u32, 2, 3, 4]));
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&b, 0, &snap1, 0, 16);
    c.queue.submit([enc.finish()]);
    c.queue
        .write_buffer(&b, 4, bytemuck::cast_slice(&[20u32, 30]));
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&b, 0, &snap2, 0, 16);
    c.queue.submit([enc.finish()]);
    assert_eq!(read_words(&c, &snap1), vec![1, 2, 3, 4]);
    assert_eq!(read_words(&c, &snap2), vec![1, 20, 30, 4]);
}

#[test]
fn many_writes_wrap_the_staging_ring() {
    let c = ctx();
    let chunk = 256 * 1024usize; // bytes
    let b = storage(&c.device, (chunk * 2) as u64);
    let mut last = Vec::new();
    for round in 0..20u32 {
        let words: Vec<u32> = (0..(chunk / 4) as u32)
            .map(|i| i ^ round.wrapping_mul(0x9e37_79b9))
            .collect();
        c.queue.write_buffer(
            &b,
            ((round % 2) as usize * chunk) as u64,
            bytemuck::cast_slice(&words),
        );
        if round % 4 == 3 {
            c.queue.submit([]);
        }
        last.push(words);
    }
    let got = read_words(&c, &b);
    assert_eq!(&got[..chunk / 4], &last[18][..]);
    assert_eq!(&got[chunk / 4..], &last[19][..]);
}

fn copy_pipeline(c: &Ctx) -> ComputePipeline {
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    auto_pipeline(&c.device, &module, "vector_copy")
}

#[test]
fn zero_and_over_limit_dispatches() {
    let c = ctx();
    let p = copy_pipeline(&c);
    let src = storage_init(&c.device, &[7; 64]);
    let dst = storage(&c.device, 256);
    let bg = bind_group(&c.device, &p, 0, &[&src, &dst]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &64u32.to_le_bytes());
        pass.dispatch_workgroups(0, 1, 1);
        pass.dispatch_workgroups(1, 0, 1);
    }
    let cb = enc.finish();
    assert_eq!(cb.debug_packets().len(), 1, "empty dispatches emit nothing");
    c.queue.submit([cb]);
    assert_eq!(read_words(&c, &dst), vec![0; 64]);
    let limit = c.device.limits().max_compute_workgroups_per_dimension;
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(limit + 1, 1, 1);
    }
    expect_validation(
        &c.device,
        |e| {
            matches!(
                dispatch_error(e),
                Some(DispatchError::InvalidGroupCount { current, limit: l })
                    if *current == [limit + 1, 1, 1] && *l == limit
            )
        },
        || enc.finish(),
    );
    // Within the per-dimension limit, past the grid max size (2^32 - 1
    // work-items): refused before anything reaches the GPU.
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(limit, limit, 2);
    }
    expect_validation(
        &c.device,
        |e| {
            matches!(
                dispatch_error(e),
                Some(DispatchError::GridTooLarge { counts, work_items, max, .. })
                    if *counts == [limit, limit, 2]
                        && *work_items == u128::from(limit) * u128::from(limit) * 2 * 64
                        && *max == u32::MAX
            )
        },
        || enc.finish(),
    );
}

/// Indirect dispatches at several offsets with the counts from the buffer;
/// a count of zero or above the limit discards the dispatch.
#[test]
fn indirect_dispatch_offsets_and_discards() {
    let c = ctx();
    let p = copy_pipeline(&c);
    let n = 512u32;
    let src = storage_init(&c.device, &(0..n).map(|i| i + 1).collect::<Vec<_>>());
    let limit = c.device.limits().max_compute_workgroups_per_dimension;
    let args = c.device.create_buffer(&BufferDescriptor {
        label: Some("args"),
        size: 64,
        usage: BufferUsages::INDIRECT | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    // (offset, x, y, z, expected words copied)
    // (limit, limit, 1) workgroups of 64 are within the per-dimension
    // limit but past the GPU's grid max size: discarded too.
    let cases: [(u64, u32, u32, u32, u32); 6] = [
        (0, 2, 1, 1, 128),
        (4, 8, 1, 1, 512),
        (20, 3, 1, 1, 192),
        (32, 0, 1, 1, 0),
        (36, limit, limit, 1, 0),
        (48, limit + 1, 1, 1, 0),
    ];
    for (off, x, y, z, expect) in cases {
        c.queue
            .write_buffer(&args, off, bytemuck::cast_slice(&[x, y, z]));
        let dst = storage(&c.device, n as u64 * 4);
        let bg = bind_group(&c.device, &p, 0, &[&src, &dst]);
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &bg, &[]);
            pass.set_immediates(0, &n.to_le_bytes());
            pass.dispatch_workgroups_indirect(&args, off);
        }
        c.queue.submit([enc.finish()]);
        let got = read_words(&c, &dst);
        let want: Vec<u32> = (0..n).map(|i| if i < expect { i + 1 } else { 0 }).collect();
        assert_eq!(got, want, "offset {off} counts ({x},{y},{z})");
    }
}

#[test]
fn indirect_dispatch_validation() {
    let c = ctx();
    let p = copy_pipeline(&c);
    let src = storage_init(&c.device, &[1; 16]);
    let dst = storage(&c.device, 64);
    let bg = bind_group(&c.device, &p, 0, &[&src, &dst]);
    let args = c.device.create_buffer(&BufferDescriptor {
        label: Some("args"),
        size: 16,
        usage: BufferUsages::INDIRECT,
        mapped_at_creation: false,
    });
    type Expected = fn(&DispatchError) -> bool;
    let cases: [(&Buffer, u64, Expected); 3] = [
        (&args, 8, |e| {
            matches!(e, DispatchError::IndirectOverrun { offset: 8, .. })
        }),
        (&args, 2, |e| {
            matches!(e, DispatchError::UnalignedIndirectOffset { offset: 2 })
        }),
        (&src, 0, |e| {
            matches!(e, DispatchError::MissingIndirectUsage { .. })
        }),
    ];
    for (buf, off, expected) in cases {
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups_indirect(buf, off);
        }
        expect_validation(
            &c.device,
            |e| dispatch_error(e).is_some_and(expected),
            || enc.finish(),
        );
    }
}

#[test]
fn missing_pipeline_or_bind_group_is_an_error() {
    let c = ctx();
    let p = copy_pipeline(&c);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.dispatch_workgroups(1, 1, 1);
    }
    expect_validation(
        &c.device,
        |e| matches!(dispatch_error(e), Some(DispatchError::NoPipeline)),
        || enc.finish(),
    );
    let src = storage_init(&c.device, &[1; 16]);
    let dst = storage(&c.device, 64);
    let bg = bind_group(&c.device, &p, 0, &[&src, &dst]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_bind_group(0, None, &[]); // reset
        pass.dispatch_workgroups(1, 1, 1);
    }
    expect_validation(
        &c.device,
        |e| {
            matches!(
                dispatch_error(e),
                Some(DispatchError::MissingBindGroup { index: 0, .. })
            )
        },
        || enc.finish(),
    );
}

#[test]
fn saxpy_with_a_float_immediate() {
    let c = ctx();
    let module = kernel_module(&c.device, "saxpy", [128, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "saxpy");
    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    let xb = storage_init(&c.device, bytemuck::cast_slice(&x));
    let yb = storage_init(&c.device, bytemuck::cast_slice(&y));
    let bg = bind_group(&c.device, &p, 0, &[&xb, &yb]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        // saxpy(float a, x, y, uint n): immediates a@0, n@4.
        pass.set_immediates(0, &2.5f32.to_le_bytes());
        pass.set_immediates(4, &n.to_le_bytes());
        pass.dispatch_workgroups(n.div_ceil(128), 1, 1);
    }
    c.queue.submit([enc.finish()]);
    let got: Vec<f32> = read_words(&c, &yb)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| 2.5 * a + b).collect();
    assert_eq!(got, want);
}

#[test]
fn matmul_tiled_uses_the_required_2d_workgroup() {
    let c = ctx();
    let module = kernel_module(&c.device, "matmul_tiled", [1, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "matmul_tiled");
    let (m, n, k) = (32u32, 48u32, 16u32);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.5).collect();
    let ab = storage_init(&c.device, bytemuck::cast_slice(&a));
    let bb = storage_init(&c.device, bytemuck::cast_slice(&b));
    let cbuf = storage(&c.device, (m * n * 4) as u64);
    let bg = bind_group(&c.device, &p, 0, &[&ab, &bb, &cbuf]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, bytemuck::cast_slice(&[m, n, k]));
        pass.dispatch_workgroups(n / 16, m / 16, 1);
    }
    let cb = enc.finish();
    assert_eq!(cb.debug_packets()[0].workgroup, [16, 16, 1]);
    c.queue.submit([cb]);
    let got: Vec<f32> = read_words(&c, &cbuf)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    for r in 0..m {
        for col in 0..n {
            let want: f32 = (0..k)
                .map(|i| a[(r * k + i) as usize] * b[(i * n + col) as usize])
                .sum();
            assert_eq!(got[(r * n + col) as usize], want, "C[{r}][{col}]");
        }
    }
}

#[test]
fn workgroup_memory_reduction_and_global_atomics() {
    let c = ctx();
    let reduce = auto_pipeline(
        &c.device,
        &kernel_module(&c.device, "reduce_lds", [256, 1, 1]),
        "reduce_lds",
    );
    let hist = auto_pipeline(
        &c.device,
        &kernel_module(&c.device, "histogram", [64, 1, 1]),
        "histogram",
    );
    let n = 1024u32;
    let data: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_246_822_519) >> 7).collect();
    let input = storage_init(&c.device, &data);
    let sums = storage(&c.device, 16);
    let bins = storage(&c.device, 256 * 4);
    let bg_r = bind_group(&c.device, &reduce, 0, &[&input, &sums]);
    let bg_h = bind_group(&c.device, &hist, 0, &[&input, &bins]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&reduce);
        pass.set_bind_group(0, &bg_r, &[]);
        pass.set_immediates(0, &n.to_le_bytes());
        pass.dispatch_workgroups(n / 256, 1, 1);
        pass.set_pipeline(&hist);
        pass.set_bind_group(0, &bg_h, &[]);
        pass.set_immediates(0, &(n * 4).to_le_bytes());
        pass.dispatch_workgroups((n * 4).div_ceil(64), 1, 1); // one work-item per byte
    }
    c.queue.submit([enc.finish()]);
    let want_sums: Vec<u32> = data
        .chunks(256)
        .map(|ch| ch.iter().fold(0u32, |a, &b| a.wrapping_add(b)))
        .collect();
    assert_eq!(read_words(&c, &sums), want_sums);
    let mut want_bins = vec![0u32; 256];
    for b in bytemuck::cast_slice::<u32, u8>(&data) {
        want_bins[*b as usize] += 1;
    }
    assert_eq!(read_words(&c, &bins), want_bins);
}
