//! The KFD requests the vmem API makes, as the driver receives them: a
//! device that records every memory and dma-buf request (arguments in,
//! results out) in front of gfxsim. This pins the protocol real hardware
//! would see: a handle is ALLOC_MEMORY_OF_GPU at VA 0 with the pool's
//! flags, then EXPORT_DMABUF with O_CLOEXEC; a mapping is IMPORT_DMABUF of
//! that fd at the VA; GPU access is MAP/UNMAP_MEMORY_TO_GPU of the import
//! on that GPU alone; unmap is UNMAP then FREE of the import; the last
//! release is FREE of the memory-only BO; an import elsewhere is
//! GET_DMABUF_INFO then IMPORT_DMABUF at VA 0.

use std::os::fd::AsFd;
use std::sync::{Arc, Mutex};

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::memory::PoolKind;
use aqueduct_hsa::vmem::{Access, MemoryType, VirtualMemory};
use aqueduct_hsa::{Runtime, RuntimeOptions};
use aqueduct_kfd::uapi::*;
use aqueduct_kfd::{KfdDevice, KfdResult, Topology};

/// One recorded request.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Call {
    Alloc {
        va: u64,
        size: u64,
        gpu: u32,
        flags: u32,
        handle: u64,
    },
    Free {
        handle: u64,
    },
    Map {
        handle: u64,
        gpus: Vec<u32>,
    },
    Unmap {
        handle: u64,
        gpus: Vec<u32>,
    },
    Export {
        handle: u64,
        flags: u32,
        fd: u32,
    },
    Info {
        fd: u32,
        size: u64,
        gpu: u32,
        flags: u32,
    },
    Import {
        va: u64,
        gpu: u32,
        fd: u32,
        handle: u64,
    },
    /// A FREE or UNMAP the driver refused.
    Refused {
        ioctl: &'static str,
        handle: u64,
        errno: Option<i32>,
    },
}

#[derive(Debug)]
struct Recorder {
    sim: Arc<SimDevice>,
    calls: Mutex<Vec<Call>>,
}

impl Recorder {
    fn log(&self, call: Call) {
        self.calls.lock().unwrap().push(call);
    }
    fn take(&self) -> Vec<Call> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
    fn refused(&self, ioctl: &'static str, handle: u64, e: &aqueduct_kfd::KfdError) {
        self.log(Call::Refused {
            ioctl,
            handle,
            errno: e.errno(),
        });
    }
}

