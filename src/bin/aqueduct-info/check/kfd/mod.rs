//! The KFD sequence, straight on the `KfdDevice` trait (no HSA runtime in
//! between): version, topology, apertures, ACQUIRE_VM, ALLOC/MAP/UNMAP/FREE
//! in each heap kind, the errors for unknown GPUs and handles, queue
//! CREATE/DESTROY, a doorbell ring the command processor answers, and
//! events (CREATE/SET/RESET/WAIT/DESTROY).
//!
//! The values compared are the ones the KFD interface (linux
//! `include/uapi/linux/kfd_ioctl.h`, `drivers/gpu/drm/amd/amdkfd/kfd_chardev.c`)
//! defines for the GPU's ISA, not the machine's: the version goes in the
//! note, the comparison holds whether it is supported. Signal events are
//! created without an event page: the side's runtime has set the process's
//! page already, and KFD takes only one.

mod bo;
mod event;
mod raw_queue;

use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use aqueduct::hsa::memory::vmem::VaReservation;
use aqueduct::kfd::KFD_MIN_MINOR_VERSION;
use aqueduct::kfd::abi::{BarrierPacket, FenceScope, PacketHeader, packet_type};
use aqueduct::kfd::topology::Node;
use aqueduct::kfd::uapi::*;

use super::{Check, CheckError, Group, Observation, Side};
use bo::{Bo, Heap};
use event::Event;
use raw_queue::{READ_POINTER, RawQueue, WRITE_POINTER};

const PAGE: u64 = 4096;
const EINVAL: i32 = 22;
/// The doorbell slice of one process on one GPU (SOC15: 8 KiB).
const DOORBELL_SLICE: u64 = 8192;

pub fn checks() -> Vec<Check> {
    let g = Group::Kfd;
    vec![
        Check::new(g, "version", version),
        Check::new(g, "topology", topology),
        Check::new(g, "apertures", apertures),
        Check::new(g, "acquire_vm", acquire_vm),
        Check::new(g, "alloc_map_free.vram", |s| alloc_map_free(s, Heap::Vram)),
        Check::new(g, "alloc_map_free.gtt", |s| alloc_map_free(s, Heap::Gtt)),
        Check::new(g, "alloc_map_free.userptr", |s| {
            alloc_map_free(s, Heap::UserPtr)
        }),
        Check::new(g, "alloc_map_free.doorbell", |s| {
            alloc_map_free(s, Heap::Doorbell)
        }),
        Check::new(g, "alloc.unknown_gpu", alloc_unknown_gpu),
        Check::new(g, "free.unknown_handle", free_unknown_handle),
        Check::new(g, "queue.create_destroy", queue_create_destroy),
        Check::new(g, "queue.doorbell", queue_doorbell),
        Check::new(g, "events.auto_reset", events_auto_reset),
        Check::new(g, "events.manual_reset", events_manual_reset),
        Check::new(g, "events.wait_any_all", events_wait_any_all),
        Check::new(g, "events.timeout", events_timeout),
        Check::new(g, "events.destroy", events_destroy),
    ]
}

fn flag(value: bool) -> Vec<u8> {
    vec![u8::from(value)]
}

fn u32_bytes(value: u32) -> Vec<u8> {
    value.to_le_bytes().to_vec()
}

fn u64_bytes(value: u64) -> Vec<u8> {
    value.to_le_bytes().to_vec()
}

/// The errno of a result that should have failed (0 when it succeeded).
fn errno_of(result: Result<(), aqueduct::kfd::KfdError>) -> u32 {
    match result {
        Ok(()) => 0,
        Err(e) => e.errno().unwrap_or(-1) as u32,
    }
}

/// The topology node of the side's GPU.
fn gpu_node(side: &Side) -> Result<Node, CheckError> {
    let topology = side
        .device
        .topology()
        .map_err(CheckError::kfd("reading the topology"))?;
    topology
        .gpu_nodes()
        .find(|n| n.gpu_id == side.agent.gpu_id)
        .cloned()
        .ok_or_else(|| CheckError::unexpected("GPU node", side.agent.gpu_id, "none"))
}

