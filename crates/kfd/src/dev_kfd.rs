//! The real device: [`KfdDevice`] over `/dev/kfd` and the DRM render nodes.
//!
//! Each trait method is one `ioctl(2)` with the UAPI struct as its bytes
//! (the request number from [`crate::ioctl`]) or one `mmap(2)`. Where the C struct carries a pointer to a user array, the
//! method fills that pointer from the slice it is given, after checking
//! that the count the kernel will use fits the slice; a count that does
//! not fit is refused with EINVAL before the kernel is called, so the
//! kernel never reads or writes past a Rust slice.
//!
//! Opening checks, in order: /dev/kfd can be opened, the topology lists at
//! least one GPU node, and GET_VERSION reports major version 1.
//!
//! The ioctl and mmap calls themselves go through [`KfdSyscalls`] (the real
//! ones by default), so tests can script a driver that fails.

use std::collections::BTreeMap;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bytemuck::Pod;
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::device::KfdDevice;
use crate::doorbell_pages::DoorbellPages;
use crate::error::{KfdError, KfdResult, NoDeviceError};
use crate::ioctl::*;
use crate::syscalls::{KfdSyscalls, RustixSyscalls};
use crate::topology::{DirTree, SYSFS_TOPOLOGY_ROOT, Topology};
use crate::uapi::*;

/// Where the KFD character device lives.
pub const DEV_KFD_PATH: &str = "/dev/kfd";

/// Oldest interface minor version this crate drives: 1.1, the first
/// version kfd_ioctl.h's history lists, already has every ioctl the trait
/// uses (newer fields, like create_queue's sdma_engine_id, are tolerated
/// by older kernels, which copy only the struct size they know: Linux
/// `kfd_chardev.c`, `kfd_ioctl`).
pub const KFD_MIN_MINOR_VERSION: u32 = 1;

#[derive(Debug)]
pub struct DevKfd {
    kfd: OwnedFd,
    kfd_path: PathBuf,
    sysfs_root: PathBuf,
    version: GetVersionArgs,
    /// gpu_id -> DRM render minor, from the topology read at open.
    render_minor_of_gpu: BTreeMap<u32, u32>,
    /// Open render nodes, by minor; kept open for the device's lifetime
    /// (ACQUIRE_VM and BO mmaps refer to them).
    render_nodes: Mutex<BTreeMap<u32, OwnedFd>>,
    /// The ioctl/mmap calls (the real ones unless a test scripts them).
    syscalls: Arc<dyn KfdSyscalls>,
    /// The doorbell pages mapped now; `write_doorbell` stores only there.
    doorbells: Mutex<DoorbellPages>,
}

fn io_error(errno: Errno) -> std::io::Error {
    std::io::Error::from_raw_os_error(errno.raw_os_error())
}

/// The address to put in a UAPI pointer field for the array at `ptr` of
/// `len` elements, after checking that the `count` elements the kernel will
/// access fit in it. (Callers pass `as_mut_ptr()` for arrays the kernel
/// writes, so the pointer carries write permission.)
pub(crate) fn bind_array<T>(
    ioctl: &'static str,
    count: u32,
    ptr: *const T,
    len: usize,
) -> KfdResult<u64> {
    if count as usize > len {
        tracing::debug!(
            ioctl,
            count,
            capacity = len,
            "array count exceeds the slice"
        );
        return Err(KfdError::ioctl(ioctl, Errno::INVAL.raw_os_error()));
    }
    Ok(ptr as u64)
}

impl DevKfd {
    /// The process's `/dev/kfd` with the system topology: opened on the
    /// first call, then the same device for every later call, for the rest
    /// of the process.
    ///
    /// amdkfd keeps one process context per address space whatever the
    /// number of open files (`kfd_open` → `kfd_create_process` in Linux
    /// `kfd_chardev.c`/`kfd_process.c`), and binds each GPU's VM to the
    /// first render node file given to ACQUIRE_VM until the process exits
    /// (`kfd_process_device_init_vm`: EBUSY for another file). One shared
    /// device keeps one render node per GPU, so every runtime of the
    /// process can acquire its VMs (libhsakmt counts opens of its one
    /// descriptor for the same reason: `hsaKmtOpenKFD`).
    pub fn open() -> KfdResult<Arc<DevKfd>> {
        static PROCESS_KFD: Mutex<Option<Arc<DevKfd>>> = Mutex::new(None);
        let mut shared = PROCESS_KFD.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(dev) = shared.as_ref() {
            return Ok(dev.clone());
        }
        let dev = Self::open_with(DEV_KFD_PATH, SYSFS_TOPOLOGY_ROOT)?;
        *shared = Some(dev.clone());
        Ok(dev)
    }

