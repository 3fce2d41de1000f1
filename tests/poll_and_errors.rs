//! Submission ordering, polling, callbacks, resource lifetimes and error
//! scopes, after wgpu's GPU tests `poll.rs` (WAIT, DOUBLE_WAIT,
//! WAIT_ON_SUBMISSION, WAIT_OUT_OF_ORDER, WAIT_AFTER_BAD_SUBMISSION),
//! `regression/issue_4024.rs` (QUEUE_SUBMITTED_CALLBACK_ORDERING),
//! `regression/issue_6317.rs` (NON_FATAL_ERRORS_IN_QUEUE_SUBMIT),
//! `compute_pass_ownership.rs` (RESOURCE_OWNERSHIP), `encoder.rs` and the
//! error-scope behaviour of `device.rs`.

use aqueduct_test_harness::facade::*;

use std::sync::{Arc, Mutex};

use aqueduct::*;

#[test]
fn wait_on_an_empty_queue_and_twice() {
    let c = ctx();
    assert!(matches!(
        c.device.poll(PollType::wait_indefinitely()),
        Ok(PollStatus::QueueEmpty)
    ));
    assert!(matches!(
        c.device.poll(PollType::wait_indefinitely()),
        Ok(PollStatus::QueueEmpty)
    ));
    assert!(matches!(
        c.device.poll(PollType::Poll),
        Ok(PollStatus::QueueEmpty)
    ));
}

#[test]
fn wait_on_submissions_in_and_out_of_order() {
    let c = ctx();
    let (cb1, _) = doubling_work(&c);
    let (cb2, d2) = doubling_work(&c);
    let i1 = c.queue.submit([cb1]);
    let i2 = c.queue.submit([cb2]);
    assert!(i2 > i1);
    c.device
        .poll(PollType::Wait {
            submission_index: Some(i2),
            timeout: None,
        })
        .unwrap();
    // i1 finished before i2; waiting on it again succeeds at once.
    c.device
        .poll(PollType::Wait {
            submission_index: Some(i1),
            timeout: None,
        })
        .unwrap();
    c.device
        .poll(PollType::Wait {
            submission_index: Some(i1),
            timeout: None,
        })
        .unwrap();
    assert_eq!(read_words(&c, &d2), vec![2, 4, 6, 8]);
}

#[test]
fn waiting_for_a_future_submission_is_an_error() {
    let c = ctx();
    let other = ctx();
    let idx = other.queue.submit([]);
    let idx = other.queue.submit([]).max(idx);
    let r = c.device.poll(PollType::Wait {
        submission_index: Some(idx),
        timeout: None,
    });
    assert!(
        matches!(r, Err(PollError::WrongSubmissionIndex(..))),
        "{r:?}"
    );
}

#[test]
fn map_callbacks_run_before_later_work_done_callbacks() {
    let c = ctx();
    let rb = readback_buffer(&c.device, 16);
    let order = map_then_work_done(&c, &rb);
    // Callbacks run only from poll (the default, as in wgpu).
    assert!(
        order.lock().unwrap().is_empty(),
        "a callback ran before any poll: {:?}",
        order.lock().unwrap()
    );
    c.device.poll(PollType::Poll).unwrap();
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    assert_eq!(*order.lock().unwrap(), vec!["map", "done"]);
    assert_eq!(
        bytemuck::cast_slice::<u8, u32>(&rb.get_mapped_range(..).unwrap()),
        &[2, 4, 6, 8]
    );
}

#[test]
fn errors_in_submit_do_not_kill_the_device() {
    let c = ctx();
    let b = storage(&c.device, 16);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.clear_buffer(&b, 3, None);
    let bad = expect_validation(
        &c.device,
        |e| {
            matches!(
                command_error(e),
                Some(CommandError::Clear(ClearError::UnalignedOffset {
                    offset: 3
                }))
            )
        },
        || enc.finish(),
    );
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::InvalidCommandBuffer { index: 0, source })
                    if matches!(**source, CommandError::Clear(_))
            )
        },
        || c.queue.submit([bad]),
    );
    let (good, dst) = doubling_work(&c);
    expect_valid(&c.device, || c.queue.submit([good]));
    assert_eq!(read_words(&c, &dst), vec![2, 4, 6, 8]);
}

