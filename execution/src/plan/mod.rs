//! The execution crate's physical operators: the user's repartitions (`ExchangeExec`,
//! `RescaleExec`), the job graph's stage-input placeholders and the readers that replace them
//! in tasks, the wrapper that carries a compressed file scan across processes, and the codec
//! part that encodes them all (`codec`). The planner's own operators are still in its `exec`
//! module.

pub mod codec;
mod compressed_scan;
mod exchange;
mod rescale;
mod stage_input;
mod stage_read;

pub use compressed_scan::CompressedScanExec;
pub use exchange::{ExchangeExec, slice_rows};
pub use rescale::RescaleExec;
pub use stage_input::StageInputExec;
pub use stage_read::StageReadExec;
