//! A fake KFD for host-side runtime tests: it keeps the books a real KFD
//! keeps (BOs, mappings, queues, events), validates CREATE_QUEUE buffers the
//! way kfd_queue.c does, backs host-mapped BOs with anonymous shared memory
//! at the requested VA, and records doorbell writes. No packet is executed.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use aqueduct_kfd::topology::Topology;
use aqueduct_kfd::uapi::*;
use aqueduct_kfd::{KfdDevice, KfdError, KfdResult};
use rustix::mm::{MapFlags, ProtFlags};

use crate::event_device::EventDevice;

const EINVAL: i32 = 22;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bo {
    pub handle: u64,
    pub va: u64,
    pub size: u64,
    pub flags: u32,
    pub gpu_id: u32,
    pub mmap_offset: u64,
    pub mapped_on: Vec<u32>,
    pub host_mapped: bool,
}

#[derive(Debug, Default)]
pub struct FakeState {
    next_handle: u64,
    pub bos: BTreeMap<u64, Bo>,
    pub freed: Vec<Bo>,
    pub acquired_vms: Vec<(u32, u32)>,
    pub queues: BTreeMap<u32, CreateQueueArgs>,
    next_queue: u32,
    pub destroyed_queues: Vec<u32>,
    pub doorbells: Vec<(u64, u64)>,
    pub first_event_page_offset: Option<u64>,
}

#[derive(Debug)]
pub struct FakeKfd {
    pub topology: Topology,
    pub version: (u32, u32),
    pub events: EventDevice,
    pub state: Mutex<FakeState>,
}

fn einval<T>(what: &'static str, why: String) -> KfdResult<T> {
    eprintln!("fake KFD rejects {what}: {why}");
    Err(KfdError::ioctl(what, EINVAL))
}

impl FakeKfd {
    pub fn new(topology: Topology) -> Self {
        Self {
            topology,
            version: (1, 17),
            events: EventDevice::new(),
            state: Mutex::default(),
        }
    }

    pub fn bo_at(&self, va: u64) -> Option<Bo> {
        self.state
            .lock()
            .unwrap()
            .bos
            .values()
            .find(|b| b.va == va)
            .cloned()
    }

    pub fn bos_with_flags(&self, flags: u32) -> Vec<Bo> {
        self.state
            .lock()
            .unwrap()
            .bos
            .values()
            .filter(|b| b.flags == flags)
            .cloned()
            .collect()
    }

    /// What KFD does on a queue exception: OR the bits into the error word
    /// named by the context-save header and signal its error event.
    pub fn raise_queue_error(&self, queue_id: u32, bits: u64) {
        let args = self.state.lock().unwrap().queues[&queue_id];
        // SAFETY: the runtime wrote the header into this host-mapped BO before CREATE_QUEUE.
        let header: UserContextSaveAreaHeader = unsafe {
            std::ptr::read_volatile(
                args.ctx_save_restore_address as *const UserContextSaveAreaHeader,
            )
        };
        // SAFETY: error_reason points at a live u64 in the queue's host-mapped page.
        unsafe { AtomicU64::from_ptr(header.error_reason as *mut u64) }
            .fetch_or(bits, Ordering::AcqRel);
        self.events
            .set_event(&mut SetEventArgs {
                event_id: header.error_event_id,
                pad: 0,
            })
            .unwrap();
    }

    fn find_bo_starting(&self, st: &FakeState, va: u64) -> Option<Bo> {
        st.bos.values().find(|b| b.va == va).cloned()
    }
}

