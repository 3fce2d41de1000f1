//! Test harness at the KFD boundary: drives a `SimDevice` through the
//! `KfdDevice` trait the way a runtime does (reserve VA, ALLOC, mmap the
//! render node, MAP), with helpers for queues, signals and events.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_kfd::abi::{AmdSignal, packet_type};
use aqueduct_kfd::topology::CwsrSizes;
use aqueduct_kfd::uapi::*;
use aqueduct_kfd::{KfdDevice, KfdError};

pub const PAGE: u64 = 4096;
pub const GTT_FLAGS: u32 = alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::EXECUTABLE;

/// Reserve `size` bytes of host VA (PROT_NONE), as the runtime does before
/// ALLOC. Leaked on purpose: tests are short.
pub fn reserve_va(size: u64) -> u64 {
    // SAFETY: a fresh anonymous PROT_NONE mapping at a kernel-chosen address.
    let ptr = unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            size as usize,
            rustix::mm::ProtFlags::empty(),
            rustix::mm::MapFlags::PRIVATE | rustix::mm::MapFlags::NORESERVE,
        )
    }
    .expect("reserve VA");
    ptr as u64
}

/// Kilobytes of the host mapping containing `addr` that are resident
/// (`Rss` of its entry in /proc/self/smaps); None when no mapping holds it.
pub fn resident_kib(addr: usize) -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("read /proc/self/smaps");
    let mut inside = false;
    for line in smaps.lines() {
        let range = line
            .split_whitespace()
            .next()
            .and_then(|r| r.split_once('-'));
        if let Some((lo, hi)) = range
            && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        {
            inside = (lo..hi).contains(&addr);
            continue;
        }
        if inside && let Some(kb) = line.strip_prefix("Rss:") {
            return kb.trim().trim_end_matches("kB").trim().parse().ok();
        }
    }
    None
}

pub fn errno(e: KfdError) -> i32 {
    e.errno().expect("an errno")
}

#[derive(Clone, Copy, Debug)]
pub struct Buffer {
    pub va: u64,
    pub size: u64,
    pub handle: u64,
}

impl Buffer {
    pub fn ptr<T>(&self, offset: u64) -> *mut T {
        (self.va + offset) as *mut T
    }
    pub fn atomic_u64(&self, offset: u64) -> &'static AtomicU64 {
        assert!(offset.is_multiple_of(8) && offset + 8 <= self.size);
        // SAFETY: offset is inside the mapped, leaked BO and 8-aligned (checked above).
        unsafe { &*(self.ptr::<AtomicU64>(offset)) }
    }
    pub fn write_bytes(&self, offset: u64, bytes: &[u8]) {
        assert!(offset + bytes.len() as u64 <= self.size);
        // SAFETY: the range lies in the BO's host mapping.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr::<u8>(offset), bytes.len())
        }
    }
}

pub struct Harness {
    pub dev: Arc<SimDevice>,
    pub gpu_id: u32,
    pub gpu_ids: Vec<u32>,
    pub cwsr: CwsrSizes,
}

impl Default for Harness {
    fn default() -> Harness {
        Harness::new()
    }
}

impl Harness {
    pub fn new() -> Harness {
        Self::with_gpus(1)
    }

    pub fn with_gpus(gpus: usize) -> Harness {
        Self::with(gpus, 2)
    }

    /// `gpus` simulated GPUs with `threads` worker threads each.
    pub fn with(gpus: usize, threads: usize) -> Harness {
        Self::with_config(SimConfig {
            gpus,
            threads,
            vram_size: 1 << 30,
            ..SimConfig::default()
        })
    }

    /// A device made from `config`.
    pub fn with_config(config: SimConfig) -> Harness {
        let dev = SimDevice::new(config).expect("device");
        let topology = dev.topology().expect("topology");
        let mut gpu_ids = Vec::new();
        let mut cwsr = None;
        for node in topology.gpu_nodes() {
            let fd = dev
                .open_render_node(node.drm_render_minor().expect("minor"))
                .expect("render node");
            dev.acquire_vm(&mut AcquireVmArgs {
                drm_fd: fd,
                gpu_id: node.gpu_id,
            })
            .expect("acquire vm");
            gpu_ids.push(node.gpu_id);
            cwsr = node.cwsr_sizes();
        }
        Harness {
            dev,
            gpu_id: gpu_ids[0],
            gpu_ids,
            cwsr: cwsr.expect("cwsr sizes"),
        }
    }

    /// ALLOC (no mmap, no MAP) at a fresh VA.
    pub fn alloc_args(&self, size: u64, flags: u32) -> Result<AllocMemoryOfGpuArgs, KfdError> {
        let va = reserve_va(size);
        let mut args = AllocMemoryOfGpuArgs {
            va_addr: va,
            size,
            gpu_id: self.gpu_id,
            flags,
            ..Default::default()
        };
        self.dev.alloc_memory_of_gpu(&mut args)?;
        Ok(args)
    }

