//! Helpers shared by integration tests.
pub mod event_device;
pub mod fake_kfd;
pub mod topo;
