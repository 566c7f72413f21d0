//! Spark's VARIANT: a value and a metadata dictionary in Spark's binary encoding (the one the
//! Parquet variant spec took over), as the Arrow struct `{value, metadata}` PySpark reads.
//!
//! Values are written byte for byte as Spark's `VariantBuilder` writes them (smallest integer
//! and offset sizes, object fields sorted by key, an unsorted dictionary in insertion order),
//! so that `VariantVal`s compare equal to Spark's. They are read with `parquet-variant`.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryBuilder, BooleanArray, StringArray, StringBuilder, StructArray,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::DataType;
use datafusion::common::{Result, internal_err};
use parquet_variant::Variant;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};
use crate::types::variant_type;

mod builder;
mod edit;
mod parse;
pub(crate) mod read;
mod schema;

use builder::{Builder, append_arrow};
pub use edit::EditKind;
use parse::parse_json_column;
use read::{Cast, Step, invalid_path, parse_path, walk, write_json};
use schema::{Schema, merge, schema_of};

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariantOp {
    /// `parse_json(text)` (`fail`) or `try_parse_json(text)`.
    Parse { fail: bool },
    /// `variant_get(v, path[, type])` (`fail`) or `try_variant_get`; `target` a DDL type,
    /// none for VARIANT. Also `CAST(v AS type)` (path `$`).
    Get {
        target: Option<String>,
        fail: bool,
        function: String,
        time_zone: String,
    },
    /// `is_variant_null(v)`: whether `v` holds the JSON null.
    IsNull,
    /// `is_valid_variant(v)`.
    IsValid,
    /// `schema_of_variant(v)`.
    Schema,
    /// `schema_of_variant_agg(v)`: receives a group's values as a list.
    SchemaAgg,
    /// `to_variant_object(x)` (`object`: structs and maps become objects) or
    /// `CAST(x AS VARIANT)`.
    From,
    /// `to_json(v)`, `CAST(v AS STRING)` of a variant that is not a string.
    ToJson { time_zone: String },
    /// `variant_insert`/`variant_set`/`variant_array_append`/`variant_delete(v, path,
    /// value)` (`fail`; else the `try_` forms). A delete takes any number of paths (NULL
    /// paths skipped) and no value.
    Edit {
        kind: EditKind,
        fail: bool,
        function: String,
    },
    /// `variant_strip_nulls(v, include_arrays)`.
    StripNulls { arrays: bool },
}

impl VariantOp {
    /// Whether its values may be NULL (a failing edit, stripping nulls, a failing parse and
    /// `to_variant_object` only for NULL arguments; a delete skips NULL paths).
    pub(super) fn nullability(&self) -> super::Nullability {
        match self {
            VariantOp::Edit {
                fail: true,
                kind: EditKind::Insert | EditKind::Set { .. } | EditKind::Append,
                ..
            }
            | VariantOp::StripNulls { .. }
            | VariantOp::Parse { fail: true }
            | VariantOp::From => super::Nullability::OfArguments,
            VariantOp::Edit {
                kind: EditKind::Delete,
                ..
            } => super::Nullability::OfFirstArgument,
            // (A group without values has the type VOID.)
            VariantOp::SchemaAgg => super::Nullability::Never,
            _ => super::Nullability::Nullable,
        }
    }

    pub(super) fn return_type(&self) -> Result<DataType> {
        Ok(match self {
            VariantOp::Parse { .. }
            | VariantOp::From
            | VariantOp::Edit { .. }
            | VariantOp::StripNulls { .. } => variant_type(),
            VariantOp::Get {
                target, time_zone, ..
            } => match target {
                Some(t) => super::json::schema_type(t, time_zone)?,
                None => variant_type(),
            },
            VariantOp::IsNull | VariantOp::IsValid => DataType::Boolean,
            VariantOp::Schema | VariantOp::SchemaAgg | VariantOp::ToJson { .. } => DataType::Utf8,
        })
    }
}

