//! The scan of a Delta snapshot: its data files as DataFusion's own parquet scan (so the plan
//! ships to cluster workers like any parquet read), pruned before any file is opened by the
//! partition values and the column statistics (`minValues`, `maxValues`, `nullCount`,
//! `numRecords`) the log holds for each file.

use std::sync::Arc;

use arrow::array::{ArrayRef, StringArray, UInt64Array};
use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::common::pruning::PruningStatistics;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::object_store::ObjectStoreUrl;
use datafusion::datasource::physical_plan::FileScanConfigBuilder;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::union::UnionExec;

use crate::formats::deleted_rows::{DeletedRowsScanExec, FileDeletes};

/// A Delta snapshot's data files as a parquet scan: the table's columns in its order, the
/// partition columns as strings (their values from the log).
#[derive(Debug)]
pub struct DeltaFiles {
    /// The table's columns in the table's order (partition columns as strings).
    schema: SchemaRef,
    /// The columns stored in the data files.
    file_schema: SchemaRef,
    partition_fields: Vec<FieldRef>,
    /// The store the files are in (the local file system, or a bucket).
    store_url: ObjectStoreUrl,
    /// Where each column of `schema` is in the scan's output (file columns, then partitions).
    inner_index: Vec<usize>,
    /// A column's name in the data files and the log (its `delta.columnMapping.physicalName`
    /// when the table maps columns), by its name in the table. Empty: the same names.
    physical: std::collections::HashMap<String, String>,
    files: Vec<PartitionedFile>,
    /// Each file's statistics from the log (JSON), parallel to `files`.
    stats: Vec<Option<serde_json::Value>>,
    /// The rows each file's deletion vector removes (None: it has none), parallel to `files`.
    deleted: Vec<Option<Vec<i64>>>,
    format: ParquetFormat,
}

/// A snapshot's files as its log lists them, in one order.
pub(super) struct LogFiles {
    pub files: Vec<PartitionedFile>,
    /// Each file's statistics (the log's JSON).
    pub stats: Vec<Option<String>>,
    /// The rows each file's deletion vector removes (None: it has none).
    pub deleted: Vec<Option<Vec<i64>>>,
}

impl DeltaFiles {
    pub(super) fn new(
        state: &datafusion::execution::SessionState,
        store_url: ObjectStoreUrl,
        schema: &Schema,
        partition_names: &[String],
        physical: std::collections::HashMap<String, String>,
        log: LogFiles,
    ) -> Self {
        let LogFiles {
            files,
            stats,
            deleted,
        } = log;
        let is_partition = |name: &str| partition_names.iter().any(|p| p == name);
        let file_fields: Vec<FieldRef> = schema
            .fields()
            .iter()
            .filter(|f| !is_partition(f.name()))
            .map(|f| match physical.get(f.name()) {
                Some(name) => Arc::new(f.as_ref().clone().with_name(name)),
                None => f.clone(),
            })
            .collect();
        let partition_fields: Vec<FieldRef> = partition_names
            .iter()
            .map(|p| Arc::new(Field::new(p, DataType::Utf8, true)))
            .collect();
        let outer: Vec<FieldRef> = schema
            .fields()
            .iter()
            .map(|f| {
                if is_partition(f.name()) {
                    Arc::new(Field::new(f.name(), DataType::Utf8, true))
                } else {
                    f.clone()
                }
            })
            .collect();
        let inner_index = schema
            .fields()
            .iter()
            .map(
                |f| match partition_names.iter().position(|p| p == f.name()) {
                    Some(i) => file_fields.len() + i,
                    None => {
                        let name = physical.get(f.name()).unwrap_or(f.name());
                        file_fields
                            .iter()
                            .position(|g| g.name() == name)
                            .unwrap_or(0)
                    }
                },
            )
            .collect();
        let mut parquet = state.table_options().parquet.clone();
        parquet.global.coerce_int96 = Some("us".into());
        parquet.global.coerce_int96_tz = Some("UTC".into());
        Self {
            schema: Arc::new(Schema::new(outer)),
            file_schema: Arc::new(Schema::new(file_fields)),
            partition_fields,
            store_url,
            inner_index,
            physical,
            files,
            stats: stats
                .into_iter()
                .map(|s| s.and_then(|s| serde_json::from_str(&s).ok()))
                .collect(),
            deleted,
            format: ParquetFormat::default().with_options(parquet),
        }
    }
}