    /// Open a KFD device node at `kfd_path` whose topology is the sysfs
    /// tree at `sysfs_root` (tests point these elsewhere).
    pub fn open_with(
        kfd_path: impl AsRef<Path>,
        sysfs_root: impl AsRef<Path>,
    ) -> KfdResult<Arc<DevKfd>> {
        Self::open_with_syscalls(kfd_path, sysfs_root, Arc::new(RustixSyscalls))
    }

    /// [`DevKfd::open_with`], making its ioctl and mmap calls through
    /// `syscalls` (tests script a driver with it; the files are still
    /// opened for real).
    pub fn open_with_syscalls(
        kfd_path: impl AsRef<Path>,
        sysfs_root: impl AsRef<Path>,
        syscalls: Arc<dyn KfdSyscalls>,
    ) -> KfdResult<Arc<DevKfd>> {
        let kfd_path = kfd_path.as_ref().to_path_buf();
        let sysfs_root = sysfs_root.as_ref().to_path_buf();
        let kfd = match rustix::fs::open(&kfd_path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT | Errno::NODEV | Errno::NXIO) => {
                return Err(NoDeviceError::NodeMissing { path: kfd_path }.into());
            }
            Err(e @ (Errno::ACCESS | Errno::PERM)) => {
                return Err(NoDeviceError::NodeNotAccessible {
                    path: kfd_path,
                    source: io_error(e),
                }
                .into());
            }
            Err(e) => {
                return Err(KfdError::Os {
                    what: "open of the KFD device",
                    source: io_error(e),
                });
            }
        };

        let topology = Topology::parse(&DirTree::new(&sysfs_root))?;
        let render_minor_of_gpu: BTreeMap<u32, u32> = topology
            .gpu_nodes()
            .filter_map(|n| n.drm_render_minor().map(|minor| (n.gpu_id, minor)))
            .collect();
        if topology.gpu_nodes().next().is_none() {
            return Err(NoDeviceError::NoGpuNode { sysfs_root }.into());
        }