impl KfdDevice for Recorder {
    fn backend_name(&self) -> &'static str {
        "recorder"
    }
    fn topology(&self) -> KfdResult<Topology> {
        self.sim.topology()
    }
    fn open_render_node(&self, minor: u32) -> KfdResult<u32> {
        self.sim.open_render_node(minor)
    }
    fn get_version(&self, args: &mut GetVersionArgs) -> KfdResult<()> {
        self.sim.get_version(args)
    }
    fn get_process_apertures_new(
        &self,
        args: &mut GetProcessAperturesNewArgs,
        apertures: &mut [ProcessDeviceApertures],
    ) -> KfdResult<()> {
        self.sim.get_process_apertures_new(args, apertures)
    }
    fn acquire_vm(&self, args: &mut AcquireVmArgs) -> KfdResult<()> {
        self.sim.acquire_vm(args)
    }
    fn set_memory_policy(&self, args: &mut SetMemoryPolicyArgs) -> KfdResult<()> {
        self.sim.set_memory_policy(args)
    }
    fn get_clock_counters(&self, args: &mut GetClockCountersArgs) -> KfdResult<()> {
        self.sim.get_clock_counters(args)
    }
    fn alloc_memory_of_gpu(&self, args: &mut AllocMemoryOfGpuArgs) -> KfdResult<()> {
        self.sim.alloc_memory_of_gpu(args)?;
        self.log(Call::Alloc {
            va: args.va_addr,
            size: args.size,
            gpu: args.gpu_id,
            flags: args.flags,
            handle: args.handle,
        });
        Ok(())
    }
    fn free_memory_of_gpu(&self, args: &mut FreeMemoryOfGpuArgs) -> KfdResult<()> {
        self.log(Call::Free {
            handle: args.handle,
        });
        let handle = args.handle;
        self.sim
            .free_memory_of_gpu(args)
            .inspect_err(|e| self.refused("FREE_MEMORY_OF_GPU", handle, e))
    }
    fn map_memory_to_gpu(&self, args: &mut MapMemoryToGpuArgs, ids: &[u32]) -> KfdResult<()> {
        self.log(Call::Map {
            handle: args.handle,
            gpus: ids[..args.n_devices as usize].to_vec(),
        });
        self.sim.map_memory_to_gpu(args, ids)
    }
    fn unmap_memory_from_gpu(
        &self,
        args: &mut UnmapMemoryFromGpuArgs,
        ids: &[u32],
    ) -> KfdResult<()> {
        self.log(Call::Unmap {
            handle: args.handle,
            gpus: ids[..args.n_devices as usize].to_vec(),
        });
        let handle = args.handle;
        self.sim
            .unmap_memory_from_gpu(args, ids)
            .inspect_err(|e| self.refused("UNMAP_MEMORY_FROM_GPU", handle, e))
    }
    fn get_dmabuf_info(&self, args: &mut GetDmabufInfoArgs, metadata: &mut [u8]) -> KfdResult<()> {
        self.sim.get_dmabuf_info(args, metadata)?;
        self.log(Call::Info {
            fd: args.dmabuf_fd,
            size: args.size,
            gpu: args.gpu_id,
            flags: args.flags,
        });
        Ok(())
    }
    fn import_dmabuf(&self, args: &mut ImportDmabufArgs) -> KfdResult<()> {
        self.sim.import_dmabuf(args)?;
        self.log(Call::Import {
            va: args.va_addr,
            gpu: args.gpu_id,
            fd: args.dmabuf_fd,
            handle: args.handle,
        });
        Ok(())
    }
    fn export_dmabuf(&self, args: &mut ExportDmabufArgs) -> KfdResult<()> {
        self.sim.export_dmabuf(args)?;
        self.log(Call::Export {
            handle: args.handle,
            flags: args.flags,
            fd: args.dmabuf_fd,
        });
        Ok(())
    }
    fn create_queue(&self, args: &mut CreateQueueArgs) -> KfdResult<()> {
        self.sim.create_queue(args)
    }
    fn destroy_queue(&self, args: &mut DestroyQueueArgs) -> KfdResult<()> {
        self.sim.destroy_queue(args)
    }
    fn update_queue(&self, args: &mut UpdateQueueArgs) -> KfdResult<()> {
        self.sim.update_queue(args)
    }
    fn create_event(&self, args: &mut CreateEventArgs) -> KfdResult<()> {
        self.sim.create_event(args)
    }
    fn destroy_event(&self, args: &mut DestroyEventArgs) -> KfdResult<()> {
        self.sim.destroy_event(args)
    }
    fn set_event(&self, args: &mut SetEventArgs) -> KfdResult<()> {
        self.sim.set_event(args)
    }
    fn reset_event(&self, args: &mut ResetEventArgs) -> KfdResult<()> {
        self.sim.reset_event(args)
    }
    fn wait_events(&self, args: &mut WaitEventsArgs, events: &mut [KfdEventData]) -> KfdResult<()> {
        self.sim.wait_events(args, events)
    }
    unsafe fn mmap_render_node(&self, gpu: u32, va: u64, size: u64, offset: u64) -> KfdResult<()> {
        // SAFETY: forwarded contract: the caller owns [va, va+size).
        unsafe { self.sim.mmap_render_node(gpu, va, size, offset) }
    }
    unsafe fn mmap_kfd(&self, va: u64, size: u64, offset: u64) -> KfdResult<()> {
        // SAFETY: forwarded contract: the caller owns [va, va+size).
        unsafe { self.sim.mmap_kfd(va, size, offset) }
    }
    fn write_doorbell(&self, va: u64, value: u64) {
        self.sim.write_doorbell(va, value)
    }
}

fn recorder(gpus: usize) -> Arc<Recorder> {
    let sim = SimDevice::new(SimConfig {
        gpus,
        threads: 1,
        ..SimConfig::default()
    })
    .unwrap();
    Arc::new(Recorder {
        sim,
        calls: Mutex::new(Vec::new()),
    })
}

fn runtime_over(recorder: Arc<Recorder>) -> Arc<Runtime> {
    Runtime::with_options(
        recorder,
        RuntimeOptions {
            visible_devices: None,
            aperture_size: 1 << 30,
        },
    )
    .unwrap()
}