pub(super) fn evaluate(op: &VariantOp, arrays: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(input) = arrays.first() else {
        return internal_err!("variant function without an argument");
    };
    if input.data_type() == &DataType::Null {
        return Ok(arrow::array::new_null_array(
            &op.return_type()?,
            input.len(),
        ));
    }
    match op {
        VariantOp::Parse { fail } => parse_json_column(input, *fail),
        VariantOp::From => {
            let mut out = VariantColumn::new(input.len());
            for row in 0..input.len() {
                if input.is_null(row) {
                    out.append_null();
                    continue;
                }
                let mut b = Builder::default();
                append_arrow(&mut b, input.as_ref(), row)?;
                out.append(b.finish());
            }
            out.finish()
        }
        VariantOp::IsNull => {
            let values = Variants::of(input)?;
            let out: BooleanArray = (0..input.len())
                .map(|row| Ok(Some(matches!(values.get(row)?, Some(Variant::Null)))))
                .collect::<Result<_>>()?;
            Ok(Arc::new(out))
        }
        VariantOp::IsValid => {
            let values = Variants::of(input)?;
            let out: BooleanArray = (0..input.len())
                .map(|row| {
                    if input.is_null(row) {
                        return None;
                    }
                    let (v, m) = values.bytes(row);
                    Some(
                        Variant::try_new(m, v)
                            .and_then(|v| v.with_full_validation())
                            .is_ok(),
                    )
                })
                .collect();
            Ok(Arc::new(out))
        }
        VariantOp::Schema => {
            let values = Variants::of(input)?;
            let out: StringArray = (0..input.len())
                .map(|row| Ok(values.get(row)?.map(|v| schema_of(&v).sql())))
                .collect::<Result<_>>()?;
            Ok(Arc::new(out))
        }
        VariantOp::SchemaAgg => {
            let DataType::List(_) = input.data_type() else {
                return internal_err!("schema_of_variant_agg of {}", input.data_type());
            };
            let groups = input.as_list::<i32>();
            let mut out = StringBuilder::new();
            for g in 0..groups.len() {
                // A group without values (its list NULL) has the type VOID.
                let members = groups.value(g);
                let values = Variants::of(&members)?;
                let mut schema = Schema::Void;
                for row in 0..members.len() {
                    if let Some(v) = values.get(row)? {
                        schema = merge(schema, schema_of(&v));
                    }
                }
                out.append_value(schema.sql());
            }
            Ok(Arc::new(out.finish()))
        }
        VariantOp::ToJson { time_zone } => {
            let values = Variants::of(input)?;
            let mut out = StringBuilder::new();
            for row in 0..input.len() {
                match values.get(row)? {
                    Some(v) => {
                        let mut s = String::new();
                        write_json(&mut s, &v, time_zone);
                        out.append_value(s);
                    }
                    None => out.append_null(),
                }
            }
            Ok(Arc::new(out.finish()))
        }
        VariantOp::Edit {
            kind,
            fail,
            function,
        } => edit::edit_column(arrays, *kind, *fail, function),
        VariantOp::StripNulls { arrays: in_arrays } => {
            let values = Variants::of(input)?;
            let mut out = VariantColumn::new(input.len());
            for row in 0..input.len() {
                match values.get(row)? {
                    Some(v) => out.append(edit::strip_nulls(&v, *in_arrays)),
                    None => out.append_null(),
                }
            }
            out.finish()
        }
        VariantOp::Get {
            target: _,
            fail,
            function,
            time_zone,
        } => {
            let values = Variants::of(input)?;
            let paths = match arrays.get(1) {
                Some(p) => Some(arrow::compute::cast(p, &DataType::Utf8)?),
                None => None,
            };
            let mut found: Vec<Option<Variant>> = Vec::with_capacity(input.len());
            let mut literal_path: Option<(String, Vec<Step>)> = None;
            for row in 0..input.len() {
                let Some(v) = values.get(row)? else {
                    found.push(None);
                    continue;
                };
                let steps = match &paths {
                    None => Vec::new(),
                    Some(p) if p.is_null(row) => {
                        found.push(None);
                        continue;
                    }
                    Some(p) => {
                        let text = p.as_string::<i32>().value(row);
                        match &literal_path {
                            Some((t, steps)) if t == text => steps.clone(),
                            _ => {
                                let steps =
                                    parse_path(text).ok_or_else(|| invalid_path(text, function))?;
                                literal_path = Some((text.to_string(), steps.clone()));
                                steps
                            }
                        }
                    }
                };
                found.push(walk(v, &steps));
            }
            let cast = Cast {
                fail: *fail,
                time_zone,
            };
            cast.column(&found, &op.return_type()?)
        }
    }
}

/// The JSON text of the variant at `row` of a column of variants (`show()`, casts to strings).
pub fn variant_json(array: &dyn Array, row: usize, time_zone: &str) -> Option<String> {
    let column: ArrayRef = Arc::new(array.as_struct_opt()?.slice(row, 1));
    let values = Variants::of(&column).ok()?;
    let v = values.get(0).ok()??;
    let mut s = String::new();
    write_json(&mut s, &v, time_zone);
    Some(s)
}

/// The variants of a column of Spark's variant structs.
struct Variants<'a> {
    values: &'a arrow::array::BinaryArray,
    metadata: &'a arrow::array::BinaryArray,
    nulls: Option<&'a NullBuffer>,
}

impl<'a> Variants<'a> {
    fn of(array: &'a ArrayRef) -> Result<Self> {
        let DataType::Struct(_) = array.data_type() else {
            return internal_err!("a variant function of {}", array.data_type());
        };
        let s = array.as_struct();
        let (Some(values), Some(metadata)) = (
            s.column_by_name("value")
                .and_then(|c| c.as_binary_opt::<i32>()),
            s.column_by_name("metadata")
                .and_then(|c| c.as_binary_opt::<i32>()),
        ) else {
            return internal_err!("a variant struct without binary value and metadata");
        };
        Ok(Self {
            values,
            metadata,
            nulls: s.nulls(),
        })
    }

    fn bytes(&self, row: usize) -> (&'a [u8], &'a [u8]) {
        (self.values.value(row), self.metadata.value(row))
    }