        let mut device = DevKfd {
            kfd,
            kfd_path,
            sysfs_root,
            version: GetVersionArgs::default(),
            render_minor_of_gpu,
            render_nodes: Mutex::new(BTreeMap::new()),
            syscalls,
            doorbells: Mutex::new(DoorbellPages::default()),
        };
        let mut version = GetVersionArgs::default();
        device.get_version(&mut version)?;
        if version.major_version != KFD_IOCTL_MAJOR_VERSION
            || version.minor_version < KFD_MIN_MINOR_VERSION
        {
            return Err(KfdError::UnsupportedVersion {
                major: version.major_version,
                minor: version.minor_version,
                min_minor: KFD_MIN_MINOR_VERSION,
            });
        }
        device.version = version;
        tracing::info!(
            path = %device.kfd_path.display(),
            major = version.major_version,
            minor = version.minor_version,
            gpus = device.render_minor_of_gpu.len(),
            "opened KFD"
        );
        Ok(Arc::new(device))
    }

    fn doorbells(&self) -> std::sync::MutexGuard<'_, DoorbellPages> {
        self.doorbells
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The interface version GET_VERSION reported at open.
    pub fn version(&self) -> GetVersionArgs {
        self.version
    }

    /// RUNTIME_ENABLE (KFD 1.13+): what ROCr issues at start-up so that
    /// KFD reports queue exceptions through the context-save header.
    pub fn runtime_enable(&self, args: &mut RuntimeEnableArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_RUNTIME_ENABLE, _>("RUNTIME_ENABLE", args)
    }

    fn ioctl<const REQUEST: u32, T: Pod>(&self, name: &'static str, args: &mut T) -> KfdResult<()> {
        const { assert!(ioc_size(REQUEST) == std::mem::size_of::<T>()) };
        loop {
            // SAFETY: every REQUEST used here is the KFD request built from
            // size_of::<T>() for the argument struct T (see crate::ioctl; the
            // const assertion above checks the size), and pointer fields
            // inside `args` were bound to live slices that outlive the call
            // by the slice-taking methods.
            let result = unsafe {
                self.syscalls
                    .ioctl(self.kfd.as_fd(), REQUEST, bytemuck::bytes_of_mut(args))
            };
            match result {
                Ok(()) => return Ok(()),
                Err(Errno::INTR) => continue,
                Err(e) => {
                    tracing::debug!(ioctl = name, errno = e.raw_os_error(), "KFD ioctl failed");
                    return Err(KfdError::Ioctl {
                        ioctl: name,
                        source: io_error(e),
                    });
                }
            }
        }
    }

    /// The open render node of `minor`, opening it on first use; returns
    /// its raw fd number.
    fn render_fd(&self, minor: u32) -> KfdResult<i32> {
        let mut nodes = self
            .render_nodes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(fd) = nodes.get(&minor) {
            return Ok(fd.as_raw_fd());
        }
        let path = format!("/dev/dri/renderD{minor}");
        let fd = rustix::fs::open(&path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty()).map_err(
            |e| KfdError::Os {
                what: "open of a DRM render node",
                source: io_error(e),
            },
        )?;
        tracing::debug!(%path, "opened render node");
        let raw = fd.as_raw_fd();
        nodes.insert(minor, fd);
        Ok(raw)
    }

    /// mmap(2) `size` bytes of `fd` at `offset`, read-write, MAP_SHARED |
    /// MAP_FIXED at `va`.
    ///
    /// # Safety
    /// `[va, va+size)` is a range the caller reserved and gives up.
    unsafe fn map_fixed(
        &self,
        what: &'static str,
        fd: std::os::fd::BorrowedFd<'_>,
        va: u64,
        size: u64,
        offset: u64,
    ) -> KfdResult<()> {
        let invalid = || KfdError::Os {
            what,
            source: io_error(Errno::INVAL),
        };
        let len = usize::try_from(size).map_err(|_| invalid())?;
        if va == 0 || len == 0 {
            return Err(invalid());
        }
        // SAFETY: the caller vouches that [va, va+len) is its own reservation.
        unsafe { self.syscalls.mmap_fixed(fd, va, len, offset) }.map_err(|e| KfdError::Os {
            what,
            source: io_error(e),
        })?;
        Ok(())
    }
}

