//! Writing variants as Spark's `VariantBuilder` writes them, byte for byte, from parsed
//! JSON, other variants and Arrow values.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, IntervalUnit, TimeUnit};
use chrono::{DateTime, NaiveDate};
use datafusion::common::Result;
use parquet_variant::Variant;

use super::Variants;
use super::parse::JsonError;
use crate::error::to_datafusion;
use crate::types::is_variant;

// ---- Writing: Spark's VariantBuilder -------------------------------------------------------

pub(super) const NULL: u8 = 0;
pub(super) const TRUE: u8 = 1;
pub(super) const FALSE: u8 = 2;
pub(super) const INT1: u8 = 3;
pub(super) const INT2: u8 = 4;
pub(super) const INT4: u8 = 5;
pub(super) const INT8: u8 = 6;
pub(super) const DOUBLE: u8 = 7;
pub(super) const DECIMAL4: u8 = 8;
pub(super) const DECIMAL8: u8 = 9;
pub(super) const DECIMAL16: u8 = 10;
pub(super) const DATE: u8 = 11;
pub(super) const TIMESTAMP: u8 = 12;
pub(super) const TIMESTAMP_NTZ: u8 = 13;
pub(super) const FLOAT: u8 = 14;
pub(super) const BINARY: u8 = 15;
pub(super) const LONG_STR: u8 = 16;
pub(super) const OBJECT: u8 = 2;
pub(super) const ARRAY: u8 = 3;
pub(super) const MAX_SHORT_STR: usize = 63;

pub(super) fn primitive_header(t: u8) -> u8 {
    t << 2
}

/// Bytes needed for an unsigned value (1 to 4), as Spark's `getIntegerSize`.
pub(super) fn int_size(v: usize) -> usize {
    match v {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFF_FFFF => 3,
        _ => 4,
    }
}

pub(super) fn put_le(buf: &mut Vec<u8>, v: usize, size: usize) {
    buf.extend_from_slice(&(v as u64).to_le_bytes()[..size]);
}

/// Decimal digits of an unscaled value (BigDecimal's precision; 1 for zero).
pub(super) fn digits(v: i128) -> u32 {
    let mut n = v.unsigned_abs();
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// A field written into an object: its key, dictionary id and offset from the data start.
pub(super) struct FieldEntry {
    key: String,
    id: usize,
    offset: usize,
}

#[derive(Default)]
pub(super) struct Builder {
    pub(super) value: Vec<u8>,
    pub(super) keys: Vec<String>,
    pub(super) ids: HashMap<String, usize>,
}

impl Builder {
    pub(super) fn null(&mut self) {
        self.value.push(primitive_header(NULL));
    }

    pub(super) fn boolean(&mut self, b: bool) {
        self.value
            .push(primitive_header(if b { TRUE } else { FALSE }));
    }

    pub(super) fn long(&mut self, l: i64) {
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

    pub(super) fn double(&mut self, d: f64) {
        self.value.push(primitive_header(DOUBLE));
        self.value.extend_from_slice(&d.to_le_bytes());
    }

    pub(super) fn float(&mut self, f: f32) {
        self.value.push(primitive_header(FLOAT));
        self.value.extend_from_slice(&f.to_le_bytes());
    }

    /// A decimal in the smallest form its digits and scale fit (scale at most 38).
    pub(super) fn decimal(&mut self, unscaled: i128, scale: u8) {
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

    pub(super) fn date(&mut self, days: i32) {
        self.value.push(primitive_header(DATE));
        self.value.extend_from_slice(&days.to_le_bytes());
    }

    pub(super) fn timestamp(&mut self, micros: i64, ntz: bool) {
        self.value.push(primitive_header(if ntz {
            TIMESTAMP_NTZ
        } else {
            TIMESTAMP
        }));
        self.value.extend_from_slice(&micros.to_le_bytes());
    }

    pub(super) fn string(&mut self, s: &str) {
        let b = s.as_bytes();
        if b.len() <= MAX_SHORT_STR {
            self.value.push(((b.len() as u8) << 2) | 1);
        } else {
            self.value.push(primitive_header(LONG_STR));
            put_le(&mut self.value, b.len(), 4);
        }
        self.value.extend_from_slice(b);
    }

    pub(super) fn binary(&mut self, b: &[u8]) {
        self.value.push(primitive_header(BINARY));
        put_le(&mut self.value, b.len(), 4);
        self.value.extend_from_slice(b);
    }

    pub(super) fn key_id(&mut self, key: &str) -> usize {
        if let Some(id) = self.ids.get(key) {
            return *id;
        }
        let id = self.keys.len();
        self.keys.push(key.to_string());
        self.ids.insert(key.to_string(), id);
        id
    }

    pub(super) fn field(&mut self, fields: &mut Vec<FieldEntry>, start: usize, key: &str) {
        let id = self.key_id(key);
        fields.push(FieldEntry {
            key: key.to_string(),
            id,
            offset: self.value.len() - start,
        });
    }

    /// Writes the header of an object whose fields' values were written from `start`;
    /// `Err(key)` for a duplicate key.
    pub(super) fn finish_object(
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
    pub(super) fn finish_array(&mut self, start: usize, offsets: &[usize]) {
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
    pub(super) fn append_variant(&mut self, v: &Variant) {
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

pub(super) fn days_of(d: NaiveDate) -> i32 {
    (d - DateTime::UNIX_EPOCH.date_naive()).num_days() as i32
}

// ---- Writing Arrow values ---------------------------------------------------------------------

pub(super) fn unsupported(what: &DataType) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::Plan(format!(
        "not supported: {} values in a variant",
        crate::types::sql_name(what)
    ))
}

/// One Arrow value into a variant: structs and maps become objects, lists arrays.
pub(super) fn append_arrow(b: &mut Builder, array: &dyn Array, row: usize) -> Result<()> {
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
