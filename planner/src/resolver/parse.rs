//! `spark.read.json(df)` / `spark.read.csv(df)` (Spark Connect's Parse): the strings of a
//! one-column relation parsed as JSON or CSV records. The strings are read while planning
//! (the schema may be inferred from them), like the whole-file JSON read.

use std::sync::Arc;

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder, cast};

use super::Resolver;
use crate::datasource;
use crate::error::{PlanError, PlanResult};
use crate::spec::{DataSource, LocalData};
use ember_execution::formats::csv::infer::{Formats, infer_column_type};

impl Resolver<'_> {
    pub(crate) fn resolve_parse(
        &mut self,
        input: LogicalPlan,
        format: &str,
        schema: Option<SchemaRef>,
        options: &[(String, String)],
    ) -> PlanResult<LogicalPlan> {
        let fields = input.schema().fields();
        let (Some(field), 1) = (fields.first(), fields.len()) else {
            return Err(PlanError::InvalidPlan(
                "parsing a relation of more than one column".into(),
            ));
        };
        let text = LogicalPlanBuilder::from(input.clone())
            .project(vec![cast(Self::column(field.name()), DataType::Utf8)])?
            .build()?;
        let mut lines: Vec<String> = vec![];
        for batch in self.collect_at_planning(&text, "parsing a DataFrame of strings")? {
            lines.extend(
                batch
                    .column(0)
                    .as_string::<i32>()
                    .iter()
                    .flatten()
                    .map(String::from),
            );
        }
        let source = DataSource {
            format: Some(format.into()),
            schema: None,
            options: options.iter().cloned().collect(),
            paths: vec![],
        };
        let mode = datasource::malformed_mode(&source);
        let (schema, batches) = match format {
            "json" => {
                let corrupt = datasource::option(&source, "columnNameOfCorruptRecord")
                    .unwrap_or("_corrupt_record");
                ember_execution::formats::json::records::json_lines_to_batches(
                    lines.into_iter(),
                    schema,
                    mode,
                    corrupt,
                )?
            }
            "xml" => xml_records(&lines, schema, &source, &self.config.time_zone)?,
            _ => csv_records(&lines, schema, &source, &self.config.time_zone)?,
        };
        self.resolve_local_relation(Some(&LocalData { schema, batches }), None)
    }
}

/// CSV records (one per string) read as files are, with the same options; types from the
/// given schema or inferred (`inferSchema`) or strings; a value that does not convert is NULL.
fn csv_records(
    lines: &[String],
    schema: Option<SchemaRef>,
    source: &DataSource,
    time_zone: &str,
) -> PlanResult<(SchemaRef, Vec<RecordBatch>)> {
    let csv = datasource::csv::csv_options(&source.options, FileCompressionType::UNCOMPRESSED)?;
    let mut text = lines.join("\n");
    text.push('\n');
    let read = datasource::csv::read_text(csv, text.as_bytes())?;
    let strings = read.schema();
    let names: Vec<&String> = strings.fields().iter().map(|f| f.name()).collect();
    let columns = read.columns();
    let target: SchemaRef = match schema {
        Some(s) => s,
        None if datasource::flag(source, "inferSchema", false) => {
            let formats = Formats {
                date: None,
                timestamp: None,
            };
            let timestamp = crate::types::timestamp_type(time_zone);
            Arc::new(Schema::new(
                columns
                    .iter()
                    .zip(&names)
                    .map(|(c, n)| {
                        let values = c.as_string::<i32>().iter().flatten();
                        Field::new(*n, infer_column_type(values, &formats, &timestamp), true)
                    })
                    .collect::<Vec<_>>(),
            ))
        }
        None => strings.clone(),
    };
    let cast_options = arrow::compute::CastOptions {
        safe: true,
        ..Default::default()
    };
    let mut typed = Vec::with_capacity(target.fields().len());
    for (i, f) in target.fields().iter().enumerate() {
        typed.push(match columns.get(i) {
            Some(c) => arrow::compute::cast_with_options(c, f.data_type(), &cast_options)
                .map_err(datafusion::error::DataFusionError::from)?,
            None => arrow::array::new_null_array(f.data_type(), read.num_rows()),
        });
    }
    let target = Arc::new(Schema::new(
        target
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(target.clone(), typed)
        .map_err(datafusion::error::DataFusionError::from)?;
    Ok((target, vec![batch]))
}

/// XML records (one per string, whatever its root element's name) read as files are.
fn xml_records(
    lines: &[String],
    schema: Option<SchemaRef>,
    source: &DataSource,
    time_zone: &str,
) -> PlanResult<(SchemaRef, Vec<RecordBatch>)> {
    let options = datasource::xml::XmlOptions::of_read(
        &source.options,
        time_zone,
        FileCompressionType::UNCOMPRESSED,
        false,
    )?;
    let texts: Vec<&str> = lines.iter().map(String::as_str).collect();
    let schema = match schema {
        Some(s) => {
            datasource::check_xml_schema(&s)?;
            Arc::new(Schema::new(
                s.fields()
                    .iter()
                    .map(|f| f.as_ref().clone().with_nullable(true))
                    .collect::<Vec<_>>(),
            ))
        }
        None => Arc::new(options.infer_strings(&texts)?),
    };
    let batches = options.batches_of_strings(&texts, &schema)?;
    Ok((schema, batches))
}