fn version(side: &Side) -> Result<Observation, CheckError> {
    let mut v = GetVersionArgs::default();
    side.device
        .get_version(&mut v)
        .map_err(CheckError::kfd("GET_VERSION"))?;
    let supported =
        v.major_version == KFD_IOCTL_MAJOR_VERSION && v.minor_version >= KFD_MIN_MINOR_VERSION;
    Ok(Observation::of("supported", flag(supported))
        .noted(format!("KFD {}.{}", v.major_version, v.minor_version)))
}

fn topology(side: &Side) -> Result<Observation, CheckError> {
    let node = gpu_node(side)?;
    let p = &node.properties;
    let isa = node.gfx_version().map(|g| g.name()).unwrap_or_default();
    Ok(Observation::of("isa", isa.into_bytes())
        .with("wavefront_size", u32_bytes(node.wave_front_size()))
        .with("lds_kib", u32_bytes(p.lds_size_in_kb as u32))
        .with("simd_per_cu", u32_bytes(p.simd_per_cu as u32))
        .with("queue_sizes_known", flag(node.cwsr_sizes().is_some()))
        .with("render_node", flag(node.drm_render_minor().is_some()))
        .noted(format!(
            "node {}: {} CUs, {} MiB local memory",
            node.index,
            node.compute_unit_count(),
            p.local_mem_size >> 20
        )))
}

fn apertures(side: &Side) -> Result<Observation, CheckError> {
    let mut args = GetProcessAperturesNewArgs::default();
    side.device
        .get_process_apertures_new(&mut args, &mut [])
        .map_err(CheckError::kfd("GET_PROCESS_APERTURES_NEW (count)"))?;
    let mut list = vec![ProcessDeviceApertures::default(); args.num_of_nodes as usize];
    side.device
        .get_process_apertures_new(&mut args, &mut list)
        .map_err(CheckError::kfd("GET_PROCESS_APERTURES_NEW"))?;
    list.truncate(args.num_of_nodes as usize);
    let ap = list
        .iter()
        .find(|a| a.gpu_id == side.agent.gpu_id)
        .ok_or_else(|| CheckError::unexpected("apertures of the GPU", side.agent.gpu_id, "none"))?;
    // gfx9 and later: LDS and scratch apertures of 4 GiB at fixed bases
    // (kfd_flat_memory.c, kfd_init_apertures_v9).
    Ok(Observation::of("lds", u64_bytes(ap.lds_base))
        .with("lds_limit", u64_bytes(ap.lds_limit))
        .with("scratch", u64_bytes(ap.scratch_base))
        .with("scratch_limit", u64_bytes(ap.scratch_limit))
        .with("gpuvm_nonempty", flag(ap.gpuvm_limit > ap.gpuvm_base))
        .noted(format!("GPUVM {:#x}..{:#x}", ap.gpuvm_base, ap.gpuvm_limit)))
}

/// ACQUIRE_VM again with the render node the runtime used: KFD accepts the
/// same DRM file a second time (and refuses another one).
fn acquire_vm(side: &Side) -> Result<Observation, CheckError> {
    let node = gpu_node(side)?;
    let minor = node
        .drm_render_minor()
        .ok_or_else(|| CheckError::unexpected("render node minor", "some", "none"))?;
    let drm_fd = side
        .device
        .open_render_node(minor)
        .map_err(CheckError::kfd("opening the render node"))?;
    let again = side.device.acquire_vm(&mut AcquireVmArgs {
        drm_fd,
        gpu_id: node.gpu_id,
    });
    Ok(Observation::of("errno", u32_bytes(errno_of(again))))
}

/// A byte pattern that differs from page to page and word to word.
fn pattern(len: usize, seed: u32) -> Vec<u8> {
    (0..len / 4)
        .flat_map(|i| (i as u32 ^ seed).wrapping_mul(0x9e37_79b9).to_le_bytes())
        .collect()
}