#[test]
fn in_flight_work_keeps_dropped_resources_alive() {
    let c = ctx();
    let rb = readback_buffer(&c.device, 16);
    {
        let (cb, dst) = doubling_work(&c);
        let mut enc = c.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&dst, 0, &rb, 0, 16);
        let cb2 = enc.finish();
        c.queue.submit([cb, cb2]);
        // Pipeline, bind groups, module and buffers are all dropped here.
    }
    let bytes = aqueduct::util::read_mapped(&c.device, &rb).unwrap();
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&bytes), &[2, 4, 6, 8]);
}

#[test]
fn the_encoder_is_locked_while_a_pass_is_open() {
    let c = ctx();
    let a = storage(&c.device, 16);
    let b = storage(&c.device, 16);
    let mut enc = c.device.create_command_encoder(&Default::default());
    let pass = enc
        .begin_compute_pass(&Default::default())
        .forget_lifetime();
    enc.copy_buffer_to_buffer(&a, 0, &b, 0, 16);
    drop(pass);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                command_error(e),
                Some(CommandError::Locked {
                    command: "copy_buffer_to_buffer"
                })
            )
        },
        || enc.finish(),
    );
}

#[test]
fn error_scopes_nest_and_filter() {
    let c = ctx();
    let outer = c.device.push_error_scope(ErrorFilter::Validation);
    let inner = c.device.push_error_scope(ErrorFilter::OutOfMemory);
    let bad = || {
        c.device.create_buffer(&BufferDescriptor {
            label: Some("bad"),
            size: 4,
            usage: BufferUsages::empty(),
            mapped_at_creation: false,
        })
    };
    bad();
    assert!(
        inner.pop_now().is_none(),
        "an OOM scope does not catch validation errors"
    );
    bad(); // second error: the outer scope keeps the first
    let e = outer.pop_now().expect("validation error");
    assert!(matches!(e, Error::Validation { .. }));
    assert!(
        matches!(
            validation_source(&e),
            Some(ValidationError::Buffer(BufferError::EmptyUsage { .. }))
        ),
        "{e}"
    );
    // A scope opened on another thread does not see this thread's errors.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    c.device
        .on_uncaptured_error(Arc::new(move |e| s.lock().unwrap().push(e.to_string())));
    let dev = c.device.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let t = std::thread::spawn(move || {
        let scope = dev.push_error_scope(ErrorFilter::Validation);
        tx.send(()).unwrap();
        done_rx.recv().unwrap();
        scope.pop_now().is_none()
    });
    rx.recv().unwrap();
    bad();
    done_tx.send(()).unwrap();
    assert!(t.join().unwrap(), "the other thread's scope stayed empty");
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "the error went to the uncaptured handler"
    );
}