#[test]
fn the_vmem_calls_issue_the_documented_kfd_requests() {
    let rec = recorder(2);
    let rt = runtime_over(rec.clone());
    let vm = VirtualMemory::new(&rt).unwrap();
    let gpu0 = rt.gpu_agent(0).unwrap().clone();
    let gpu1 = rt.gpu_agent(1).unwrap().clone();
    let coarse = rt.pool(&gpu0, PoolKind::CoarseDevice).unwrap();
    let fine = rt.pool(&gpu0, PoolKind::FineSystem).unwrap();
    rec.take();

    let size = 64 << 10;
    let h = vm.handle_create(coarse, size, MemoryType::Pinned).unwrap();
    let calls = rec.take();
    let [
        Call::Alloc {
            va: 0,
            size: alloc_size,
            gpu,
            flags,
            handle: bo,
        },
        Call::Export {
            handle: exported,
            flags: DMABUF_EXPORT_CLOEXEC,
            fd,
        },
    ] = calls[..]
    else {
        panic!("handle_create: {calls:?}");
    };
    assert_eq!((alloc_size, gpu, exported), (size, gpu0.gpu_id, bo));
    assert_eq!(
        flags,
        alloc_flags::VRAM
            | alloc_flags::WRITABLE
            | alloc_flags::PUBLIC
            | alloc_flags::NO_SUBSTITUTE
    );

    let g = vm.handle_create(fine, 4096, MemoryType::None).unwrap();
    match &rec.take()[..] {
        [Call::Alloc { va: 0, flags, .. }, Call::Export { .. }] => assert_eq!(
            *flags,
            alloc_flags::GTT | alloc_flags::WRITABLE | alloc_flags::COHERENT
        ),
        other => panic!("fine handle_create: {other:?}"),
    }
    vm.handle_release(g).unwrap();
    assert!(matches!(&rec.take()[..], [Call::Free { .. }]));

    let va = vm.reserve(size, 0).unwrap();
    assert_eq!(rec.take(), [], "reserving VA asks nothing of the driver");
    vm.map(va, size, 0, h).unwrap();
    let calls = rec.take();
    let [
        Call::Import {
            va: at,
            gpu,
            fd: imported_fd,
            handle: import,
        },
    ] = calls[..]
    else {
        panic!("map: {calls:?}");
    };
    assert_eq!((at, gpu, imported_fd), (va, gpu0.gpu_id, fd));

    vm.set_access(va, size, &[(&gpu1, Access::ReadWrite)])
        .unwrap();
    assert_eq!(
        rec.take(),
        [Call::Map {
            handle: import,
            gpus: vec![gpu1.gpu_id]
        }]
    );
    // Same GPU again (another permission): no request; a second GPU: one.
    vm.set_access(
        va,
        size,
        &[(&gpu1, Access::ReadOnly), (&gpu0, Access::ReadWrite)],
    )
    .unwrap();
    assert_eq!(
        rec.take(),
        [Call::Map {
            handle: import,
            gpus: vec![gpu0.gpu_id]
        }]
    );
    vm.set_access(va, size, &[(&gpu1, Access::None)]).unwrap();
    assert_eq!(
        rec.take(),
        [Call::Unmap {
            handle: import,
            gpus: vec![gpu1.gpu_id]
        }]
    );

    // Export for another process, import there (here: another runtime
    // over a device of its own, as a child process would have).
    let shared = vm.export_shareable_handle(h).unwrap();
    assert!(matches!(
        rec.take()[..],
        [Call::Export { handle, flags: DMABUF_EXPORT_CLOEXEC, .. }] if handle == bo
    ));
    let rec2 = recorder(2);
    let rt2 = runtime_over(rec2.clone());
    let vm2 = VirtualMemory::new(&rt2).unwrap();
    rec2.take();
    let h2 = vm2.import_shareable_handle(shared.as_fd()).unwrap();
    let calls = rec2.take();
    match &calls[..] {
        [
            Call::Info {
                size: s,
                gpu,
                flags: f,
                ..
            },
            Call::Import { va: 0, gpu: ig, .. },
        ] => {
            assert_eq!((*s, *gpu, *ig), (size, gpu0.gpu_id, gpu0.gpu_id));
            assert_eq!(*f, flags, "the exporter's alloc flags come back");
        }
        other => panic!("import: {other:?}"),
    }
    vm2.handle_release(h2).unwrap();
    assert!(matches!(rec2.take()[..], [Call::Free { .. }]));

    vm.unmap(va, size).unwrap();
    assert_eq!(
        rec.take(),
        [
            Call::Unmap {
                handle: import,
                gpus: vec![gpu0.gpu_id]
            },
            Call::Free { handle: import }
        ]
    );
    vm.handle_release(h).unwrap();
    assert_eq!(rec.take(), [Call::Free { handle: bo }]);
    vm.free(va, size).unwrap();
    assert_eq!(rec.take(), []);
}

