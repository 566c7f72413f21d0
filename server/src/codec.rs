//! How plans and errors cross process boundaries in cluster mode: the planner's plan nodes and
//! functions as one codec part (the execution layer has its own), and task errors with their
//! Spark error class.

use std::any::Any;
use std::sync::Arc;

use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{AggregateUDF, HigherOrderUDF, ScalarUDF};
use ember_execution::codec::{CodecPart, EmberCodec};
use ember_execution::remote::ErrorCodec;
use ember_planner::SparkError;
use ember_planner::error::{ErrorKind, spark_error_from_datafusion, to_datafusion};
use ember_planner::functions::decimal::DecimalDivide;
use ember_planner::functions::fold::{FOLD_NAME, array_fold};
use ember_planner::functions::native::counter_diff::{COUNTER_DIFF, CounterDiff};
use ember_planner::functions::native::{Native, NativeUdf, SketchAgg, SketchAggKind};
use ember_planner::functions::nested_nullability::NestedType;
use ember_planner::functions::nullability::SparkNullability;
use ember_planner::functions::python::PythonScalarUdf;
use ember_planner::functions::python_agg::PythonAggUdf;
use ember_planner::functions::udf::{
    ArithOp, ArrayIndex, CastToString, CheckedArithmetic, DoubleDivide, IntegralDivide, RaiseError,
};
use ember_planner::functions::{spark_aggregate, spark_scalar};
use serde_json::{Value, json};

/// The codec of every Ember plan node and function: each crate's list of parts (a new plan
/// node or file format adds one line to its crate's list).
pub fn ember_codec() -> Arc<EmberCodec> {
    let mut parts = ember_execution::plan::codec::parts();
    parts.extend(ember_planner::datasource::codec_parts());
    parts.push(ember_planner::logical::python_map::codec_part());
    parts.push(Arc::new(PlannerFunctions));
    Arc::new(EmberCodec::new(parts))
}

/// Encodes Ember's own UDFs and `datafusion-spark`'s functions (whose names clash with
/// DataFusion's, so they cannot be found by name).
#[derive(Debug, Default)]
pub struct PlannerFunctions;

fn bad(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!("bad encoded {what}"))
}

fn same_impl(a: &dyn Any, b: &dyn Any) -> bool {
    a.type_id() == b.type_id()
}

