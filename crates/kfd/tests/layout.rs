//! Layouts of every UAPI and hardware-ABI struct: size, alignment and the
//! offset of every field, against the numbers of kfd_ioctl.h 1.17 (ROCR
//! c7785a6), hsa.h, amd_hsa_queue.h, amd_hsa_signal.h, hsakmttypes.h and
//! LLVM's AMDHSAKernelDescriptor.h.
//!
//! Each check also sums the sizes of the listed fields and compares the sum
//! with the struct size: the structs are `Pod` (no padding), so a field
//! missing from a list fails the test.
//!
//! Where gcc and the system's `<linux/kfd_ioctl.h>` exist, the last test
//! compiles a C program against that header and compares the fields the
//! (older) header has with ours.

use std::mem::{align_of, offset_of, size_of};

use aqueduct_kfd::abi::*;
use aqueduct_kfd::uapi::*;
use bytemuck::Zeroable;

macro_rules! assert_layout {
    ($ty:ty, size $size:expr, align $align:expr, { $($field:ident : $off:expr),* $(,)? }) => {{
        let name = stringify!($ty);
        assert_eq!(size_of::<$ty>(), $size, "size of {name}");
        assert_eq!(align_of::<$ty>(), $align, "alignment of {name}");
        let zero = <$ty>::zeroed();
        let mut listed = 0usize;
        $(
            assert_eq!(offset_of!($ty, $field), $off, "{name}.{}", stringify!($field));
            listed += std::mem::size_of_val(&zero.$field);
        )*
        assert_eq!(listed, $size, "{name}: the listed fields do not cover the struct");
    }};
}

