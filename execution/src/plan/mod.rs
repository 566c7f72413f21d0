//! Physical operators of the job graph: stage-input placeholders, the readers that replace
//! them in tasks, and the rescale node.

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