fn alloc_map_free(side: &Side, heap: Heap) -> Result<Observation, CheckError> {
    let size = if heap == Heap::Doorbell {
        DOORBELL_SLICE
    } else {
        16 * PAGE
    };
    let gpus = [side.agent.gpu_id];
    let bo = Bo::alloc(side, heap, size)?;
    let handle_names_gpu = bo.handle >> 32 == u64::from(side.agent.gpu_id);
    let mapped = bo.map(&gpus)?;
    let mut observation = Observation::of("handle_names_gpu", flag(handle_names_gpu))
        .with("mapped_on", u32_bytes(mapped));
    if bo.host {
        let bytes = pattern(size as usize, heap as u32);
        bo.write(0, &bytes);
        let back = bo.read(0, bytes.len());
        observation = observation.with("host_readback_equal", flag(back == bytes));
    }
    let unmapped = bo.unmap(&gpus)?;
    bo.free()?;
    Ok(observation.with("unmapped_from", u32_bytes(unmapped)))
}

fn alloc_unknown_gpu(side: &Side) -> Result<Observation, CheckError> {
    let va = VaReservation::new(PAGE, PAGE).map_err(CheckError::hsa("reserving VA"))?;
    let topology = side
        .device
        .topology()
        .map_err(CheckError::kfd("reading the topology"))?;
    let unknown = (1..=u32::MAX)
        .rev()
        .find(|id| topology.nodes.iter().all(|n| n.gpu_id != *id))
        .unwrap_or(u32::MAX);
    let mut args = AllocMemoryOfGpuArgs {
        va_addr: va.base(),
        size: PAGE,
        gpu_id: unknown,
        flags: alloc_flags::GTT | alloc_flags::WRITABLE,
        ..Default::default()
    };
    let result = side.device.alloc_memory_of_gpu(&mut args);
    if result.is_ok() {
        let _ = side.device.free_memory_of_gpu(&mut FreeMemoryOfGpuArgs {
            handle: args.handle,
        });
    }
    Ok(Observation::of("errno", u32_bytes(errno_of(result))))
}

fn free_unknown_handle(side: &Side) -> Result<Observation, CheckError> {
    // A handle of this GPU whose IDR slot nothing uses.
    let handle = (u64::from(side.agent.gpu_id) << 32) | 0x7fff_fff0;
    let result = side
        .device
        .free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle });
    Ok(Observation::of("errno", u32_bytes(errno_of(result))))
}

fn queue_create_destroy(side: &Side) -> Result<Observation, CheckError> {
    let mut queue = RawQueue::create(side)?;
    let in_page = queue.args.doorbell_offset & (DOORBELL_SLICE - 1);
    let doorbell_in_slice = in_page.is_multiple_of(8);
    let first = queue.destroy();
    first.map_err(CheckError::kfd("DESTROY_QUEUE"))?;
    let again = side.device.destroy_queue(&mut DestroyQueueArgs {
        queue_id: queue.args.queue_id,
        pad: 0,
    });
    Ok(
        Observation::of("doorbell_in_slice", flag(doorbell_in_slice))
            .with("destroy_again_errno", u32_bytes(errno_of(again)))
            .noted(format!("queue id {}", queue.args.queue_id)),
    )
}

/// A barrier-AND packet with no dependencies, rung through the queue's
/// doorbell: the command processor consumes it and reports read index 1.
fn queue_doorbell(side: &Side) -> Result<Observation, CheckError> {
    let queue = RawQueue::create(side)?;
    let doorbells =
        VaReservation::new(DOORBELL_SLICE, PAGE).map_err(CheckError::hsa("reserving VA"))?;
    // SAFETY: [base, base+8 KiB) is the PROT_NONE range `doorbells` reserved for it.
    unsafe {
        side.device.mmap_kfd(
            doorbells.base(),
            DOORBELL_SLICE,
            queue.args.doorbell_offset & !(DOORBELL_SLICE - 1),
        )
    }
    .map_err(CheckError::kfd("mmap of the doorbell page"))?;
    let doorbell = doorbells.base() + (queue.args.doorbell_offset & (DOORBELL_SLICE - 1));

    let header = PacketHeader::new(
        packet_type::BARRIER_AND,
        true,
        FenceScope::System,
        FenceScope::System,
    )
    .to_bits();
    let packet = BarrierPacket::default();
    let bytes = bytemuck::bytes_of(&packet);
    queue.ring.write(2, &bytes[2..]);
    // SAFETY: the first slot's header, an aligned u16 in the ring's host mapping.
    let slot_header = unsafe { &*(queue.ring.base() as *const AtomicU16) };
    slot_header.store(header, Ordering::Release);
    queue
        .pointers
        .atomic_u64(WRITE_POINTER)
        .store(1, Ordering::Release);
    side.device.write_doorbell(doorbell, 0);

    let read = queue.pointers.atomic_u64(READ_POINTER);
    let start = Instant::now();
    while read.load(Ordering::Acquire) < 1 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_micros(200));
    }
    let index = read.load(Ordering::Acquire);
    Ok(
        Observation::of("read_index", u64_bytes(index)).noted(format!(
            "consumed in {:.2} ms",
            start.elapsed().as_secs_f64() * 1e3
        )),
    )
}