impl CodecPart for PlannerFunctions {
    fn name(&self) -> &'static str {
        "ember.functions"
    }

    fn encode_udf(&self, udf: &ScalarUDF) -> Option<Vec<u8>> {
        let inner: &dyn Any = udf.inner().as_ref();
        if let Some(p) = inner.downcast_ref::<PythonScalarUdf>() {
            return p.encode();
        }
        let v = if let Some(a) = inner.downcast_ref::<CheckedArithmetic>() {
            let op = match a.op() {
                ArithOp::Add => "add",
                ArithOp::Subtract => "subtract",
                ArithOp::Multiply => "multiply",
            };
            json!({"fn": "arith", "op": op, "ansi": a.ansi()})
        } else if let Some(d) = inner.downcast_ref::<DoubleDivide>() {
            json!({"fn": "divide", "ansi": d.ansi()})
        } else if let Some(d) = inner.downcast_ref::<IntegralDivide>() {
            json!({"fn": "div", "ansi": d.ansi()})
        } else if let Some(x) = inner.downcast_ref::<ArrayIndex>() {
            json!({"fn": "array_index", "one_based": x.one_based(), "ansi": x.ansi()})
        } else if inner.downcast_ref::<RaiseError>().is_some() {
            json!({"fn": "raise_error"})
        } else if let Some(c) = inner.downcast_ref::<CastToString>() {
            json!({"fn": "cast_to_string", "time_zone": c.time_zone(), "interval": c.interval()})
        } else if let Some(n) = inner.downcast_ref::<NativeUdf>() {
            json!({"fn": "native", "native": serde_json::to_value(n.kind()).ok()?})
        } else if let Some(n) = inner.downcast_ref::<SparkNullability>() {
            json!({"fn": "nullability", "nullable": n.nullable()})
        } else if let Some(n) = inner.downcast_ref::<NestedType>() {
            json!({"fn": "nested_type", "type": n.encode()?})
        } else if let Some(d) = inner.downcast_ref::<DecimalDivide>() {
            json!({"fn": "decimal_divide", "precision": d.precision(), "scale": d.scale(), "ansi": d.ansi()})
        } else {
            let spark = spark_scalar(udf.name())?;
            if !same_impl(spark.inner().as_ref(), inner) {
                return None;
            }
            json!({"fn": "spark"})
        };
        Some(v.to_string().into_bytes())
    }

    fn decode_udf(&self, name: &str, payload: &[u8]) -> Result<Arc<ScalarUDF>> {
        let v: Value = serde_json::from_slice(payload).map_err(|_| bad("function"))?;
        if v.get("eval_type").is_some() {
            return PythonScalarUdf::decode(payload).ok_or_else(|| bad("Python function"));
        }
        let ansi = v.get("ansi").and_then(Value::as_bool).unwrap_or(true);
        match v.get("fn").and_then(Value::as_str) {
            Some("arith") => {
                let op = match v.get("op").and_then(Value::as_str) {
                    Some("add") => ArithOp::Add,
                    Some("subtract") => ArithOp::Subtract,
                    Some("multiply") => ArithOp::Multiply,
                    _ => return Err(bad("arithmetic")),
                };
                Ok(CheckedArithmetic::udf(op, ansi))
            }
            Some("divide") => Ok(DoubleDivide::udf(ansi)),
            Some("array_index") => Ok(ArrayIndex::udf(
                v.get("one_based")
                    .and_then(Value::as_bool)
                    .ok_or_else(|| bad("array index"))?,
                ansi,
            )),
            Some("div") => Ok(IntegralDivide::udf(ansi)),
            Some("raise_error") => Ok(RaiseError::udf()),
            Some("native") => {
                let kind: Native = v
                    .get("native")
                    .cloned()
                    .and_then(|k| serde_json::from_value(k).ok())
                    .ok_or_else(|| bad("native function"))?;
                Ok(NativeUdf::udf(kind))
            }
            Some("cast_to_string") => Ok(CastToString::of_interval(
                v.get("time_zone")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("cast_to_string"))?,
                v.get("interval")
                    .cloned()
                    .and_then(|i| serde_json::from_value(i).ok())
                    .flatten(),
            )),
            Some("decimal_divide") => {
                let p = v
                    .get("precision")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| bad("decimal divide"))?;
                let s = v
                    .get("scale")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| bad("decimal divide"))?;
                Ok(DecimalDivide::udf(p as u8, s as i8, ansi))
            }
            Some("nullability") => Ok(SparkNullability::udf(
                v.get("nullable")
                    .and_then(Value::as_bool)
                    .ok_or_else(|| bad("nullability"))?,
            )),
            Some("nested_type") => v
                .get("type")
                .and_then(Value::as_str)
                .and_then(NestedType::decode)
                .ok_or_else(|| bad("nested type")),
            Some("spark") => spark_scalar(name).ok_or_else(|| bad(name)),
            _ => Err(bad("function")),
        }
    }

    fn encode_udaf(&self, udaf: &AggregateUDF) -> Option<Vec<u8>> {
        let inner: &dyn Any = udaf.inner().as_ref();
        if let Some(p) = inner.downcast_ref::<PythonAggUdf>() {
            return p.encode();
        }
        if inner.downcast_ref::<CounterDiff>().is_some() {
            return Some(COUNTER_DIFF.as_bytes().to_vec());
        }
        if let Some(sketch) = inner.downcast_ref::<SketchAgg>() {
            let kind = serde_json::to_value(sketch.kind()).ok()?;
            return Some(
                json!({"fn": "sketch", "kind": kind})
                    .to_string()
                    .into_bytes(),
            );
        }
        let spark = spark_aggregate(udaf.name())?;
        let inner: &dyn Any = udaf.inner().as_ref();
        same_impl(spark.inner().as_ref(), inner).then(|| b"spark".to_vec())
    }

    fn decode_udaf(&self, name: &str, payload: &[u8]) -> Result<Arc<AggregateUDF>> {
        if payload == COUNTER_DIFF.as_bytes() {
            return Ok(CounterDiff::udaf());
        }
        if payload.starts_with(b"{") {
            let v: Value = serde_json::from_slice(payload).map_err(|_| bad("aggregate"))?;
            if v.get("eval_type").is_some() {
                return PythonAggUdf::decode(payload).ok_or_else(|| bad("Python aggregate"));
            }
            let kind: SketchAggKind = v
                .get("kind")
                .cloned()
                .and_then(|k| serde_json::from_value(k).ok())
                .ok_or_else(|| bad("sketch aggregate"))?;
            return Ok(SketchAgg::udaf(kind));
        }
        spark_aggregate(name).ok_or_else(|| bad(name))
    }

    fn encode_higher_order(&self, function: &HigherOrderUDF) -> Option<Vec<u8>> {
        (function.name() == FOLD_NAME).then(|| FOLD_NAME.as_bytes().to_vec())
    }

    fn decode_higher_order(&self, name: &str, _payload: &[u8]) -> Result<Arc<HigherOrderUDF>> {
        match name {
            FOLD_NAME => Ok(array_fold()),
            other => Err(bad(other)),
        }
    }
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
    use ember_execution::plan::text_scan::{TextFile, TextOptions, TextScan};
    use ember_execution::plan::{PartitionIdsExec, RangeExec, RangeSpec, TextScanExec};
    use ember_planner::datasource::orc::OrcSource;

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

        let part = PlannerFunctions;
        for udf in [
            CheckedArithmetic::udf(ArithOp::Multiply, true),
            DecimalDivide::udf(9, 6, false),
            CastToString::udf("Europe/Paris"),
            spark_scalar("concat").unwrap(),
        ] {
            let payload = part.encode_udf(&udf).expect("an Ember function");
            let decoded = part.decode_udf(udf.name(), &payload).unwrap();
            assert_eq!(decoded.as_ref(), udf.as_ref());
        }
        // DataFusion's own concat is a built-in: encoded by name.
        let builtin = ember_planner::functions::df_udf("concat").unwrap();
        assert!(part.encode_udf(&builtin).is_none());

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
            Arc::new(OrcSource::new(table)),
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
        let ids: Arc<dyn ExecutionPlan> = Arc::new(PartitionIdsExec::new(text.clone()));
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
