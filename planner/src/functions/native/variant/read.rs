//! Reading variants: as JSON text, along `variant_get` paths, cast to Spark types.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, ListArray, MapArray, StringArray, StringBuilder, StructArray};
use arrow::buffer::{NullBuffer, OffsetBuffer};
use arrow::datatypes::{DataType, Fields};
use datafusion::common::{Result, ScalarValue, internal_err};
use ember_execution::values::{decimal_text, java_double, java_float, timestamp_text};
use parquet_variant::Variant;

use super::VariantColumn;
use super::builder::{Builder, days_of};
use crate::error::{ErrorKind, SparkError, to_datafusion};
use crate::types::is_variant;

// ---- Reading: JSON, paths, casts ---------------------------------------------------------------

/// A decimal without trailing zeros (a negative scale made 0), as Spark prints and types it.
pub(super) fn stripped(mut unscaled: i128, mut scale: i32) -> (i128, i32) {
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

pub(super) fn decimal_parts(v: &Variant) -> Option<(i128, i32)> {
    match v {
        Variant::Decimal4(d) => Some((i128::from(d.integer()), i32::from(d.scale()))),
        Variant::Decimal8(d) => Some((i128::from(d.integer()), i32::from(d.scale()))),
        Variant::Decimal16(d) => Some((d.integer(), i32::from(d.scale()))),
        _ => None,
    }
}

pub(super) fn json_string(out: &mut String, s: &str) {
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

/// A variant as Spark's `VariantUtil.toJson` writes it.
pub(super) fn write_json(out: &mut String, v: &Variant, time_zone: &str) {
    use base64::Engine;
    match v {
        Variant::Null => out.push_str("null"),
        Variant::BooleanTrue => out.push_str("true"),
        Variant::BooleanFalse => out.push_str("false"),
        Variant::Int8(x) => out.push_str(&x.to_string()),
        Variant::Int16(x) => out.push_str(&x.to_string()),
        Variant::Int32(x) => out.push_str(&x.to_string()),
        Variant::Int64(x) => out.push_str(&x.to_string()),
        Variant::Double(x) => out.push_str(&java_double(*x)),
        Variant::Float(x) => out.push_str(&java_float(*x)),
        Variant::Decimal4(_) | Variant::Decimal8(_) | Variant::Decimal16(_) => {
            if let Some((u, s)) = decimal_parts(v) {
                let (u, s) = stripped(u, s);
                out.push_str(&decimal_text(u, s as i8));
            }
        }
        Variant::Date(d) => json_string(out, &d.format("%Y-%m-%d").to_string()),
        Variant::TimestampMicros(t) | Variant::TimestampNanos(t) => json_string(
            out,
            &timestamp_text(t.timestamp_micros(), Some(time_zone), true),
        ),
        Variant::TimestampNtzMicros(t) | Variant::TimestampNtzNanos(t) => json_string(
            out,
            &timestamp_text(t.and_utc().timestamp_micros(), None, true),
        ),
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

/// A step of a `variant_get` path.
#[derive(Clone)]
pub(super) enum Step {
    Key(String),
    Index(usize),
}

/// Spark's variant path: `$` then `.key`, `['key']`, `["key"]` or `[index]` steps.
pub(super) fn parse_path(path: &str) -> Option<Vec<Step>> {
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

pub(super) fn invalid_path(path: &str, function: &str) -> datafusion::error::DataFusionError {
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

pub(super) fn walk<'m, 'v>(v: Variant<'m, 'v>, steps: &[Step]) -> Option<Variant<'m, 'v>> {
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
pub(super) struct Cast<'a> {
    pub(super) fail: bool,
    pub(super) time_zone: &'a str,
}

impl Cast<'_> {
    pub(super) fn invalid(
        &self,
        v: &Variant,
        target: &DataType,
    ) -> datafusion::error::DataFusionError {
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
    pub(super) fn reject<T>(&self, v: &Variant, target: &DataType) -> Result<Option<T>> {
        if self.fail {
            Err(self.invalid(v, target))
        } else {
            Ok(None)
        }
    }

    pub(super) fn column(&self, values: &[Option<Variant>], target: &DataType) -> Result<ArrayRef> {
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
    pub(super) fn members<'m, 'v>(
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
    pub(super) fn scalar(&self, v: &Variant, target: &DataType) -> Result<Option<ScalarValue>> {
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
        // Only a binary value reads as BINARY (Arrow would give a number's bytes).
        if matches!(target, DataType::Binary | DataType::LargeBinary) {
            return self.reject(v, target);
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
