//! Objects of one device used on another device of the same adapter: each
//! use is a validation error naming both devices, as wgpu's device-mismatch
//! check makes it, and nothing of the other device's memory is touched.

use aqueduct_test_harness::facade::*;

use aqueduct::*;

/// Two devices of one adapter (the second with its own queue).
fn two_devices() -> (Ctx, Device, Queue) {
    let a = ctx();
    let (device, queue) = block_on(a.adapter.request_device(&DeviceDescriptor {
        required_features: a.adapter.features(),
        experimental_features: experimental_features(),
        required_limits: a.adapter.limits(),
        ..Default::default()
    }))
    .expect("second device");
    device.on_uncaptured_error(std::sync::Arc::new(|e| panic!("uncaptured error: {e}")));
    (a, device, queue)
}

fn is_mismatch(e: &DeviceMismatch, kind: ObjectKind) -> bool {
    e.kind == kind && e.object_device != e.device
}

fn foreign_buffer(e: &UnusableBuffer) -> bool {
    matches!(e, UnusableBuffer::WrongDevice { source, .. } if is_mismatch(source, ObjectKind::Buffer))
}

#[test]
fn buffers_of_another_device_are_refused_everywhere() {
    let (a, b, b_queue) = two_devices();
    let module = kernel_module(&a.device, "vector_copy", [64, 1, 1]);
    let pipeline = auto_pipeline(&a.device, &module, "vector_copy");
    let mine = storage_init(&a.device, &[1, 2, 3, 4]);
    let theirs = storage_init(&b, &[9, 9, 9, 9]);

    // A bind group of A naming B's buffer.
    expect_validation(
        &a.device,
        |e| matches!(e, ValidationError::BindGroup(BindGroupError::Unusable { source, .. }) if foreign_buffer(source)),
        || bind_group(&a.device, &pipeline, 0, &[&mine, &theirs]),
    );

    // A copy in A's encoder.
    let mut enc = a.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&mine, 0, &theirs, 0, 16);
    expect_validation(
        &a.device,
        |e| matches!(command_error(e), Some(CommandError::Copy(CopyError::Unusable(u))) if foreign_buffer(u)),
        || enc.finish(),
    );

    // A clear in A's encoder.
    let mut enc = a.device.create_command_encoder(&Default::default());
    enc.clear_buffer(&theirs, 0, None);
    expect_validation(
        &a.device,
        |e| matches!(command_error(e), Some(CommandError::Clear(ClearError::Unusable(u))) if foreign_buffer(u)),
        || enc.finish(),
    );

    // An upload through A's queue.
    expect_validation(
        &a.device,
        |e| matches!(e, ValidationError::Queue(QueueError::WriteUnusable(u)) if foreign_buffer(u)),
        || a.queue.write_buffer(&theirs, 0, &[7; 16]),
    );

    // B's buffer is untouched by all of it.
    b_queue.submit([]);
    let b_ctx = Ctx {
        instance: a.instance.clone(),
        adapter: a.adapter.clone(),
        device: b.clone(),
        queue: b_queue.clone(),
    };
    assert_eq!(read_words(&b_ctx, &theirs), vec![9, 9, 9, 9]);
}

#[test]
fn pipelines_bind_groups_layouts_and_modules_of_another_device_are_refused() {
    let (a, b, _b_queue) = two_devices();
    let b_module = kernel_module(&b, "vector_copy", [64, 1, 1]);
    let b_pipeline = auto_pipeline(&b, &b_module, "vector_copy");
    let b_src = storage_init(&b, &[1, 2]);
    let b_dst = storage(&b, 8);
    let b_group = bind_group(&b, &b_pipeline, 0, &[&b_src, &b_dst]);

    // B's module in A's pipeline.
    expect_validation(
        &a.device,
        |e| matches!(e, ValidationError::Pipeline(ComputePipelineError::WrongDevice(m)) if is_mismatch(m, ObjectKind::ShaderModule)),
        || auto_pipeline(&a.device, &b_module, "vector_copy"),
    );

    // B's bind group layout in A's pipeline layout and bind group.
    let b_layout = b_pipeline.get_bind_group_layout(0);
    expect_validation(
        &a.device,
        |e| matches!(e, ValidationError::PipelineLayout(PipelineLayoutError::WrongDevice(m)) if is_mismatch(m, ObjectKind::BindGroupLayout)),
        || {
            a.device.create_pipeline_layout(&PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &[Some(&b_layout)],
                immediate_size: 0,
            })
        },
    );
    let a_src = storage_init(&a.device, &[1, 2]);
    let a_dst = storage(&a.device, 8);
    expect_validation(
        &a.device,
        |e| matches!(e, ValidationError::BindGroup(BindGroupError::WrongDevice(m)) if is_mismatch(m, ObjectKind::BindGroupLayout)),
        || {
            a.device.create_bind_group(&BindGroupDescriptor {
                label: None,
                layout: &b_layout,
                entries: &[
                    BindGroupEntry {
                        binding: 0,
                        resource: a_src.as_entire_binding(),
                    },
                    BindGroupEntry {
                        binding: 1,
                        resource: a_dst.as_entire_binding(),
                    },
                ],
            })
        },
    );

    // B's pipeline, then B's bind group, in A's pass.
    let mut enc = a.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&b_pipeline);
    }
    expect_validation(
        &a.device,
        |e| matches!(pass_error(e), Some(PassError::WrongDevice(m)) if is_mismatch(m, ObjectKind::ComputePipeline)),
        || enc.finish(),
    );
    let module = kernel_module(&a.device, "vector_copy", [64, 1, 1]);
    let pipeline = auto_pipeline(&a.device, &module, "vector_copy");
    let mut enc = a.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &b_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    expect_validation(
        &a.device,
        |e| matches!(pass_error(e), Some(PassError::WrongDevice(m)) if is_mismatch(m, ObjectKind::BindGroup)),
        || enc.finish(),
    );

    // A command buffer of B submitted on A's queue.
    let b_cb = b.create_command_encoder(&Default::default()).finish();
    expect_validation(
        &a.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::ForeignCommandBuffer { index: 0 })
            )
        },
        || a.queue.submit([b_cb]),
    );
}

#[test]
fn query_sets_of_another_device_are_refused() {
    let (a, b, _b_queue) = two_devices();
    let b_queries = b.create_query_set(&QuerySetDescriptor {
        label: Some("b timestamps"),
        ty: QueryType::Timestamp,
        count: 2,
    });
    let mut enc = a.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&b_queries, 0);
    expect_validation(
        &a.device,
        |e| {
            matches!(
                command_error(e),
                Some(CommandError::WriteTimestamp(TimestampError::Query(QueryUseError::WrongDevice(m))))
                    if m.kind == ObjectKind::QuerySet && m.label.as_deref() == Some("b timestamps")
            )
        },
        || enc.finish(),
    );
}
