//! Process-wide KFD state: what amdkfd keeps per process, shared by every
//! `Runtime` made over one device.
//!
//! amdkfd keeps one `kfd_process` per address space, not per open file:
//! `kfd_open` (Linux `kfd_chardev.c`) calls `kfd_create_process`
//! (`kfd_process.c`), which returns the process that an earlier open
//! already created, and that process lives until the address space is torn
//! down. Two of its per-process facts bind user space:
//! - **One VM per GPU.** ACQUIRE_VM binds the GPU's VM to one DRM render
//!   node file; a later ACQUIRE_VM with another file fails with EBUSY
//!   (`kfd_process_device_init_vm`: `pdd->drm_file` is set), and the driver
//!   keeps its reference to that file, so closing our descriptor does not
//!   release it.
//! - **One event page.** The first CREATE_EVENT that passes an event page
//!   registers it; another page is refused with EINVAL
//!   (`kfd_ioctl_create_event`, "Event page is already set"), and the
//!   registered page can never be freed (`kfd_ioctl_free_memory_of_gpu`:
//!   EPERM for the signal BO).
//!
//! So a second `Runtime` over the same device (two facade instances, or a
//! runtime made after another was dropped) must reuse the render node whose
//! VM is acquired and the registered event page. This module keeps them
//! per device (by identity), for as long as the device lives: the event
//! page sits in a VA reservation of its own, outside any runtime's
//! aperture, so it stays mapped at the address the driver knows after the
//! runtime that made it is gone. (libhsakmt does the same with its
//! reference-counted `hsaKmtOpenKFD` and its process-global events page.)

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};

use aqueduct_kfd::KfdDevice;
use aqueduct_kfd::uapi::{
    AcquireVmArgs, AllocMemoryOfGpuArgs, FreeMemoryOfGpuArgs, MapMemoryToGpuArgs,
    ProcessDeviceApertures,
};

use crate::error::{HsaResult, MemoryError};
use crate::memory::vmem::{PAGE_SIZE, VaReservation};
use crate::runtime::{EVENT_PAGE_FLAGS, EVENT_PAGE_SIZE};

/// What one device's KFD process holds for every runtime over it.
#[derive(Debug, Default)]
pub(crate) struct ProcessState {
    /// gpu_id → the render node descriptor whose VM this process acquired.
    vms: Mutex<BTreeMap<u32, u32>>,
    event_page: Mutex<Option<Arc<EventPage>>>,
}

/// The process's event page: a BO of `EVENT_PAGE_SIZE` bytes, mapped on the
/// GPUs in `gpus`, registered with KFD by the first CREATE_EVENT that
/// carries its handle.
#[derive(Debug)]
pub(crate) struct EventPage {
    /// Its own PROT_NONE range (never reused for other memory while the
    /// device lives), so the GPU address stays the page's.
    reservation: VaReservation,
    pub handle: u64,
    gpus: Mutex<Vec<u32>>,
    /// Whether a CREATE_EVENT has handed the page to KFD.
    pub registered: Mutex<bool>,
}

impl EventPage {
    /// GPU address of slot 0.
    pub fn va(&self) -> u64 {
        self.reservation.base()
    }
}

type Registry = Vec<(Weak<dyn KfdDevice>, Arc<ProcessState>)>;
static PROCESSES: Mutex<Registry> = Mutex::new(Vec::new());

/// The process state of `device` (created on first use). Entries of
/// devices that are gone are dropped here.
pub(crate) fn of(device: &Arc<dyn KfdDevice>) -> Arc<ProcessState> {
    let mut all = PROCESSES.lock().unwrap_or_else(|p| p.into_inner());
    all.retain(|(d, _)| d.strong_count() > 0);
    let key = Arc::downgrade(device);
    if let Some((_, state)) = all.iter().find(|(d, _)| Weak::ptr_eq(d, &key)) {
        return state.clone();
    }
    let state = Arc::new(ProcessState::default());
    all.push((key, state.clone()));
    state
}

