//! Spark's CSV schema inference (`inferSchema`): every value of a column, read as a string,
//! narrows or widens the column's type the way Spark's `CSVInferSchema` does. Integers are
//! `int` while they fit, then `bigint`, then `decimal(p, 0)`; then `double`, `date` (with
//! `dateFormat`, default `yyyy-MM-dd`), `timestamp` (with `timestampFormat`, or ISO 8601),
//! `boolean`, and `string` for anything else or a mix Spark cannot widen.

use std::sync::Arc;

use arrow::array::AsArray;
use arrow::datatypes::{DataType, Field, Schema};
use chrono::{NaiveDate, NaiveDateTime};
use datafusion::catalog::TableProvider;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::SessionState;
use futures::StreamExt;

use crate::spark_error::{SparkError, SparkResult};

/// A column's type so far, in Spark's order of trying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inferred {
    Null,
    Int,
    Long,
    /// Integral digits only: `decimal(precision, 0)`.
    Decimal(u8),
    Double,
    Date,
    Timestamp,
    Boolean,
    String,
}

/// The `dateFormat` and `timestampFormat` of the read, as chrono formats.
pub struct Formats {
    pub date: Option<String>,
    pub timestamp: Option<String>,
}

impl Formats {
    fn is_date(&self, v: &str) -> bool {
        NaiveDate::parse_from_str(v, self.date.as_deref().unwrap_or("%Y-%m-%d")).is_ok()
    }

    fn is_timestamp(&self, v: &str) -> bool {
        match &self.timestamp {
            Some(format) => {
                NaiveDateTime::parse_from_str(v, format).is_ok()
                    || NaiveDate::parse_from_str(v, format).is_ok()
            }
            None => arrow::compute::kernels::cast_utils::string_to_timestamp_nanos(v).is_ok(),
        }
    }
}

/// The precision of an integral decimal string (`-007` has 1 digit), if it is one.
fn integral_digits(v: &str) -> Option<u8> {
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0').len().max(1);
    u8::try_from(significant).ok().filter(|p| *p <= 38)
}

/// Java's `Double.parseDouble`, near enough: Rust's float syntax plus `Infinity`.
fn is_double(v: &str) -> bool {
    let t = v.trim();
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    matches!(unsigned, "NaN" | "Infinity")
        || (!unsigned.eq_ignore_ascii_case("inf")
            && !unsigned.eq_ignore_ascii_case("infinity")
            && !unsigned.eq_ignore_ascii_case("nan")
            && t.trim_end_matches(['d', 'D', 'f', 'F'])
                .parse::<f64>()
                .is_ok())
}

impl Inferred {
    /// The type of `v` tried from `self` on (Spark's `inferField`).
    fn infer(self, v: &str, formats: &Formats) -> Self {
        use Inferred::*;
        let mut step = match self {
            Null | Int => Int,
            other => other,
        };
        loop {
            step = match step {
                Int if v.parse::<i32>().is_ok() => return Int,
                Int => Long,
                Long if v.parse::<i64>().is_ok() => return Long,
                Long => Decimal(0),
                Decimal(_) => match integral_digits(v) {
                    Some(p) => return Decimal(p),
                    None => Double,
                },
                Double if is_double(v) => return Double,
                Double => Date,
                Date if formats.is_date(v) => return Date,
                Date => Timestamp,
                Timestamp if formats.is_timestamp(v) => return Timestamp,
                Timestamp => Boolean,
                Boolean if v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false") => {
                    return Boolean;
                }
                Boolean | String | Null => return String,
            }
        }
    }

    /// The type both fit (Spark's `compatibleType`). Dates and timestamps widen to
    /// timestamps only with the default `timestampFormat`.
    fn merge(self, other: Self, formats: &Formats) -> Self {
        use Inferred::*;
        let rank = |t: Self| match t {
            Int => Some(0),
            Long => Some(1),
            Decimal(_) => Some(2),
            Double => Some(3),
            _ => None,
        };
        match (self, other) {
            (a, b) if a == b => a,
            (Null, t) | (t, Null) => t,
            (Decimal(a), Decimal(b)) => Decimal(a.max(b)),
            // int/bigint widen into a decimal of at least 10/20 digits.
            (Decimal(p), Int) | (Int, Decimal(p)) => Decimal(p.max(10)),
            (Decimal(p), Long) | (Long, Decimal(p)) => Decimal(p.max(20)),
            (Date, Timestamp) | (Timestamp, Date) if formats.timestamp.is_none() => Timestamp,
            (a, b) => match (rank(a), rank(b)) {
                (Some(x), Some(y)) => {
                    if x >= y {
                        a
                    } else {
                        b
                    }
                }
                _ => String,
            },
        }
    }

    fn data_type(self, timestamp: &DataType) -> DataType {
        match self {
            Inferred::Int => DataType::Int32,
            Inferred::Long => DataType::Int64,
            Inferred::Decimal(p) => DataType::Decimal128(p.max(1), 0),
            Inferred::Double => DataType::Float64,
            Inferred::Date => DataType::Date32,
            Inferred::Timestamp => timestamp.clone(),
            Inferred::Boolean => DataType::Boolean,
            Inferred::Null | Inferred::String => DataType::Utf8,
        }
    }
}

