//! Non-coherent loads' own state: the `ld.global.nc` reads so far. Plain data: the operations
//! live in the parent module.

use crate::runtime::report::Site;

/// One `ld.global.nc` so far: location, reader, and where.
pub type NcRead = (usize, usize, Site);
