//! The instance: which device backs Aqueduct (the real /dev/kfd or
//! gfxsim, chosen by `device_select`, or a `KfdDevice` the caller built),
//! and the adapters (GPU agents) on it.
//!
//! wgpu 30 makes `request_adapter`, `enumerate_adapters` and
//! `request_device` async. Aqueduct keeps those signatures (they resolve at
//! once, so `aqueduct::block_on` or any executor drives them) and adds
//! blocking twins (`request_adapter_sync`, ...) for code that has no
//! executor. The HSA runtime is opened on the first request and shared by
//! all adapters of the instance.

use std::sync::{Arc, Mutex};

use aqueduct_hsa::{HsaError, Runtime};
use aqueduct_kfd::KfdDevice;
use wgpu_types::{Backends, RequestAdapterError};

use crate::adapter::{Adapter, DeviceList};
use crate::device_select::{DeviceChoice, DeviceSelectError, open_device};
use crate::queue::PollType;

/// Compute-only: there are no surfaces. Exists so `RequestAdapterOptions`
/// keeps wgpu's shape (`compatible_surface: None`).
#[derive(Debug)]
pub enum Surface {}

/// Options for `Instance::request_adapter`; `compatible_surface` is always `None`.
pub type RequestAdapterOptions<'a> = wgpu_types::RequestAdapterOptions<&'a Surface>;

/// Where an instance gets its device from.
#[derive(Clone)]
enum DeviceSource {
    /// Opened on first use as the choice says.
    Choice(DeviceChoice),
    /// Given by the caller ([`Instance::from_device`]).
    Given(Arc<dyn KfdDevice>),
}

impl std::fmt::Debug for DeviceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceSource::Choice(c) => f.debug_tuple("Choice").field(c).finish(),
            DeviceSource::Given(d) => f.debug_tuple("Given").field(&d.backend_name()).finish(),
        }
    }
}

