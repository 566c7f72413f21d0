//! How plans and errors cross process boundaries in cluster mode: the codec made of every
//! crate's list of parts (each plan node, file format and function encodes itself; see
//! `ember_execution::codec`), and task errors with their Spark error class.

use std::sync::Arc;

use datafusion::common::DataFusionError;
use ember_execution::codec::EmberCodec;
use ember_execution::remote::ErrorCodec;
use ember_planner::SparkError;
use ember_planner::error::{ErrorKind, spark_error_from_datafusion, to_datafusion};
use serde_json::{Value, json};

/// The codec of every Ember plan node and function: each crate's list of parts (a new plan
/// node or file format adds one line to its crate's list).
pub fn ember_codec() -> Arc<EmberCodec> {
    let mut parts = ember_execution::plan::codec::parts();
    parts.extend(ember_execution::formats::codec_parts());
    parts.push(ember_planner::logical::python_map::codec_part());
    parts.push(ember_planner::logical::python_eval::codec_part());
    parts.extend(ember_planner::functions::codec_parts());
    Arc::new(EmberCodec::new(parts))
}

/// Task errors keep their Spark error class across processes.
#[derive(Debug, Default)]
pub struct SparkErrors;

fn kind_name(k: ErrorKind) -> &'static str {
    match k {
        ErrorKind::Analysis => "analysis",
        ErrorKind::Parse => "parse",
        ErrorKind::Arithmetic => "arithmetic",
        ErrorKind::NumberFormat => "number_format",
        ErrorKind::IllegalArgument => "illegal_argument",
        ErrorKind::Unsupported => "unsupported",
        ErrorKind::DateTime => "date_time",
        ErrorKind::ArrayIndexOutOfBounds => "array_index",
        ErrorKind::NoSuchElement => "no_such_element",
        ErrorKind::InvalidPlanInput => "invalid_plan",
        ErrorKind::Runtime => "runtime",
        ErrorKind::Spark => "spark",
        ErrorKind::ClassNotFound => "class_not_found",
        ErrorKind::Internal => "internal",
        ErrorKind::SparkSql => "spark_sql",
        ErrorKind::Python => "python",
    }
}

fn kind_of(name: &str) -> ErrorKind {
    match name {
        "analysis" => ErrorKind::Analysis,
        "parse" => ErrorKind::Parse,
        "arithmetic" => ErrorKind::Arithmetic,
        "number_format" => ErrorKind::NumberFormat,
        "illegal_argument" => ErrorKind::IllegalArgument,
        "unsupported" => ErrorKind::Unsupported,
        "date_time" => ErrorKind::DateTime,
        "array_index" => ErrorKind::ArrayIndexOutOfBounds,
        "no_such_element" => ErrorKind::NoSuchElement,
        "invalid_plan" => ErrorKind::InvalidPlanInput,
        "runtime" => ErrorKind::Runtime,
        "spark" => ErrorKind::Spark,
        "class_not_found" => ErrorKind::ClassNotFound,
        "spark_sql" => ErrorKind::SparkSql,
        "python" => ErrorKind::Python,
        _ => ErrorKind::Internal,
    }
}

impl ErrorCodec for SparkErrors {
    fn encode(&self, error: &DataFusionError) -> Vec<u8> {
        let e = spark_error_from_datafusion(error);
        let params: serde_json::Map<String, Value> = e
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        json!({
            "kind": kind_name(e.kind),
            "class": e.error_class,
            "state": e.sql_state,
            "message": e.message,
            "params": params,
        })
        .to_string()
        .into_bytes()
    }

