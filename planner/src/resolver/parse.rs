//! `spark.read.json(df)` / `spark.read.csv(df)` (Spark Connect's Parse): the strings of a
//! one-column relation parsed as JSON or CSV records. The strings are read while planning
//! (the schema may be inferred from them), like the whole-file JSON read.

use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder, cast};

use super::Resolver;
use crate::datasource::MalformedMode;
use crate::datasource::infer::{Formats, infer_column_type};
use crate::error::{PlanError, PlanResult};
use crate::spec::LocalData;

fn option<'a>(options: &'a [(String, String)], key: &str) -> Option<&'a str> {
    options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

fn flag(options: &[(String, String)], key: &str) -> bool {
    option(options, key).is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

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
        let mode = match option(options, "mode")
            .map(str::to_ascii_uppercase)
            .as_deref()
        {
            Some("DROPMALFORMED") => MalformedMode::DropMalformed,
            Some("FAILFAST") => MalformedMode::FailFast,
            _ => MalformedMode::Permissive,
        };
        let (schema, batches) = match format {
            "json" => {
                let corrupt =
                    option(options, "columnNameOfCorruptRecord").unwrap_or("_corrupt_record");
                crate::datasource::whole::json_lines_to_batches(
                    lines.into_iter(),
                    schema,
                    mode,
                    corrupt,
                )?
            }
            _ => csv_records(&lines, schema, options, &self.config.time_zone)?,
        };
        self.resolve_local_relation(Some(&LocalData { schema, batches }), None)
    }
}

/// CSV records (one per string): the header and `sep`/`quote` options, empty values NULL,
/// types from the given schema or inferred (`inferSchema`) or strings; a value that does not
/// convert is NULL.
fn csv_records(
    lines: &[String],
    schema: Option<SchemaRef>,
    options: &[(String, String)],
    time_zone: &str,
) -> PlanResult<(SchemaRef, Vec<RecordBatch>)> {
    let byte = |key: &str, default: u8| match option(options, key) {
        Some(v) if v.len() == 1 => Ok(v.as_bytes()[0]),
        None => Ok(default),
        Some(v) => Err(PlanError::Unsupported(format!("CSV {key} '{v}'"))),
    };
    let sep = match option(options, "sep") {
        Some(_) => byte("sep", b',')?,
        None => byte("delimiter", b',')?,
    };
    let quote = byte("quote", b'"')?;
    let header = flag(options, "header");
    let mut text = lines.join("\n");
    text.push('\n');
    let format = arrow::csv::reader::Format::default()
        .with_header(header)
        .with_delimiter(sep)
        .with_quote(quote);
    let (found, _) = format
        .infer_schema(std::io::Cursor::new(text.as_bytes()), None)
        .map_err(datafusion::error::DataFusionError::from)?;
    let names: Vec<String> = if header {
        found.fields().iter().map(|f| f.name().clone()).collect()
    } else {
        (0..found.fields().len())
            .map(|i| format!("_c{i}"))
            .collect()
    };
    let strings = Arc::new(Schema::new(
        names
            .iter()
            .map(|n| Field::new(n, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    ));
    let reader = arrow::csv::ReaderBuilder::new(strings.clone())
        .with_header(header)
        .with_delimiter(sep)
        .with_quote(quote)
        .build(std::io::Cursor::new(text.into_bytes()))
        .map_err(datafusion::error::DataFusionError::from)?;
    let read: Vec<RecordBatch> = reader
        .collect::<Result<_, _>>()
        .map_err(datafusion::error::DataFusionError::from)?;
    let read = arrow::compute::concat_batches(&strings, &read)
        .map_err(datafusion::error::DataFusionError::from)?;
    // Empty values are NULL.
    let columns: Vec<ArrayRef> = read
        .columns()
        .iter()
        .map(|c| {
            let s = c.as_string::<i32>();
            Arc::new(
                s.iter()
                    .map(|v| v.filter(|v| !v.is_empty()))
                    .collect::<StringArray>(),
            ) as ArrayRef
        })
        .collect();
    let target: SchemaRef = match schema {
        Some(s) => s,
        None if flag(options, "inferSchema") => {
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
                        Field::new(n, infer_column_type(values, &formats, &timestamp), true)
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
