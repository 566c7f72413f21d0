//! `spark.read.text` planned: the files listed, the options and the single column checked, and
//! the table whose scan is execution's [`TextScanExec`], over the files split into the
//! session's target partitions.

use std::sync::Arc;

use arrow::datatypes::{DataType, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::TableType;
use datafusion::execution::SessionState;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;
pub use ember_execution::formats::text::{TextFile, TextOptions};
use ember_execution::formats::text::{TextScan, TextScanExec, table_schema};

use super::{FileRead, flag, list_paths, option};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::DataSource;
use crate::types;

/// The text files a read covers.
#[derive(Debug)]
pub struct TextTable {
    files: Vec<TextFile>,
    partition_columns: Vec<String>,
    options: TextOptions,
}

impl TextTable {
    pub fn new(files: Vec<TextFile>, partition_columns: Vec<String>, options: TextOptions) -> Self {
        Self {
            files,
            partition_columns,
            options,
        }
    }
}

#[async_trait]
impl TableProvider for TextTable {
    fn schema(&self) -> SchemaRef {
        table_schema(&self.options, &self.partition_columns)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let partitions = state
            .config()
            .target_partitions()
            .clamp(1, self.files.len().max(1));
        let mut groups = vec![Vec::new(); partitions];
        for (i, f) in self.files.iter().enumerate() {
            groups[i % partitions].push(f.clone());
        }
        let projection = projection
            .cloned()
            .unwrap_or_else(|| (0..=self.partition_columns.len()).collect());
        Ok(Arc::new(TextScanExec::new(TextScan {
            groups,
            partition_columns: self.partition_columns.clone(),
            projection,
            options: self.options.clone(),
        })))
    }
}

/// The column a schema gives text files: a single string column, as Spark's text source allows.
fn text_column(schema: &str, time_zone: &str) -> PlanResult<String> {
    let schema = types::parse_schema(schema, time_zone)?;
    let [field] = schema.fields().iter().collect::<Vec<_>>()[..] else {
        return Err(SparkError::analysis(
            "_LEGACY_ERROR_TEMP_1290",
            "",
            format!(
                "Text data source supports only a single column, and you have {} columns.",
                schema.fields().len()
            ),
        )
        .into());
    };
    if !matches!(
        field.data_type(),
        DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8
    ) {
        return Err(SparkError::new(
            crate::error::ErrorKind::Analysis,
            "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE",
            "0A000",
            format!(
                "The Text datasource doesn't support the column `{}` of the type \"{}\".",
                field.name(),
                types::sql_name(field.data_type()).to_uppercase()
            ),
            vec![
                ("format", "Text".into()),
                ("columnName", format!("`{}`", field.name())),
                (
                    "columnType",
                    format!("\"{}\"", types::sql_name(field.data_type()).to_uppercase()),
                ),
            ],
        )
        .into());
    }
    Ok(field.name().clone())
}

/// `spark.read.text`: the lines (or `wholetext` contents) of local files, with the partition
/// columns of partitioned directories.
pub(super) fn read_text(
    state: &SessionState,
    ds: &DataSource,
    time_zone: &str,
) -> PlanResult<FileRead> {
    let column = match ds.schema.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => Some(text_column(text, time_zone)?),
        _ => None,
    };
    let line_sep = match option(ds, "lineSep") {
        None | Some("\n") | Some("\r\n") => None,
        Some("") => {
            return Err(SparkError::illegal_argument(
                "_LEGACY_ERROR_TEMP_3249",
                "requirement failed: 'lineSep' cannot be an empty string.",
            )
            .into());
        }
        Some(sep) => Some(sep.to_string()),
    };
    let options = TextOptions {
        wholetext: flag(ds, "wholetext", false),
        line_sep,
        column,
    };
    let sources = list_paths(state, ds, "text files")?;
    if !sources.partitions.is_empty() && sources.file_partitions.iter().any(Vec::is_empty) {
        return Err(PlanError::Unsupported(
            "text files with and without partition columns together".into(),
        ));
    }
    let unfinished = sources.unfinished;
    let files = sources
        .files
        .into_iter()
        .zip(sources.file_partitions)
        .map(|(path, partition_values)| TextFile {
            path,
            partition_values,
        })
        .collect();
    let partitions = sources.partitions;
    let timestamp = types::timestamp_type(time_zone);
    let names = partitions.iter().map(|(k, _)| k.clone()).collect();
    Ok(FileRead {
        provider: super::unfinished::FinishingCommits::wrap(
            Arc::new(TextTable::new(files, names, options)),
            unfinished,
        ),
        partitions: partitions
            .iter()
            .map(|(k, values)| {
                (
                    k.clone(),
                    ember_execution::formats::listing::infer_type(values, &timestamp),
                )
            })
            .collect(),
        parse: vec![],
        drop_malformed: false,
    })
}