impl KfdDevice for DevKfd {
    fn backend_name(&self) -> &'static str {
        "kfd"
    }

    fn topology(&self) -> KfdResult<Topology> {
        Topology::parse(&DirTree::new(&self.sysfs_root))
    }

    fn open_render_node(&self, drm_render_minor: u32) -> KfdResult<u32> {
        Ok(self.render_fd(drm_render_minor)? as u32)
    }

    fn get_version(&self, args: &mut GetVersionArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_GET_VERSION, _>("GET_VERSION", args)
    }

    fn get_process_apertures_new(
        &self,
        args: &mut GetProcessAperturesNewArgs,
        apertures: &mut [ProcessDeviceApertures],
    ) -> KfdResult<()> {
        const NAME: &str = "GET_PROCESS_APERTURES_NEW";
        args.kfd_process_device_apertures_ptr = bind_array(
            NAME,
            args.num_of_nodes,
            apertures.as_mut_ptr(),
            apertures.len(),
        )?;
        self.ioctl::<AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, _>(NAME, args)
    }

    fn acquire_vm(&self, args: &mut AcquireVmArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_ACQUIRE_VM, _>("ACQUIRE_VM", args)
    }

    fn set_memory_policy(&self, args: &mut SetMemoryPolicyArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_SET_MEMORY_POLICY, _>("SET_MEMORY_POLICY", args)
    }

    fn get_clock_counters(&self, args: &mut GetClockCountersArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_GET_CLOCK_COUNTERS, _>("GET_CLOCK_COUNTERS", args)
    }

    fn alloc_memory_of_gpu(&self, args: &mut AllocMemoryOfGpuArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, _>("ALLOC_MEMORY_OF_GPU", args)?;
        if args.flags & alloc_flags::DOORBELL != 0 {
            self.doorbells().allocated(args.handle, args.mmap_offset);
        }
        Ok(())
    }

    fn free_memory_of_gpu(&self, args: &mut FreeMemoryOfGpuArgs) -> KfdResult<()> {
        // Held across the ioctl: no doorbell store overlaps the free.
        let mut doorbells = self.doorbells();
        self.ioctl::<AMDKFD_IOC_FREE_MEMORY_OF_GPU, _>("FREE_MEMORY_OF_GPU", args)?;
        doorbells.freed(args.handle);
        Ok(())
    }

    fn map_memory_to_gpu(
        &self,
        args: &mut MapMemoryToGpuArgs,
        device_ids: &[u32],
    ) -> KfdResult<()> {
        const NAME: &str = "MAP_MEMORY_TO_GPU";
        args.device_ids_array_ptr =
            bind_array(NAME, args.n_devices, device_ids.as_ptr(), device_ids.len())?;
        self.ioctl::<AMDKFD_IOC_MAP_MEMORY_TO_GPU, _>(NAME, args)
    }

    fn unmap_memory_from_gpu(
        &self,
        args: &mut UnmapMemoryFromGpuArgs,
        device_ids: &[u32],
    ) -> KfdResult<()> {
        const NAME: &str = "UNMAP_MEMORY_FROM_GPU";
        args.device_ids_array_ptr =
            bind_array(NAME, args.n_devices, device_ids.as_ptr(), device_ids.len())?;
        self.ioctl::<AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, _>(NAME, args)
    }

    fn create_queue(&self, args: &mut CreateQueueArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_CREATE_QUEUE, _>("CREATE_QUEUE", args)
    }

    fn get_dmabuf_info(&self, args: &mut GetDmabufInfoArgs, metadata: &mut [u8]) -> KfdResult<()> {
        const NAME: &str = "GET_DMABUF_INFO";
        let capacity = u32::try_from(metadata.len()).unwrap_or(u32::MAX);
        args.metadata_size = capacity;
        args.metadata_ptr = if metadata.is_empty() {
            0
        } else {
            bind_array(NAME, capacity, metadata.as_mut_ptr(), metadata.len())?
        };
        self.ioctl::<AMDKFD_IOC_GET_DMABUF_INFO, _>(NAME, args)
    }

    fn import_dmabuf(&self, args: &mut ImportDmabufArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_IMPORT_DMABUF, _>("IMPORT_DMABUF", args)
    }

    fn export_dmabuf(&self, args: &mut ExportDmabufArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_EXPORT_DMABUF, _>("EXPORT_DMABUF", args)
    }

    fn destroy_queue(&self, args: &mut DestroyQueueArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_DESTROY_QUEUE, _>("DESTROY_QUEUE", args)
    }

    fn update_queue(&self, args: &mut UpdateQueueArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_UPDATE_QUEUE, _>("UPDATE_QUEUE", args)
    }

    fn create_event(&self, args: &mut CreateEventArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_CREATE_EVENT, _>("CREATE_EVENT", args)
    }

    fn destroy_event(&self, args: &mut DestroyEventArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_DESTROY_EVENT, _>("DESTROY_EVENT", args)
    }

    fn set_event(&self, args: &mut SetEventArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_SET_EVENT, _>("SET_EVENT", args)
    }

    fn reset_event(&self, args: &mut ResetEventArgs) -> KfdResult<()> {
        self.ioctl::<AMDKFD_IOC_RESET_EVENT, _>("RESET_EVENT", args)
    }

    fn wait_events(&self, args: &mut WaitEventsArgs, events: &mut [KfdEventData]) -> KfdResult<()> {
        const NAME: &str = "WAIT_EVENTS";
        args.events_ptr = bind_array(NAME, args.num_events, events.as_mut_ptr(), events.len())?;
        self.ioctl::<AMDKFD_IOC_WAIT_EVENTS, _>(NAME, args)
    }

    unsafe fn mmap_render_node(
        &self,
        gpu_id: u32,
        va: u64,
        size: u64,
        mmap_offset: u64,
    ) -> KfdResult<()> {
        let minor = *self
            .render_minor_of_gpu
            .get(&gpu_id)
            .ok_or_else(|| KfdError::Os {
                what: "mmap of a render node (unknown gpu_id)",
                source: io_error(Errno::INVAL),
            })?;
        self.render_fd(minor)?;
        let nodes = self
            .render_nodes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(fd) = nodes.get(&minor) else {
            return Err(KfdError::Os {
                what: "mmap of a render node",
                source: io_error(Errno::BADF),
            });
        };
        let mut doorbells = self.doorbells();
        // SAFETY: the caller's contract (the trait's # Safety) covers the range.
        unsafe { self.map_fixed("mmap of a render node", fd.as_fd(), va, size, mmap_offset) }?;
        doorbells.mapped(va, size, None);
        Ok(())
    }

    unsafe fn mmap_kfd(&self, va: u64, size: u64, mmap_offset: u64) -> KfdResult<()> {
        let mut doorbells = self.doorbells();
        // SAFETY: the caller's contract (the trait's # Safety) covers the range.
        unsafe { self.map_fixed("mmap of /dev/kfd", self.kfd.as_fd(), va, size, mmap_offset) }?;
        doorbells.mapped(va, size, Some(mmap_offset));
        Ok(())
    }

    fn write_doorbell(&self, doorbell_va: u64, value: u64) {
        // Held across the store: the page cannot be freed or mapped over
        // through this device meanwhile.
        let doorbells = self.doorbells();
        if doorbell_va == 0 || !doorbell_va.is_multiple_of(8) || !doorbells.contains(doorbell_va) {
            tracing::error!(
                doorbell_va,
                "refusing a doorbell write outside the mapped doorbell pages"
            );
            return;
        }
        // Order the packet writes before the doorbell, as ROCr's release
        // store does.
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
        // SAFETY: `doorbell_va` is 8-byte aligned and its 8 bytes lie in a
        // doorbell page this device mapped and that is still mapped (see
        // doorbell_pages.rs); a volatile store is the single 64-bit MMIO
        // write the hardware expects.
        unsafe { std::ptr::write_volatile(doorbell_va as *mut u64, value) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::mm::{MapFlags, ProtFlags};

    /// A DevKfd whose "/dev/kfd" is a memfd: ioctls on it fail with ENOTTY
    /// (so a refusal with EINVAL proves the kernel was not called), and
    /// mmaps of it behave as MAP_SHARED file mappings.
    fn memfd_device() -> DevKfd {
        let fd = rustix::fs::memfd_create("fake-kfd", rustix::fs::MemfdFlags::CLOEXEC).unwrap();
        rustix::fs::ftruncate(&fd, 2 * 4096).unwrap();
        DevKfd {
            kfd: fd,
            kfd_path: PathBuf::from("memfd"),
            sysfs_root: PathBuf::from("/nonexistent"),
            version: GetVersionArgs::default(),
            render_minor_of_gpu: BTreeMap::new(),
            render_nodes: Mutex::new(BTreeMap::new()),
            syscalls: Arc::new(RustixSyscalls),
            doorbells: Mutex::new(DoorbellPages::default()),
        }
    }

    #[test]
    fn ioctl_errors_carry_name_and_errno() {
        let dev = memfd_device();
        let err = dev.get_version(&mut GetVersionArgs::default()).unwrap_err();
        assert!(
            matches!(
                err,
                KfdError::Ioctl {
                    ioctl: "GET_VERSION",
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(err.errno(), Some(Errno::NOTTY.raw_os_error()));
    }

    #[test]
    fn inconsistent_counts_are_refused_before_the_kernel() {
        let dev = memfd_device();
        let mut map = MapMemoryToGpuArgs {
            handle: 1,
            n_devices: 2,
            ..Default::default()
        };
        let err = dev.map_memory_to_gpu(&mut map, &[5]).unwrap_err();
        assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));
        assert_eq!(map.device_ids_array_ptr, 0, "pointer not filled on refusal");

        let mut wait = WaitEventsArgs {
            num_events: 3,
            ..Default::default()
        };
        let mut events = [KfdEventData::for_event(1); 2];
        assert_eq!(
            dev.wait_events(&mut wait, &mut events).unwrap_err().errno(),
            Some(Errno::INVAL.raw_os_error())
        );

        let mut apertures = GetProcessAperturesNewArgs {
            num_of_nodes: 1,
            ..Default::default()
        };
        let err = dev
            .get_process_apertures_new(&mut apertures, &mut [])
            .unwrap_err();
        assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));

        // Consistent counts reach the kernel (here: ENOTTY from the memfd)
        // with the pointer filled from the slice.
        let ids = [5u32, 6];
        let err = dev.unmap_memory_from_gpu(&mut map, &ids).unwrap_err();
        assert_eq!(err.errno(), Some(Errno::NOTTY.raw_os_error()));
        assert_eq!(map.device_ids_array_ptr, ids.as_ptr() as u64);
    }

    /// Answers ALLOC_MEMORY_OF_GPU with BO 5 at mmap offset 4096 and
    /// FREE_MEMORY_OF_GPU with success, as KFD does for a doorbell page;
    /// mmaps are real.
    #[derive(Debug)]
    struct DoorbellKernel;

    impl KfdSyscalls for DoorbellKernel {
        unsafe fn ioctl(
            &self,
            _fd: std::os::fd::BorrowedFd<'_>,
            request: u32,
            args: &mut [u8],
        ) -> Result<(), Errno> {
            match request {
                AMDKFD_IOC_ALLOC_MEMORY_OF_GPU => {
                    let a: &mut AllocMemoryOfGpuArgs = bytemuck::from_bytes_mut(args);
                    a.handle = 5;
                    a.mmap_offset = 4096;
                    Ok(())
                }
                AMDKFD_IOC_FREE_MEMORY_OF_GPU => Ok(()),
                _ => Err(Errno::NOTTY),
            }
        }

        unsafe fn mmap_fixed(
            &self,
            fd: std::os::fd::BorrowedFd<'_>,
            va: u64,
            len: usize,
            offset: u64,
        ) -> Result<(), Errno> {
            // SAFETY: the caller's contract is passed on unchanged.
            unsafe { RustixSyscalls.mmap_fixed(fd, va, len, offset) }
        }
    }

    #[test]
    fn mmap_kfd_maps_shared_and_fixed_and_doorbell_stores() {
        let dev = DevKfd {
            syscalls: Arc::new(DoorbellKernel),
            ..memfd_device()
        };
        // Reserve two pages, as the runtime does before placing a mapping.
        // SAFETY: a fresh anonymous PROT_NONE reservation; nothing else uses it.
        let base = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                2 * 4096,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }
        .unwrap() as u64;
        let read_back = |offset: u64| {
            let mut buf = [0u8; 8];
            rustix::io::pread(&dev.kfd, &mut buf, offset).unwrap();
            u64::from_le_bytes(buf)
        };
        let mut alloc = AllocMemoryOfGpuArgs {
            va_addr: base,
            size: 4096,
            flags: alloc_flags::DOORBELL,
            ..Default::default()
        };
        dev.alloc_memory_of_gpu(&mut alloc).unwrap();
        // Map the memfd's second page (the BO's offset) over the first
        // reserved page.
        // SAFETY: [base, base+4096) is part of the reservation made above.
        unsafe { dev.mmap_kfd(base, 4096, alloc.mmap_offset) }.unwrap();
        dev.write_doorbell(base + 8, 0x1122_3344_5566_7788);
        assert_eq!(
            read_back(4096 + 8),
            0x1122_3344_5566_7788,
            "store reached the shared file page"
        );
        // Misaligned, null and out-of-page doorbells are refused without a
        // fault (the second reserved page is PROT_NONE).
        dev.write_doorbell(base + 3, 1);
        dev.write_doorbell(0, 1);
        dev.write_doorbell(base + 4096, 1);
        assert_eq!(read_back(4096), 0);
        // Once the BO is freed the page is no doorbell page any more.
        dev.free_memory_of_gpu(&mut FreeMemoryOfGpuArgs { handle: 5 })
            .unwrap();
        dev.write_doorbell(base + 16, 2);
        assert_eq!(read_back(4096 + 16), 0);
        // SAFETY: as above.
        let err = unsafe { dev.mmap_kfd(base, 0, 0) }.unwrap_err();
        assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));
        // SAFETY: unmapping the reservation made above.
        unsafe { rustix::mm::munmap(base as *mut std::ffi::c_void, 2 * 4096) }.unwrap();
    }

    #[test]
    fn unknown_gpu_render_mmap_is_refused() {
        let dev = memfd_device();
        // SAFETY: the call fails before any mapping is made.
        let err = unsafe { dev.mmap_render_node(1234, 0x1000_0000, 4096, 0) }.unwrap_err();
        assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));
    }

    /// Answers every ioctl as a KFD with dma-buf support would, recording
    /// the request number and the bytes it was given.
    #[derive(Debug, Default)]
    struct DmabufKernel {
        calls: Mutex<Vec<(u32, Vec<u8>)>>,
    }

    impl KfdSyscalls for DmabufKernel {
        unsafe fn ioctl(
            &self,
            _fd: std::os::fd::BorrowedFd<'_>,
            request: u32,
            args: &mut [u8],
        ) -> Result<(), Errno> {
            self.calls.lock().unwrap().push((request, args.to_vec()));
            match request {
                AMDKFD_IOC_EXPORT_DMABUF => {
                    let a: &mut ExportDmabufArgs = bytemuck::from_bytes_mut(args);
                    a.dmabuf_fd = 77;
                }
                AMDKFD_IOC_IMPORT_DMABUF => {
                    let a: &mut ImportDmabufArgs = bytemuck::from_bytes_mut(args);
                    a.handle = (u64::from(a.gpu_id) << 32) | 9;
                }
                AMDKFD_IOC_GET_DMABUF_INFO => {
                    let a: &mut GetDmabufInfoArgs = bytemuck::from_bytes_mut(args);
                    a.size = 0x20_0000;
                    a.gpu_id = 0x1234;
                    a.flags = alloc_flags::VRAM | alloc_flags::WRITABLE;
                    a.metadata_size = 0;
                }
                _ => return Err(Errno::NOTTY),
            }
            Ok(())
        }

        unsafe fn mmap_fixed(
            &self,
            _fd: std::os::fd::BorrowedFd<'_>,
            _va: u64,
            _len: usize,
            _offset: u64,
        ) -> Result<(), Errno> {
            Err(Errno::NODEV)
        }
    }

    #[test]
    fn dmabuf_ioctls_pass_the_uapi_structs_to_the_kernel() {
        let kernel = Arc::new(DmabufKernel::default());
        let dev = DevKfd {
            syscalls: kernel.clone(),
            ..memfd_device()
        };
        let mut export = ExportDmabufArgs {
            handle: 0x1234_0000_0005,
            flags: DMABUF_EXPORT_CLOEXEC,
            ..Default::default()
        };
        dev.export_dmabuf(&mut export).unwrap();
        assert_eq!(export.dmabuf_fd, 77);
        let mut import = ImportDmabufArgs {
            va_addr: 0x7000_0000,
            gpu_id: 0x1234,
            dmabuf_fd: 77,
            ..Default::default()
        };
        dev.import_dmabuf(&mut import).unwrap();
        assert_eq!(import.handle, 0x1234_0000_0009);
        let mut metadata = [0u8; 64];
        let mut info = GetDmabufInfoArgs {
            dmabuf_fd: 77,
            ..Default::default()
        };
        dev.get_dmabuf_info(&mut info, &mut metadata).unwrap();
        assert_eq!((info.size, info.gpu_id), (0x20_0000, 0x1234));

        let calls = kernel.calls.lock().unwrap();
        let requests: Vec<u32> = calls.iter().map(|c| c.0).collect();
        assert_eq!(requests, [0xc0104b24, 0xc0184b1d, 0xc0204b1c]);
        // The kernel saw exactly the structs' bytes, the metadata pointer
        // bound to the caller's buffer with its capacity.
        assert_eq!(
            calls[0].1,
            bytemuck::bytes_of(&ExportDmabufArgs {
                handle: 0x1234_0000_0005,
                flags: DMABUF_EXPORT_CLOEXEC,
                dmabuf_fd: 0,
            })
        );
        let sent: GetDmabufInfoArgs = *bytemuck::from_bytes(&calls[2].1);
        assert_eq!(sent.metadata_ptr, metadata.as_ptr() as u64);
        assert_eq!((sent.metadata_size, sent.dmabuf_fd), (64, 77));
    }

    #[test]
    fn bind_array_checks_the_count_against_the_slice() {
        let ids = [7u32, 8, 9];
        let p = ids.as_ptr();
        assert_eq!(bind_array("MAP_MEMORY_TO_GPU", 3, p, 3).unwrap(), p as u64);
        assert_eq!(bind_array("MAP_MEMORY_TO_GPU", 1, p, 3).unwrap(), p as u64);
        let err = bind_array("MAP_MEMORY_TO_GPU", 4, p, 3).unwrap_err();
        assert_eq!(err.errno(), Some(Errno::INVAL.raw_os_error()));
        assert!(err.to_string().contains("MAP_MEMORY_TO_GPU"), "{err}");
        let mut empty: [KfdEventData; 0] = [];
        assert!(bind_array("WAIT_EVENTS", 0, empty.as_mut_ptr(), 0).is_ok());
        assert!(bind_array("WAIT_EVENTS", 1, empty.as_mut_ptr(), 0).is_err());
    }
}