impl ProcessState {
    /// The render node descriptor bound to `gpu_id`'s VM: the one acquired
    /// before, or `drm_render_minor` opened and ACQUIRE_VM'd now.
    pub fn acquire_vm(
        &self,
        device: &Arc<dyn KfdDevice>,
        gpu_id: u32,
        drm_render_minor: u32,
    ) -> HsaResult<u32> {
        let mut vms = self.vms.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&fd) = vms.get(&gpu_id) {
            return Ok(fd);
        }
        let drm_fd = device.open_render_node(drm_render_minor)?;
        device.acquire_vm(&mut AcquireVmArgs { drm_fd, gpu_id })?;
        vms.insert(gpu_id, drm_fd);
        Ok(drm_fd)
    }

    /// The event page, allocated on `gpus[0]` the first time and mapped on
    /// every GPU of `gpus` (later runtimes may see more GPUs than the
    /// first). `apertures` bound where the page's VA may lie.
    pub fn event_page(
        &self,
        device: &Arc<dyn KfdDevice>,
        gpus: &[u32],
        apertures: &[ProcessDeviceApertures],
    ) -> HsaResult<Arc<EventPage>> {
        let mut slot = self.event_page.lock().unwrap_or_else(|p| p.into_inner());
        let page = match slot.as_ref() {
            Some(page) => page.clone(),
            None => {
                let page = Arc::new(allocate_event_page(device, gpus[0], apertures)?);
                *slot = Some(page.clone());
                page
            }
        };
        let mut mapped = page.gpus.lock().unwrap_or_else(|p| p.into_inner());
        let missing: Vec<u32> = gpus
            .iter()
            .copied()
            .filter(|g| !mapped.contains(g))
            .collect();
        if !missing.is_empty() {
            map_on(device, page.handle, &missing)?;
            mapped.extend(missing);
        }
        drop(mapped);
        Ok(page)
    }
}

/// ALLOC_MEMORY_OF_GPU of the event page at the start of a reservation of
/// its own, on `owner`, host-mapped and mapped on `owner` only (yet).
fn allocate_event_page(
    device: &Arc<dyn KfdDevice>,
    owner: u32,
    apertures: &[ProcessDeviceApertures],
) -> HsaResult<EventPage> {
    let size = EVENT_PAGE_SIZE.next_multiple_of(PAGE_SIZE);
    let reservation = VaReservation::new(size, PAGE_SIZE)?;
    let end = reservation.base() + size - 1;
    if let Some(ap) = apertures.iter().find(|ap| {
        ap.gpuvm_limit != 0 && (reservation.base() < ap.gpuvm_base || end > ap.gpuvm_limit)
    }) {
        return Err(MemoryError::ApertureOutsideGpuvm {
            base: reservation.base(),
            end,
            gpu_id: ap.gpu_id,
            gpuvm_base: ap.gpuvm_base,
            gpuvm_limit: ap.gpuvm_limit,
        }
        .into());
    }
    let mut args = AllocMemoryOfGpuArgs {
        va_addr: reservation.base(),
        size,
        gpu_id: owner,
        flags: EVENT_PAGE_FLAGS,
        ..Default::default()
    };
    device.alloc_memory_of_gpu(&mut args)?;
    // Host-mapped as libhsakmt maps its events page, so the slots can be
    // read from the host when debugging a wait.
    // SAFETY: the range is this page's own PROT_NONE reservation, made above and used by nothing else.
    let host_mapped =
        unsafe { device.mmap_render_node(owner, reservation.base(), size, args.mmap_offset) };
    if let Err(e) = host_mapped
        .map_err(Into::into)
        .and_then(|()| map_on(device, args.handle, &[owner]))
    {
        let mut free = FreeMemoryOfGpuArgs {
            handle: args.handle,
        };
        if let Err(f) = device.free_memory_of_gpu(&mut free) {
            tracing::warn!("FREE_MEMORY_OF_GPU of an event page that failed to map: {f}");
        }
        return Err(e);
    }
    Ok(EventPage {
        reservation,
        handle: args.handle,
        gpus: Mutex::new(vec![owner]),
        registered: Mutex::new(false),
    })
}

fn map_on(device: &Arc<dyn KfdDevice>, handle: u64, gpus: &[u32]) -> HsaResult<()> {
    let mut args = MapMemoryToGpuArgs {
        handle,
        n_devices: gpus.len() as u32,
        ..Default::default()
    };
    device.map_memory_to_gpu(&mut args, gpus)?;
    if args.n_success != gpus.len() as u32 {
        return Err(MemoryError::PartialMapping {
            mapped: args.n_success,
            gpus: gpus.len(),
        }
        .into());
    }
    Ok(())
}
