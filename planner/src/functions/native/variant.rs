//! Spark's VARIANT: a value and a metadata dictionary in Spark's binary encoding (the one the
//! Parquet variant spec took over), as the Arrow struct `{value, metadata}` PySpark reads.
//!
//! Values are written byte for byte as Spark's `VariantBuilder` writes them (smallest integer
//! and offset sizes, object fields sorted by key, an unsorted dictionary in insertion order),
//! so that `VariantVal`s compare equal to Spark's. They are read with `parquet-variant`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryBuilder, BooleanArray, ListArray, MapArray, StringArray,
    StringBuilder, StructArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Fields, IntervalUnit, TimeUnit};
use chrono::{DateTime, NaiveDate};
use datafusion::common::{Result, ScalarValue, internal_err};
use parquet_variant::Variant;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};
use crate::types::{is_variant, variant_type};

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
}

impl VariantOp {
    pub(super) fn return_type(&self) -> Result<DataType> {
        Ok(match self {
            VariantOp::Parse { .. } | VariantOp::From => variant_type(),
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
        VariantOp::Get {
            target,
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
            match target {
                None => {
                    let mut out = VariantColumn::new(found.len());
                    for v in &found {
                        match v {
                            Some(v) => {
                                let mut b = Builder::default();
                                b.append_variant(v);
                                out.append(b.finish());
                            }
                            None => out.append_null(),
                        }
                    }
                    out.finish()
                }
                Some(t) => cast.column(&found, &super::json::schema_type(t, time_zone)?),
            }
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

// ---- Writing: Spark's VariantBuilder -------------------------------------------------------

const NULL: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const INT1: u8 = 3;
const INT2: u8 = 4;
const INT4: u8 = 5;
const INT8: u8 = 6;
const DOUBLE: u8 = 7;
const DECIMAL4: u8 = 8;
const DECIMAL8: u8 = 9;
const DECIMAL16: u8 = 10;
const DATE: u8 = 11;
const TIMESTAMP: u8 = 12;
const TIMESTAMP_NTZ: u8 = 13;
const FLOAT: u8 = 14;
const BINARY: u8 = 15;
const LONG_STR: u8 = 16;
const OBJECT: u8 = 2;
const ARRAY: u8 = 3;
const MAX_SHORT_STR: usize = 63;

fn primitive_header(t: u8) -> u8 {
    t << 2
}

/// Bytes needed for an unsigned value (1 to 4), as Spark's `getIntegerSize`.
fn int_size(v: usize) -> usize {
    match v {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFF_FFFF => 3,
        _ => 4,
    }
}

fn put_le(buf: &mut Vec<u8>, v: usize, size: usize) {
    buf.extend_from_slice(&(v as u64).to_le_bytes()[..size]);
}

/// Decimal digits of an unscaled value (BigDecimal's precision; 1 for zero).
fn digits(v: i128) -> u32 {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// A field written into an object: its key, dictionary id and offset from the data start.
struct FieldEntry {
    key: String,
    id: usize,
    offset: usize,
}

#[derive(Default)]
pub(super) struct Builder {
    value: Vec<u8>,
    keys: Vec<String>,
    ids: HashMap<String, usize>,
}

impl Builder {
    fn null(&mut self) {
        self.value.push(primitive_header(NULL));
    }

    fn boolean(&mut self, b: bool) {
        self.value
            .push(primitive_header(if b { TRUE } else { FALSE }));
    }

    fn long(&mut self, l: i64) {
        if let Ok(v) = i8::try_from(l) {
            self.value.push(primitive_header(INT1));
            self.value.extend_from_slice(&v.to_le_bytes());
        } else if let Ok(v) = i16::try_from(l) {
            self.value.push(primitive_header(INT2));
            self.value.extend_from_slice(&v.to_le_bytes());
        } else if let Ok(v) = i32::try_from(l) {
            self.value.push(primitive_header(INT4));
            self.value.extend_from_slice(&v.to_le_bytes());
        } else {
            self.value.push(primitive_header(INT8));
            self.value.extend_from_slice(&l.to_le_bytes());
        }
    }

    fn double(&mut self, d: f64) {
        self.value.push(primitive_header(DOUBLE));
        self.value.extend_from_slice(&d.to_le_bytes());
    }

    fn float(&mut self, f: f32) {
        self.value.push(primitive_header(FLOAT));
        self.value.extend_from_slice(&f.to_le_bytes());
    }

    /// A decimal in the smallest form its digits and scale fit (scale at most 38).
    fn decimal(&mut self, unscaled: i128, scale: u8) {
        let precision = digits(unscaled);
        if scale <= 9 && precision <= 9 {
            self.value.push(primitive_header(DECIMAL4));
            self.value.push(scale);
            self.value
                .extend_from_slice(&(unscaled as i32).to_le_bytes());
        } else if scale <= 18 && precision <= 18 {
            self.value.push(primitive_header(DECIMAL8));
            self.value.push(scale);
            self.value
                .extend_from_slice(&(unscaled as i64).to_le_bytes());
        } else {
            self.value.push(primitive_header(DECIMAL16));
            self.value.push(scale);
            self.value.extend_from_slice(&unscaled.to_le_bytes());
        }
    }

    fn date(&mut self, days: i32) {
        self.value.push(primitive_header(DATE));
        self.value.extend_from_slice(&days.to_le_bytes());
    }

    fn timestamp(&mut self, micros: i64, ntz: bool) {
        self.value.push(primitive_header(if ntz {
            TIMESTAMP_NTZ
        } else {
            TIMESTAMP
        }));
        self.value.extend_from_slice(&micros.to_le_bytes());
    }

    fn string(&mut self, s: &str) {
        let b = s.as_bytes();
        if b.len() <= MAX_SHORT_STR {
            self.value.push(((b.len() as u8) << 2) | 1);
        } else {
            self.value.push(primitive_header(LONG_STR));
            put_le(&mut self.value, b.len(), 4);
        }
        self.value.extend_from_slice(b);
    }

    fn binary(&mut self, b: &[u8]) {
        self.value.push(primitive_header(BINARY));
        put_le(&mut self.value, b.len(), 4);
        self.value.extend_from_slice(b);
    }

    fn key_id(&mut self, key: &str) -> usize {
        if let Some(id) = self.ids.get(key) {
            return *id;
        }
        let id = self.keys.len();
        self.keys.push(key.to_string());
        self.ids.insert(key.to_string(), id);
        id
    }

    fn field(&mut self, fields: &mut Vec<FieldEntry>, start: usize, key: &str) {
        let id = self.key_id(key);
        fields.push(FieldEntry {
            key: key.to_string(),
            id,
            offset: self.value.len() - start,
        });
    }

    /// Writes the header of an object whose fields' values were written from `start`;
    /// `Err(key)` for a duplicate key.
    fn finish_object(
        &mut self,
        start: usize,
        mut fields: Vec<FieldEntry>,
    ) -> std::result::Result<(), String> {
        fields.sort_by(|a, b| a.key.cmp(&b.key));
        if let Some(w) = fields.windows(2).find(|w| w[0].key == w[1].key) {
            return Err(w[0].key.clone());
        }
        let size = fields.len();
        let max_id = fields.iter().map(|f| f.id).max().unwrap_or(0);
        let data_size = self.value.len() - start;
        let large = size > 0xFF;
        let size_bytes = if large { 4 } else { 1 };
        let id_size = int_size(max_id);
        let offset_size = int_size(data_size);
        let mut header = Vec::with_capacity(1 + size_bytes + size * id_size + (size + 1) * 4);
        header.push(
            (u8::from(large) << 6)
                | (((id_size - 1) as u8) << 4)
                | (((offset_size - 1) as u8) << 2)
                | OBJECT,
        );
        put_le(&mut header, size, size_bytes);
        for f in &fields {
            put_le(&mut header, f.id, id_size);
        }
        for f in &fields {
            put_le(&mut header, f.offset, offset_size);
        }
        put_le(&mut header, data_size, offset_size);
        self.value.splice(start..start, header);
        Ok(())
    }

    /// Writes the header of an array whose elements were written from `start` at `offsets`.
    fn finish_array(&mut self, start: usize, offsets: &[usize]) {
        let size = offsets.len();
        let data_size = self.value.len() - start;
        let large = size > 0xFF;
        let size_bytes = if large { 4 } else { 1 };
        let offset_size = int_size(data_size);
        let mut header = Vec::with_capacity(1 + size_bytes + (size + 1) * offset_size);
        header.push((u8::from(large) << 4) | (((offset_size - 1) as u8) << 2) | ARRAY);
        put_le(&mut header, size, size_bytes);
        for o in offsets {
            put_le(&mut header, *o, offset_size);
        }
        put_le(&mut header, data_size, offset_size);
        self.value.splice(start..start, header);
    }

    /// The value and its metadata (version 1, keys unsorted, in the order first written).
    pub(super) fn finish(self) -> (Vec<u8>, Vec<u8>) {
        let strings: usize = self.keys.iter().map(String::len).sum();
        let offset_size = int_size(strings.max(self.keys.len()));
        let mut metadata = vec![1 | (((offset_size - 1) as u8) << 6)];
        put_le(&mut metadata, self.keys.len(), offset_size);
        let mut at = 0;
        put_le(&mut metadata, 0, offset_size);
        for k in &self.keys {
            at += k.len();
            put_le(&mut metadata, at, offset_size);
        }
        for k in &self.keys {
            metadata.extend_from_slice(k.as_bytes());
        }
        (self.value, metadata)
    }

    /// Appends a variant read from another value (its keys moved to this dictionary).
    fn append_variant(&mut self, v: &Variant) {
        match v {
            Variant::Null => self.null(),
            Variant::BooleanTrue => self.boolean(true),
            Variant::BooleanFalse => self.boolean(false),
            Variant::Int8(x) => self.long(i64::from(*x)),
            Variant::Int16(x) => self.long(i64::from(*x)),
            Variant::Int32(x) => self.long(i64::from(*x)),
            Variant::Int64(x) => self.long(*x),
            Variant::Double(x) => self.double(*x),
            Variant::Float(x) => self.float(*x),
            Variant::Decimal4(d) => self.decimal(i128::from(d.integer()), d.scale()),
            Variant::Decimal8(d) => self.decimal(i128::from(d.integer()), d.scale()),
            Variant::Decimal16(d) => self.decimal(d.integer(), d.scale()),
            Variant::Date(d) => self.date(days_of(*d)),
            Variant::TimestampMicros(t) => self.timestamp(t.timestamp_micros(), false),
            Variant::TimestampNtzMicros(t) => self.timestamp(t.and_utc().timestamp_micros(), true),
            Variant::TimestampNanos(t) => self.timestamp(t.timestamp_micros(), false),
            Variant::TimestampNtzNanos(t) => self.timestamp(t.and_utc().timestamp_micros(), true),
            Variant::Binary(b) => self.binary(b),
            Variant::String(s) => self.string(s),
            Variant::ShortString(s) => self.string(s.as_str()),
            Variant::Time(t) => self.string(&t.to_string()),
            Variant::Uuid(u) => self.string(&u.to_string()),
            Variant::Object(o) => {
                let start = self.value.len();
                let mut fields = Vec::with_capacity(o.len());
                for (k, v) in o.iter() {
                    self.field(&mut fields, start, k);
                    self.append_variant(&v);
                }
                // The source's keys are distinct.
                let _ = self.finish_object(start, fields);
            }
            Variant::List(l) => {
                let start = self.value.len();
                let mut offsets = Vec::with_capacity(l.len());
                for v in l.iter() {
                    offsets.push(self.value.len() - start);
                    self.append_variant(&v);
                }
                self.finish_array(start, &offsets);
            }
        }
    }
}

fn days_of(d: NaiveDate) -> i32 {
    (d - DateTime::UNIX_EPOCH.date_naive()).num_days() as i32
}

// ---- parse_json ------------------------------------------------------------------------------

fn parse_json_column(input: &ArrayRef, fail: bool) -> Result<ArrayRef> {
    let text = arrow::compute::cast(input, &DataType::Utf8)?;
    let text = text.as_string::<i32>();
    let mut out = VariantColumn::new(text.len());
    for row in 0..text.len() {
        if text.is_null(row) {
            out.append_null();
            continue;
        }
        let s = text.value(row);
        let mut b = Builder::default();
        let mut p = JsonParser {
            text: s.as_bytes(),
            pos: 0,
        };
        let parsed = p.value(&mut b, 0);
        match parsed {
            Ok(()) => out.append(b.finish()),
            Err(e) if fail => return Err(to_datafusion(e.error(s))),
            Err(_) => out.append_null(),
        }
    }
    out.finish()
}

enum JsonError {
    Malformed,
    DuplicateKey(String),
}

impl JsonError {
    fn error(self, text: &str) -> SparkError {
        match self {
            JsonError::Malformed => SparkError::new(
                ErrorKind::Spark,
                "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                "22023",
                format!("Malformed records are detected in record parsing: {text}."),
                vec![
                    ("badRecord", text.to_string()),
                    ("failFastMode", "FAILFAST".into()),
                ],
            ),
            JsonError::DuplicateKey(key) => SparkError::new(
                ErrorKind::Runtime,
                "VARIANT_DUPLICATE_KEY",
                "22023",
                format!("Failed to build variant because of a duplicate object key `{key}`."),
                vec![("key", key)],
            ),
        }
    }
}

/// Strict JSON (as Jackson reads it by default) into a variant; the first value of the text,
/// whatever follows it (as Spark).
struct JsonParser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self
            .text
            .get(self.pos)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> std::result::Result<(), JsonError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(JsonError::Malformed)
        }
    }

    fn value(&mut self, b: &mut Builder, depth: usize) -> std::result::Result<(), JsonError> {
        if depth > 1000 {
            return Err(JsonError::Malformed);
        }
        self.ws();
        match self.text.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                let start = b.value.len();
                let mut fields = Vec::new();
                self.ws();
                if self.text.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let key = self.string()?;
                        self.ws();
                        if self.text.get(self.pos) != Some(&b':') {
                            return Err(JsonError::Malformed);
                        }
                        self.pos += 1;
                        b.field(&mut fields, start, &key);
                        self.value(b, depth + 1)?;
                        self.ws();
                        match self.text.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(JsonError::Malformed),
                        }
                    }
                }
                // Spark reports a duplicate key as a malformed record.
                b.finish_object(start, fields)
                    .map_err(|_| JsonError::Malformed)
            }
            Some(b'[') => {
                self.pos += 1;
                let start = b.value.len();
                let mut offsets = Vec::new();
                self.ws();
                if self.text.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        offsets.push(b.value.len() - start);
                        self.value(b, depth + 1)?;
                        self.ws();
                        match self.text.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(JsonError::Malformed),
                        }
                    }
                }
                b.finish_array(start, &offsets);
                Ok(())
            }
            Some(b'"') => {
                let s = self.string()?;
                b.string(&s);
                Ok(())
            }
            Some(b't') => self.literal(b"true").map(|_| b.boolean(true)),
            Some(b'f') => self.literal(b"false").map(|_| b.boolean(false)),
            Some(b'n') => self.literal(b"null").map(|_| b.null()),
            Some(b'-' | b'0'..=b'9') => self.number(b),
            _ => Err(JsonError::Malformed),
        }
    }

    fn string(&mut self) -> std::result::Result<String, JsonError> {
        if self.text.get(self.pos) != Some(&b'"') {
            return Err(JsonError::Malformed);
        }
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = self.text.get(self.pos) else {
                return Err(JsonError::Malformed);
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.text.get(self.pos) else {
                        return Err(JsonError::Malformed);
                    };
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let unit = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&unit) {
                                // A surrogate pair.
                                if !self.text[self.pos..].starts_with(b"\\u") {
                                    return Err(JsonError::Malformed);
                                }
                                self.pos += 2;
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return Err(JsonError::Malformed);
                                }
                                char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                            } else {
                                char::from_u32(unit)
                            };
                            let c = c.ok_or(JsonError::Malformed)?;
                            let mut buf = [0; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(JsonError::Malformed),
                    }
                }
                0..=0x1F => return Err(JsonError::Malformed),
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| JsonError::Malformed)
    }

    fn hex4(&mut self) -> std::result::Result<u32, JsonError> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .ok_or(JsonError::Malformed)?;
        let text = std::str::from_utf8(digits).map_err(|_| JsonError::Malformed)?;
        let v = u32::from_str_radix(text, 16).map_err(|_| JsonError::Malformed)?;
        self.pos += 4;
        Ok(v)
    }

    /// A number as Spark's builder reads it: an integer that fits a long is a long; other
    /// numbers without an exponent that fit DECIMAL(38) are decimals; the rest doubles.
    fn number(&mut self, b: &mut Builder) -> std::result::Result<(), JsonError> {
        let start = self.pos;
        let t = self.text;
        let at = |i: usize| t.get(i).copied();
        let mut i = start;
        if at(i) == Some(b'-') {
            i += 1;
        }
        match at(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while at(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
            _ => return Err(JsonError::Malformed),
        }
        let mut fraction = false;
        if at(i) == Some(b'.') {
            fraction = true;
            i += 1;
            if !at(i).is_some_and(|c| c.is_ascii_digit()) {
                return Err(JsonError::Malformed);
            }
            while at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
        let mut exponent = false;
        if matches!(at(i), Some(b'e' | b'E')) {
            exponent = true;
            i += 1;
            if matches!(at(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !at(i).is_some_and(|c| c.is_ascii_digit()) {
                return Err(JsonError::Malformed);
            }
            while at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
        // Jackson refuses a leading zero followed by digits (`01`).
        if at(i).is_some_and(|c| c.is_ascii_digit()) {
            return Err(JsonError::Malformed);
        }
        self.pos = i;
        let text = std::str::from_utf8(&t[start..i]).map_err(|_| JsonError::Malformed)?;
        if !fraction
            && !exponent
            && let Ok(l) = text.parse::<i64>()
        {
            b.long(l);
            return Ok(());
        }
        if !exponent && let Some((unscaled, scale)) = decimal_of(text) {
            b.decimal(unscaled, scale);
            return Ok(());
        }
        let d = text.parse::<f64>().map_err(|_| JsonError::Malformed)?;
        b.double(d);
        Ok(())
    }
}

/// `-12.340` as (unscaled, scale) when it fits DECIMAL(38) with a scale of at most 38.
fn decimal_of(text: &str) -> Option<(i128, u8)> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let negative = int.starts_with('-');
    let int = int.trim_start_matches('-');
    let all = format!("{int}{frac}");
    let significant = all.trim_start_matches('0');
    if significant.len() > 38 || frac.len() > 38 {
        return None;
    }
    let unscaled: i128 = if significant.is_empty() {
        0
    } else {
        significant.parse().ok()?
    };
    Some((
        if negative { -unscaled } else { unscaled },
        frac.len() as u8,
    ))
}

// ---- Reading: JSON, paths, casts ---------------------------------------------------------------

/// A decimal without trailing zeros (a negative scale made 0), as Spark prints and types it.
fn stripped(mut unscaled: i128, mut scale: i32) -> (i128, i32) {
    while unscaled != 0 && unscaled % 10 == 0 {
        unscaled /= 10;
        scale -= 1;
    }
    if unscaled == 0 {
        scale = 0;
    }
    while scale < 0 {
        unscaled *= 10;
        scale += 1;
    }
    (unscaled, scale)
}

fn decimal_parts(v: &Variant) -> Option<(i128, i32)> {
    match v {
        Variant::Decimal4(d) => Some((i128::from(d.integer()), i32::from(d.scale()))),
        Variant::Decimal8(d) => Some((i128::from(d.integer()), i32::from(d.scale()))),
        Variant::Decimal16(d) => Some((d.integer(), i32::from(d.scale()))),
        _ => None,
    }
}

fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn timestamp_text(micros: i64, time_zone: Option<&str>) -> String {
    let Some(utc) = DateTime::from_timestamp_micros(micros) else {
        return micros.to_string();
    };
    let (local, offset) = match time_zone.and_then(|z| z.parse::<chrono_tz::Tz>().ok()) {
        Some(z) => {
            let t = utc.with_timezone(&z);
            (t.naive_local(), Some(t.format("%:z").to_string()))
        }
        None if time_zone.is_some() => (utc.naive_utc(), Some("+00:00".to_string())),
        None => (utc.naive_utc(), None),
    };
    let mut s = local.format("%Y-%m-%d %H:%M:%S").to_string();
    let frac = local.and_utc().timestamp_subsec_micros();
    if frac != 0 {
        s.push_str(format!(".{frac:06}").trim_end_matches('0'));
    }
    if let Some(o) = offset {
        s.push_str(&o);
    }
    s
}

/// A variant as Spark's `VariantUtil.toJson` writes it.
fn write_json(out: &mut String, v: &Variant, time_zone: &str) {
    use base64::Engine;
    match v {
        Variant::Null => out.push_str("null"),
        Variant::BooleanTrue => out.push_str("true"),
        Variant::BooleanFalse => out.push_str("false"),
        Variant::Int8(x) => out.push_str(&x.to_string()),
        Variant::Int16(x) => out.push_str(&x.to_string()),
        Variant::Int32(x) => out.push_str(&x.to_string()),
        Variant::Int64(x) => out.push_str(&x.to_string()),
        Variant::Double(x) => out.push_str(&crate::literal::format_double(*x)),
        Variant::Float(x) => out.push_str(&java_float(*x)),
        Variant::Decimal4(_) | Variant::Decimal8(_) | Variant::Decimal16(_) => {
            if let Some((u, s)) = decimal_parts(v) {
                let (u, s) = stripped(u, s);
                out.push_str(&crate::show::format_decimal(u, s as i8));
            }
        }
        Variant::Date(d) => json_string(out, &d.format("%Y-%m-%d").to_string()),
        Variant::TimestampMicros(t) | Variant::TimestampNanos(t) => {
            json_string(out, &timestamp_text(t.timestamp_micros(), Some(time_zone)))
        }
        Variant::TimestampNtzMicros(t) | Variant::TimestampNtzNanos(t) => {
            json_string(out, &timestamp_text(t.and_utc().timestamp_micros(), None))
        }
        Variant::Binary(b) => {
            json_string(out, &base64::engine::general_purpose::STANDARD.encode(b))
        }
        Variant::String(s) => json_string(out, s),
        Variant::ShortString(s) => json_string(out, s.as_str()),
        Variant::Time(t) => json_string(out, &t.to_string()),
        Variant::Uuid(u) => json_string(out, &u.to_string()),
        Variant::Object(o) => {
            out.push('{');
            for (i, (k, v)) in o.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(out, k);
                out.push(':');
                write_json(out, &v, time_zone);
            }
            out.push('}');
        }
        Variant::List(l) => {
            out.push('[');
            for (i, v) in l.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, &v, time_zone);
            }
            out.push(']');
        }
    }
}