/// The type Spark infers for a CSV column of these (non-NULL) values.
pub fn infer_column_type<'a>(
    values: impl Iterator<Item = &'a str>,
    formats: &Formats,
    timestamp: &DataType,
) -> DataType {
    let mut t = Inferred::Null;
    for v in values {
        t = t.merge(t.infer(v, formats), formats);
        if t == Inferred::String {
            break;
        }
    }
    t.data_type(timestamp)
}

/// Read every row of `urls` with the file columns of `strings` (all strings) and return
/// the schema Spark infers for them.
pub async fn infer_csv_schema(
    state: &SessionState,
    options: &ListingOptions,
    urls: &[ListingTableUrl],
    strings: &Schema,
    formats: &Formats,
    timestamp: &DataType,
) -> SparkResult<Schema> {
    let config = ListingTableConfig::new_with_multi_paths(urls.to_vec())
        .with_listing_options(options.clone())
        .with_schema(Arc::new(strings.clone()));
    let table = ListingTable::try_new(config)?;
    let columns = strings.fields().len();
    let projection: Vec<usize> = (0..columns).collect();
    let mut types = vec![Inferred::Null; columns];
    {
        let plan = table.scan(state, Some(&projection), &[], None).await?;
        let mut stream = datafusion::physical_plan::execute_stream(plan, state.task_ctx())?;
        while let Some(batch) = stream.next().await {
            let batch = batch?;
            for (i, t) in types.iter_mut().enumerate() {
                if *t == Inferred::String {
                    continue;
                }
                let column = batch.column(i);
                let values = column
                    .as_string_opt::<i32>()
                    .ok_or_else(|| SparkError::invalid_plan("CSV inference reads strings"))?;
                for v in values.iter().flatten() {
                    let here = t.infer(v, formats);
                    *t = t.merge(here, formats);
                    if *t == Inferred::String {
                        break;
                    }
                }
            }
        }
    }
    Ok(Schema::new(
        strings
            .fields()
            .iter()
            .zip(types)
            .map(|(f, t)| Field::new(f.name(), t.data_type(timestamp), true))
            .collect::<Vec<_>>(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column_with(values: &[&str], formats: &Formats) -> Inferred {
        values
            .iter()
            .fold(Inferred::Null, |t, v| t.merge(t.infer(v, formats), formats))
    }

    fn column(values: &[&str]) -> Inferred {
        let formats = Formats {
            date: None,
            timestamp: None,
        };
        column_with(values, &formats)
    }

    #[test]
    fn spark_order_of_types() {
        assert_eq!(column(&["1", "-5", "+7"]), Inferred::Int);
        assert_eq!(column(&["1", "3000000000"]), Inferred::Long);
        assert_eq!(
            column(&["12345678901234567890", "5"]),
            Inferred::Decimal(20)
        );
        assert_eq!(column(&["1", "1.5"]), Inferred::Double);
        assert_eq!(column(&["1e5", "NaN"]), Inferred::Double);
        assert_eq!(column(&["2020-01-02", "2020-12-31"]), Inferred::Date);
        assert_eq!(
            column(&["2020-01-02", "2020-01-02 03:04:05"]),
            Inferred::Timestamp
        );
        assert_eq!(column(&["2020-01-02T03:04:05Z"]), Inferred::Timestamp);
        assert_eq!(column(&["true", "FALSE"]), Inferred::Boolean);
        assert_eq!(column(&["1", "a"]), Inferred::String);
        assert_eq!(column(&["true", "1"]), Inferred::String);
        assert_eq!(column(&[]), Inferred::Null);
        // With a custom timestampFormat, dates and timestamps do not mix.
        let custom = Formats {
            date: None,
            timestamp: Some("%Y-%m-%d %H:%M:%S".into()),
        };
        let mixed = ["2020-01-02", "2020-01-02 03:04:05"];
        assert_eq!(column_with(&mixed, &custom), Inferred::String);
        assert_eq!(column_with(&mixed[1..], &custom), Inferred::Timestamp);
    }
}