/// Everything the runtime allocates (pool memory shared with a second GPU,
/// a queue with its ring and context-save area, signals and their events,
/// a vmem handle mapped for a GPU) is unmapped from every GPU and freed,
/// with no request refused, by the time the runtime is gone (the event
/// page aside, which KFD keeps until the process ends): KFD refuses
/// with EBUSY to free a BO that is still mapped (Linux
/// `amdgpu_amdkfd_gpuvm_free_memory_of_gpu`), so the runtime must never
/// leave that to the driver.
#[test]
fn the_runtime_frees_everything_it_allocates_without_an_error() {
    let rec = recorder(2);
    {
        let rt = runtime_over(rec.clone());
        let gpu0 = rt.gpu_agent(0).unwrap().clone();
        let gpu1 = rt.gpu_agent(1).unwrap().clone();
        let coarse = rt.pool(&gpu0, PoolKind::CoarseDevice).unwrap();
        let fine = rt.pool(&gpu0, PoolKind::FineSystem).unwrap();
        let device_memory = coarse.allocate(1 << 20).unwrap();
        let shared = fine.allocate(64 << 10).unwrap();
        rt.allow_access(&shared, &[&gpu0, &gpu1]).unwrap();
        let queue = rt.create_queue(&gpu1, 64).unwrap();
        let signals: Vec<_> = (0..4).map(|i| rt.create_signal(i).unwrap()).collect();
        let vm = VirtualMemory::new(&rt).unwrap();
        let va = vm.reserve(64 << 10, 0).unwrap();
        let h = vm
            .handle_create(coarse, 64 << 10, MemoryType::Pinned)
            .unwrap();
        vm.map(va, 64 << 10, 0, h).unwrap();
        vm.set_access(va, 64 << 10, &[(&gpu0, Access::ReadWrite)])
            .unwrap();
        drop((device_memory, shared, queue, signals, vm));
    }
    let calls = rec.take();
    let refused: Vec<&Call> = calls
        .iter()
        .filter(|c| matches!(c, Call::Refused { .. }))
        .collect();
    assert!(refused.is_empty(), "refused requests: {refused:?}");
    // The event page is the exception: once CREATE_EVENT registered it, KFD
    // keeps it until the process ends and refuses FREE with EPERM
    // (kfd_chardev.c `kfd_ioctl_free_memory_of_gpu`), so the runtime never
    // asks.
    let is_event_page = |size: u64, flags: u32| {
        size == aqueduct_hsa::runtime::EVENT_PAGE_SIZE
            && flags == aqueduct_hsa::runtime::EVENT_PAGE_FLAGS
    };
    let event_pages: Vec<u64> = calls
        .iter()
        .filter_map(|c| match c {
            Call::Alloc {
                handle,
                size,
                flags,
                ..
            } if is_event_page(*size, *flags) => Some(*handle),
            _ => None,
        })
        .collect();
    assert_eq!(event_pages.len(), 1, "one event page: {calls:?}");
    assert!(
        !calls.contains(&Call::Free {
            handle: event_pages[0]
        }),
        "the event page is left to the kernel"
    );
    let allocated: Vec<u64> = calls
        .iter()
        .filter_map(|c| match c {
            Call::Alloc { handle, .. } | Call::Import { handle, .. } => Some(*handle),
            _ => None,
        })
        .filter(|h| *h != event_pages[0])
        .collect();
    assert!(allocated.len() > 4, "the scenario allocates: {calls:?}");
    for handle in allocated {
        assert!(
            calls.contains(&Call::Free { handle }),
            "BO {handle:#x} is never freed: {calls:?}"
        );
    }
}
