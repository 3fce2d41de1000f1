//! GPU selection: ROCR_VISIBLE_DEVICES filtering/reordering, ordinals and
//! UUIDs, over topologies built in-test.

use aqueduct_hsa::agent::{self, Agent, DeviceType};
use aqueduct_hsa::{AgentError, HsaError};
use aqueduct_test_harness::topology::topology;

const A: (u32, u64) = (0x1111, 0x0000_00ab_cdef_0001);
const B: (u32, u64) = (0x2222, 0x0000_00ab_cdef_0002);
const C: (u32, u64) = (0x3333, 0);

fn ids(value: Option<&str>) -> Vec<u32> {
    let t = topology(&[A, B, C]);
    agent::visible_gpu_nodes(&t, value)
        .iter()
        .map(|n| n.gpu_id)
        .collect()
}

#[test]
fn filters_and_reorders() {
    assert_eq!(ids(None), vec![0x1111, 0x2222, 0x3333]);
    assert_eq!(
        ids(Some("")),
        Vec::<u32>::new(),
        "an empty value hides every GPU"
    );
    assert_eq!(ids(Some("2,0")), vec![0x3333, 0x1111]);
    assert_eq!(
        ids(Some(" 1 , 1, 0")),
        vec![0x2222, 0x1111],
        "duplicates ignored"
    );
    assert_eq!(ids(Some("GPU-000000abcdef0002,0")), vec![0x2222, 0x1111]);
    assert_eq!(
        ids(Some("gpu-000000ABCDEF0001")),
        vec![0x1111],
        "UUIDs compare case-insensitively"
    );
    assert_eq!(
        ids(Some("0,7,1")),
        vec![0x1111],
        "processing stops at an invalid ordinal"
    );
    assert_eq!(
        ids(Some("1,GPU-ffffffffffffffff,0")),
        vec![0x2222],
        "and at an unknown UUID"
    );
    assert_eq!(
        ids(Some("GPU-XX")),
        Vec::<u32>::new(),
        "a GPU without unique_id cannot be named by UUID"
    );
    assert_eq!(ids(Some("-1")), Vec::<u32>::new());
}

#[test]
fn agent_properties_from_nodes() {
    let t = topology(&[A, C]);
    let gpu = Agent::from_node(&t.nodes[1]);
    assert_eq!(gpu.device_type, DeviceType::Gpu);
    assert_eq!(gpu.name, "gfx1100");
    assert_eq!(gpu.vendor, "AMD");
    assert_eq!(gpu.isa_name.as_deref(), Some("amdgcn-amd-amdhsa--gfx1100"));
    assert_eq!(gpu.uuid, "GPU-000000abcdef0001");
    assert_eq!(
        gpu.product_name, "AMD gfx1100",
        "'ip discovery' is not a product name"
    );
    assert_eq!((gpu.node_id, gpu.gpu_id), (1, 0x1111));
    assert_eq!(gpu.wavefront_size, 32);
    assert_eq!(gpu.compute_unit_count, 96);
    assert_eq!(gpu.max_waves_per_cu, 32);
    assert_eq!(gpu.lds_size, 65536);
    assert_eq!(gpu.max_workgroup_size, 1024);
    assert_eq!(gpu.workgroup_max_dim, [1024; 3]);
    assert_eq!(gpu.grid_max_dim, [u32::MAX; 3]);
    assert_eq!(gpu.local_memory_size, 24 << 30);
    assert_eq!(gpu.cwsr_sizes.unwrap().eop_buffer_size, 4096);
    assert_eq!(Agent::from_node(&t.nodes[2]).uuid, "GPU-XX");
    let cpu = Agent::from_node(&t.nodes[0]);
    assert_eq!(
        (cpu.device_type, cpu.uuid.as_str(), cpu.isa_name.clone()),
        (DeviceType::Cpu, "CPU-XX", None)
    );

    let agents: Vec<Agent> = t.nodes.iter().map(Agent::from_node).collect();
    assert_eq!(agent::gpu_by_ordinal(&agents, 1).unwrap().gpu_id, 0x3333);
    assert!(matches!(
        agent::gpu_by_ordinal(&agents, 2),
        Err(HsaError::Agent(AgentError::OrdinalOutOfRange {
            ordinal: 2,
            visible: 2
        }))
    ));
    assert_eq!(
        agent::agent_by_uuid(&agents, "GPU-000000ABCDEF0001")
            .unwrap()
            .gpu_id,
        0x1111
    );
    match agent::agent_by_uuid(&agents, "GPU-XX") {
        Err(HsaError::Agent(AgentError::UnknownUuid { uuid, known })) => {
            assert_eq!(uuid, "GPU-XX");
            assert!(
                known
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case("GPU-000000abcdef0001")),
                "{known:?}"
            );
        }
        other => panic!("expected an unknown UUID, got {other:?}"),
    }
}