    fn decode(&self, message: &str, detail: &[u8]) -> DataFusionError {
        let Ok(v) = serde_json::from_slice::<Value>(detail) else {
            return DataFusionError::Execution(message.to_string());
        };
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let parameters = v
            .get("params")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        to_datafusion(SparkError {
            kind: kind_of(&s("kind")),
            error_class: s("class"),
            sql_state: s("state"),
            message: s("message"),
            parameters,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::datasource::physical_plan::FileScanConfig;
    use datafusion::datasource::source::DataSourceExec;
    use datafusion::physical_plan::ExecutionPlan;
    use datafusion::prelude::SessionContext;
    use datafusion_proto::physical_plan::PhysicalExtensionCodec;
    use ember_execution::formats::orc::OrcSource;
    use ember_execution::formats::text::TextScanExec;
    use ember_execution::formats::text::{TextFile, TextOptions, TextScan};
    use ember_execution::plan::{PartitionIdsExec, RangeExec, RangeSpec};
    use ember_planner::functions::decimal::{DecimalDivide, DecimalExact};
    use ember_planner::functions::native::counter_diff::CounterDiff;
    use ember_planner::functions::native::{Native, NativeUdf};
    use ember_planner::functions::nested_nullability::NestedType;
    use ember_planner::functions::nullability::SparkNullability;
    use ember_planner::functions::udf::{ArithOp, CastToString, CheckedArithmetic};
    use ember_planner::functions::{spark_aggregate, spark_scalar};
    use ember_planner::interval::IntervalFields;

    #[tokio::test]
    async fn plans_with_ember_nodes_and_functions_round_trip() {
        let ctx = SessionContext::new();
        let range: Arc<dyn ExecutionPlan> = Arc::new(RangeExec::new(RangeSpec {
            start: 0,
            end: 10,
            step: 2,
            partitions: 3,
        }));
        let codec = ember_codec();
        let bytes = codec.encode_plan(range).unwrap();
        let back = codec.decode_plan(&bytes, &ctx.task_ctx()).unwrap();
        let back = back.downcast_ref::<RangeExec>().unwrap();
        assert_eq!(back.spec().end, 10);
        assert_eq!(back.spec().partitions, 3);

        for udf in [
            CheckedArithmetic::udf(ArithOp::Multiply, true),
            DecimalDivide::udf(9, 6, false),
            DecimalExact::udf(datafusion::logical_expr::Operator::Multiply, 38, 6, true),
            CastToString::udf("Europe/Paris"),
            CastToString::of_interval(
                "UTC",
                Some(IntervalFields {
                    year_month: true,
                    start: 0,
                    end: 1,
                }),
            ),
            NestedType::udf(DataType::List(Arc::new(Field::new_list_field(
                DataType::Int32,
                false,
            )))),
            SparkNullability::udf(false),
            NativeUdf::udf(Native::Deferred),
            spark_scalar("concat").unwrap(),
        ] {
            let mut payload = vec![];
            codec.try_encode_udf(&udf, &mut payload).unwrap();
            assert!(!payload.is_empty(), "{} is Ember's to encode", udf.name());
            let decoded = codec.try_decode_udf(udf.name(), &payload).unwrap();
            assert_eq!(decoded.as_ref(), udf.as_ref());
        }
        for udaf in [CounterDiff::udaf(), spark_aggregate("try_sum").unwrap()] {
            let mut payload = vec![];
            codec.try_encode_udaf(&udaf, &mut payload).unwrap();
            let decoded = codec.try_decode_udaf(udaf.name(), &payload).unwrap();
            assert_eq!(decoded.name(), udaf.name());
        }
        // DataFusion's own concat is a built-in: encoded by name.
        let builtin = ember_planner::functions::df_udf("concat").unwrap();
        let mut payload = vec![];
        codec.try_encode_udf(&builtin, &mut payload).unwrap();
        assert!(payload.is_empty());

        // An ORC scan keeps its files, partition columns and projection.
        use arrow::datatypes::{DataType, Field, Schema};
        use datafusion::datasource::listing::PartitionedFile;
        use datafusion::datasource::physical_plan::FileScanConfigBuilder;
        use datafusion::datasource::table_schema::TableSchema;
        use datafusion::execution::object_store::ObjectStoreUrl;
        let file_schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ]));
        let table = TableSchema::builder(file_schema)
            .with_table_partition_cols(vec![Arc::new(Field::new("part", DataType::Utf8, true))])
            .build();
        let config = FileScanConfigBuilder::new(
            ObjectStoreUrl::local_filesystem(),
            Arc::new(OrcSource::new(table, ())),
        )
        .with_file(PartitionedFile::new("data/part=x/f.orc", 100))
        .with_projection_indices(Some(vec![2, 1]))
        .unwrap()
        .build();
        let scan: Arc<dyn ExecutionPlan> = DataSourceExec::from_data_source(config);
        let back = codec
            .decode_plan(&codec.encode_plan(scan.clone()).unwrap(), &ctx.task_ctx())
            .unwrap();
        assert_eq!(back.schema(), scan.schema());
        let back_config = back
            .downcast_ref::<DataSourceExec>()
            .and_then(|d| d.data_source().downcast_ref::<FileScanConfig>())
            .unwrap();
        assert!(
            back_config
                .file_source()
                .downcast_ref::<OrcSource>()
                .is_some()
        );
        assert_eq!(back_config.file_groups[0].files()[0].object_meta.size, 100);

        // A text scan keeps its files, options and projection; partition ids their input.
        let text: Arc<dyn ExecutionPlan> = Arc::new(TextScanExec::new(TextScan {
            groups: vec![vec![TextFile {
                path: "/data/k=1/a.txt".into(),
                partition_values: vec!["1".into()],
            }]],
            partition_columns: vec!["k".into()],
            projection: vec![1, 0],
            options: TextOptions {
                wholetext: true,
                line_sep: Some(";".into()),
                column: Some("line".into()),
            },
        }));
        let ids: Arc<dyn ExecutionPlan> = Arc::new(PartitionIdsExec::new(text.clone()).unwrap());
        let back = codec
            .decode_plan(&codec.encode_plan(ids.clone()).unwrap(), &ctx.task_ctx())
            .unwrap();
        assert_eq!(back.schema(), ids.schema());
        let back_text = back.children()[0].downcast_ref::<TextScanExec>().unwrap();
        assert_eq!(back_text.scan().groups[0][0].path, "/data/k=1/a.txt");
        assert_eq!(back_text.scan().options.line_sep.as_deref(), Some(";"));
        assert_eq!(back_text.scan().projection, [1, 0]);
    }

    #[test]
    fn spark_errors_survive_the_wire() {
        let e = to_datafusion(SparkError::divide_by_zero());
        let codec = SparkErrors;
        let back = codec.decode("ignored", &codec.encode(&e));
        assert_eq!(
            spark_error_from_datafusion(&back).error_class,
            "DIVIDE_BY_ZERO"
        );
    }
}