impl DeltaFiles {
    /// Whether a filter reads partition columns only.
    fn on_partitions(&self, filter: &Expr) -> bool {
        let columns = filter.column_refs();
        !columns.is_empty()
            && columns
                .iter()
                .all(|c| self.partition_fields.iter().any(|f| f.name() == &c.name))
    }

    /// Whether a filter reads columns of the data files only.
    fn on_file_columns(&self, filter: &Expr) -> bool {
        let columns = filter.column_refs();
        !columns.is_empty()
            && columns.iter().all(|c| {
                self.file_schema
                    .field_with_name(self.physical_name(&c.name))
                    .is_ok()
            })
    }

    /// A column's name in the data files and the log.
    fn physical_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.physical.get(name).map_or(name, String::as_str)
    }

    /// The files a scan with `filters` must read: those whose partition values pass every
    /// filter on partition columns, and whose column statistics do not rule out every row.
    /// A filter that cannot be evaluated prunes nothing.
    fn pruned(&self, state: &dyn Session, filters: &[Expr]) -> Vec<usize> {
        let mut keep = vec![true; self.files.len()];
        if !self.files.is_empty() {
            self.prune_partitions(state, filters, &mut keep);
            self.prune_by_stats(state, filters, &mut keep);
        }
        keep.iter()
            .enumerate()
            .filter(|(_, k)| **k)
            .map(|(i, _)| i)
            .collect()
    }

    fn prune_partitions(&self, state: &dyn Session, filters: &[Expr], keep: &mut [bool]) {
        use arrow::array::{Array, AsArray};
        let on_partitions: Vec<&Expr> = filters.iter().filter(|f| self.on_partitions(f)).collect();
        if on_partitions.is_empty() {
            return;
        }
        let schema = Arc::new(Schema::new(self.partition_fields.clone()));
        let columns = (0..self.partition_fields.len())
            .map(|i| {
                let values = self.files.iter().map(|f| match f.partition_values.get(i) {
                    Some(ScalarValue::Utf8(v)) => v.clone(),
                    _ => None,
                });
                Arc::new(values.collect::<StringArray>()) as ArrayRef
            })
            .collect();
        let Ok(batch) = arrow::record_batch::RecordBatch::try_new(schema.clone(), columns) else {
            return;
        };
        let Ok(df_schema) = datafusion::common::DFSchema::try_from(schema) else {
            return;
        };
        for filter in on_partitions {
            let passed = state
                .create_physical_expr(unqualified(filter), &df_schema)
                .and_then(|p| p.evaluate(&batch))
                .and_then(|v| v.into_array(batch.num_rows()));
            let Ok(passed) = passed else { continue };
            let Some(passed) = passed.as_boolean_opt() else {
                continue;
            };
            for (i, k) in keep.iter_mut().enumerate() {
                *k &= passed.is_valid(i) && passed.value(i);
            }
        }
    }

    fn prune_by_stats(&self, state: &dyn Session, filters: &[Expr], keep: &mut [bool]) {
        use datafusion::physical_optimizer::pruning::PruningPredicateBuilder;
        let Some(predicate) = filters
            .iter()
            .filter(|f| self.on_file_columns(f))
            .map(|f| self.to_physical(&unqualified(f)))
            .reduce(Expr::and)
        else {
            return;
        };
        let Ok(df_schema) = datafusion::common::DFSchema::try_from(self.file_schema.clone()) else {
            return;
        };
        let Ok(predicate) = state.create_physical_expr(predicate, &df_schema) else {
            return;
        };
        let Some(pruning) = PruningPredicateBuilder::new()
            .with_file_schema(self.file_schema.clone())
            .build(predicate)
        else {
            return;
        };
        let stats = LogStats {
            stats: &self.stats,
            schema: &self.file_schema,
        };
        if let Ok(passed) = pruning.prune(&stats) {
            for (k, p) in keep.iter_mut().zip(passed) {
                *k &= p;
            }
        }
    }
}