#[test]
fn kfd_uapi_structs() {
    assert_layout!(GetVersionArgs, size 8, align 4, { major_version: 0, minor_version: 4 });
    assert_layout!(CreateQueueArgs, size 96, align 8, {
        ring_base_address: 0, write_pointer_address: 8, read_pointer_address: 16,
        doorbell_offset: 24, ring_size: 32, gpu_id: 36, queue_type: 40,
        queue_percentage: 44, queue_priority: 48, queue_id: 52, eop_buffer_address: 56,
        eop_buffer_size: 64, ctx_save_restore_address: 72, ctx_save_restore_size: 80,
        ctl_stack_size: 84, sdma_engine_id: 88, pad: 92,
    });
    assert_layout!(DestroyQueueArgs, size 8, align 4, { queue_id: 0, pad: 4 });
    assert_layout!(UpdateQueueArgs, size 24, align 8, {
        ring_base_address: 0, queue_id: 8, ring_size: 12, queue_percentage: 16,
        queue_priority: 20,
    });
    assert_layout!(SetMemoryPolicyArgs, size 32, align 8, {
        alternate_aperture_base: 0, alternate_aperture_size: 8, gpu_id: 16,
        default_policy: 20, alternate_policy: 24, pad: 28,
    });
    assert_layout!(GetClockCountersArgs, size 40, align 8, {
        gpu_clock_counter: 0, cpu_clock_counter: 8, system_clock_counter: 16,
        system_clock_freq: 24, gpu_id: 32, pad: 36,
    });
    assert_layout!(ProcessDeviceApertures, size 56, align 8, {
        lds_base: 0, lds_limit: 8, scratch_base: 16, scratch_limit: 24, gpuvm_base: 32,
        gpuvm_limit: 40, gpu_id: 48, pad: 52,
    });
    assert_layout!(GetProcessAperturesNewArgs, size 16, align 8, {
        kfd_process_device_apertures_ptr: 0, num_of_nodes: 8, pad: 12,
    });
    assert_layout!(AcquireVmArgs, size 8, align 4, { drm_fd: 0, gpu_id: 4 });
    assert_layout!(AllocMemoryOfGpuArgs, size 40, align 8, {
        va_addr: 0, size: 8, handle: 16, mmap_offset: 24, gpu_id: 32, flags: 36,
    });
    assert_layout!(FreeMemoryOfGpuArgs, size 8, align 8, { handle: 0 });
    assert_layout!(MapMemoryToGpuArgs, size 24, align 8, {
        handle: 0, device_ids_array_ptr: 8, n_devices: 16, n_success: 20,
    });
    assert_layout!(UnmapMemoryFromGpuArgs, size 24, align 8, {
        handle: 0, device_ids_array_ptr: 8, n_devices: 16, n_success: 20,
    });
    assert_layout!(CreateEventArgs, size 32, align 8, {
        event_page_offset: 0, event_trigger_data: 8, event_type: 12, auto_reset: 16,
        node_id: 20, event_id: 24, event_slot_index: 28,
    });
    assert_layout!(EventIdArgs, size 8, align 4, { event_id: 0, pad: 4 });
    assert_layout!(MemoryExceptionFailure, size 16, align 4, {
        not_present: 0, read_only: 4, no_execute: 8, imprecise: 12,
    });
    assert_layout!(MemoryExceptionData, size 32, align 8, {
        failure: 0, va: 16, gpu_id: 24, error_type: 28,
    });
    assert_layout!(HwExceptionData, size 16, align 4, {
        reset_type: 0, reset_cause: 4, memory_lost: 8, gpu_id: 12,
    });
    assert_layout!(KfdEventData, size 48, align 8, {
        payload: 0, kfd_event_data_ext: 32, event_id: 40, pad: 44,
    });
    assert_layout!(WaitEventsArgs, size 24, align 8, {
        events_ptr: 0, num_events: 8, wait_for_all: 12, timeout_ms: 16, wait_result: 20,
    });
    assert_layout!(RuntimeEnableArgs, size 16, align 8, {
        r_debug: 0, mode_mask: 8, capabilities_mask: 12,
    });
    // hsakmttypes.h HsaUserContextSaveAreaHeader.
    assert_layout!(UserContextSaveAreaHeader, size 40, align 8, {
        control_stack_offset: 0, control_stack_size: 4, wave_state_offset: 8,
        wave_state_size: 12, debug_offset: 16, debug_size: 20, error_reason: 24,
        error_event_id: 32, reserved1: 36,
    });
}

#[test]
fn event_data_union_views_alias_the_payload() {
    let mut data = KfdEventData::for_event(7);
    let mem = MemoryExceptionData {
        failure: MemoryExceptionFailure {
            not_present: 1,
            read_only: 0,
            no_execute: 0,
            imprecise: 1,
        },
        va: 0x7fff_0000_1000,
        gpu_id: 0xbeef,
        error_type: 2,
    };
    data.set_memory_exception(mem);
    let bytes = bytemuck::bytes_of(&data);
    assert_eq!(
        &bytes[16..24],
        &0x7fff_0000_1000u64.to_le_bytes(),
        "va at union offset 16"
    );
    assert_eq!(
        &bytes[24..28],
        &0xbeefu32.to_le_bytes(),
        "gpu_id at union offset 24"
    );
    assert_eq!(
        &bytes[40..44],
        &7u32.to_le_bytes(),
        "event_id after the union"
    );
    assert_eq!(data.memory_exception(), mem);

    let hw = HwExceptionData {
        reset_type: 1,
        reset_cause: 1,
        memory_lost: 0,
        gpu_id: 42,
    };
    data.set_hw_exception(hw);
    assert_eq!(data.hw_exception(), hw);
    assert_eq!(&bytemuck::bytes_of(&data)[12..16], &42u32.to_le_bytes());
    data.set_last_event_age(99);
    assert_eq!(&bytemuck::bytes_of(&data)[0..8], &99u64.to_le_bytes());
}

