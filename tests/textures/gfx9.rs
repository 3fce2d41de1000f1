//! Textures on the GFX9 parts (MI300X, gfx942; an MI250X GCD, gfx90a):
//! the targets have no image instructions the compiler can use, so a WGSL
//! shader with a texture binding is refused when its module is created,
//! with the compiler's typed error naming the target, and never runs.

use super::*;
use aqueduct::gfxsim::{SimConfig, SimPart};

const SHADER: &str = "@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<r32float, write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    textureStore(dst, id.xy, textureLoad(src, id.xy, 0));
}";

#[test]
fn texture_shaders_are_refused_on_gfx9_parts() {
    if !llvm_installed("texture_shaders_are_refused_on_gfx9_parts") {
        return;
    }
    no_disk_cache();
    for (part, gfx) in [(SimPart::Mi300x, "gfx942"), (SimPart::Mi250xGcd, "gfx90a")] {
        let (c, _sim) = sim_ctx_with(SimConfig {
            part,
            threads: 1,
            vram_size: 1 << 30,
            ..SimConfig::default()
        });
        let err = any_error(&c.device, || {
            let module = c.device.create_shader_module(ShaderModuleDescriptor {
                label: Some("gfx9 textures"),
                source: ShaderSource::Wgsl(Cow::Borrowed(SHADER)),
            });
            auto_pipeline(&c.device, &module, "main")
        })
        .unwrap_or_else(|| panic!("{gfx}: a texture shader made a pipeline"));
        let compile = match validation_source(&err) {
            Some(ValidationError::Shader(ShaderModuleError::Create {
                source: ShaderLoadError::Wgsl(WgslError::Compile(e)),
                ..
            })) => e.clone(),
            _ => panic!("{gfx}: {err:?}"),
        };
        match &*compile {
            aqueduct_shaderc::CompileError::Unsupported {
                kind, construct, ..
            } => {
                assert_eq!(*kind, aqueduct_shaderc::UnsupportedKind::TargetTextures);
                assert_eq!(*construct, format!("textures on {gfx}"));
            }
            other => panic!("{gfx}: {other:?}"),
        }
        assert!(err.to_string().contains(gfx), "{err}");
    }
}
