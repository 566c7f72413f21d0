//! Spark 4.3's nanosecond timestamps (`TIMESTAMP_LTZ(9)`, `TIMESTAMP_NTZ(9)`, Arrow
//! nanosecond timestamps here): `timestamp_nanos(n)`, the TIMESTAMP_LTZ(9) `n` nanoseconds
//! after the epoch; `unix_nanos(ts)`, the nanoseconds since the epoch of one as
//! `DECIMAL(21, 0)`; typed literals with more than six fraction digits. All of it only with
//! `spark.sql.timestampNanosTypes.enabled` (Spark's FEATURE_NOT_ENABLED otherwise; literals
//! then keep microseconds, as Spark's do). Precisions 7 and 8 are not supported.

use std::sync::Arc;

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::cast;

use super::RegistryBuilder;
use super::operators::one;
use crate::error::{ErrorKind, PlanError, PlanResult, SparkError};
use crate::resolver::PlannerConfig;

pub fn register(b: &mut RegistryBuilder) {
    b.scalar(&["timestamp_nanos"], |f| {
        f.arity(1, 1)?;
        let t = f.types.first().cloned().unwrap_or(DataType::Null);
        if !(t.is_integer() || matches!(t, DataType::Decimal128(..) | DataType::Null)) {
            return Err(unexpected_type(f.name, "(\"INTEGRAL\" or \"DECIMAL\")", &t));
        }
        if !f.config.timestamp_nanos {
            return Err(feature_not_enabled());
        }
        let tz = f.config.time_zone.clone();
        let nanos = cast(one(f)?, DataType::Int64);
        Ok(cast(
            cast(
                nanos,
                DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            ),
            DataType::Timestamp(TimeUnit::Nanosecond, Some(Arc::from(tz))),
        ))
    });
    b.scalar(&["unix_nanos"], |f| {
        f.arity(1, 1)?;
        let t = f.types.first().cloned().unwrap_or(DataType::Null);
        if !matches!(
            t,
            DataType::Timestamp(TimeUnit::Nanosecond, _) | DataType::Null
        ) {
            return Err(unexpected_type(
                f.name,
                "\"(TIMESTAMP_LTZ(P) OR TIMESTAMP_NTZ(P) WITH P IN [7, 9])\"",
                &t,
            ));
        }
        Ok(cast(
            cast(one(f)?, DataType::Int64),
            DataType::Decimal128(21, 0),
        ))
    });
}

/// Whether `dt` is (or holds) a nanosecond timestamp.
pub fn has_nanos(dt: &DataType) -> bool {
    match dt {
        DataType::Timestamp(TimeUnit::Nanosecond, _) => true,
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            has_nanos(f.data_type())
        }
        DataType::Struct(fields) => fields.iter().any(|f| has_nanos(f.data_type())),
        DataType::Map(entries, _) => has_nanos(entries.data_type()),
        _ => false,
    }
}

/// Fails unless the session allows nanosecond timestamps where `dt` has one.
pub fn check_allowed(config: &PlannerConfig, dt: &DataType) -> PlanResult<()> {
    if has_nanos(dt) && !config.timestamp_nanos {
        return Err(feature_not_enabled());
    }
    Ok(())
}

/// Spark's FEATURE_NOT_ENABLED for a nanosecond timestamp without the setting.
pub fn feature_not_enabled() -> PlanError {
    SparkError::new(
        ErrorKind::Spark,
        "FEATURE_NOT_ENABLED",
        "56038",
        "The feature Nanosecond-precision timestamp types is not enabled. Consider setting the config spark.sql.timestampNanosTypes.enabled to true to enable this capability.",
        vec![
            ("featureName", "Nanosecond-precision timestamp types".into()),
            ("configKey", "spark.sql.timestampNanosTypes.enabled".into()),
            ("configValue", "true".into()),
        ],
    )
    .into()
}

fn unexpected_type(name: &str, required: &str, t: &DataType) -> PlanError {
    SparkError::analysis(
        "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        "42K09",
        format!(
            "Cannot resolve \"{name}\" due to data type mismatch: The first parameter requires the {required} type, however the argument has the type \"{}\".",
            crate::types::sql_name(t)
        ),
    )
    .into()
}

/// A `TIMESTAMP '...'` / `TIMESTAMP_NTZ '...'` literal (`kind`) with more than six fraction
/// digits as the nanosecond timestamp Spark makes of it when the session allows them
/// (None: the literal is an ordinary microsecond one).
pub fn typed_literal(
    config: &PlannerConfig,
    kind: &str,
    text: &str,
) -> PlanResult<Option<ScalarValue>> {
    use arrow::compute::kernels::cast_utils::string_to_datetime;
    if !config.timestamp_nanos || !matches!(kind, "TIMESTAMP" | "TIMESTAMP_NTZ") {
        return Ok(None);
    }
    let text = text.trim();
    let digits = fraction_digits(text);
    match digits {
        0..=6 => return Ok(None),
        7 | 8 => {
            return Err(PlanError::Unsupported(format!(
                "{kind} literal with {digits} fraction digits (TIMESTAMP_LTZ({digits}), TIMESTAMP_NTZ({digits}); precision 9 is supported)"
            )));
        }
        _ => {}
    }
    let invalid = || PlanError::from(SparkError::invalid_typed_literal(kind, text));
    Ok(Some(if kind == "TIMESTAMP_NTZ" {
        let at = string_to_datetime(&chrono::Utc, text).map_err(|_| invalid())?;
        ScalarValue::TimestampNanosecond(Some(at.timestamp_nanos_opt().ok_or_else(invalid)?), None)
    } else {
        let tz: arrow::array::timezone::Tz = config.time_zone.parse().map_err(|_| invalid())?;
        let at = string_to_datetime(&tz, text).map_err(|_| invalid())?;
        ScalarValue::TimestampNanosecond(
            Some(at.timestamp_nanos_opt().ok_or_else(invalid)?),
            Some(Arc::from(config.time_zone.as_str())),
        )
    }))
}

/// The number of digits of the seconds' fraction of a timestamp's text (0 without one).
fn fraction_digits(text: &str) -> usize {
    // (The fraction follows the seconds: the first `.` after the second `:`.)
    let Some((colon, _)) = text.match_indices(':').nth(1) else {
        return 0;
    };
    let rest = &text[colon..];
    match rest.find('.') {
        Some(dot) => rest[dot + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count(),
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_fraction_digits() {
        assert_eq!(fraction_digits("2020-01-01 13:24:35.123456789"), 9);
        assert_eq!(fraction_digits("2020-01-01 13:24:35.1234567Z"), 7);
        assert_eq!(fraction_digits("2020-01-01 13:24:35"), 0);
        assert_eq!(fraction_digits("2020-01-01"), 0);
    }
}
