//! Shader modules from raw code objects: one kernel the facade cannot bind
//! leaves the object's other kernels usable, and a workgroup size with a
//! zero dimension is refused when the module is made.
//!
//! Kernels: tests/kernels/<target>/dynamic_lds.co
//! (tests/kernels/src/dynamic_lds.cl).

use aqueduct_test_harness::facade::*;

use std::borrow::Cow;

use aqueduct::*;

fn dynamic_lds_co() -> Vec<u8> {
    test_kernel("dynamic_lds")
}

fn code_object_module(c: &Ctx, code: &[u8], workgroup_size: Option<[u32; 3]>) -> ShaderModule {
    c.device.create_shader_module(ShaderModuleDescriptor {
        label: Some("dynamic_lds"),
        source: ShaderSource::CodeObject {
            code: Cow::Borrowed(code),
            workgroup_size,
        },
    })
}

#[test]
fn a_dynamic_lds_kernel_leaves_the_other_kernels_usable() {
    let c = ctx();
    let code = dynamic_lds_co();
    let module = expect_valid(&c.device, || code_object_module(&c, &code, None));
    expect_valid(&c.device, || {
        auto_pipeline(&c.device, &module, "copy_words")
    });
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Pipeline(ComputePipelineError::EntryPoint {
                    source: EntryPointError::Unusable { name, index: 2, kind },
                    ..
                }) if name == "reverse_in_lds" && kind == "dynamic_shared_pointer"
            )
        },
        || auto_pipeline(&c.device, &module, "reverse_in_lds"),
    );
}

#[test]
fn a_zero_workgroup_dimension_is_refused_at_module_creation() {
    let c = ctx();
    let code = dynamic_lds_co();
    for size in [[0, 1, 1], [64, 0, 1], [64, 1, 0]] {
        expect_validation(
            &c.device,
            |e| {
                matches!(
                    e,
                    ValidationError::Shader(ShaderModuleError::Create {
                        source: ShaderLoadError::ZeroWorkgroupSize { size: s },
                        ..
                    }) if *s == size
                )
            },
            || code_object_module(&c, &code, Some(size)),
        );
    }
}
