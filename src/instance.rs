//! The instance: which device backs Aqueduct (the real /dev/kfd or
//! gfxsim, chosen by `device_select`), and the adapters (GPU agents) on it.
//!
//! wgpu 30 makes `request_adapter`, `enumerate_adapters` and
//! `request_device` async. Aqueduct keeps those signatures (they resolve at
//! once, so `aqueduct::block_on` or any executor drives them) and adds
//! blocking twins (`request_adapter_sync`, ...) for code that has no
//! executor. The HSA runtime is opened on the first request and shared by
//! all adapters of the instance.

use std::sync::{Arc, Mutex};

use aqueduct_hsa::Runtime;
use wgpu_types::{Backends, RequestAdapterError};

use crate::adapter::{Adapter, DeviceList};
use crate::device_select::{DeviceChoice, open_device};
use crate::queue::PollType;

/// Compute-only: there are no surfaces. Exists so `RequestAdapterOptions`
/// keeps wgpu's shape (`compatible_surface: None`).
#[derive(Debug)]
pub enum Surface {}

pub type RequestAdapterOptions<'a> = wgpu_types::RequestAdapterOptions<&'a Surface>;

#[derive(Debug)]
struct InstanceInner {
    choice: DeviceChoice,
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
        Instance {
            inner: Arc::new(InstanceInner {
                choice,
                runtime: Mutex::new(None),
                devices: DeviceList::default(),
            }),
        }
    }

    pub fn device_choice(&self) -> DeviceChoice {
        self.inner.choice
    }

    fn runtime(&self) -> Result<Arc<Runtime>, String> {
        let mut rt = self.inner.runtime.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = rt.as_ref() {
            return Ok(r.clone());
        }
        let device = open_device(self.inner.choice).map_err(|e| e.to_string())?;
        let runtime = Runtime::new(device).map_err(|e| e.to_string())?;
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
    pub fn request_adapter_by_uri(&self, uri: &str) -> Result<Adapter, String> {
        let rt = self.runtime()?;
        let agent = if let Some(uuid) = uri.strip_prefix("amdgpu://") {
            rt.agent_by_uuid(uuid).map_err(|e| e.to_string())?.clone()
        } else if let Some(n) = uri.strip_prefix("amdgpu:") {
            let ordinal: usize = n
                .parse()
                .map_err(|_| format!("`{uri}`: expected amdgpu:N with a GPU ordinal"))?;
            rt.gpu_agent(ordinal).map_err(|e| e.to_string())?.clone()
        } else {
            return Err(format!(
                "`{uri}` is not a device URI; use amdgpu:N or amdgpu://GPU-<uuid>"
            ));
        };
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