/// WAIT_EVENTS on `events`; returns wait_result.
fn wait(side: &Side, events: &[&Event], all: bool, timeout_ms: u32) -> Result<u32, CheckError> {
    let mut data: Vec<KfdEventData> = events
        .iter()
        .map(|e| KfdEventData::for_event(e.id))
        .collect();
    let mut args = WaitEventsArgs {
        num_events: events.len() as u32,
        wait_for_all: u32::from(all),
        timeout_ms,
        ..Default::default()
    };
    side.device
        .wait_events(&mut args, &mut data)
        .map_err(CheckError::kfd("WAIT_EVENTS"))?;
    Ok(args.wait_result)
}

fn results(values: &[u32]) -> Vec<u8> {
    super::words(values)
}

fn events_auto_reset(side: &Side) -> Result<Observation, CheckError> {
    let event = Event::signal(side, true)?;
    event.set()?;
    let first = wait(side, &[&event], false, 1000)?;
    // The first wait consumed the signal.
    let second = wait(side, &[&event], false, 0)?;
    Ok(Observation::of("wait_results", results(&[first, second])))
}

fn events_manual_reset(side: &Side) -> Result<Observation, CheckError> {
    let event = Event::signal(side, false)?;
    event.set()?;
    let first = wait(side, &[&event], false, 1000)?;
    let still = wait(side, &[&event], false, 0)?;
    event.reset()?;
    let after_reset = wait(side, &[&event], false, 0)?;
    Ok(Observation::of(
        "wait_results",
        results(&[first, still, after_reset]),
    ))
}

fn events_wait_any_all(side: &Side) -> Result<Observation, CheckError> {
    let a = Event::signal(side, false)?;
    let b = Event::signal(side, false)?;
    a.set()?;
    let any = wait(side, &[&a, &b], false, 1000)?;
    let all_early = wait(side, &[&a, &b], true, 0)?;
    b.set()?;
    let all = wait(side, &[&a, &b], true, 1000)?;
    Ok(Observation::of(
        "wait_results",
        results(&[any, all_early, all]),
    ))
}

fn events_timeout(side: &Side) -> Result<Observation, CheckError> {
    let event = Event::signal(side, true)?;
    let start = Instant::now();
    let result = wait(side, &[&event], false, 20)?;
    let waited = start.elapsed();
    Ok(Observation::of("wait_result", u32_bytes(result))
        .with(
            "waited_the_timeout",
            flag(waited >= Duration::from_millis(15)),
        )
        .noted(format!(
            "returned after {:.1} ms",
            waited.as_secs_f64() * 1e3
        )))
}

fn events_destroy(side: &Side) -> Result<Observation, CheckError> {
    let mut event = Event::signal(side, true)?;
    let id = event.id;
    event.destroy()?;
    let errno = errno_of(side.device.set_event(&mut SetEventArgs {
        event_id: id,
        pad: 0,
    }));
    let note = if errno == EINVAL as u32 {
        "EINVAL".to_string()
    } else {
        format!("errno {errno}")
    };
    Ok(Observation::of("set_after_destroy_errno", u32_bytes(errno)).noted(note))
}