#[test]
fn aql_packets() {
    assert_layout!(KernelDispatchPacket, size 64, align 8, {
        header: 0, setup: 2, workgroup_size_x: 4, workgroup_size_y: 6, workgroup_size_z: 8,
        reserved0: 10, grid_size_x: 12, grid_size_y: 16, grid_size_z: 20,
        private_segment_size: 24, group_segment_size: 28, kernel_object: 32,
        kernarg_address: 40, reserved2: 48, completion_signal: 56,
    });
    assert_layout!(BarrierPacket, size 64, align 8, {
        header: 0, reserved0: 2, reserved1: 4, dep_signal: 8, reserved2: 48,
        completion_signal: 56,
    });
    assert_layout!(AgentDispatchPacket, size 64, align 8, {
        header: 0, dispatch_type: 2, reserved0: 4, return_address: 8, arg: 16,
        reserved2: 48, completion_signal: 56,
    });
    assert_eq!(size_of::<RawPacket>(), AQL_PACKET_SIZE);
    assert_eq!(align_of::<RawPacket>(), 64);
}

#[test]
fn amd_queue() {
    assert_layout!(AmdQueue, size 256, align 64, {
        queue_type: 0, features: 4, base_address: 8, doorbell_signal: 16, size: 24,
        reserved1: 28, id: 32, caps: 40, reserved2: 44, write_dispatch_id: 56,
        group_segment_aperture_base_hi: 64, private_segment_aperture_base_hi: 68,
        max_cu_id: 72, max_wave_id: 76, max_legacy_doorbell_dispatch_id_plus_1: 80,
        legacy_doorbell_lock: 88, reserved3: 92, read_dispatch_id: 128,
        read_dispatch_id_field_base_byte_offset: 136, compute_tmpring_size: 140,
        scratch_resource_descriptor: 144, scratch_backing_memory_location: 160,
        scratch_backing_memory_byte_size: 168, scratch_wave64_lane_byte_size: 176,
        queue_properties: 180, scratch_last_used_index: 184, queue_inactive_signal: 192,
        reserved4: 200, alt_scratch_last_used_index: 208,
        alt_scratch_backing_memory_location: 216, alt_scratch_backing_memory_byte_size: 224,
        alt_scratch_dispatch_limit_x: 232, alt_scratch_dispatch_limit_y: 236,
        alt_scratch_dispatch_limit_z: 240, alt_scratch_wave64_lane_byte_size: 244,
        alt_compute_tmpring_size: 248, reserved5: 252,
    });
    assert_eq!(
        offset_of!(AmdQueue, write_dispatch_id),
        AMD_QUEUE_WRITE_DISPATCH_ID_OFFSET
    );
    assert_eq!(
        offset_of!(AmdQueue, read_dispatch_id),
        AMD_QUEUE_READ_DISPATCH_ID_OFFSET
    );
    assert_eq!(
        offset_of!(AmdQueue, queue_properties),
        AMD_QUEUE_PROPERTIES_OFFSET
    );
}

#[test]
fn amd_signal() {
    assert_layout!(AmdSignal, size 64, align 64, {
        kind: 0, value: 8, event_mailbox_ptr: 16, event_id: 24, reserved1: 28, start_ts: 32,
        end_ts: 40, queue_ptr: 48, reserved3: 56,
    });
    assert_eq!(offset_of!(AmdSignal, value), AMD_SIGNAL_VALUE_OFFSET);
    assert_eq!(
        offset_of!(AmdSignal, event_mailbox_ptr),
        AMD_SIGNAL_EVENT_MAILBOX_OFFSET
    );
    assert_eq!(offset_of!(AmdSignal, event_id), AMD_SIGNAL_EVENT_ID_OFFSET);
    assert_eq!(offset_of!(AmdSignal, start_ts), AMD_SIGNAL_START_TS_OFFSET);
    assert_eq!(offset_of!(AmdSignal, end_ts), AMD_SIGNAL_END_TS_OFFSET);
}

