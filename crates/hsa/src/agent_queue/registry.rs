//! The host-function registry: function id -> host closure, shared by the
//! soft queues that execute agent-dispatch packets.
//!
//! Ids follow hsa.h's `hsa_agent_dispatch_type_t` ranges: 0x8000..=0xffff
//! belong to the application ([`HostFunctionRegistry::register`] hands them
//! out in order; [`HostFunctionRegistry::register_at`] takes a chosen one);
//! vendor ids (below 0x8000) are reserved for the runtime itself (see
//! [`super::CALLBACK_FUNCTION_ID`]).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use aqueduct_kfd::abi::agent_dispatch_type;

use crate::error::{AgentFunctionError, HsaResult};

/// What a host function is called with: the packet's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCall {
    pub function_id: u16,
    pub args: [u64; 4],
    pub return_address: u64,
    /// The packet's dispatch id on its queue.
    pub dispatch_id: u64,
}

/// Why a host function failed; the queue goes into error with this text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HostFunctionError(pub String);

impl From<String> for HostFunctionError {
    fn from(s: String) -> Self {
        Self(s)
    }
}
impl From<&str> for HostFunctionError {
    fn from(s: &str) -> Self {
        Self(s.to_string())
    }
}

pub type HostFunctionResult = Result<(), HostFunctionError>;

/// A registered host function.
pub type HostFunction = dyn Fn(&HostCall) -> HostFunctionResult + Send + Sync;

/// Function id -> host function.
#[derive(Default)]
pub struct HostFunctionRegistry {
    functions: RwLock<HashMap<u16, Arc<HostFunction>>>,
}

impl std::fmt::Debug for HostFunctionRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut ids: Vec<u16> = self.read().keys().copied().collect();
        ids.sort_unstable();
        f.debug_struct("HostFunctionRegistry")
            .field("ids", &ids)
            .finish()
    }
}

impl HostFunctionRegistry {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<u16, Arc<HostFunction>>> {
        self.functions.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Register `f` under the lowest free application id.
    pub fn register(
        &self,
        f: impl Fn(&HostCall) -> HostFunctionResult + Send + Sync + 'static,
    ) -> HsaResult<u16> {
        let mut map = self.functions.write().unwrap_or_else(|p| p.into_inner());
        let id = (agent_dispatch_type::APPLICATION_START..=agent_dispatch_type::APPLICATION_END)
            .find(|id| !map.contains_key(id))
            .ok_or(AgentFunctionError::IdsExhausted)?;
        map.insert(id, Arc::new(f));
        Ok(id)
    }

    /// Register `f` under `id` (an application id, not yet taken).
    pub fn register_at(
        &self,
        id: u16,
        f: impl Fn(&HostCall) -> HostFunctionResult + Send + Sync + 'static,
    ) -> HsaResult<()> {
        if id < agent_dispatch_type::APPLICATION_START {
            return Err(AgentFunctionError::VendorRange {
                id,
                start: agent_dispatch_type::APPLICATION_START,
                end: agent_dispatch_type::APPLICATION_END,
            }
            .into());
        }
        let mut map = self.functions.write().unwrap_or_else(|p| p.into_inner());
        if map.contains_key(&id) {
            return Err(AgentFunctionError::AlreadyRegistered { id }.into());
        }
        map.insert(id, Arc::new(f));
        Ok(())
    }

    /// Remove `id`; later packets naming it fail as unknown. Returns
    /// whether it was registered.
    pub fn unregister(&self, id: u16) -> bool {
        self.functions
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id)
            .is_some()
    }

    pub fn get(&self, id: u16) -> Option<Arc<HostFunction>> {
        self.read().get(&id).cloned()
    }

    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }
}
