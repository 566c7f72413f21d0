//! The scan of an Iceberg snapshot: its data files as DataFusion's own parquet scan (so the
//! plan ships to cluster workers like any parquet read). Files are grouped by how their
//! columns map to the table's (Iceberg matches columns by field id, so a renamed column has
//! another name in older files, and an added one is missing from them): each group is a
//! parquet scan under a projection that names the columns as the table does and fills
//! missing ones with NULL, and the groups are a union.

use std::sync::Arc;

use arrow::datatypes::{Field, FieldRef, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::object_store::ObjectStoreUrl;
use datafusion::datasource::physical_plan::FileScanConfigBuilder;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::logical_expr::TableType;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{Column, Literal};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::union::UnionExec;

use crate::formats::deleted_rows::{DeletedRowsScanExec, FileDeletes};

/// Files whose columns have the same names: for each column of the table, its name in these
/// files (None: the files do not have it).
#[derive(Debug, Clone)]
pub struct FileGroupMapping {
    pub names: Vec<Option<String>>,
    pub files: Vec<PartitionedFile>,
}

/// An Iceberg snapshot's data files as parquet scans (and those with deletes as a
/// [`DeletedRowsScanExec`]).
#[derive(Debug)]
pub struct IcebergFiles {
    schema: SchemaRef,
    /// The store of the data files (the local file system, or a bucket).
    store_url: ObjectStoreUrl,
    groups: Vec<FileGroupMapping>,
    /// The table's field ids (one per column) and the files with deletes.
    deleted: (Vec<i64>, Vec<FileDeletes>),
    format: ParquetFormat,
}

impl IcebergFiles {
    pub fn new(
        state: &datafusion::execution::SessionState,
        store_url: ObjectStoreUrl,
        schema: SchemaRef,
        groups: Vec<FileGroupMapping>,
        deleted: (Vec<i64>, Vec<FileDeletes>),
    ) -> Self {
        let mut parquet = state.table_options().parquet.clone();
        parquet.global.coerce_int96 = Some("us".into());
        parquet.global.coerce_int96_tz = Some("UTC".into());
        Self {
            schema,
            store_url,
            groups,
            deleted,
            format: ParquetFormat::default().with_options(parquet),
        }
    }

    /// One group's scan: its files spread over the session's partitions, the wanted columns
    /// under the table's names.
    async fn scan_group(
        &self,
        state: &dyn Session,
        group: &FileGroupMapping,
        wanted: &[usize],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        // The group's file schema: the table's columns it has, under the files' names.
        let mut file_fields: Vec<FieldRef> = vec![];
        let mut position = vec![None; self.schema.fields().len()];
        for (i, name) in group.names.iter().enumerate() {
            if let Some(name) = name {
                let field = self.schema.field(i);
                position[i] = Some(file_fields.len());
                file_fields.push(Arc::new(Field::new(
                    name,
                    field.data_type().clone(),
                    field.is_nullable(),
                )));
            }
        }
        let file_schema = Arc::new(Schema::new(file_fields));
        // The file columns the wanted columns read, once each.
        let mut inner: Vec<usize> = vec![];
        for &i in wanted {
            if let Some(p) = position[i]
                && !inner.contains(&p)
            {
                inner.push(p);
            }
        }
        let (groups, statistics) = crate::formats::table_files::file_groups(
            state,
            &self.format,
            &self.store_url,
            &file_schema,
            &file_schema,
            group.files.clone(),
        )
        .await?;
        let table_schema = TableSchema::builder(file_schema.clone()).build();
        let source = self.format.file_source(table_schema);
        let config = FileScanConfigBuilder::new(self.store_url.clone(), source)
            .with_file_groups(groups)
            .with_statistics(statistics)
            .with_projection_indices(Some(inner.clone()))?
            .with_limit(limit)
            .build();
        let scan = self.format.create_physical_plan(state, config).await?;
        if wanted.is_empty() {
            return Ok(scan);
        }
        let mut exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = vec![];
        for &i in wanted {
            let field = self.schema.field(i);
            let expr: Arc<dyn PhysicalExpr> = match (position[i], &group.names[i]) {
                (Some(p), Some(name)) => {
                    let at = inner.iter().position(|&q| q == p).unwrap_or(0);
                    Arc::new(Column::new(name, at))
                }
                _ => Arc::new(Literal::new(ScalarValue::try_from(field.data_type())?)),
            };
            exprs.push((expr, field.name().clone()));
        }
        Ok(Arc::new(ProjectionExec::try_new(exprs, scan)?))
    }
}

#[async_trait]
impl TableProvider for IcebergFiles {
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
        _filters: &[datafusion::logical_expr::Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
        let wanted: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        let groups: Vec<&FileGroupMapping> =
            self.groups.iter().filter(|g| !g.files.is_empty()).collect();
        let projected = Arc::new(self.schema.project(&wanted)?);
        let mut plans = vec![];
        for group in groups {
            plans.push(self.scan_group(state, group, &wanted, limit).await?);
        }
        let (ids, files) = &self.deleted;
        if !files.is_empty() {
            plans.push(Arc::new(DeletedRowsScanExec::new(
                projected.clone(),
                wanted.iter().map(|i| ids[*i]).collect(),
                files.clone(),
                state.config().target_partitions(),
            )));
        }
        match plans.len() {
            0 => Ok(Arc::new(EmptyExec::new(projected))),
            1 => Ok(plans.remove(0)),
            _ => UnionExec::try_new(plans),
        }
    }
}
