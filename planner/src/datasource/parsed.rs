//! Columns a read takes as strings and converts itself: dates and timestamps parsed with the
//! read's `dateFormat`/`timestampFormat`, and values converted to their type leniently (CSV's
//! PERMISSIVE and DROPMALFORMED modes).

use std::sync::Arc;

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::logical_expr::{Expr, lit};

#[derive(Debug, Clone)]
pub struct ParsedColumn {
    pub name: String,
    /// A chrono format for a date or timestamp (with a `%z`-style offset, timestamps are
    /// instants); without one, a value that does not convert to the type is NULL (CSV's
    /// PERMISSIVE and DROPMALFORMED modes).
    pub format: Option<String>,
    /// The column's type.
    pub data_type: DataType,
    /// A value that does not convert is NULL (else the read fails).
    pub lenient: bool,
}

impl ParsedColumn {
    /// The value parsed from the string `column`: a date, or a timestamp as a wall-clock
    /// time without a zone (a cast to [`Self::data_type`] places it in the session's zone,
    /// as Spark does), or the string converted to the column's type.
    pub fn parse(&self, column: Expr) -> Expr {
        use datafusion::functions::datetime::{to_date, to_timestamp_micros};
        if self.data_type == DataType::Utf8 {
            return column;
        }
        let Some(format) = &self.format else {
            return if self.lenient {
                Expr::TryCast(datafusion::logical_expr::TryCast::new(
                    Box::new(column),
                    self.data_type.clone(),
                ))
            } else {
                datafusion::logical_expr::cast(column, self.data_type.clone())
            };
        };
        use ember_execution::values::datetime::{OFFSET_X1, OFFSET_X2, OFFSET_X3};
        // Spark's `X`, `XX`, `XXX` at the end: `Z`, or an offset spelled as they say.
        let (format, offset) = match format.chars().last() {
            Some(OFFSET_X1) => (
                format.replace(OFFSET_X1, "%#z"),
                Some("[+-][0-9]{2}([0-9]{2})?"),
            ),
            Some(OFFSET_X2) => (format.replace(OFFSET_X2, "%#z"), Some("[+-][0-9]{4}")),
            Some(OFFSET_X3) => (
                format.replace(OFFSET_X3, "%#z"),
                Some("[+-][0-9]{2}:[0-9]{2}"),
            ),
            _ => (format.clone(), None),
        };
        let zoned = offset.is_some() || ["%z", "%:z"].iter().any(|z| format.contains(z));
        let args = vec![column.clone(), lit(format)];
        match self.data_type {
            DataType::Date32 => to_date().call(args),
            // A time with its offset is an instant (in UTC), else a wall-clock time.
            _ if zoned => {
                let instant = datafusion::logical_expr::cast(
                    to_timestamp_micros(&Default::default()).call(args),
                    DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from("UTC"))),
                );
                let Some(offset) = offset else {
                    return instant;
                };
                let spelled = datafusion::functions::regex::regexp_like()
                    .call(vec![column, lit(format!("(Z|{offset})$"))]);
                // Without an ELSE: NULL for an offset spelled otherwise.
                Expr::Case(datafusion::logical_expr::Case::new(
                    None,
                    vec![(Box::new(spelled), Box::new(instant))],
                    None,
                ))
            }
            _ => to_timestamp_micros(&Default::default()).call(args),
        }
    }
}