#[test]
fn kernel_descriptor() {
    assert_layout!(KernelDescriptor, size 64, align 64, {
        group_segment_fixed_size: 0, private_segment_fixed_size: 4, kernarg_size: 8,
        reserved0: 12, kernel_code_entry_byte_offset: 16, reserved1: 24,
        compute_pgm_rsrc3: 44, compute_pgm_rsrc1: 48, compute_pgm_rsrc2: 52,
        kernel_code_properties: 56, kernarg_preload: 58, reserved3: 60,
    });
    assert_eq!(KernelDescriptor::SIZE, 64);
}

// ---------------------------------------------------------------------------
// Cross-check against the system header with a C compiler.

/// One C struct of `<linux/kfd_ioctl.h>`: its name, the size it must have
/// there, and (C member designator, our offset) pairs for the members that
/// header has.
struct CStruct {
    name: &'static str,
    size: usize,
    fields: Vec<(&'static str, usize)>,
}

impl CStruct {
    /// For a struct that the older header has in a shorter form.
    fn with_size(self, size: usize) -> Self {
        Self { size, ..self }
    }
}

macro_rules! c_struct {
    ($c:literal, $ty:ty, { $($cfield:literal => $field:ident),* $(,)? }) => {
        CStruct {
            name: $c,
            size: size_of::<$ty>(),
            fields: vec![$(($cfield, offset_of!($ty, $field))),*],
        }
    };
}

fn system_header_structs() -> Vec<CStruct> {
    vec![
        c_struct!("kfd_ioctl_get_version_args", GetVersionArgs, {
            "major_version" => major_version, "minor_version" => minor_version,
        }),
        // 1.11 has no sdma_engine_id/pad: its size is our sdma_engine_id offset.
        c_struct!("kfd_ioctl_create_queue_args", CreateQueueArgs, {
            "ring_base_address" => ring_base_address,
            "write_pointer_address" => write_pointer_address,
            "read_pointer_address" => read_pointer_address,
            "doorbell_offset" => doorbell_offset, "ring_size" => ring_size,
            "gpu_id" => gpu_id, "queue_type" => queue_type,
            "queue_percentage" => queue_percentage, "queue_priority" => queue_priority,
            "queue_id" => queue_id, "eop_buffer_address" => eop_buffer_address,
            "eop_buffer_size" => eop_buffer_size,
            "ctx_save_restore_address" => ctx_save_restore_address,
            "ctx_save_restore_size" => ctx_save_restore_size,
            "ctl_stack_size" => ctl_stack_size,
        })
        .with_size(offset_of!(CreateQueueArgs, sdma_engine_id)),
        c_struct!("kfd_ioctl_destroy_queue_args", DestroyQueueArgs, {
            "queue_id" => queue_id, "pad" => pad,
        }),
        c_struct!("kfd_ioctl_update_queue_args", UpdateQueueArgs, {
            "ring_base_address" => ring_base_address, "queue_id" => queue_id,
            "ring_size" => ring_size, "queue_percentage" => queue_percentage,
            "queue_priority" => queue_priority,
        }),
        c_struct!("kfd_ioctl_set_memory_policy_args", SetMemoryPolicyArgs, {
            "alternate_aperture_base" => alternate_aperture_base,
            "alternate_aperture_size" => alternate_aperture_size, "gpu_id" => gpu_id,
            "default_policy" => default_policy, "alternate_policy" => alternate_policy,
            "pad" => pad,
        }),
        c_struct!("kfd_ioctl_get_clock_counters_args", GetClockCountersArgs, {
            "gpu_clock_counter" => gpu_clock_counter,
            "cpu_clock_counter" => cpu_clock_counter,
            "system_clock_counter" => system_clock_counter,
            "system_clock_freq" => system_clock_freq, "gpu_id" => gpu_id, "pad" => pad,
        }),
        c_struct!("kfd_process_device_apertures", ProcessDeviceApertures, {
            "lds_base" => lds_base, "lds_limit" => lds_limit, "scratch_base" => scratch_base,
            "scratch_limit" => scratch_limit, "gpuvm_base" => gpuvm_base,
            "gpuvm_limit" => gpuvm_limit, "gpu_id" => gpu_id, "pad" => pad,
        }),
        c_struct!("kfd_ioctl_get_process_apertures_new_args", GetProcessAperturesNewArgs, {
            "kfd_process_device_apertures_ptr" => kfd_process_device_apertures_ptr,
            "num_of_nodes" => num_of_nodes, "pad" => pad,
        }),
        c_struct!("kfd_ioctl_acquire_vm_args", AcquireVmArgs, {
            "drm_fd" => drm_fd, "gpu_id" => gpu_id,
        }),
        c_struct!("kfd_ioctl_alloc_memory_of_gpu_args", AllocMemoryOfGpuArgs, {
            "va_addr" => va_addr, "size" => size, "handle" => handle,
            "mmap_offset" => mmap_offset, "gpu_id" => gpu_id, "flags" => flags,
        }),
        c_struct!("kfd_ioctl_free_memory_of_gpu_args", FreeMemoryOfGpuArgs, {
            "handle" => handle,
        }),
        c_struct!("kfd_ioctl_map_memory_to_gpu_args", MapMemoryToGpuArgs, {
            "handle" => handle, "device_ids_array_ptr" => device_ids_array_ptr,
            "n_devices" => n_devices, "n_success" => n_success,
        }),
        c_struct!("kfd_ioctl_unmap_memory_from_gpu_args", UnmapMemoryFromGpuArgs, {
            "handle" => handle, "device_ids_array_ptr" => device_ids_array_ptr,
            "n_devices" => n_devices, "n_success" => n_success,
        }),
        c_struct!("kfd_ioctl_create_event_args", CreateEventArgs, {
            "event_page_offset" => event_page_offset, "event_trigger_data" => event_trigger_data,
            "event_type" => event_type, "auto_reset" => auto_reset, "node_id" => node_id,
            "event_id" => event_id, "event_slot_index" => event_slot_index,
        }),
        c_struct!("kfd_ioctl_destroy_event_args", DestroyEventArgs, {
            "event_id" => event_id, "pad" => pad,
        }),
        c_struct!("kfd_ioctl_set_event_args", SetEventArgs, {
            "event_id" => event_id, "pad" => pad,
        }),
        c_struct!("kfd_ioctl_reset_event_args", ResetEventArgs, {
            "event_id" => event_id, "pad" => pad,
        }),
        c_struct!("kfd_memory_exception_failure", MemoryExceptionFailure, {
            "NotPresent" => not_present, "ReadOnly" => read_only, "NoExecute" => no_execute,
            "imprecise" => imprecise,
        }),
        c_struct!("kfd_hsa_memory_exception_data", MemoryExceptionData, {
            "failure" => failure, "va" => va, "gpu_id" => gpu_id, "ErrorType" => error_type,
        }),
        c_struct!("kfd_hsa_hw_exception_data", HwExceptionData, {
            "reset_type" => reset_type, "reset_cause" => reset_cause,
            "memory_lost" => memory_lost, "gpu_id" => gpu_id,
        }),
        c_struct!("kfd_event_data", KfdEventData, {
            "memory_exception_data" => payload, "hw_exception_data" => payload,
            "kfd_event_data_ext" => kfd_event_data_ext, "event_id" => event_id, "pad" => pad,
        }),
        c_struct!("kfd_ioctl_wait_events_args", WaitEventsArgs, {
            "events_ptr" => events_ptr, "num_events" => num_events,
            "wait_for_all" => wait_for_all, "timeout" => timeout_ms,
            "wait_result" => wait_result,
        }),
    ]
}

/// Request numbers of the 1.11 header, with our value for each (CREATE_QUEUE
/// computed from the 88-byte struct that header has).
fn system_header_ioctls() -> Vec<(&'static str, u32)> {
    use aqueduct_kfd::ioctl::*;
    vec![
        ("AMDKFD_IOC_GET_VERSION", AMDKFD_IOC_GET_VERSION),
        (
            "AMDKFD_IOC_CREATE_QUEUE",
            ioc(
                IOC_READ | IOC_WRITE,
                b'K',
                0x02,
                offset_of!(CreateQueueArgs, sdma_engine_id),
            ),
        ),
        ("AMDKFD_IOC_DESTROY_QUEUE", AMDKFD_IOC_DESTROY_QUEUE),
        ("AMDKFD_IOC_SET_MEMORY_POLICY", AMDKFD_IOC_SET_MEMORY_POLICY),
        (
            "AMDKFD_IOC_GET_CLOCK_COUNTERS",
            AMDKFD_IOC_GET_CLOCK_COUNTERS,
        ),
        ("AMDKFD_IOC_UPDATE_QUEUE", AMDKFD_IOC_UPDATE_QUEUE),
        ("AMDKFD_IOC_CREATE_EVENT", AMDKFD_IOC_CREATE_EVENT),
        ("AMDKFD_IOC_DESTROY_EVENT", AMDKFD_IOC_DESTROY_EVENT),
        ("AMDKFD_IOC_SET_EVENT", AMDKFD_IOC_SET_EVENT),
        ("AMDKFD_IOC_RESET_EVENT", AMDKFD_IOC_RESET_EVENT),
        ("AMDKFD_IOC_WAIT_EVENTS", AMDKFD_IOC_WAIT_EVENTS),
        (
            "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW",
            AMDKFD_IOC_GET_PROCESS_APERTURES_NEW,
        ),
        ("AMDKFD_IOC_ACQUIRE_VM", AMDKFD_IOC_ACQUIRE_VM),
        (
            "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU",
            AMDKFD_IOC_ALLOC_MEMORY_OF_GPU,
        ),
        (
            "AMDKFD_IOC_FREE_MEMORY_OF_GPU",
            AMDKFD_IOC_FREE_MEMORY_OF_GPU,
        ),
        ("AMDKFD_IOC_MAP_MEMORY_TO_GPU", AMDKFD_IOC_MAP_MEMORY_TO_GPU),
        (
            "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU",
            AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU,
        ),
    ]
}

#[test]
fn matches_system_kfd_ioctl_header() {
    use std::fmt::Write;
    use std::process::Command;

    let header = std::path::Path::new("/usr/include/linux/kfd_ioctl.h");
    if !header.exists() {
        eprintln!(
            "note: {} absent; C layout cross-check skipped",
            header.display()
        );
        return;
    }
    let gcc_works = Command::new("gcc")
        .arg("--version")
        .output()
        .map(|o| o.status.success());
    if !matches!(gcc_works, Ok(true)) {
        eprintln!("note: gcc not available; C layout cross-check skipped");
        return;
    }

    let structs = system_header_structs();
    let ioctls = system_header_ioctls();
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <linux/kfd_ioctl.h>\nint main(void) {\n",
    );
    for s in &structs {
        writeln!(c, "  printf(\"{0} %zu\\n\", sizeof(struct {0}));", s.name).unwrap();
        for (field, _) in &s.fields {
            writeln!(
                c,
                "  printf(\"{0}.{1} %zu\\n\", offsetof(struct {0}, {1}));",
                s.name, field
            )
            .unwrap();
        }
    }
    for (name, _) in &ioctls {
        writeln!(c, "  printf(\"{name} %lu\\n\", (unsigned long){name});").unwrap();
    }
    c.push_str("  return 0;\n}\n");

    let dir = std::env::temp_dir().join(format!("aqueduct-kfd-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&src, &c).unwrap();
    // kfd_ioctl.h includes <drm/drm.h> only for the __u32/__u64 types and
    // the _IOC macros; where libdrm's kernel headers are not installed, a
    // stand-in after the system directories supplies exactly those.
    let shim = dir.join("shim");
    std::fs::create_dir_all(shim.join("drm")).unwrap();
    std::fs::write(
        shim.join("drm/drm.h"),
        "#include <linux/types.h>\n#include <linux/ioctl.h>\n",
    )
    .unwrap();
    let compiled = Command::new("gcc")
        .arg("-idirafter")
        .arg(&shim)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        compiled.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    let _ = std::fs::remove_dir_all(&dir);

    let output = String::from_utf8(run.stdout).unwrap();
    let c_values: std::collections::HashMap<&str, u64> = output
        .lines()
        .map(|line| {
            let (key, value) = line.rsplit_once(' ').unwrap();
            (key, value.parse().unwrap())
        })
        .collect();
    let mut checked = 0;
    for s in &structs {
        assert_eq!(c_values[s.name], s.size as u64, "sizeof(struct {})", s.name);
        checked += 1;
        for (field, offset) in &s.fields {
            let key = format!("{}.{}", s.name, field);
            assert_eq!(c_values[key.as_str()], *offset as u64, "offsetof({key})");
            checked += 1;
        }
    }
    for (name, ours) in &ioctls {
        assert_eq!(c_values[name], *ours as u64, "{name}");
        checked += 1;
    }
    assert_eq!(checked, c_values.len(), "every printed value was compared");
}

/// kfd_priv.h: type in bits 63:62, gpu_id in bits 61:46 (byte offsets, as
/// the kernel has used since it dropped the PAGE_SHIFT-relative shifts).
#[test]
fn mmap_offset_encoding() {
    use aqueduct_kfd::uapi::mmap_offset::*;
    assert_eq!(TYPE_DOORBELL, 0xC000_0000_0000_0000);
    assert_eq!(TYPE_EVENTS, 0x8000_0000_0000_0000);
    assert_eq!(TYPE_RESERVED_MEM, 0x4000_0000_0000_0000);
    assert_eq!(TYPE_MMIO, 0);
    assert_eq!(TYPE_MASK, 0xC000_0000_0000_0000);
    assert_eq!(GPU_ID_MASK, 0x3FFF_C000_0000_0000);
    assert_eq!(gpu_id(0xABCD), 0xABCDu64 << 46);
    assert_eq!(gpu_id(0x1_0001), 1u64 << 46, "gpu_id is a 16-bit hash");
    let offset = TYPE_DOORBELL | gpu_id(0x1234) | 0x2000;
    assert_eq!(get_gpu_id(offset), 0x1234);
    assert_eq!(offset & TYPE_MASK, TYPE_DOORBELL);
}

/// enum kfd_dbg_trap_exception_code and KFD_EC_MASK.
#[test]
fn exception_codes_and_masks() {
    use aqueduct_kfd::uapi::exception_code::*;
    assert_eq!(exception_mask(EC_QUEUE_WAVE_ABORT), 1);
    assert_eq!(exception_mask(EC_QUEUE_WAVE_MEMORY_VIOLATION), 1 << 4);
    assert_eq!(
        exception_mask(EC_QUEUE_PACKET_DISPATCH_DIM_INVALID),
        1 << 15
    );
    assert_eq!(exception_mask(EC_DEVICE_MEMORY_VIOLATION), 1 << 32);
    assert_eq!(exception_mask(EC_PROCESS_DEVICE_REMOVE), 1 << 48);
    assert_eq!(exception_mask(EC_NONE), 0);
    assert_eq!(exception_mask(65), 0);
    assert_eq!(
        [
            EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION,
            EC_QUEUE_PACKET_VENDOR_UNSUPPORTED,
            EC_QUEUE_NEW
        ],
        [4, 23, 31]
    );
}