impl KfdDevice for FakeKfd {
    fn backend_name(&self) -> &'static str {
        "fake-kfd"
    }
    fn topology(&self) -> KfdResult<Topology> {
        Ok(self.topology.clone())
    }
    fn open_render_node(&self, minor: u32) -> KfdResult<u32> {
        Ok(1000 + minor)
    }
    fn get_version(&self, args: &mut GetVersionArgs) -> KfdResult<()> {
        (args.major_version, args.minor_version) = self.version;
        Ok(())
    }
    fn get_process_apertures_new(
        &self,
        args: &mut GetProcessAperturesNewArgs,
        apertures: &mut [ProcessDeviceApertures],
    ) -> KfdResult<()> {
        let gpus: Vec<u32> = self.topology.gpu_nodes().map(|n| n.gpu_id).collect();
        if apertures.len() < gpus.len() || (args.num_of_nodes as usize) < gpus.len() {
            return einval("GET_PROCESS_APERTURES_NEW", "array too small".into());
        }
        for (a, gpu_id) in apertures.iter_mut().zip(&gpus) {
            *a = ProcessDeviceApertures {
                lds_base: 0x1_0000_0000_0000,
                lds_limit: 0x1_0000_ffff_ffff,
                scratch_base: 0x2_0000_0000_0000,
                scratch_limit: 0x2_0000_ffff_ffff,
                gpuvm_base: 0x20_0000,
                gpuvm_limit: 0x7fff_ffff_ffff,
                gpu_id: *gpu_id,
                pad: 0,
            };
        }
        args.num_of_nodes = gpus.len() as u32;
        Ok(())
    }
    fn acquire_vm(&self, args: &mut AcquireVmArgs) -> KfdResult<()> {
        self.state
            .lock()
            .unwrap()
            .acquired_vms
            .push((args.drm_fd, args.gpu_id));
        Ok(())
    }
    fn set_memory_policy(&self, _: &mut SetMemoryPolicyArgs) -> KfdResult<()> {
        Ok(())
    }
    fn get_clock_counters(&self, _: &mut GetClockCountersArgs) -> KfdResult<()> {
        Err(KfdError::ioctl(
            "GET_CLOCK_COUNTERS",
            rustix::io::Errno::NOTTY.raw_os_error(),
        ))
    }
    fn alloc_memory_of_gpu(&self, args: &mut AllocMemoryOfGpuArgs) -> KfdResult<()> {
        if (args.flags & alloc_flags::TYPE_MASK).count_ones() != 1
            || args.size == 0
            || !args.va_addr.is_multiple_of(4096)
        {
            return einval("ALLOC_MEMORY_OF_GPU", format!("{args:?}"));
        }
        let mut st = self.state.lock().unwrap();
        st.next_handle += 1;
        let handle = st.next_handle;
        let mmap_offset = if args.flags & alloc_flags::DOORBELL != 0 {
            mmap_offset::TYPE_DOORBELL | mmap_offset::gpu_id(args.gpu_id)
        } else {
            handle << 24
        };
        args.handle = handle;
        args.mmap_offset = mmap_offset;
        st.bos.insert(
            handle,
            Bo {
                handle,
                va: args.va_addr,
                size: args.size,
                flags: args.flags,
                gpu_id: args.gpu_id,
                mmap_offset,
                mapped_on: vec![],
                host_mapped: false,
            },
        );
        Ok(())
    }
    fn free_memory_of_gpu(&self, args: &mut FreeMemoryOfGpuArgs) -> KfdResult<()> {
        let mut st = self.state.lock().unwrap();
        match st.bos.remove(&args.handle) {
            Some(bo) if bo.mapped_on.is_empty() => {
                st.freed.push(bo);
                Ok(())
            }
            Some(bo) => einval(
                "FREE_MEMORY_OF_GPU",
                format!("BO still mapped on {:?}", bo.mapped_on),
            ),
            None => einval("FREE_MEMORY_OF_GPU", "unknown handle".into()),
        }
    }
    fn map_memory_to_gpu(&self, args: &mut MapMemoryToGpuArgs, ids: &[u32]) -> KfdResult<()> {
        let mut st = self.state.lock().unwrap();
        let Some(bo) = st.bos.get_mut(&args.handle) else {
            return einval("MAP_MEMORY_TO_GPU", "handle".into());
        };
        for id in ids {
            if !bo.mapped_on.contains(id) {
                bo.mapped_on.push(*id);
            }
        }
        args.n_success = ids.len() as u32;
        Ok(())
    }
    fn unmap_memory_from_gpu(
        &self,
        args: &mut UnmapMemoryFromGpuArgs,
        ids: &[u32],
    ) -> KfdResult<()> {
        let mut st = self.state.lock().unwrap();
        let Some(bo) = st.bos.get_mut(&args.handle) else {
            return einval("UNMAP_MEMORY_FROM_GPU", "handle".into());
        };
        bo.mapped_on.retain(|g| !ids.contains(g));
        args.n_success = ids.len() as u32;
        Ok(())
    }
    fn create_queue(&self, args: &mut CreateQueueArgs) -> KfdResult<()> {
        let mut st = self.state.lock().unwrap();
        let node = self.topology.node_by_gpu_id(args.gpu_id).unwrap();
        let cwsr = node.cwsr_sizes().unwrap();
        let exact = |va: u64, size: u64, what: &str| -> Result<(), String> {
            match self.find_bo_starting(&st, va) {
                Some(bo) if bo.size == size => Ok(()),
                Some(bo) => Err(format!(
                    "{what} BO is {:#x} bytes, expected {size:#x}",
                    bo.size
                )),
                None => Err(format!("{what} {va:#x} is not the start of a BO")),
            }
        };
        let page_of = |va: u64, what: &str| -> Result<(), String> {
            self.find_bo_starting(&st, va & !0xfff)
                .map(|_| ())
                .ok_or(format!("{what} not in a BO's first page"))
        };
        let checks = [
            exact(args.ring_base_address, args.ring_size as u64, "ring"),
            exact(args.eop_buffer_address, cwsr.eop_buffer_size as u64, "EOP"),
            exact(
                args.ctx_save_restore_address,
                cwsr.total_size(),
                "context save",
            ),
            page_of(args.write_pointer_address, "wptr"),
            page_of(args.read_pointer_address, "rptr"),
            if args.ctx_save_restore_size == cwsr.cwsr_size
                && args.ctl_stack_size == cwsr.ctl_stack_size
            {
                Ok(())
            } else {
                Err("cwsr sizes".into())
            },
            if args.queue_type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL && args.ring_size.is_power_of_two()
            {
                Ok(())
            } else {
                Err("queue type / ring size".into())
            },
        ];
        if let Some(Err(e)) = checks.into_iter().find(|c| c.is_err()) {
            drop(st);
            return einval("CREATE_QUEUE", e);
        }
        st.next_queue += 1;
        args.queue_id = st.next_queue;
        args.doorbell_offset = mmap_offset::TYPE_DOORBELL
            | mmap_offset::gpu_id(args.gpu_id)
            | (args.queue_id as u64 * 8);
        st.queues.insert(args.queue_id, *args);
        Ok(())
    }
    fn destroy_queue(&self, args: &mut DestroyQueueArgs) -> KfdResult<()> {
        let mut st = self.state.lock().unwrap();
        match st.queues.remove(&args.queue_id) {
            Some(_) => {
                st.destroyed_queues.push(args.queue_id);
                Ok(())
            }
            None => einval("DESTROY_QUEUE", format!("unknown queue {}", args.queue_id)),
        }
    }
    fn update_queue(&self, _: &mut UpdateQueueArgs) -> KfdResult<()> {
        Ok(())
    }
    fn create_event(&self, args: &mut CreateEventArgs) -> KfdResult<()> {
        {
            let mut st = self.state.lock().unwrap();
            if st.first_event_page_offset.is_none() {
                st.first_event_page_offset = Some(args.event_page_offset);
            }
        }
        self.events.create_event(args)
    }
    fn destroy_event(&self, args: &mut DestroyEventArgs) -> KfdResult<()> {
        self.events.destroy_event(args)
    }
    fn set_event(&self, args: &mut SetEventArgs) -> KfdResult<()> {
        self.events.set_event(args)
    }
    fn reset_event(&self, args: &mut ResetEventArgs) -> KfdResult<()> {
        self.events.reset_event(args)
    }
    fn wait_events(&self, args: &mut WaitEventsArgs, events: &mut [KfdEventData]) -> KfdResult<()> {
        self.events.wait_events(args, events)
    }
    unsafe fn mmap_render_node(
        &self,
        _gpu_id: u32,
        va: u64,
        size: u64,
        offset: u64,
    ) -> KfdResult<()> {
        // SAFETY: the caller guarantees [va, va+size) is its own reservation.
        unsafe { self.mmap_kfd(va, size, offset) }
    }
    unsafe fn mmap_kfd(&self, va: u64, size: u64, offset: u64) -> KfdResult<()> {
        let mut st = self.state.lock().unwrap();
        let Some(bo) = st.bos.values_mut().find(|b| b.mmap_offset == offset) else {
            drop(st);
            return einval("mmap", format!("no BO at offset {offset:#x}"));
        };
        if bo.va != va || bo.size != size {
            let why = format!(
                "mmap of {va:#x}+{size:#x} does not match BO {:#x}+{:#x}",
                bo.va, bo.size
            );
            drop(st);
            return einval("mmap", why);
        }
        // SAFETY: the caller owns the range (its PROT_NONE reservation); we replace it with shared memory.
        unsafe {
            rustix::mm::mmap_anonymous(
                va as *mut std::ffi::c_void,
                size as usize,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::FIXED | MapFlags::NORESERVE,
            )
        }
        .map_err(|e| KfdError::Os {
            what: "fake mmap",
            source: e.into(),
        })?;
        bo.host_mapped = true;
        Ok(())
    }
    fn write_doorbell(&self, doorbell_va: u64, value: u64) {
        // Held across the store, so the BO cannot be freed meanwhile.
        let mut st = self.state.lock().unwrap();
        let in_page = st.bos.values().any(|b| {
            b.flags & alloc_flags::DOORBELL != 0
                && b.host_mapped
                && b.va <= doorbell_va
                && doorbell_va + 8 <= b.va + b.size
        });
        if !in_page || !doorbell_va.is_multiple_of(8) {
            eprintln!("fake KFD ignores a doorbell write at {doorbell_va:#x}");
            return;
        }
        // SAFETY: doorbell_va is an aligned u64 inside a live doorbell BO's host mapping (checked above).
        unsafe { AtomicU64::from_ptr(doorbell_va as *mut u64) }.store(value, Ordering::Release);
        st.doorbells.push((doorbell_va, value));
    }
}