/// Why an instance has no runtime, or an adapter URI names no adapter.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    /// The device could not be opened.
    #[error(transparent)]
    Device(#[from] DeviceSelectError),
    /// The HSA runtime could not start on the device, or has no such agent.
    #[error(transparent)]
    Runtime(#[from] HsaError),
    /// The URI is not `amdgpu:N` or `amdgpu://GPU-<uuid>`.
    #[error("`{uri}` is not a device URI; use amdgpu:N or amdgpu://GPU-<uuid>")]
    BadUri {
        /// The URI given.
        uri: String,
    },
}

#[derive(Debug)]
struct InstanceInner {
    source: DeviceSource,
    runtime: Mutex<Option<Arc<Runtime>>>,
    /// Devices requested from this instance's adapters.
    devices: DeviceList,
}

/// Entry point to Aqueduct (cheap to clone).
#[derive(Clone, Debug)]
pub struct Instance {
    inner: Arc<InstanceInner>,
}

impl Default for Instance {
    /// The device `AQUEDUCT_DEVICE` asks for (kfd | sim | auto), else auto.
    fn default() -> Self {
        let choice = DeviceChoice::from_env().unwrap_or_else(|e| {
            tracing::warn!("{e}; using auto");
            DeviceChoice::Auto
        });
        Instance::with_device(choice)
    }
}

impl Instance {
    /// An instance; the descriptor's backends and flags do not apply (the
    /// backend is chosen with `AQUEDUCT_DEVICE` or [`Instance::with_device`]).
    pub fn new(_desc: wgpu_types::InstanceDescriptor) -> Self {
        Self::default()
    }

    /// An instance over a chosen device (real KFD, gfxsim, or auto).
    pub fn with_device(choice: DeviceChoice) -> Self {
        Self::from_source(DeviceSource::Choice(choice))
    }

    /// An instance over a device the caller built: a gfxsim configured with
    /// a value (`SimDevice::new(SimConfig { strict_coherence: true, .. })`),
    /// a `DevKfd`, or any other `KfdDevice`. The HSA runtime opens on it at
    /// the first adapter request.
    pub fn from_device(device: Arc<dyn KfdDevice>) -> Self {
        Self::from_source(DeviceSource::Given(device))
    }

    fn from_source(source: DeviceSource) -> Self {
        crate::trace::start_from_env();
        Instance {
            inner: Arc::new(InstanceInner {
                source,
                runtime: Mutex::new(None),
                devices: DeviceList::default(),
            }),
        }
    }

    /// The choice this instance opens its device by; None for an instance
    /// made with [`Instance::from_device`].
    pub fn device_choice(&self) -> Option<DeviceChoice> {
        match &self.inner.source {
            DeviceSource::Choice(c) => Some(*c),
            DeviceSource::Given(_) => None,
        }
    }

    /// The HSA runtime under this instance, opened on first use.
    fn runtime(&self) -> Result<Arc<Runtime>, InstanceError> {
        let mut rt = self.inner.runtime.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = rt.as_ref() {
            return Ok(r.clone());
        }
        let device = match &self.inner.source {
            DeviceSource::Choice(choice) => open_device(*choice)?,
            DeviceSource::Given(device) => device.clone(),
        };
        let runtime = Runtime::new(device)?;
        *rt = Some(runtime.clone());
        Ok(runtime)
    }

    /// All GPU adapters, in visibility order (`ROCR_VISIBLE_DEVICES`).
    pub fn enumerate_adapters_sync(&self) -> Vec<Adapter> {
        match self.runtime() {
            Ok(rt) => rt
                .gpu_agents()
                .cloned()
                .collect::<Vec<_>>()
                .into_iter()
                .map(|a| Adapter::new(rt.clone(), a, self.inner.devices.clone()))
                .collect(),
            Err(e) => {
                tracing::warn!("no adapters: {e}");
                Vec::new()
            }
        }
    }

    /// wgpu-compatible async form of [`Instance::enumerate_adapters_sync`].
    pub fn enumerate_adapters(&self, _backends: Backends) -> std::future::Ready<Vec<Adapter>> {
        std::future::ready(self.enumerate_adapters_sync())
    }

    /// The first GPU adapter (power preference does not apply: adapters
    /// come in `ROCR_VISIBLE_DEVICES` order).
    pub fn request_adapter_sync(
        &self,
        _options: &RequestAdapterOptions<'_>,
    ) -> Result<Adapter, RequestAdapterError> {
        self.enumerate_adapters_sync()
            .into_iter()
            .next()
            .ok_or(RequestAdapterError::NotFound {
                active_backends: Backends::empty(),
                requested_backends: Backends::all(),
                supported_backends: Backends::empty(),
                no_fallback_backends: Backends::empty(),
                no_adapter_backends: Backends::empty(),
                incompatible_surface_backends: Backends::empty(),
            })
    }

    /// wgpu-compatible async form of [`Instance::request_adapter_sync`].
    pub fn request_adapter(
        &self,
        options: &RequestAdapterOptions<'_>,
    ) -> std::future::Ready<Result<Adapter, RequestAdapterError>> {
        std::future::ready(self.request_adapter_sync(options))
    }

    /// An adapter by URI: `amdgpu:N` (GPU ordinal) or `amdgpu://GPU-<uuid>`.
    pub fn request_adapter_by_uri(&self, uri: &str) -> Result<Adapter, InstanceError> {
        let bad_uri = || InstanceError::BadUri {
            uri: uri.to_string(),
        };
        let agent = if let Some(uuid) = uri.strip_prefix("amdgpu://") {
            self.runtime()?.agent_by_uuid(uuid)?.clone()
        } else if let Some(n) = uri.strip_prefix("amdgpu:") {
            let ordinal: usize = n.parse().map_err(|_| bad_uri())?;
            self.runtime()?.gpu_agent(ordinal)?.clone()
        } else {
            return Err(bad_uri());
        };
        let rt = self.runtime()?;
        Ok(Adapter::new(rt, agent, self.inner.devices.clone()))
    }

    /// Poll every live device requested from this instance's adapters
    /// (running their ready map and work-done callbacks); with
    /// `force_wait`, first wait until all their submitted work has
    /// completed. Returns whether every device's queue is then empty, as
    /// wgpu's `poll_all` does.
    pub fn poll_all(&self, force_wait: bool) -> bool {
        let devices: Vec<_> = {
            let mut list = self.inner.devices.lock().unwrap_or_else(|p| p.into_inner());
            list.retain(|d| d.strong_count() > 0);
            list.iter().filter_map(|d| d.upgrade()).collect()
        };
        let mut all_empty = true;
        for dev in &devices {
            let poll_type = if force_wait {
                PollType::Wait {
                    submission_index: None,
                    timeout: None,
                }
            } else {
                PollType::Poll
            };
            match crate::queue::poll(dev, poll_type) {
                Ok(wgpu_types::PollStatus::QueueEmpty) => {}
                Ok(_) => all_empty = false,
                Err(e) => {
                    tracing::warn!("poll_all: {e}");
                    all_empty = false;
                }
            }
        }
        all_empty
    }
}
