//! Ember's physical operators: sources (`RangeExec`; the file formats' scans are in
//! `formats`), the user's repartitions
//! (`ExchangeExec`, `RescaleExec`), the partition ids (`PartitionIdsExec`), the job graph's
//! stage-input placeholders and the readers that replace them in tasks, the key filters
//! between a shuffled join's stages (`key_filter`), the wrapper that
//! carries a compressed file scan across processes, and the codec part that encodes them all
//! (`codec`). The planner's logical nodes become these in its query planner.

pub mod codec;
mod compressed_scan;
mod exchange;
mod key_filter;
pub mod partition_ids;
mod range;
pub mod recursion;
mod rescale;
pub mod shared_work_table;
mod stage_input;
mod stage_read;

pub use compressed_scan::CompressedScanExec;
pub use exchange::{ExchangeExec, slice_rows};
pub use key_filter::{KeyBloom, KeyFilterBuildExec, KeyFilterExec, key_filter_properties};
pub use partition_ids::PartitionIdsExec;
pub use range::{RangeExec, RangeSpec, range_schema};
pub use recursion::{RecursionLimitExec, RecursionLimits};
pub use rescale::RescaleExec;
pub use stage_input::StageInputExec;
pub use stage_read::StageReadExec;
