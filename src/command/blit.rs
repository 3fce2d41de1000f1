//! The facade's own kernels (src/blit_kernels/blit.cl, precompiled per
//! target): `copy_u32` for copy_buffer_to_buffer and write_buffer uploads,
//! `fill_u32` for clear_buffer and zero-initialisation, `dispatch_patch` for
//! indirect dispatch. All run on the device's one compute queue, so there is
//! no SDMA queue (and no per-process DMA-queue limit).

use std::sync::Arc;

use aqueduct_hsa::{Agent, Executable, HsaError, Kernel, Runtime};

const BLIT_OBJECTS: &[(&str, &[u8])] = &[
    ("gfx1100", include_bytes!("../blit_kernels/gfx1100/blit.co")),
    ("gfx942", include_bytes!("../blit_kernels/gfx942/blit.co")),
    ("gfx90a", include_bytes!("../blit_kernels/gfx90a/blit.co")),
];

/// Work-items per workgroup of the copy and fill kernels.
pub(crate) const BLIT_WORKGROUP: u32 = 256;

#[derive(Debug)]
pub(crate) struct BlitKernels {
    pub executable: Arc<Executable>,
    pub copy_u32: Kernel,
    pub fill_u32: Kernel,
    pub dispatch_patch: Kernel,
}

impl BlitKernels {
    pub(crate) fn load(runtime: &Runtime, agent: &Agent) -> Result<BlitKernels, HsaError> {
        let code = BLIT_OBJECTS
            .iter()
            .find(|(gfx, _)| *gfx == agent.name)
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                HsaError::InvalidIsa(format!(
                    "Aqueduct has no blit kernels for {} (built for: {}); add the target to \
                     src/blit_kernels/build.sh",
                    agent.name,
                    BLIT_OBJECTS
                        .iter()
                        .map(|(g, _)| *g)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let executable = Arc::new(runtime.load_executable(agent, code)?);
        Ok(BlitKernels {
            copy_u32: executable.kernel("copy_u32")?,
            fill_u32: executable.kernel("fill_u32")?,
            dispatch_patch: executable.kernel("dispatch_patch")?,
            executable,
        })
    }
}
