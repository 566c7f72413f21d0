//! A `format("delta")` read planned: the table's log read at the version the options ask for
//! and its snapshot scanned, by the Delta format (`ember_execution::formats::delta`).

use ember_execution::formats::delta;

use super::{FileRead, block_on, table_path};
use crate::error::{PlanResult, SparkError};
use crate::spec::DataSource;

/// The table a `format("delta")` read scans.
pub fn read(
    state: &datafusion::execution::SessionState,
    ds: &DataSource,
    time_zone: &str,
) -> PlanResult<FileRead> {
    let path = table_path(ds, "Delta", || {
        SparkError::analysis(
            "DELTA_UNSUPPORTED_READ_WITH_SCHEMA",
            "0AKDC",
            "Delta does not support specifying the schema at read time.",
        )
    })?;
    let at = delta::time_travel(&ds.options)?;
    let location = delta::DeltaLocation::new(path, state.runtime_env())?;
    let table = block_on(delta::open(&location, at.as_ref(), time_zone))??;
    let scan = delta::scan_table(state, &location, &table)?;
    Ok(FileRead {
        provider: scan.provider,
        partitions: scan.partitions,
        parse: vec![],
        drop_malformed: false,
    })
}