fn java_float(f: f32) -> String {
    // Java's Float.toString: the shortest digits that read back as the same float.
    if f.is_finite() && f == f.trunc() && f.abs() < 1e7 {
        return format!("{f:.1}");
    }
    let shortest = format!("{f}");
    match shortest.parse::<f64>() {
        Ok(d) => crate::literal::format_double(d),
        Err(_) => shortest,
    }
}

/// A step of a `variant_get` path.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Spark's variant path: `$` then `.key`, `['key']`, `["key"]` or `[index]` steps.
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            if let Some(q) = r.strip_prefix(['\'', '"']) {
                let quote = r.chars().next()?;
                let end = q.find(quote)?;
                let after = q[end + 1..].strip_prefix(']')?;
                steps.push(Step::Key(q[..end].to_string()));
                rest = after;
            } else {
                let end = r.find(']')?;
                let index = &r[..end];
                if index.is_empty() || !index.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                steps.push(Step::Index(index.parse().ok()?));
                rest = &r[end + 1..];
            }
        } else {
            return None;
        }
    }
    Some(steps)
}

fn invalid_path(path: &str, function: &str) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::Runtime,
        "INVALID_VARIANT_GET_PATH",
        "22023",
        format!("The path `{path}` is not a valid variant extraction path in ``{function}``."),
        vec![
            ("path", path.to_string()),
            ("functionName", format!("`{function}`")),
        ],
    ))
}

