//! The human-readable listing of a [`Report`], laid out like rocminfo:
//! a runtime block, then one block per agent with its pools and queue
//! properties indented below it. Sizes print in bytes with a binary-unit
//! reading beside them, so the numbers can be compared with --json.

use std::fmt::Write;

use crate::report::{AgentInfo, PoolReport, Report};

fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    let mut scaled = bytes as f64;
    while scaled >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else if scaled.fract() == 0.0 {
        format!("{bytes} ({scaled} {})", UNITS[unit])
    } else {
        format!("{bytes} ({scaled:.1} {})", UNITS[unit])
    }
}

/// Values start in one column whatever the key's indentation.
const VALUE_COLUMN: usize = 34;

fn line(out: &mut String, indent: usize, key: &str, value: impl std::fmt::Display) {
    let key = format!("{key}:");
    // At least one space between a long key and its value.
    let width = VALUE_COLUMN.saturating_sub(indent).max(key.len() + 1);
    let _ = writeln!(out, "{:indent$}{key:<width$}{value}", "");
}

fn pool(out: &mut String, p: &PoolReport, index: usize) {
    let _ = writeln!(out, "    Pool {index}: {}", p.kind);
    line(out, 6, "Segment", p.segment);
    line(
        out,
        6,
        "Granularity",
        if p.fine_grained { "fine" } else { "coarse" },
    );
    line(out, 6, "Kernarg", p.kernarg);
    line(out, 6, "Size", size(p.size_bytes));
    line(out, 6, "Allocation granule", size(p.alloc_granule));
    line(out, 6, "Allocation alignment", size(p.alloc_alignment));
    line(out, 6, "Host accessible", p.host_accessible);
    for a in &p.access {
        line(
            out,
            6,
            &format!("Access {} (node {})", a.agent, a.node_id),
            a.access,
        );
    }
}

fn agent(out: &mut String, a: &AgentInfo, index: usize) {
    let _ = writeln!(out, "Agent {index}: {}", a.name);
    line(out, 2, "Product name", &a.product_name);
    line(out, 2, "Vendor", &a.vendor);
    line(out, 2, "Device type", a.device_type);
    line(out, 2, "UUID", &a.uuid);
    line(out, 2, "Node", a.node_id);
    if a.device_type == "gpu" {
        line(out, 2, "KFD gpu_id", a.gpu_id);
        if let Some(o) = a.gpu_ordinal {
            line(out, 2, "GPU ordinal", o);
        }
        line(out, 2, "ISA", a.isa.as_deref().unwrap_or("unknown"));
        line(out, 2, "Simulated", a.simulated);
        line(out, 2, "Compute units", a.compute_units);
        line(out, 2, "XCCs", a.xccs);
        line(out, 2, "SIMDs per CU", a.simd_per_cu);
        line(out, 2, "Wavefront size", a.wavefront_size);
        line(out, 2, "Max waves per CU", a.max_waves_per_cu);
        line(out, 2, "LDS per workgroup", size(a.lds_bytes_per_workgroup));
        line(out, 2, "Max workgroup size", a.max_workgroup_size);
        let [x, y, z] = a.workgroup_max_dim;
        line(out, 2, "Workgroup max dims", format!("{x} x {y} x {z}"));
        let [x, y, z] = a.grid_max_dim;
        line(out, 2, "Grid max dims", format!("{x} x {y} x {z}"));
        line(out, 2, "Grid max size", a.grid_max_size);
        line(out, 2, "Local memory", size(a.local_memory_bytes));
    } else {
        line(out, 2, "CPU cores", a.cpu_cores);
    }
    if let Some(q) = &a.queues {
        let _ = writeln!(out, "  Queues:");
        line(out, 4, "Type", q.queue_type);
        line(
            out,
            4,
            "Size (packets)",
            format!("{} .. {}", q.min_packets, q.max_packets),
        );
        line(out, 4, "Packet size", size(q.packet_bytes));
        if let Some(b) = q.cwsr_bytes {
            line(out, 4, "Context save area", size(u64::from(b)));
        }
        if let Some(b) = q.control_stack_bytes {
            line(out, 4, "Control stack", size(u64::from(b)));
        }
        if let Some(b) = q.eop_buffer_bytes {
            line(out, 4, "EOP buffer", size(u64::from(b)));
        }
    }
    if !a.pools.is_empty() {
        let _ = writeln!(out, "  Memory pools:");
        for (i, p) in a.pools.iter().enumerate() {
            pool(out, p, i);
        }
    }
}

/// The whole listing.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let r = &report.runtime;
    let _ = writeln!(out, "Runtime: {} {}", r.name, r.version);
    line(
        &mut out,
        2,
        "Device",
        format!(
            "{}{}",
            r.backend,
            if r.simulated {
                " (simulated GPU)"
            } else {
                " (real GPU)"
            }
        ),
    );
    line(&mut out, 2, "KFD interface", &r.kfd_version);
    line(
        &mut out,
        2,
        "VA aperture",
        format!("0x{:x} + {}", r.aperture_base, size(r.aperture_size)),
    );
    line(
        &mut out,
        2,
        "ROCR_VISIBLE_DEVICES",
        r.visible_devices.as_deref().unwrap_or("(unset)"),
    );
    line(
        &mut out,
        2,
        "Agents",
        format!("{} GPU, {} CPU", r.gpu_count, r.cpu_count),
    );
    for (i, a) in report.agents.iter().enumerate() {
        out.push('\n');
        agent(&mut out, a, i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::size;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1000), "1000 B");
        assert_eq!(size(4096), "4096 (4 KiB)");
        assert_eq!(size(3 << 30), "3221225472 (3 GiB)");
        assert_eq!(size(1536), "1536 (1.5 KiB)");
        assert_eq!(size(25_276_502_016), "25276502016 (23.5 GiB)");
    }
}