    /// ALLOC + mmap of the render node at the same VA + MAP on this GPU.
    pub fn buffer(&self, size: u64, flags: u32) -> Buffer {
        let args = self.alloc_args(size, flags).expect("alloc");
        // SAFETY: the VA was reserved by alloc_args for this BO.
        unsafe {
            self.dev
                .mmap_render_node(self.gpu_id, args.va_addr, size, args.mmap_offset)
        }
        .expect("mmap");
        self.map(args.handle, &[self.gpu_id]).expect("map");
        Buffer {
            va: args.va_addr,
            size,
            handle: args.handle,
        }
    }

    pub fn map(
        &self,
        handle: u64,
        gpus: &[u32],
    ) -> Result<MapMemoryToGpuArgs, (MapMemoryToGpuArgs, KfdError)> {
        let mut args = MapMemoryToGpuArgs {
            handle,
            n_devices: gpus.len() as u32,
            ..Default::default()
        };
        match self.dev.map_memory_to_gpu(&mut args, gpus) {
            Ok(()) => Ok(args),
            Err(e) => Err((args, e)),
        }
    }

    pub fn unmap(&self, handle: u64, gpus: &[u32]) -> Result<(), KfdError> {
        let mut args = MapMemoryToGpuArgs {
            handle,
            n_devices: gpus.len() as u32,
            ..Default::default()
        };
        self.dev.unmap_memory_from_gpu(&mut args, gpus)
    }

    pub fn create_event(&self, kind: u32, auto_reset: bool) -> CreateEventArgs {
        let mut args = CreateEventArgs {
            event_type: kind,
            auto_reset: auto_reset as u32,
            ..Default::default()
        };
        self.dev.create_event(&mut args).expect("create event");
        args
    }

    pub fn wait(&self, ids: &[u32], all: bool, timeout_ms: u32) -> (u32, Vec<KfdEventData>) {
        let mut data: Vec<KfdEventData> =
            ids.iter().map(|&id| KfdEventData::for_event(id)).collect();
        let mut args = WaitEventsArgs {
            num_events: ids.len() as u32,
            wait_for_all: all as u32,
            timeout_ms,
            ..Default::default()
        };
        self.dev.wait_events(&mut args, &mut data).expect("wait");
        (args.wait_result, data)
    }

    pub fn set_event(&self, id: u32) {
        self.dev
            .set_event(&mut SetEventArgs {
                event_id: id,
                pad: 0,
            })
            .expect("set event");
    }
}

/// Everything a test queue needs: ring, amd_queue_t, EOP, context save,
/// doorbell, an event page with an error event, and signals.
pub struct TestQueue {
    pub queue_id: u32,
    pub ring: Buffer,
    pub packets: u64,
    pub amd_queue: Buffer,
    pub doorbell_va: u64,
    pub error_reason: Buffer,
    pub error_event: u32,
    pub write_index: u64,
}

/// Event page + signal memory shared by the tests of one harness.
pub struct Signals {
    pub event_page: Buffer,
    pub memory: Buffer,
    next: std::cell::Cell<u64>,
}

impl Signals {
    /// Allocates the event page and passes it with the first CREATE_EVENT.
    pub fn new(h: &Harness) -> (Signals, CreateEventArgs) {
        let event_page = h.buffer(
            KFD_SIGNAL_EVENT_LIMIT as u64 * 8,
            GTT_FLAGS | alloc_flags::UNCACHED,
        );
        let mut args = CreateEventArgs {
            event_page_offset: event_page.handle,
            event_type: event_type::SIGNAL,
            auto_reset: 1,
            ..Default::default()
        };
        h.dev
            .create_event(&mut args)
            .expect("first event with the event page");
        let memory = h.buffer(16 * PAGE, GTT_FLAGS);
        (
            Signals {
                event_page,
                memory,
                next: std::cell::Cell::new(0),
            },
            args,
        )
    }

    /// A signal with `value` and, if `event` is given, its mailbox set to
    /// that event's slot.
    pub fn signal(&self, value: i64, event: Option<&CreateEventArgs>) -> u64 {
        let offset = self.next.get();
        self.next.set(offset + 64);
        let signal = AmdSignal {
            kind: 1,
            value,
            event_mailbox_ptr: event
                .map_or(0, |e| self.event_page.va + e.event_slot_index as u64 * 8),
            event_id: event.map_or(0, |e| e.event_id),
            ..Default::default()
        };
        self.memory.write_bytes(offset, bytemuck::bytes_of(&signal));
        self.memory.va + offset
    }

    pub fn value(&self, signal: u64) -> i64 {
        self.value_word(signal).load(Ordering::Acquire) as i64
    }

    pub fn store(&self, signal: u64, value: i64) {
        self.value_word(signal)
            .store(value as u64, Ordering::Release);
    }

