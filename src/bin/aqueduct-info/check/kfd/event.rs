//! Signal events on the KFD interface: CREATE_EVENT (no event page: the
//! side's runtime has set the process's one), SET, RESET, and DESTROY on
//! drop.

use aqueduct::kfd::KfdDevice;
use aqueduct::kfd::uapi::*;

use crate::check::{CheckError, Side};

/// A signal event of this process, destroyed on drop.
pub struct Event<'a> {
    device: &'a dyn KfdDevice,
    pub id: u32,
    destroyed: bool,
}

impl<'a> Event<'a> {
    pub fn signal(side: &'a Side, auto_reset: bool) -> Result<Event<'a>, CheckError> {
        let mut args = CreateEventArgs {
            event_type: event_type::SIGNAL,
            auto_reset: u32::from(auto_reset),
            ..Default::default()
        };
        side.device
            .create_event(&mut args)
            .map_err(CheckError::kfd("CREATE_EVENT"))?;
        Ok(Event {
            device: side.device.as_ref(),
            id: args.event_id,
            destroyed: false,
        })
    }

    pub fn set(&self) -> Result<(), CheckError> {
        self.device
            .set_event(&mut SetEventArgs {
                event_id: self.id,
                pad: 0,
            })
            .map_err(CheckError::kfd("SET_EVENT"))
    }

    pub fn reset(&self) -> Result<(), CheckError> {
        self.device
            .reset_event(&mut ResetEventArgs {
                event_id: self.id,
                pad: 0,
            })
            .map_err(CheckError::kfd("RESET_EVENT"))
    }

    pub fn destroy(&mut self) -> Result<(), CheckError> {
        self.destroyed = true;
        self.device
            .destroy_event(&mut DestroyEventArgs {
                event_id: self.id,
                pad: 0,
            })
            .map_err(CheckError::kfd("DESTROY_EVENT"))
    }
}

impl Drop for Event<'_> {
    fn drop(&mut self) {
        if !self.destroyed {
            let _ = self.destroy();
        }
    }
}
