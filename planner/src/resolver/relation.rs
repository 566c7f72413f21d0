//! Leaf relations: range, local data (createDataFrame), VALUES, tables and views,
//! table-valued functions.

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::ScalarValue;
use datafusion::datasource::{MemTable, provider_as_source};
use datafusion::logical_expr::{
    Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder, cast, lit, when,
};

use super::Resolver;
use crate::catalog::CatalogEntry;
use crate::datasource::range::{RangeSpec, RangeTable};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{Expr as SExpr, LocalData};
use crate::types;

impl Resolver<'_> {
    pub(crate) fn resolve_range(
        &mut self,
        start: i64,
        end: i64,
        step: i64,
        partitions: Option<usize>,
    ) -> PlanResult<LogicalPlan> {
        let spec = RangeSpec {
            start,
            end,
            step,
            partitions: self.partitions(
                partitions.unwrap_or(self.config.default_parallelism).max(1),
                "range",
            )?,
        };
        let provider = Arc::new(RangeTable::new(spec));
        let scan =
            LogicalPlanBuilder::scan("range", provider_as_source(provider), None)?.build()?;
        self.expose_scan(scan, &["range".to_string()])
    }

    /// Give the columns of a scan internal names, qualified by the table name.
    fn expose_scan(&mut self, scan: LogicalPlan, qualifier: &[String]) -> PlanResult<LogicalPlan> {
        let exprs = scan
            .schema()
            .iter()
            .map(|(q, f)| {
                let internal = self.fresh(f.name(), qualifier.to_vec());
                Expr::Column(datafusion::common::Column::new(q.cloned(), f.name())).alias(internal)
            })
            .collect::<Vec<_>>();
        Ok(LogicalPlanBuilder::from(scan).project(exprs)?.build()?)
    }

    pub(crate) fn resolve_local_relation(
        &mut self,
        data: Option<&LocalData>,
        schema: Option<&str>,
    ) -> PlanResult<LogicalPlan> {
        let target: Option<Schema> = match schema {
            Some(s) => Some(types::parse_schema(s, &self.config.time_zone)?),
            None => None,
        };
        let (arrow_schema, batches): (SchemaRef, Vec<RecordBatch>) = match (data, &target) {
            (Some(d), _) => (d.schema.clone(), d.batches.clone()),
            (None, Some(t)) => (Arc::new(t.clone()), vec![]),
            (None, None) => {
                return Err(PlanError::InvalidPlan(
                    "local relation without data or schema".into(),
                ));
            }
        };
        // Normalise types Spark does not have (e.g. large strings from pandas).
        let table = MemTable::try_new(arrow_schema.clone(), vec![batches])?;
        let scan = LogicalPlanBuilder::scan("local", provider_as_source(Arc::new(table)), None)?
            .build()?;
        let scan_schema = scan.schema().clone();
        let mut items = Vec::with_capacity(arrow_schema.fields().len());
        for (i, (q, f)) in scan_schema.iter().enumerate() {
            let col = Expr::Column(datafusion::common::Column::new(q.cloned(), f.name()));
            let (name, dt) = match &target {
                Some(t) if t.fields().len() == arrow_schema.fields().len() => {
                    let tf = t.field(i);
                    (
                        tf.name().clone(),
                        self.in_session_zone(tf.data_type().clone()),
                    )
                }
                _ => (f.name().clone(), spark_compatible(f.data_type())),
            };
            let expr = if f.data_type() == &dt {
                col
            } else {
                cast(col, dt)
            };
            items.push((expr, name));
        }
        if let Some(t) = &target
            && t.fields().len() != arrow_schema.fields().len()
            && !arrow_schema.fields().is_empty()
        {
            return Err(SparkError::analysis(
                "AXIS_LENGTH_MISMATCH",
                "42000",
                format!(
                    "Length mismatch: Expected axis has {} elements, new values have {} elements.",
                    arrow_schema.fields().len(),
                    t.fields().len()
                ),
            )
            .into());
        }
        let exprs = items
            .into_iter()
            .map(|(e, name)| {
                let internal = self.fresh(&name, vec![]);
                e.alias(internal)
            })
            .collect::<Vec<_>>();
        Ok(LogicalPlanBuilder::from(scan).project(exprs)?.build()?)
    }

    pub(crate) fn resolve_data_source(
        &mut self,
        ds: &crate::spec::DataSource,
    ) -> PlanResult<LogicalPlan> {
        if let Some(format) = &ds.format
            && let Some(source) = self.catalog().python_data_source(format)
        {
            return self.resolve_python_source(format, &source, ds);
        }
        if let Some(format) = &ds.format
            && !super::python_source::is_builtin_source(format)
        {
            return Err(crate::datasource::write::data_source_not_found(format).into());
        }
        let Some(state) = self.session_state() else {
            return Err(PlanError::Unsupported(
                "reading files without a session".into(),
            ));
        };
        let read = crate::datasource::read(state, ds, &self.config.time_zone)?;
        let mut scan =
            LogicalPlanBuilder::scan("files", provider_as_source(read.provider), None)?.build()?;
        if read.drop_malformed && !read.parse.is_empty() {
            // DROPMALFORMED: only rows whose every value converts to its column's type.
            let fits = read
                .parse
                .iter()
                .map(|c| {
                    let col = Expr::Column(datafusion::common::Column::new(Some("files"), &c.name));
                    col.clone().is_null().or(c.parse(col).is_not_null())
                })
                .reduce(Expr::and);
            if let Some(fits) = fits {
                scan = LogicalPlanBuilder::from(scan).filter(fits)?.build()?;
            }
        }
        // Partition columns arrive as the strings of their directory names.
        let exprs = scan
            .schema()
            .iter()
            .map(|(q, f)| {
                let col = Expr::Column(datafusion::common::Column::new(q.cloned(), f.name()));
                let value = match read.partitions.iter().find(|(k, _)| k == f.name()) {
                    Some((_, t)) => {
                        let typed = if t == &DataType::Utf8 {
                            col.clone()
                        } else {
                            cast(col.clone(), t.clone())
                        };
                        when(
                            col.eq(lit(
                                ember_execution::formats::partition::DEFAULT_PARTITION_NAME,
                            )),
                            lit(ScalarValue::try_from(t)?),
                        )
                        .otherwise(typed)?
                    }
                    None => match read.parse.iter().find(|c| &c.name == f.name()) {
                        Some(c) => cast(c.parse(col), self.in_session_zone(c.data_type.clone())),
                        None => {
                            // Instants read as UTC are shown in the session's zone.
                            let zoned = self.in_session_zone(f.data_type().clone());
                            if &zoned == f.data_type() {
                                col
                            } else {
                                cast(col, zoned)
                            }
                        }
                    },
                };
                let internal = self.fresh(f.name(), vec![]);
                Ok(value.alias(internal))
            })
            .collect::<PlanResult<Vec<_>>>()?;
        Ok(LogicalPlanBuilder::from(scan).project(exprs)?.build()?)
    }

    pub(crate) fn resolve_values(&mut self, rows: &[Vec<SExpr>]) -> PlanResult<LogicalPlan> {
        let empty = Arc::new(datafusion::common::DFSchema::empty());
        let mut values = Vec::with_capacity(rows.len());
        let mut width = None;
        for row in rows {
            let mut out = Vec::with_capacity(row.len());
            for e in row {
                out.push(self.resolve_expr(e, &empty)?.0);
            }
            match width {
                None => width = Some(out.len()),
                Some(w) if w != out.len() => {
                    return Err(SparkError::analysis(
                        "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH",
                        "42000",
                        format!("Invalid inline table. Inline table expected {w} columns but found {} columns in row.", out.len()),
                    )
                    .into());
                }
                _ => {}
            }
            values.push(out);
        }
        // NULLs take the type of the other rows of their column.
        if let Some(w) = width {
            for c in 0..w {
                // (With the field's metadata: an interval's fields.)
                let typed = values
                    .iter()
                    .filter_map(|r| r[c].to_field(&empty).ok())
                    .find(|(_, f)| f.data_type() != &DataType::Null);
                if let Some((_, f)) = typed {
                    let metadata = (!f.metadata().is_empty())
                        .then(|| datafusion::logical_expr::expr::FieldMetadata::from(f.metadata()));
                    for r in values.iter_mut() {
                        if matches!(&r[c], Expr::Literal(ScalarValue::Null, _)) {
                            let null = ScalarValue::try_from(f.data_type())?;
                            r[c] = Expr::Literal(null, metadata.clone());
                        }
                    }
                }
            }
        }
        // Each column's values take Spark's common type (0.0 with a DOUBLE is a DOUBLE).
        if let Some(w) = width {
            for c in 0..w {
                let mut column: Vec<Expr> = values.iter().map(|r| r[c].clone()).collect();
                let mut types = column
                    .iter()
                    .map(|e| e.get_type(&empty))
                    .collect::<Result<Vec<_>, _>>()?;
                // (Without promoting strings, as Spark's inline tables.)
                let is_string = |t: &DataType| matches!(t, DataType::Utf8 | DataType::Utf8View);
                let incompatible = || -> crate::error::PlanError {
                    SparkError::new(
                        crate::error::ErrorKind::Parse,
                        "INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE",
                        "42000",
                        format!(
                            "Invalid inline table. Found incompatible types in the column `col{}` for inline table.",
                            c + 1
                        ),
                        vec![("colName", format!("`col{}`", c + 1))],
                    )
                    .into()
                };
                if types.iter().any(is_string)
                    && types.iter().any(|t| !is_string(t) && t != &DataType::Null)
                {
                    return Err(incompatible());
                }
                self.coerce_together(&mut column, &mut types, &empty)?;
                // (Types with no common one: an array of arrays and an array, say.)
                let coerced = column
                    .iter()
                    .map(|e| e.get_type(&empty))
                    .collect::<Result<Vec<_>, _>>()?;
                let known: Vec<DataType> = coerced
                    .into_iter()
                    .filter(|t| *t != DataType::Null)
                    .collect();
                if !known.is_empty()
                    && datafusion::logical_expr::type_coercion::binary::type_union_resolution(
                        &known,
                    )
                    .is_none()
                {
                    return Err(incompatible());
                }
                for (r, e) in values.iter_mut().zip(column) {
                    r[c] = e;
                }
            }
        }
        // Intervals of different fields take the type holding them all.
        if let Some(w) = width {
            for c in 0..w {
                let fields = values
                    .iter()
                    .map(|r| r[c].to_field(&empty).map(|(_, f)| f))
                    .collect::<Result<Vec<_>, _>>()?;
                if let Some(q) = super::intervals::wider_interval(fields.iter().map(|f| f.as_ref()))
                {
                    for (r, f) in values.iter_mut().zip(&fields) {
                        let e =
                            std::mem::replace(&mut r[c], Expr::Literal(ScalarValue::Null, None));
                        r[c] = super::intervals::retype_interval(e, f.data_type(), q);
                    }
                }
            }
        }
        let plan = LogicalPlanBuilder::values(values)?.build()?;
        let exprs = plan
            .schema()
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let internal = self.fresh(&format!("col{}", i + 1), vec![]);
                Self::column(f.name()).alias(internal)
            })
            .collect::<Vec<_>>();
        Ok(LogicalPlanBuilder::from(plan).project(exprs)?.build()?)
    }

    pub(crate) fn resolve_table(&mut self, name: &[String]) -> PlanResult<LogicalPlan> {
        if let Some(scan) = self.work_table_scan(name)? {
            return self.reassign(scan, Some(name.to_vec()));
        }
        if let Some((position, cte)) = self.find_cte(name) {
            let plan = self.resolve_cte(position, &cte)?;
            return self.reassign(plan, Some(name.to_vec()));
        }
        // `parquet.\`/path\``: the files at the path, read with the format's defaults.
        if let [format, path] = name
            && crate::datasource::is_file_format(format)
        {
            let ds = crate::spec::DataSource {
                format: Some(format.to_ascii_lowercase()),
                schema: None,
                options: Default::default(),
                paths: vec![path.clone()],
            };
            let plan = self.resolve_data_source(&ds)?;
            return self.reassign(plan, Some(name.to_vec()));
        }
        // `ice.db.t`: a table of an Iceberg catalog of the session.
        if let Some(ds) = crate::datasource::iceberg::catalog_source(
            &self.iceberg_io(),
            &self.config.catalogs,
            name,
        )? {
            let plan = self.resolve_data_source(&ds)?;
            return self.reassign(plan, Some(name.to_vec()));
        }
        match self.catalog().lookup(name)? {
            Some(CatalogEntry::View(view)) => {
                let plan = self.resolve(&view)?;
                let qualifier = name.last().map(|n| vec![n.clone()]);
                self.reassign(plan, qualifier)
            }
            Some(CatalogEntry::Table(table)) => {
                let plan = self.resolve_data_source(&table_source(&table))?;
                self.reassign(plan, Some(table.qualified_name()))
            }
            None => Err(SparkError::table_not_found(&name.join(".")).into()),
        }
    }

    /// `t VERSION AS OF n` / `TIMESTAMP AS OF '...'`: a Delta table (by path or in the
    /// catalog) at that version.
    pub(crate) fn resolve_time_travel(
        &mut self,
        name: &[String],
        at: &crate::spec::TimeTravel,
    ) -> PlanResult<LogicalPlan> {
        let option = match at {
            crate::spec::TimeTravel::Version(v) => ("versionAsOf".to_string(), v.to_string()),
            crate::spec::TimeTravel::Timestamp(t) => ("timestampAsOf".to_string(), t.clone()),
        };
        let lakehouse =
            |f: &str| f.eq_ignore_ascii_case("delta") || f.eq_ignore_ascii_case("iceberg");
        let mut ds = if let [format, path] = name
            && lakehouse(format)
        {
            crate::spec::DataSource {
                format: Some(format.to_ascii_lowercase()),
                schema: None,
                options: Default::default(),
                paths: vec![path.clone()],
            }
        } else if let Some(ds) = crate::datasource::iceberg::catalog_source(
            &self.iceberg_io(),
            &self.config.catalogs,
            name,
        )? {
            ds
        } else {
            match self.catalog().lookup(name)? {
                Some(CatalogEntry::Table(table)) if lakehouse(&table.format) => {
                    table_source(&table)
                }
                Some(_) => {
                    let shown = name
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(".");
                    return Err(SparkError::analysis(
                        "UNSUPPORTED_FEATURE.TIME_TRAVEL",
                        "0A000",
                        format!(
                            "The feature is not supported: Time travel on the relation: {shown}."
                        ),
                    )
                    .into());
                }
                None => return Err(SparkError::table_not_found(&name.join(".")).into()),
            }
        };
        ds.options.insert(option.0, option.1);
        let plan = self.resolve_data_source(&ds)?;
        self.reassign(plan, Some(name.to_vec()))
    }

    pub(crate) fn resolve_table_function(
        &mut self,
        name: &str,
        args: &[SExpr],
    ) -> PlanResult<LogicalPlan> {
        if super::generate::is_generator(name) {
            // `FROM explode(...)`: the generator over one row, only its columns.
            let call = crate::spec::FunctionCall::new(name, args.to_vec());
            let one = LogicalPlanBuilder::empty(true).build()?;
            let (plan, items) = self.resolve_generate(one, &call, &[], vec![], false)?;
            return self.project_items(plan, items);
        }
        if let Some(plan) = self.registered_udtf(name, args)? {
            return Ok(plan);
        }
        match name.to_ascii_lowercase().as_str() {
            "range" => {
                let empty = datafusion::common::DFSchema::empty();
                let mut ints = Vec::new();
                for a in args {
                    let (e, _) = self.resolve_expr(a, &empty)?;
                    ints.push(match super::fold_constants(e)? {
                        Expr::Literal(v, _) => match v.cast_to(&DataType::Int64)? {
                            ScalarValue::Int64(Some(i)) => i,
                            _ => {
                                return Err(PlanError::Unsupported(
                                    "range() with NULL arguments".into(),
                                ));
                            }
                        },
                        _ => {
                            return Err(PlanError::Unsupported(
                                "range() with non-literal arguments".into(),
                            ));
                        }
                    });
                }
                let (start, end, step, parts) = match ints.as_slice() {
                    [end] => (0, *end, 1, None),
                    [start, end] => (*start, *end, 1, None),
                    [start, end, step] => (*start, *end, *step, None),
                    [start, end, step, parts] => {
                        (*start, *end, *step, Some((*parts).max(1) as usize))
                    }
                    _ => {
                        return Err(crate::functions::wrong_num_args(
                            "range",
                            "[1, 2, 3, 4]",
                            ints.len(),
                        ));
                    }
                };
                if step == 0 {
                    return Err(SparkError::illegal_argument(
                        "INVALID_PARAMETER_VALUE",
                        "The step of range must not be 0.",
                    )
                    .into());
                }
                self.resolve_range(start, end, step, parts)
            }
            other => Err(SparkError::unresolved_routine(other).into()),
        }
    }
}