    /// The value word of a signal `signal` handed out.
    fn value_word(&self, signal: u64) -> &'static AtomicU64 {
        let offset = signal
            .checked_sub(self.memory.va)
            .expect("a signal of this Signals");
        self.memory.atomic_u64(offset + 8)
    }
}

impl TestQueue {
    pub fn new(h: &Harness, signals: &Signals, ring_size: u64) -> TestQueue {
        let ring = h.buffer(ring_size.max(PAGE), GTT_FLAGS);
        let packets = ring_size / 64;
        for i in 0..packets {
            // SAFETY: header of slot i inside the ring.
            unsafe { &*(ring.ptr::<AtomicU16>(i * 64)) }
                .store(packet_type::INVALID, Ordering::Release);
        }
        let amd_queue = h.buffer(PAGE, GTT_FLAGS);
        let error_reason = h.buffer(PAGE, GTT_FLAGS);
        let error_event = h.create_event(event_type::SIGNAL, false);
        let mut args = Self::args(h, &ring, ring_size, &amd_queue);
        let ctx = Buffer {
            va: args.ctx_save_restore_address,
            size: 0,
            handle: 0,
        };
        let header = UserContextSaveAreaHeader {
            error_reason: error_reason.va,
            error_event_id: error_event.event_id,
            ..Default::default()
        };
        ctx.write_bytes_unchecked(bytemuck::bytes_of(&header));
        h.dev.create_queue(&mut args).expect("create queue");
        let doorbell_page = reserve_va(8192);
        // SAFETY: the VA was just reserved for the doorbell page.
        unsafe {
            h.dev
                .mmap_kfd(doorbell_page, 8192, args.doorbell_offset & !0x1fff)
        }
        .expect("mmap doorbells");
        let _ = signals;
        TestQueue {
            queue_id: args.queue_id,
            ring,
            packets,
            amd_queue,
            doorbell_va: doorbell_page + (args.doorbell_offset & 0x1fff),
            error_reason,
            error_event: error_event.event_id,
            write_index: 0,
        }
    }

    /// Valid CREATE_QUEUE arguments (allocating EOP and context-save BOs).
    pub fn args(h: &Harness, ring: &Buffer, ring_size: u64, amd_queue: &Buffer) -> CreateQueueArgs {
        let eop = h.buffer(h.cwsr.eop_buffer_size as u64, GTT_FLAGS);
        let ctx = h.buffer(h.cwsr.total_size(), GTT_FLAGS);
        CreateQueueArgs {
            ring_base_address: ring.va,
            write_pointer_address: amd_queue.va + 56,
            read_pointer_address: amd_queue.va + 128,
            ring_size: ring_size as u32,
            gpu_id: h.gpu_id,
            queue_type: KFD_IOC_QUEUE_TYPE_COMPUTE_AQL,
            queue_percentage: 100,
            queue_priority: 7,
            eop_buffer_address: eop.va,
            eop_buffer_size: h.cwsr.eop_buffer_size as u64,
            ctx_save_restore_address: ctx.va,
            ctx_save_restore_size: h.cwsr.cwsr_size,
            ctl_stack_size: h.cwsr.ctl_stack_size,
            ..Default::default()
        }
    }

    pub fn read_index(&self) -> u64 {
        self.amd_queue.atomic_u64(128).load(Ordering::Acquire)
    }

    pub fn error_bits(&self) -> u64 {
        self.error_reason.atomic_u64(0).load(Ordering::Acquire)
    }

    /// Write `packet` (64 bytes) at the next index, header last with
    /// release; returns its index. Does not ring the doorbell.
    pub fn write_packet(&mut self, packet: &[u8; 64]) -> u64 {
        let index = self.write_index;
        self.write_index += 1;
        self.write_packet_at(index, packet);
        index
    }

    pub fn write_packet_at(&self, index: u64, packet: &[u8; 64]) {
        let slot = (index % self.packets) * 64;
        self.ring.write_bytes(slot + 4, &packet[4..]);
        let header = u32::from_le_bytes([packet[0], packet[1], packet[2], packet[3]]);
        // SAFETY: the slot's first dword lies in the ring.
        unsafe { &*(self.ring.ptr::<AtomicU32>(slot)) }.store(header, Ordering::Release);
        self.amd_queue
            .atomic_u64(56)
            .fetch_max(index + 1, Ordering::AcqRel);
    }

    pub fn ring_doorbell(&self, h: &Harness, index: u64) {
        h.dev.write_doorbell(self.doorbell_va, index);
    }

    pub fn header_at(&self, index: u64) -> u16 {
        // SAFETY: a header inside the ring.
        unsafe { &*(self.ring.ptr::<AtomicU16>((index % self.packets) * 64)) }
            .load(Ordering::Acquire)
    }
}

impl Buffer {
    fn write_bytes_unchecked(&self, bytes: &[u8]) {
        // SAFETY: used for the context-save header, inside its mapped BO.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.va as *mut u8, bytes.len()) }
    }
}
