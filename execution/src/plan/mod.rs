//! Physical operators of the job graph: stage-input placeholders, the readers that replace
//! them in tasks, and the rescale node.

pub mod codec;
mod rescale;
mod stage_input;
mod stage_read;

pub use rescale::RescaleExec;
pub use stage_input::StageInputExec;
pub use stage_read::StageReadExec;
