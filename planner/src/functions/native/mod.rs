//! Ember's own scalar functions, where neither DataFusion nor `datafusion-spark` computes
//! what Spark does: one UDF type, [`NativeUdf`], whose [`Native`] kind (`kind.rs`) says what
//! it computes. The kind is plain data (serde), so plans carrying these functions travel to
//! workers as JSON. `table.rs` holds one row per kind (name, return type, nullability,
//! volatility, evaluation), which is all `NativeUdf` reads; the modules beside it compute;
//! `failure.rs` holds the errors `Native::Fail` raises.

mod aes;
mod array_sort;
mod base32;
mod binary;
mod bytes;
mod row_rewrites;
pub use binary::BinaryFormat;
pub use bytes::BytesOp;
mod bitmap;
pub mod charset;
mod collect_union;
pub mod counter_diff;
pub use bitmap::BitmapOp;
mod csv;
mod date_trunc;
mod datetime;
mod epoch;
pub use datetime::unit_micros;
mod failure;
pub(crate) mod hash;
mod hmac;
pub mod input_file;
mod instr;
mod next_day;
pub use failure::{Failure, fail_when};
mod interval;
pub(crate) mod java_random;
mod json;
mod jvm_hash;
pub use json::JsonFormats;
mod lenient_json;
pub mod like_segments;
mod make_datetime;
pub mod max_by;
pub use lenient_json::Leniency;
mod kind;
pub(crate) mod legacy_cast;
mod poisson;
pub use kind::{Native, ParseTarget};
mod format_number;
mod numbers;
mod round;
pub use format_number::NumberFormat;
pub mod random;
pub mod reflect;
pub(crate) mod regex;
mod similarity;
pub mod sketch;
pub mod spatial;
mod str_to_map;
pub mod strict_math;
mod text_to_date;
mod timestamp_text;
pub use sketch::{KllItem, SketchAgg, SketchAggKind, SketchOp, SummaryMode, TupleOp, TupleValue};
pub use timestamp_text::timestamp_literal;
mod table;
use table::{Nullability, Rows};
mod time;
pub use time::{TimeField, TimeOp, time_text};
mod to_char;
mod to_number;
pub use to_number::NumberPattern;
mod variant;
pub use variant::{EditKind, VariantOp, variant_json};
mod vector;
pub use vector::VectorOp;
mod xml;
pub use xml::schema_of_xml;
mod xpath;
pub use xpath::XpathResult;
mod zoned;
pub use zoned::ZonedOp;

use std::sync::Arc;

use crate::functions::udf_codec::JsonMessage;
use arrow::array::{Array, ArrayRef};
use arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use ember_execution::codec::EncodedUdf;
use serde::{Deserialize, Serialize};

/// The name of [`Native::SlidingWindows`].
pub const SLIDING_WINDOWS: &str = "ember_sliding_windows";
/// The name of [`Native::SessionWindow`].
pub const SESSION_WINDOW: &str = "ember_session_window";

/// `struct<start, end>` of timestamps in `time_zone` (NTZ without one).
pub fn session_window_type(time_zone: Option<&str>) -> DataType {
    let ts = DataType::Timestamp(
        arrow::datatypes::TimeUnit::Microsecond,
        time_zone.map(Into::into),
    );
    DataType::Struct(arrow::datatypes::Fields::from(vec![
        arrow::datatypes::Field::new("start", ts.clone(), true),
        arrow::datatypes::Field::new("end", ts, true),
    ]))
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct NativeUdf {
    kind: Native,
    signature: Signature,
    /// From the kind's row (`table.rs`), read once.
    name: &'static str,
    nullability: Nullability,
    per_row: bool,
}

impl NativeUdf {
    pub fn udf(kind: Native) -> Arc<ScalarUDF> {
        let row = kind.row();
        let signature = if row.nullary {
            Signature::nullary(row.volatility)
        } else {
            Signature::variadic_any(row.volatility)
        };
        let (name, nullability, per_row) = (row.name, row.nullability, row.per_row);
        drop(row);
        Arc::new(ScalarUDF::from(Self {
            kind,
            signature,
            name,
            nullability,
            per_row,
        }))
    }

    pub fn kind(&self) -> &Native {
        &self.kind
    }
}

impl ScalarUDFImpl for NativeUdf {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Nullable unless the kind is NULL only for NULL arguments and none may be NULL (Spark's
    /// nullability of such functions of literals and non-null columns).
    fn return_field_from_args(
        &self,
        args: datafusion::logical_expr::ReturnFieldArgs,
    ) -> Result<arrow::datatypes::FieldRef> {
        let types: Vec<DataType> = args
            .arg_fields
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        let data_type = self.return_type(&types)?;
        let nullable = match self.nullability {
            Nullability::Nullable => true,
            Nullability::OfArguments => args.arg_fields.iter().any(|f| f.is_nullable()),
            Nullability::OfFirstArgument => {
                args.arg_fields.first().is_some_and(|f| f.is_nullable())
            }
            Nullability::Never => false,
        };
        Ok(Arc::new(arrow::datatypes::Field::new(
            self.name(),
            data_type,
            nullable,
        )))
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        (self.kind.row().return_type)(arg_types)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        // A call of constants is evaluated once, unless each row answers on its own
        // (`reflect('java.util.UUID', 'randomUUID')`).
        let scalar = !self.per_row
            && args
                .args
                .iter()
                .all(|a| matches!(a, ColumnarValue::Scalar(_)));
        let rows = Rows {
            evaluated: if scalar { 1 } else { args.number_rows },
            in_batch: args.number_rows,
        };
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows.evaluated))
            .collect::<Result<Vec<_>>>()?;
        let out = (self.kind.row().eval)(&arrays, rows)?;
        if scalar {
            Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(&out, 0)?))
        } else {
            Ok(ColumnarValue::Array(out))
        }
    }
}

/// Argument `i` as UTF-8 strings.
fn strings(arrays: &[ArrayRef], i: usize) -> Result<ArrayRef> {
    let Some(a) = arrays.get(i) else {
        return internal_err!("missing argument {i}");
    };
    Ok(arrow::compute::cast(a, &DataType::Utf8)?)
}

/// Argument `i` as 64-bit integers.
fn integers(arrays: &[ArrayRef], i: usize) -> Result<ArrayRef> {
    let Some(a) = arrays.get(i) else {
        return internal_err!("missing argument {i}");
    };
    Ok(arrow::compute::cast(a, &DataType::Int64)?)
}

fn is_null_at(arrays: &[ArrayRef], row: usize) -> bool {
    // A NULL literal's array has no null buffer.
    arrays
        .iter()
        .any(|a| a.is_null(row) || *a.data_type() == DataType::Null)
}

/// The Arrow type of Spark's integer type `name` (`TINYINT` .. `BIGINT`).
fn integer_type(name: &str) -> DataType {
    match name {
        "TINYINT" => DataType::Int8,
        "SMALLINT" => DataType::Int16,
        "INT" => DataType::Int32,
        _ => DataType::Int64,
    }
}

impl EncodedUdf for NativeUdf {
    const NAME: &'static str = "native";
    type Message = JsonMessage;

    fn to_message(&self) -> Option<JsonMessage> {
        JsonMessage::of(&self.kind)
    }

    fn from_message(_name: &str, m: JsonMessage) -> Result<Arc<ScalarUDF>> {
        Ok(Self::udf(m.value("native function")?))
    }
}
