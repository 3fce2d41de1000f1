//! Opening Mesa's lavapipe through wgpu 30, and the few blocking helpers every
//! measurement shares (wait for the queue, read a mappable buffer).
//!
//! Only the Vulkan backend is enabled and only a CPU adapter is accepted: the
//! peer must be lavapipe (llvmpipe), never a real GPU that happens to be present,
//! or the comparison with gfxsim (a CPU-run simulator) would be meaningless.

use std::sync::mpsc;

/// What to install when lavapipe is missing (Debian/Ubuntu package names).
pub const INSTALL_HINT: &str = "apt-get install -y mesa-vulkan-drivers libvulkan1";

/// The lavapipe device and queue, plus what the adapter says about itself.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
}

impl Gpu {
    /// Picks the lavapipe adapter (name contains "llvmpipe", else any CPU-type
    /// Vulkan adapter) and opens it with the adapter's own limits.
    pub fn open() -> Result<Gpu, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        // No validation layers or debug labels: we measure the release path.
        desc.flags = wgpu::InstanceFlags::empty();
        let instance = wgpu::Instance::new(desc);
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let seen: Vec<String> = adapters
            .iter()
            .map(|a| {
                let i = a.get_info();
                format!("{} ({:?})", i.name, i.device_type)
            })
            .collect();
        let is_llvmpipe = |a: &wgpu::Adapter| a.get_info().name.contains("llvmpipe");
        let is_cpu = |a: &wgpu::Adapter| a.get_info().device_type == wgpu::DeviceType::Cpu;
        let adapter = adapters
            .iter()
            .find(|a| is_llvmpipe(a))
            .or_else(|| adapters.iter().find(|a| is_cpu(a)))
            .ok_or_else(|| {
                format!(
                    "no lavapipe (llvmpipe) Vulkan adapter found (Vulkan adapters seen: [{}]); \
                     install Mesa's lavapipe and the Vulkan loader: {INSTALL_HINT}",
                    seen.join(", ")
                )
            })?;
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("wgpu-peer"),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| format!("request_device on {}: {e}", info.name))?;
        Ok(Gpu {
            device,
            queue,
            info,
        })
    }

    /// Blocks until every submission so far has completed.
    pub fn wait(&self) -> Result<(), String> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| format!("device.poll(wait): {e}"))
    }

    /// Maps `buffer` (MAP_READ) for reading, waits with `device.poll`, copies
    /// its bytes into `out` and unmaps it: the whole user-visible readback.
    pub fn read_mapped(&self, buffer: &wgpu::Buffer, out: &mut [u8]) -> Result<(), String> {
        let (tx, rx) = mpsc::channel();
        buffer.map_async(wgpu::MapMode::Read, .., move |r| {
            // The receiver outlives the poll below; a send error cannot happen.
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|_| "map_async callback was dropped without running".to_string())?
            .map_err(|e| format!("map_async: {e}"))?;
        {
            let view = buffer
                .get_mapped_range(..)
                .map_err(|e| format!("get_mapped_range: {e}"))?;
            if view.len() != out.len() {
                return Err(format!(
                    "mapped {} bytes, expected {}",
                    view.len(),
                    out.len()
                ));
            }
            out.copy_from_slice(&view);
        }
        buffer.unmap();
        Ok(())
    }

    /// A compute pipeline from inline WGSL, with the layout derived from the shader.
    pub fn pipeline(&self, label: &str, wgsl: &str, entry: &str) -> wgpu::ComputePipeline {
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
        self.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
    }

    /// A buffer of `size` bytes with `usage`, not mapped at creation.
    pub fn buffer(&self, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    /// The adapter fields every measurement reports.
    pub fn describe(&self) -> serde_json::Value {
        serde_json::json!({
            "adapter": self.info.name,
            "driver": self.info.driver,
            "driver_info": self.info.driver_info,
            "backend": format!("{:?}", self.info.backend),
            "device_type": format!("{:?}", self.info.device_type),
            // lavapipe runs shaders on LP_NUM_THREADS threads (default: all cores).
            "lp_num_threads": std::env::var("LP_NUM_THREADS").ok(),
            "host_cores": std::thread::available_parallelism().map_or(1, |c| c.get()),
        })
    }
}