impl DeltaFiles {
    /// A filter over the table's columns as one over the data files' (physical) names.
    fn to_physical(&self, filter: &Expr) -> Expr {
        if self.physical.is_empty() {
            return filter.clone();
        }
        filter
            .clone()
            .transform_up(|e| match e {
                Expr::Column(c) => Ok(Transformed::yes(Expr::Column(
                    datafusion::common::Column::new_unqualified(self.physical_name(&c.name)),
                ))),
                other => Ok(Transformed::no(other)),
            })
            .map(|t| t.data)
            .unwrap_or_else(|_| filter.clone())
    }
}

/// A filter over the scan's columns, unqualified.
fn unqualified(filter: &Expr) -> Expr {
    filter
        .clone()
        .transform_up(|e| match e {
            Expr::Column(c) => Ok(Transformed::yes(Expr::Column(
                datafusion::common::Column::new_unqualified(c.name),
            ))),
            other => Ok(Transformed::no(other)),
        })
        .map(|t| t.data)
        .unwrap_or_else(|_| filter.clone())
}

/// The statistics Delta's log holds for each file (`{"numRecords": n, "minValues": {...},
/// "maxValues": {...}, "nullCount": {...}}`), as DataFusion's pruning reads them.
struct LogStats<'a> {
    stats: &'a [Option<serde_json::Value>],
    schema: &'a Schema,
}

impl LogStats<'_> {
    /// One value per file of `key` (`minValues`, ...) for `column`, in the column's type
    /// (NULL where a file has none or it does not convert).
    fn values(&self, key: &str, column: &str) -> Option<ArrayRef> {
        let field = self.schema.field_with_name(column).ok()?;
        if !matches!(
            field.data_type(),
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::Float32
                | DataType::Float64
                | DataType::Utf8
                | DataType::Date32
                | DataType::Decimal128(..)
                | DataType::Boolean
        ) {
            return None;
        }
        let text: StringArray = self
            .stats
            .iter()
            .map(|s| match s.as_ref()?.get(key)?.get(column)? {
                serde_json::Value::String(v) => Some(v.clone()),
                serde_json::Value::Null
                | serde_json::Value::Object(_)
                | serde_json::Value::Array(_) => None,
                other => Some(other.to_string()),
            })
            .collect();
        arrow::compute::cast(&text, field.data_type()).ok()
    }

    fn counts(&self, value: impl Fn(&serde_json::Value) -> Option<u64>) -> ArrayRef {
        Arc::new(
            self.stats
                .iter()
                .map(|s| s.as_ref().and_then(&value))
                .collect::<UInt64Array>(),
        )
    }
}

impl PruningStatistics for LogStats<'_> {
    fn min_values(&self, column: &datafusion::common::Column) -> Option<ArrayRef> {
        self.values("minValues", &column.name)
    }

    fn max_values(&self, column: &datafusion::common::Column) -> Option<ArrayRef> {
        self.values("maxValues", &column.name)
    }

    fn num_containers(&self) -> usize {
        self.stats.len()
    }

    fn null_counts(&self, column: &datafusion::common::Column) -> Option<ArrayRef> {
        let name = column.name.clone();
        Some(self.counts(move |s| s.get("nullCount")?.get(&name)?.as_u64()))
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        Some(self.counts(|s| s.get("numRecords")?.as_u64()))
    }

    fn contained(
        &self,
        _column: &datafusion::common::Column,
        _values: &std::collections::HashSet<ScalarValue>,
    ) -> Option<arrow::array::BooleanArray> {
        None
    }
}