/// Types a client may send that Spark does not have map to the Spark equivalents.
fn spark_compatible(dt: &DataType) -> DataType {
    match dt {
        DataType::LargeUtf8 | DataType::Utf8View => DataType::Utf8,
        DataType::LargeBinary | DataType::BinaryView => DataType::Binary,
        DataType::UInt8 => DataType::Int16,
        DataType::UInt16 => DataType::Int32,
        DataType::UInt32 => DataType::Int64,
        DataType::UInt64 => DataType::Decimal128(20, 0),
        DataType::Float16 => DataType::Float32,
        DataType::LargeList(f) => DataType::List(Arc::new(Field::new(
            f.name(),
            spark_compatible(f.data_type()),
            f.is_nullable(),
        ))),
        DataType::List(f) => DataType::List(Arc::new(Field::new(
            f.name(),
            spark_compatible(f.data_type()),
            f.is_nullable(),
        ))),
        other => other.clone(),
    }
}

/// The files of a warehouse table, read as `spark.read` would with the table's schema.
pub(crate) fn table_source(table: &crate::catalog::TableMeta) -> crate::spec::DataSource {
    // A table of a Python data source reads no files, and (as in Spark 4.3) its source does
    // not see the table's OPTIONS.
    let files = crate::datasource::is_file_format(&table.format);
    crate::spec::DataSource {
        format: Some(table.format.clone()),
        // A Delta table's schema is its log's, an Iceberg table's its metadata's.
        schema: (!table.format.eq_ignore_ascii_case("delta")
            && !table.format.eq_ignore_ascii_case("iceberg"))
        .then(|| table.schema_json()),
        options: table
            .options
            .iter()
            .filter(|_| files)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        paths: if files {
            vec![table.location.clone()]
        } else {
            vec![]
        },
    }
}
