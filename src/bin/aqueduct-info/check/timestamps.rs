//! Timestamps through the facade's timestamp queries: pass timestamps
//! around a dispatch, encoder timestamps around a pass, and timestamps of
//! two submissions in order. Times differ between devices; what is
//! compared is what the queries promise (values present and ordered).

use aqueduct::util::{BufferInitDescriptor, DeviceExt, read_mapped};
use aqueduct::*;

use super::facade::{example_shaders_run_on, scoped};
use super::{Check, CheckError, Group, Observation, Side, words};

pub fn checks() -> Vec<Check> {
    let g = Group::Timestamps;
    vec![
        Check::new(g, "pass", pass),
        Check::new(g, "encoder", encoder),
        Check::new(g, "across_submissions", across_submissions),
    ]
}

/// A compute pipeline and its bind group: the Collatz shader over a few
/// thousand numbers, long enough to take measurable time.
struct Work {
    pipeline: ComputePipeline,
    bind_group: BindGroup,
    groups: u32,
}

fn work(device: &Device) -> Work {
    let numbers: Vec<u32> = (1..=4096).collect();
    let module =
        device.create_shader_module(include_shader!("../../../../examples/shaders/collatz"));
    let pipeline = device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some("collatz"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let storage = device.create_buffer_init(&BufferInitDescriptor {
        label: Some("numbers"),
        contents: &words(&numbers),
        usage: BufferUsages::STORAGE,
    });
    let bind_group = device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[BindGroupEntry {
            binding: 0,
            resource: storage.as_entire_binding(),
        }],
    });
    Work {
        pipeline,
        bind_group,
        groups: numbers.len() as u32 / 64,
    }
}

fn dispatch(encoder: &mut CommandEncoder, w: &Work, timestamps: Option<(&QuerySet, u32, u32)>) {
    let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor {
        label: Some("timed"),
        timestamp_writes: timestamps.map(|(query_set, begin, end)| ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index: Some(begin),
            end_of_pass_write_index: Some(end),
        }),
    });
    pass.set_pipeline(&w.pipeline);
    pass.set_bind_group(0, &w.bind_group, &[]);
    pass.dispatch_workgroups(w.groups, 1, 1);
}

fn query_set(device: &Device, count: u32) -> QuerySet {
    device.create_query_set(&QuerySetDescriptor {
        label: Some("timestamps"),
        ty: QueryType::Timestamp,
        count,
    })
}

/// Resolves `count` queries and reads them back.
fn resolve(side: &Side, set: &QuerySet, count: u32) -> Result<Vec<u64>, CheckError> {
    let device = &side.gpu;
    let size = u64::from(count) * 8;
    let resolved = device.create_buffer(&BufferDescriptor {
        label: Some("resolved"),
        size,
        usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&BufferDescriptor {
        label: Some("readback"),
        size,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.resolve_query_set(set, 0..count, &resolved, 0);
    encoder.copy_buffer_to_buffer(&resolved, 0, &readback, 0, size);
    side.gpu_queue.submit([encoder.finish()]);
    let bytes = read_mapped(device, &readback).map_err(CheckError::facade("reading back"))?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect())
}

/// Skips unless the device has `feature` and runs the example shader.
fn needs(side: &Side, feature: Features) -> Result<(), CheckError> {
    example_shaders_run_on(side)?;
    if side.gpu.features().contains(feature) {
        Ok(())
    } else {
        Err(CheckError::Unsupported {
            reason: format!("the device lacks {feature:?}"),
        })
    }
}

/// What the compared observation says about a list of timestamps.
fn ordered(t: &[u64], period_ns: f32) -> Observation {
    let nonzero = t.iter().all(|&v| v != 0);
    let ascending = t.windows(2).all(|w| w[0] <= w[1]);
    let span_ns = (t.last().copied().unwrap_or(0)).saturating_sub(t.first().copied().unwrap_or(0))
        as f64
        * f64::from(period_ns);
    Observation::of("count", (t.len() as u32).to_le_bytes().to_vec())
        .with("nonzero", vec![u8::from(nonzero)])
        .with("ascending", vec![u8::from(ascending)])
        .noted(format!("span {:.1} us", span_ns / 1e3))
}

fn pass(side: &Side) -> Result<Observation, CheckError> {
    needs(side, Features::TIMESTAMP_QUERY)?;
    let device = &side.gpu;
    let t = scoped(device, || {
        let w = work(device);
        let set = query_set(device, 2);
        let mut encoder = device.create_command_encoder(&Default::default());
        dispatch(&mut encoder, &w, Some((&set, 0, 1)));
        side.gpu_queue.submit([encoder.finish()]);
        resolve(side, &set, 2)
    })?;
    Ok(ordered(&t, side.gpu_queue.get_timestamp_period()))
}

fn encoder(side: &Side) -> Result<Observation, CheckError> {
    needs(
        side,
        Features::TIMESTAMP_QUERY | Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
    )?;
    let device = &side.gpu;
    let t = scoped(device, || {
        let w = work(device);
        let set = query_set(device, 4);
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.write_timestamp(&set, 0);
        dispatch(&mut encoder, &w, Some((&set, 1, 2)));
        encoder.write_timestamp(&set, 3);
        side.gpu_queue.submit([encoder.finish()]);
        resolve(side, &set, 4)
    })?;
    Ok(ordered(&t, side.gpu_queue.get_timestamp_period()))
}

fn across_submissions(side: &Side) -> Result<Observation, CheckError> {
    needs(side, Features::TIMESTAMP_QUERY)?;
    let device = &side.gpu;
    let t = scoped(device, || {
        let w = work(device);
        let set = query_set(device, 4);
        for first in [0, 2] {
            let mut encoder = device.create_command_encoder(&Default::default());
            dispatch(&mut encoder, &w, Some((&set, first, first + 1)));
            side.gpu_queue.submit([encoder.finish()]);
        }
        resolve(side, &set, 4)
    })?;
    Ok(ordered(&t, side.gpu_queue.get_timestamp_period()))
}
