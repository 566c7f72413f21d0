//! `schema_of_variant`: the Spark type of a value, and the merge of two such types.

use std::collections::BTreeMap;

use parquet_variant::Variant;

use super::builder::digits;
use super::read::{decimal_parts, stripped};

// ---- schema_of_variant ------------------------------------------------------------------------

/// The Spark type of a variant value, as `schema_of_variant` names it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Schema {
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
    pub(super) fn sql(&self) -> String {
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

pub(super) fn quote_name(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

pub(super) fn schema_of(v: &Variant) -> Schema {
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
pub(super) fn merge(a: Schema, b: Schema) -> Schema {
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
