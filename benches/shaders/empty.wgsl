// cargo bench --bench dispatch, empty round trip: a kernel that does
// nothing, 32 invocations (as benches/wgpu-peer/src/round_trip.rs).
@compute @workgroup_size(32)
fn empty() {}