    fn get(&self, row: usize) -> Result<Option<Variant<'a, 'a>>> {
        if self.nulls.is_some_and(|n| n.is_null(row)) {
            return Ok(None);
        }
        let (v, m) = self.bytes(row);
        Variant::try_new(m, v)
            .map(Some)
            .map_err(|_| to_datafusion(malformed_variant()))
    }
}

fn malformed_variant() -> SparkError {
    SparkError::new(
        ErrorKind::Runtime,
        "MALFORMED_VARIANT",
        "22023",
        "Variant binary is malformed. Please check the data source is valid.",
        vec![],
    )
}

/// Builds a column of variant structs.
struct VariantColumn {
    values: BinaryBuilder,
    metadata: BinaryBuilder,
    valid: Vec<bool>,
}

impl VariantColumn {
    fn new(rows: usize) -> Self {
        Self {
            values: BinaryBuilder::with_capacity(rows, rows * 8),
            metadata: BinaryBuilder::with_capacity(rows, rows * 4),
            valid: Vec::with_capacity(rows),
        }
    }

    fn append(&mut self, (value, metadata): (Vec<u8>, Vec<u8>)) {
        self.values.append_value(value);
        self.metadata.append_value(metadata);
        self.valid.push(true);
    }

    fn append_null(&mut self) {
        self.values.append_value([]);
        self.metadata.append_value([]);
        self.valid.push(false);
    }

    fn finish(mut self) -> Result<ArrayRef> {
        let DataType::Struct(fields) = variant_type() else {
            return internal_err!("variant type is a struct");
        };
        let nulls = NullBuffer::from(self.valid);
        Ok(Arc::new(StructArray::try_new(
            fields,
            vec![
                Arc::new(self.values.finish()),
                Arc::new(self.metadata.finish()),
            ],
            (nulls.null_count() > 0).then_some(nulls),
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::parse::JsonParser;
    use super::read::parse_path;
    use super::*;

    fn parse(text: &str) -> (Vec<u8>, Vec<u8>) {
        let mut b = Builder::default();
        let mut p = JsonParser {
            text: text.as_bytes(),
            pos: 0,
        };
        assert!(p.value(&mut b, 0).is_ok(), "{text}");
        b.finish()
    }

    #[test]
    fn json_is_written_as_spark_writes_it() {
        // Bytes recorded from Spark 4.3's parse_json.
        let (v, m) = parse(r#"{"a":1,"b":[1,2.5,"x",null,true],"c":{"d":"e"}}"#);
        assert_eq!(
            v,
            b"\x02\x03\x00\x01\x02\x00\x02\x16\x1d\x0c\x01\x03\x05\x00\x02\x08\n\x0b\x0c\x0c\x01 \x01\x19\x00\x00\x00\x05x\x00\x04\x02\x01\x03\x00\x02\x05e"
        );
        assert_eq!(m, b"\x01\x04\x00\x01\x02\x03\x04abcd");
        assert_eq!(
            parse("[1]"),
            (
                b"\x03\x01\x00\x02\x0c\x01".to_vec(),
                b"\x01\x00\x00".to_vec()
            )
        );
        assert_eq!(parse(r#"{"a":1} x"#).0, b"\x02\x01\x00\x00\x02\x0c\x01");
    }

    #[test]
    fn json_round_trips_with_spark_spelling() {
        let (v, m) = parse(
            r#"[100.0, 1.0, 0.00, 1E2, -0, -0.0, 1.5e300, 12345678901234567890, "a\u0001\n/é\"", 0.1e-2]"#,
        );
        let variant = Variant::try_new(&m, &v).unwrap();
        let mut s = String::new();
        write_json(&mut s, &variant, "UTC");
        assert_eq!(
            s,
            r#"[100,1,0,100.0,0,0,1.5E300,12345678901234567890,"a\u0001\n/é\"",0.001]"#
        );
    }

    #[test]
    fn schemas_merge_as_spark() {
        let schema = |text: &str| {
            let (v, m) = parse(text);
            schema_of(&Variant::try_new(&m, &v).unwrap()).sql()
        };
        assert_eq!(schema("[1, 2.5]"), "ARRAY<DECIMAL(21,1)>");
        assert_eq!(schema("[12.345, 123456.7]"), "ARRAY<DECIMAL(9,3)>");
        assert_eq!(schema("[1, true]"), "ARRAY<VARIANT>");
        assert_eq!(schema("100.0"), "DECIMAL(3,0)");
        assert_eq!(
            schema(r#"[{"a":1},{"b":"x"}]"#),
            "ARRAY<OBJECT<a: BIGINT, b: STRING>>"
        );
    }

    #[test]
    fn paths_parse_as_spark() {
        assert!(parse_path("a").is_none());
        assert!(parse_path("$.").is_none());
        assert_eq!(parse_path("$['a b'][1].c").map(|s| s.len()), Some(3));
        assert_eq!(parse_path("$").map(|s| s.len()), Some(0));
    }
}