#[async_trait]
impl TableProvider for DeltaFiles {
    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> datafusion::error::Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                if self.on_partitions(f) || self.on_file_columns(f) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let kept = self.pruned(state, filters);
        let wanted: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        let projected = Arc::new(self.schema.project(&wanted)?);
        // Files with deletion vectors are read by their own scan.
        let (with_deletes, files): (Vec<usize>, Vec<usize>) =
            kept.into_iter().partition(|i| self.deleted[*i].is_some());
        let files: Vec<PartitionedFile> = files.iter().map(|i| self.files[*i].clone()).collect();
        let deleted = self.deleted_rows_scan(&with_deletes, &projected, state)?;
        if files.is_empty() {
            return Ok(deleted.unwrap_or_else(|| Arc::new(EmptyExec::new(projected))));
        }
        let inner: Vec<usize> = wanted.iter().map(|&i| self.inner_index[i]).collect();
        let stats_schema = Arc::new(Schema::new(
            self.file_schema
                .fields()
                .iter()
                .chain(&self.partition_fields)
                .cloned()
                .collect::<Vec<_>>(),
        ));
        let (groups, statistics) = crate::formats::table_files::file_groups(
            state,
            &self.format,
            &self.store_url,
            &self.file_schema,
            &stats_schema,
            files,
        )
        .await?;
        let table_schema = TableSchema::builder(self.file_schema.clone())
            .with_table_partition_cols(self.partition_fields.clone())
            .build();
        let source = self.format.file_source(table_schema);
        let config = FileScanConfigBuilder::new(self.store_url.clone(), source)
            .with_file_groups(groups)
            .with_statistics(statistics)
            .with_projection_indices(Some(inner))?
            .with_limit(limit)
            .build();
        let mut scan = self.format.create_physical_plan(state, config).await?;
        // Physical names back to the table's.
        if !self.physical.is_empty() {
            let exprs = projected
                .fields()
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let inner = scan.schema();
                    let column: Arc<dyn datafusion::physical_plan::PhysicalExpr> =
                        Arc::new(datafusion::physical_plan::expressions::Column::new(
                            inner.field(i).name(),
                            i,
                        ));
                    (column, f.name().clone())
                })
                .collect::<Vec<_>>();
            scan = Arc::new(
                datafusion::physical_plan::projection::ProjectionExec::try_new(exprs, scan)?,
            );
        }
        match deleted {
            Some(d) => UnionExec::try_new(vec![scan, d]),
            None => Ok(scan),
        }
    }
}

impl DeltaFiles {
    /// The scan of the files `indices` (with deletion vectors) without their deleted rows,
    /// giving the columns `projected` (partition columns from the log's values).
    fn deleted_rows_scan(
        &self,
        indices: &[usize],
        projected: &SchemaRef,
        state: &dyn Session,
    ) -> datafusion::error::Result<Option<Arc<dyn ExecutionPlan>>> {
        if indices.is_empty() {
            return Ok(None);
        }
        let mut files = vec![];
        for &i in indices {
            let file = &self.files[i];
            let constants = match self.partition_fields.is_empty() {
                true => None,
                false => Some(arrow::array::RecordBatch::try_new(
                    Arc::new(Schema::new(self.partition_fields.clone())),
                    file.partition_values
                        .iter()
                        .map(|v| v.to_array_of_size(1))
                        .collect::<datafusion::error::Result<Vec<_>>>()?,
                )?),
            };
            // A local file's path, or the object's URL with its key as it is.
            let path = match self.store_url == ObjectStoreUrl::local_filesystem() {
                true => {
                    percent_encoding::percent_decode_str(&format!("/{}", file.object_meta.location))
                        .decode_utf8_lossy()
                        .to_string()
                }
                false => format!("{}{}", self.store_url.as_str(), file.object_meta.location),
            };
            files.push(FileDeletes {
                path,
                positions: self.deleted[i].clone().unwrap_or_default(),
                equality: vec![],
                constants,
            });
        }
        // (Delta's data files have no field ids: columns are matched by name.)
        let ids = vec![-1; projected.fields().len()];
        Ok(Some(Arc::new(DeletedRowsScanExec::new(
            projected.clone(),
            ids,
            files,
            state.config().target_partitions(),
        ))))
    }
}