#[test]
fn adapter_info_and_device_limits() {
    let c = ctx();
    let info = c.adapter.get_info();
    assert!(info.name.contains(target()), "{}", info.name);
    assert!(info.name.contains("simulated"), "{}", info.name);
    assert!(
        info.driver_info.contains("simulated"),
        "{}",
        info.driver_info
    );
    assert_eq!(info.vendor, 0x1002);
    // gfx1100 runs compute in wave32; the GFX9 parts have wave64 only.
    let wave = if target().starts_with("gfx9") { 64 } else { 32 };
    assert_eq!(info.subgroup_min_size, wave);
    let limits = c.adapter.limits();
    assert_eq!(limits.max_compute_invocations_per_workgroup, 1024);
    assert!(limits.max_compute_workgroup_storage_size >= 65536);
    // Asking for more than the adapter has fails with the limit's name.
    let mut too_much = limits.clone();
    too_much.max_compute_invocations_per_workgroup = 4096;
    let err = c
        .adapter
        .request_device_sync(&DeviceDescriptor {
            required_limits: too_much,
            ..Default::default()
        })
        .expect_err("over-limit request fails");
    match &err {
        RequestDeviceError::LimitsExceeded { failures } => assert_eq!(
            failures,
            &[LimitFailure {
                name: "max_compute_invocations_per_workgroup",
                requested: 4096,
                allowed: 1024,
            }]
        ),
        other => panic!("{other}"),
    }
    let err = c
        .adapter
        .request_device_sync(&DeviceDescriptor {
            required_features: Features::TEXTURE_BINDING_ARRAY,
            ..Default::default()
        })
        .expect_err("missing feature fails");
    assert!(
        matches!(
            err,
            RequestDeviceError::UnsupportedFeatures { missing, .. } if missing == Features::TEXTURE_BINDING_ARRAY
        ),
        "{err}"
    );
    // Experimental features need the descriptor's opt-in, as on wgpu-core.
    let err = c
        .adapter
        .request_device_sync(&DeviceDescriptor {
            required_features: Features::EXPERIMENTAL_COOPERATIVE_MATRIX | Features::SHADER_F16,
            ..Default::default()
        })
        .expect_err("experimental features without the opt-in fail");
    assert!(
        matches!(
            err,
            RequestDeviceError::ExperimentalFeaturesNotEnabled { requested }
                if requested == Features::EXPERIMENTAL_COOPERATIVE_MATRIX
        ),
        "{err}"
    );
    let opted_in = ctx_with(|_| DeviceDescriptor {
        required_features: Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        experimental_features: experimental_features(),
        ..Default::default()
    });
    assert_eq!(
        opted_in.device.features(),
        Features::EXPERIMENTAL_COOPERATIVE_MATRIX
    );
    // The device gets exactly what it asked for.
    let d = ctx_with(|_| DeviceDescriptor::default());
    assert_eq!(d.device.limits(), Limits::default());
    assert_eq!(d.device.features(), Features::empty());
    assert!(c.instance.request_adapter_by_uri("amdgpu:0").is_ok());
    assert!(matches!(
        c.instance.request_adapter_by_uri("amdgpu:7"),
        Err(aqueduct::instance::InstanceError::Runtime(_))
    ));
    assert!(matches!(
        c.instance.request_adapter_by_uri("cuda:0"),
        Err(aqueduct::instance::InstanceError::BadUri { uri }) if uri == "cuda:0"
    ));
}

/// `Instance::poll_all` polls every device of the instance: with
/// `force_wait` it waits for all their work, runs their callbacks, and
/// reports empty queues; dropped devices are skipped.
#[test]
fn poll_all_drives_every_device_of_the_instance() {
    let c = ctx();
    assert!(c.instance.poll_all(false), "nothing submitted yet");
    let (device2, queue2) =
        block_on(c.adapter.request_device(&Default::default())).expect("device");
    let (dropped, _dropped_queue) =
        block_on(c.adapter.request_device(&Default::default())).expect("device");
    drop(dropped);
    let done = Arc::new(Mutex::new(Vec::new()));
    let (cb, dst) = doubling_work(&c);
    c.queue.submit([cb]);
    let rb = readback_buffer(&c.device, 16);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&dst, 0, &rb, 0, 16);
    c.queue.submit([enc.finish()]);
    let d = done.clone();
    rb.slice(..).map_async(MapMode::Read, move |r| {
        r.expect("map");
        d.lock().unwrap().push("map");
    });
    let other = storage_init(&device2, &[5, 6, 7, 8]);
    let mut enc = device2.create_command_encoder(&Default::default());
    enc.clear_buffer(&other, 4, Some(8));
    queue2.submit([enc.finish()]);
    let d = done.clone();
    queue2.on_submitted_work_done(move || d.lock().unwrap().push("device2 done"));
    assert!(
        done.lock().unwrap().is_empty(),
        "callbacks run only from poll"
    );
    assert!(c.instance.poll_all(true));
    let mut got = done.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, vec!["device2 done", "map"]);
    assert_eq!(
        bytemuck::cast_slice::<u8, u32>(&rb.slice(..).get_mapped_range().expect("mapped")),
        &[2, 4, 6, 8]
    );
    rb.unmap();
    assert!(c.instance.poll_all(false));
    assert!(matches!(
        device2.poll(PollType::Poll),
        Ok(PollStatus::QueueEmpty)
    ));
}