fn walk<'m, 'v>(v: Variant<'m, 'v>, steps: &[Step]) -> Option<Variant<'m, 'v>> {
    let mut cur = v;
    for s in steps {
        cur = match (s, &cur) {
            (Step::Key(k), Variant::Object(o)) => o.get(k)?,
            (Step::Index(i), Variant::List(l)) => l.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Variants read as a Spark type: through Spark's (TRY) cast of the value's own type; a value
/// that does not cast fails (INVALID_VARIANT_CAST) or reads as NULL.
struct Cast<'a> {
    fail: bool,
    time_zone: &'a str,
}

impl Cast<'_> {
    fn invalid(&self, v: &Variant, target: &DataType) -> datafusion::error::DataFusionError {
        let mut json = String::new();
        write_json(&mut json, v, self.time_zone);
        let target = format!("\"{}\"", crate::types::sql_name(target));
        to_datafusion(SparkError::new(
            ErrorKind::Runtime,
            "INVALID_VARIANT_CAST",
            "22023",
            format!(
                "The variant value `{json}` cannot be cast into `{target}`. Please use `try_variant_get` instead."
            ),
            vec![("value", json), ("dataType", target)],
        ))
    }

    /// `Ok(None)` for a value that does not cast (in TRY mode).
    fn reject<T>(&self, v: &Variant, target: &DataType) -> Result<Option<T>> {
        if self.fail {
            Err(self.invalid(v, target))
        } else {
            Ok(None)
        }
    }

    fn column(&self, values: &[Option<Variant>], target: &DataType) -> Result<ArrayRef> {
        match target {
            t if is_variant(t) => {
                let mut out = VariantColumn::new(values.len());
                for v in values {
                    match v {
                        Some(v) => {
                            let mut b = Builder::default();
                            b.append_variant(v);
                            out.append(b.finish());
                        }
                        None => out.append_null(),
                    }
                }
                out.finish()
            }
            DataType::Struct(fields) => {
                let mut valid = Vec::with_capacity(values.len());
                let mut objects = Vec::with_capacity(values.len());
                for v in values {
                    let ok = match v {
                        Some(Variant::Object(_)) => true,
                        None | Some(Variant::Null) => false,
                        Some(v) => {
                            self.reject::<()>(v, target)?;
                            false
                        }
                    };
                    valid.push(ok);
                    objects.push(if ok { v.clone() } else { None });
                }
                let children = fields
                    .iter()
                    .map(|f| {
                        let members: Vec<Option<Variant>> = objects
                            .iter()
                            .map(|o| match o {
                                Some(Variant::Object(o)) => o.get(f.name()),
                                _ => None,
                            })
                            .collect();
                        self.column(&members, f.data_type())
                    })
                    .collect::<Result<Vec<_>>>()?;
                let fields: Fields = fields
                    .iter()
                    .map(|f| Arc::new(f.as_ref().clone().with_nullable(true)))
                    .collect();
                Ok(Arc::new(StructArray::try_new(
                    fields,
                    children,
                    Some(NullBuffer::from(valid)),
                )?))
            }
            DataType::List(item) => {
                let (members, offsets, valid) = self.members(values, target, |v| match v {
                    Variant::List(l) => Some(l.iter().map(|m| (None, m)).collect()),
                    _ => None,
                })?;
                let members: Vec<Option<Variant>> =
                    members.into_iter().map(|(_, m)| Some(m)).collect();
                let child = self.column(&members, item.data_type())?;
                let item = Arc::new(item.as_ref().clone().with_nullable(true));
                Ok(Arc::new(ListArray::try_new(
                    item,
                    OffsetBuffer::new(offsets.into()),
                    child,
                    Some(NullBuffer::from(valid)),
                )?))
            }
            DataType::Map(entries, sorted) => {
                let DataType::Struct(kv) = entries.data_type() else {
                    return internal_err!("map entries of {}", entries.data_type());
                };
                let (Some(key), Some(value)) = (kv.first(), kv.get(1)) else {
                    return internal_err!("map entries without key and value");
                };
                if key.data_type() != &DataType::Utf8 {
                    return Err(datafusion::error::DataFusionError::Plan(format!(
                        "not supported: variant_get into a map with {} keys",
                        key.data_type()
                    )));
                }
                let (members, offsets, valid) = self.members(values, target, |v| match v {
                    Variant::Object(o) => Some(o.iter().map(|(k, m)| (Some(k), m)).collect()),
                    _ => None,
                })?;
                let keys: StringArray = members.iter().map(|(k, _)| *k).collect();
                let members: Vec<Option<Variant>> =
                    members.into_iter().map(|(_, m)| Some(m)).collect();
                let child = self.column(&members, value.data_type())?;
                let value = Arc::new(value.as_ref().clone().with_nullable(true));
                let kv_fields = Fields::from(vec![key.as_ref().clone(), value.as_ref().clone()]);
                let entries_array =
                    StructArray::try_new(kv_fields, vec![Arc::new(keys), child], None)?;
                Ok(Arc::new(MapArray::try_new(
                    entries.clone(),
                    OffsetBuffer::new(offsets.into()),
                    entries_array,
                    Some(NullBuffer::from(valid)),
                    *sorted,
                )?))
            }
            DataType::Utf8 => {
                let mut out = StringBuilder::new();
                for v in values {
                    match v {
                        None | Some(Variant::Null) => out.append_null(),
                        Some(Variant::String(s)) => out.append_value(s),
                        Some(Variant::ShortString(s)) => out.append_value(s.as_str()),
                        Some(v) => {
                            let mut s = String::new();
                            write_json(&mut s, v, self.time_zone);
                            out.append_value(s);
                        }
                    }
                }
                Ok(Arc::new(out.finish()))
            }
            _ => {
                let null = ScalarValue::try_from(target)?;
                let mut scalars = Vec::with_capacity(values.len());
                for v in values {
                    let scalar = match v {
                        Some(v) => match self.scalar(v, target)? {
                            Some(s) => s,
                            None => null.clone(),
                        },
                        None => null.clone(),
                    };
                    scalars.push(scalar);
                }
                if scalars.is_empty() {
                    return Ok(arrow::array::new_empty_array(target));
                }
                ScalarValue::iter_to_array(scalars)
            }
        }
    }

    /// The members of each value (`members_of` lists those of a value of the target's kind:
    /// a list's elements, an object's keys and values), with the list offsets and validity;
    /// NULLs are NULL, values of another kind rejected.
    #[allow(clippy::type_complexity)]
    fn members<'m, 'v>(
        &self,
        values: &[Option<Variant<'m, 'v>>],
        target: &DataType,
        members_of: impl Fn(&Variant<'m, 'v>) -> Option<Vec<(Option<&'m str>, Variant<'m, 'v>)>>,
    ) -> Result<(Vec<(Option<&'m str>, Variant<'m, 'v>)>, Vec<i32>, Vec<bool>)> {
        let mut valid = Vec::with_capacity(values.len());
        let mut offsets = vec![0i32];
        let mut members = Vec::new();
        for v in values {
            match v {
                None | Some(Variant::Null) => valid.push(false),
                Some(v) => match members_of(v) {
                    Some(m) => {
                        members.extend(m);
                        valid.push(true);
                    }
                    None => {
                        self.reject::<()>(v, target)?;
                        valid.push(false);
                    }
                },
            }
            offsets.push(members.len() as i32);
        }
        Ok((members, offsets, valid))
    }

    /// One primitive value as `target`.
    fn scalar(&self, v: &Variant, target: &DataType) -> Result<Option<ScalarValue>> {
        let own = match v {
            Variant::Null => return Ok(None),
            Variant::BooleanTrue => ScalarValue::Boolean(Some(true)),
            Variant::BooleanFalse => ScalarValue::Boolean(Some(false)),
            Variant::Int8(x) => ScalarValue::Int64(Some(i64::from(*x))),
            Variant::Int16(x) => ScalarValue::Int64(Some(i64::from(*x))),
            Variant::Int32(x) => ScalarValue::Int64(Some(i64::from(*x))),
            Variant::Int64(x) => ScalarValue::Int64(Some(*x)),
            Variant::Double(x) => ScalarValue::Float64(Some(*x)),
            Variant::Float(x) => ScalarValue::Float32(Some(*x)),
            Variant::Decimal4(_) | Variant::Decimal8(_) | Variant::Decimal16(_) => {
                match decimal_parts(v) {
                    Some((u, s)) => ScalarValue::Decimal128(Some(u), 38, s as i8),
                    None => return Ok(None),
                }
            }
            Variant::Date(d) => ScalarValue::Date32(Some(days_of(*d))),
            Variant::TimestampMicros(t) | Variant::TimestampNanos(t) => {
                ScalarValue::TimestampMicrosecond(
                    Some(t.timestamp_micros()),
                    Some(Arc::from(self.time_zone)),
                )
            }
            Variant::TimestampNtzMicros(t) | Variant::TimestampNtzNanos(t) => {
                ScalarValue::TimestampMicrosecond(Some(t.and_utc().timestamp_micros()), None)
            }
            Variant::Binary(b) => ScalarValue::Binary(Some(b.to_vec())),
            Variant::String(s) => ScalarValue::Utf8(Some(s.to_string())),
            Variant::ShortString(s) => ScalarValue::Utf8(Some(s.as_str().to_string())),
            Variant::Time(_) | Variant::Uuid(_) | Variant::Object(_) | Variant::List(_) => {
                return self.reject(v, target);
            }
        };
        if own.data_type() == *target {
            return Ok(Some(own));
        }
        let options = arrow::compute::CastOptions {
            safe: true,
            format_options: Default::default(),
        };
        let cast = arrow::compute::can_cast_types(&own.data_type(), target)
            .then(|| {
                arrow::compute::cast_with_options(&own.to_array().ok()?, target, &options).ok()
            })
            .flatten()
            .filter(|a| !a.is_null(0));
        match cast {
            Some(a) => Ok(Some(ScalarValue::try_from_array(&a, 0)?)),
            None => self.reject(v, target),
        }
    }
}

// ---- Writing Arrow values ---------------------------------------------------------------------

fn unsupported(what: &DataType) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::Plan(format!(
        "not supported: {} values in a variant",
        crate::types::sql_name(what)
    ))
}

/// One Arrow value into a variant: structs and maps become objects, lists arrays.
fn append_arrow(b: &mut Builder, array: &dyn Array, row: usize) -> Result<()> {
    use arrow::datatypes as t;
    if array.is_null(row) {
        b.null();
        return Ok(());
    }
    let dt = array.data_type();
    match dt {
        DataType::Null => b.null(),
        DataType::Boolean => b.boolean(array.as_boolean().value(row)),
        DataType::Int8 => b.long(i64::from(array.as_primitive::<t::Int8Type>().value(row))),
        DataType::Int16 => b.long(i64::from(array.as_primitive::<t::Int16Type>().value(row))),
        DataType::Int32 => b.long(i64::from(array.as_primitive::<t::Int32Type>().value(row))),
        DataType::Int64 => b.long(array.as_primitive::<t::Int64Type>().value(row)),
        DataType::Float32 => b.float(array.as_primitive::<t::Float32Type>().value(row)),
        DataType::Float64 => b.double(array.as_primitive::<t::Float64Type>().value(row)),
        DataType::Decimal128(_, s) if *s >= 0 => b.decimal(
            array.as_primitive::<t::Decimal128Type>().value(row),
            *s as u8,
        ),
        DataType::Utf8 => b.string(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => b.string(array.as_string::<i64>().value(row)),
        DataType::Utf8View => b.string(array.as_string_view().value(row)),
        DataType::Binary => b.binary(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => b.binary(array.as_binary::<i64>().value(row)),
        DataType::Date32 => b.date(array.as_primitive::<t::Date32Type>().value(row)),
        DataType::Timestamp(unit, zone) => {
            let micros = match unit {
                TimeUnit::Microsecond => array.slice(row, 1),
                _ => arrow::compute::cast(
                    &array.slice(row, 1),
                    &DataType::Timestamp(TimeUnit::Microsecond, zone.clone()),
                )?,
            };
            b.timestamp(
                micros
                    .as_primitive::<t::TimestampMicrosecondType>()
                    .value(0),
                zone.is_none(),
            )
        }
        d if is_variant(d) => {
            let nested: ArrayRef = Arc::new(array.as_struct().slice(row, 1));
            let values = Variants::of(&nested)?;
            if let Some(v) = values.get(0)? {
                b.append_variant(&v);
            }
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let start = b.value.len();
            let mut entries = Vec::with_capacity(fields.len());
            for (f, c) in fields.iter().zip(s.columns()) {
                b.field(&mut entries, start, f.name());
                append_arrow(b, c.as_ref(), row)?;
            }
            b.finish_object(start, entries)
                .map_err(|k| to_datafusion(JsonError::DuplicateKey(k).error("")))?;
        }
        DataType::Map(..) => {
            let m = array.as_map();
            let entries = m.value(row);
            let keys = arrow::compute::cast(entries.column(0), &DataType::Utf8)?;
            let keys = keys.as_string::<i32>();
            let start = b.value.len();
            let mut fields = Vec::with_capacity(entries.len());
            for i in 0..entries.len() {
                b.field(&mut fields, start, keys.value(i));
                append_arrow(b, entries.column(1).as_ref(), i)?;
            }
            b.finish_object(start, fields)
                .map_err(|k| to_datafusion(JsonError::DuplicateKey(k).error("")))?;
        }
        DataType::List(_) | DataType::LargeList(_) => {
            let items = match dt {
                DataType::List(_) => array.as_list::<i32>().value(row),
                _ => array.as_list::<i64>().value(row),
            };
            let start = b.value.len();
            let mut offsets = Vec::with_capacity(items.len());
            for i in 0..items.len() {
                offsets.push(b.value.len() - start);
                append_arrow(b, items.as_ref(), i)?;
            }
            b.finish_array(start, &offsets);
        }
        DataType::Interval(IntervalUnit::YearMonth) | DataType::Duration(_) => {
            return Err(unsupported(dt));
        }
        other => return Err(unsupported(other)),
    }
    Ok(())
}

// ---- schema_of_variant ------------------------------------------------------------------------

/// The Spark type of a variant value, as `schema_of_variant` names it.
#[derive(Debug, Clone, PartialEq)]
enum Schema {
    Void,
    Boolean,
    Bigint,
    Float,
    Double,
    Decimal(u32, u32),
    String,
    Binary,
    Date,
    Timestamp,
    TimestampNtz,
    Variant,
    Array(Box<Schema>),
    Object(BTreeMap<String, Schema>),
}

impl Schema {
    fn sql(&self) -> String {
        match self {
            Schema::Void => "VOID".into(),
            Schema::Boolean => "BOOLEAN".into(),
            Schema::Bigint => "BIGINT".into(),
            Schema::Float => "FLOAT".into(),
            Schema::Double => "DOUBLE".into(),
            Schema::Decimal(p, s) => format!("DECIMAL({p},{s})"),
            Schema::String => "STRING".into(),
            Schema::Binary => "BINARY".into(),
            Schema::Date => "DATE".into(),
            Schema::Timestamp => "TIMESTAMP".into(),
            Schema::TimestampNtz => "TIMESTAMP_NTZ".into(),
            Schema::Variant => "VARIANT".into(),
            Schema::Array(e) => format!("ARRAY<{}>", e.sql()),
            Schema::Object(fields) => format!(
                "OBJECT<{}>",
                fields
                    .iter()
                    .map(|(k, t)| format!("{}: {}", quote_name(k), t.sql()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

fn quote_name(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

fn schema_of(v: &Variant) -> Schema {
    match v {
        Variant::Null => Schema::Void,
        Variant::BooleanTrue | Variant::BooleanFalse => Schema::Boolean,
        Variant::Int8(_) | Variant::Int16(_) | Variant::Int32(_) | Variant::Int64(_) => {
            Schema::Bigint
        }
        Variant::Double(_) => Schema::Double,
        Variant::Float(_) => Schema::Float,
        Variant::Decimal4(_) | Variant::Decimal8(_) | Variant::Decimal16(_) => {
            let (u, s) = decimal_parts(v).unwrap_or((0, 0));
            let (u, s) = stripped(u, s);
            let s = s as u32;
            Schema::Decimal(digits(u).max(s), s)
        }
        Variant::Date(_) => Schema::Date,
        Variant::TimestampMicros(_) | Variant::TimestampNanos(_) => Schema::Timestamp,
        Variant::TimestampNtzMicros(_) | Variant::TimestampNtzNanos(_) => Schema::TimestampNtz,
        Variant::Binary(_) => Schema::Binary,
        Variant::String(_) | Variant::ShortString(_) | Variant::Time(_) | Variant::Uuid(_) => {
            Schema::String
        }
        Variant::Object(o) => Schema::Object(
            o.iter()
                .map(|(k, v)| (k.to_string(), schema_of(&v)))
                .collect(),
        ),
        Variant::List(l) => Schema::Array(Box::new(
            l.iter()
                .fold(Schema::Void, |acc, v| merge(acc, schema_of(&v))),
        )),
    }
}

/// The common type of two variant types (Spark's `mergeSchema`), VARIANT when there is none.
fn merge(a: Schema, b: Schema) -> Schema {
    use Schema::*;
    let decimal = |s: &Schema| match s {
        Bigint => Some((20, 0)),
        Decimal(p, s) => Some((*p, *s)),
        _ => None,
    };
    match (a, b) {
        (a, b) if a == b => a,
        (Void, t) | (t, Void) => t,
        (Array(x), Array(y)) => Array(Box::new(merge(*x, *y))),
        (Object(mut x), Object(y)) => {
            for (k, t) in y {
                let merged = match x.remove(&k) {
                    Some(old) => merge(old, t),
                    None => t,
                };
                x.insert(k, merged);
            }
            Object(x)
        }
        (Double, Bigint | Float | Decimal(..) | Double)
        | (Bigint | Float | Decimal(..), Double)
        | (Float, Decimal(..))
        | (Decimal(..), Float) => Double,
        (Float, Bigint) | (Bigint, Float) => Float,
        (a @ (Bigint | Decimal(..)), b @ (Bigint | Decimal(..))) => {
            match (decimal(&a), decimal(&b)) {
                (Some((p1, s1)), Some((p2, s2))) => {
                    let scale = s1.max(s2);
                    let integral = (p1 - s1).max(p2 - s2);
                    let precision = (integral + scale).min(38);
                    Decimal(precision, scale.min(precision))
                }
                _ => Variant,
            }
        }
        (Date, Timestamp)
        | (Timestamp, Date)
        | (Timestamp, TimestampNtz)
        | (TimestampNtz, Timestamp) => Timestamp,
        (Date, TimestampNtz) | (TimestampNtz, Date) => TimestampNtz,
        _ => Variant,
    }
}

#[cfg(test)]
mod tests {
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
