//! `DESCRIBE HISTORY` of a Delta table: its commits as delta-spark shows them.

use std::sync::Arc;

use arrow::datatypes::{Field, Schema};
use arrow::record_batch::RecordBatch;
use futures::TryStreamExt;

use super::{DeltaLocation, delta_error, open};
use crate::spark_error::SparkResult;

/// `DESCRIBE HISTORY t [LIMIT n]`: the table's commits, newest first, with delta-spark's
/// columns (less `job` and `notebook`, which only Databricks fills).
pub async fn history(
    url: &DeltaLocation,
    limit: Option<usize>,
    time_zone: &str,
) -> SparkResult<RecordBatch> {
    use arrow::array::{
        ArrayRef, BooleanBuilder, Int64Builder, MapBuilder, MapFieldNames, StringBuilder,
        TimestampMicrosecondBuilder,
    };
    let t = open(url, None, time_zone).await?;
    let latest = t.version().and_then(|v| i64::try_from(v).ok()).unwrap_or(0);
    let commits: Vec<_> = t
        .history(limit)
        .try_collect()
        .await
        .map_err(|e| delta_error(&url.url, e))?;
    let names = || MapFieldNames {
        entry: "entries".into(),
        key: "key".into(),
        value: "value".into(),
    };
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut version = Int64Builder::new();
    let mut timestamp = TimestampMicrosecondBuilder::new();
    let mut user_id = StringBuilder::new();
    let mut user_name = StringBuilder::new();
    let mut operation = StringBuilder::new();
    let mut parameters = MapBuilder::new(Some(names()), StringBuilder::new(), StringBuilder::new());
    let mut cluster_id = StringBuilder::new();
    let mut read_version = Int64Builder::new();
    let mut isolation = StringBuilder::new();
    let mut blind = BooleanBuilder::new();
    let mut metrics = MapBuilder::new(Some(names()), StringBuilder::new(), StringBuilder::new());
    let mut user_metadata = StringBuilder::new();
    let mut engine = StringBuilder::new();
    for (i, c) in commits.iter().enumerate() {
        version.append_value(latest - i as i64);
        timestamp.append_option(c.timestamp.map(|ms| ms * 1000));
        user_id.append_option(c.user_id.as_deref());
        user_name.append_option(c.user_name.as_deref());
        operation.append_option(c.operation.as_deref());
        let mut params: Vec<_> = c.operation_parameters.iter().flatten().collect();
        params.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in params {
            parameters.keys().append_value(k);
            parameters.values().append_value(text(v));
        }
        parameters.append(true)?;
        cluster_id.append_null();
        read_version.append_option(c.read_version.and_then(|v| i64::try_from(v).ok()));
        isolation.append_option(c.isolation_level.as_ref().map(|l| format!("{l:?}")));
        blind.append_option(c.is_blind_append);
        match c.info.get("operationMetrics") {
            Some(serde_json::Value::Object(m)) => {
                let mut m: Vec<_> = m.iter().collect();
                m.sort_by(|a, b| a.0.cmp(b.0));
                for (k, v) in m {
                    metrics.keys().append_value(k);
                    metrics.values().append_value(text(v));
                }
                metrics.append(true)?;
            }
            _ => metrics.append(false)?,
        }
        user_metadata.append_option(c.user_metadata.as_deref());
        engine.append_option(c.engine_info.as_deref());
    }
    let timestamp = timestamp.finish().with_timezone(time_zone);
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("version", Arc::new(version.finish())),
        ("timestamp", Arc::new(timestamp)),
        ("userId", Arc::new(user_id.finish())),
        ("userName", Arc::new(user_name.finish())),
        ("operation", Arc::new(operation.finish())),
        ("operationParameters", Arc::new(parameters.finish())),
        ("clusterId", Arc::new(cluster_id.finish())),
        ("readVersion", Arc::new(read_version.finish())),
        ("isolationLevel", Arc::new(isolation.finish())),
        ("isBlindAppend", Arc::new(blind.finish())),
        ("operationMetrics", Arc::new(metrics.finish())),
        ("userMetadata", Arc::new(user_metadata.finish())),
        ("engineInfo", Arc::new(engine.finish())),
    ];
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let arrays = columns.into_iter().map(|(_, a)| a).collect();
    Ok(RecordBatch::try_new(schema, arrays)?)
}
