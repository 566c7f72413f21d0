//! `reflect` / `java_method` / `try_reflect`: calls of Java static methods, for the methods of
//! the JDK that SQL users call this way (UUIDs, `Math`, number parsing and printing, URL
//! encoding). A method is found as Spark finds it, by its class, name and the Java types of
//! the arguments (INT is `int`, BIGINT `long`, DOUBLE `double`, STRING `String`, ...); the
//! answer is the result's `toString()`. Other methods answer "not supported".

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use arrow::datatypes::{DataType, Float32Type, Float64Type, Int32Type, Int64Type};
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};

/// A Java parameter type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JavaType {
    Boolean,
    Int,
    Long,
    Float,
    Double,
    String,
}

impl JavaType {
    /// The Java type Spark passes a value of `t` as.
    pub fn of(t: &DataType) -> Option<Self> {
        Some(match t {
            DataType::Boolean => JavaType::Boolean,
            // A byte or short widens to an int parameter, as Java's method lookup widens it.
            DataType::Int8 | DataType::Int16 | DataType::Int32 => JavaType::Int,
            DataType::Int64 => JavaType::Long,
            DataType::Float32 => JavaType::Float,
            DataType::Float64 => JavaType::Double,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => JavaType::String,
            _ => return None,
        })
    }

    fn arrow(self) -> DataType {
        match self {
            JavaType::Boolean => DataType::Boolean,
            JavaType::Int => DataType::Int32,
            JavaType::Long => DataType::Int64,
            JavaType::Float => DataType::Float32,
            JavaType::Double => DataType::Float64,
            JavaType::String => DataType::Utf8,
        }
    }
}

/// A Java value passed to or returned from a method.
#[derive(Debug, Clone)]
enum Value {
    Null,
    Boolean(bool),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Str(String),
}

impl Value {
    /// `String.valueOf(value)`.
    fn text(&self) -> Option<String> {
        Some(match self {
            Value::Null => return None,
            Value::Boolean(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Long(l) => l.to_string(),
            Value::Float(f) => ember_execution::values::java_float(*f),
            Value::Double(d) => crate::literal::format_double(*d),
            Value::Str(s) => s.clone(),
        })
    }
}

/// Why a call failed: the Java exception's class.
struct Thrown(&'static str);

type Method = fn(&[Value]) -> std::result::Result<Value, Thrown>;

/// The supported methods: (class, name, parameter types, implementation).
fn methods() -> &'static [(&'static str, &'static str, &'static [JavaType], Method)] {
    use JavaType::{Double as D, Int as I, Long as J, String as S};
    &[
        ("java.util.UUID", "randomUUID", &[], |_| {
            Ok(Value::Str(uuid::Uuid::new_v4().to_string()))
        }),
        ("java.util.UUID", "fromString", &[S], |a| {
            let s = string(&a[0])?;
            uuid::Uuid::parse_str(s)
                .map(|u| Value::Str(u.to_string()))
                .map_err(|_| Thrown("java.lang.IllegalArgumentException"))
        }),
        ("java.lang.Math", "abs", &[I], |a| {
            Ok(Value::Int(int(&a[0])?.wrapping_abs()))
        }),
        ("java.lang.Math", "abs", &[J], |a| {
            Ok(Value::Long(long(&a[0])?.wrapping_abs()))
        }),
        ("java.lang.Math", "abs", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.abs()))
        }),
        ("java.lang.Math", "max", &[I, I], |a| {
            Ok(Value::Int(int(&a[0])?.max(int(&a[1])?)))
        }),
        ("java.lang.Math", "max", &[J, J], |a| {
            Ok(Value::Long(long(&a[0])?.max(long(&a[1])?)))
        }),
        ("java.lang.Math", "max", &[D, D], |a| {
            Ok(Value::Double(double(&a[0])?.max(double(&a[1])?)))
        }),
        ("java.lang.Math", "min", &[I, I], |a| {
            Ok(Value::Int(int(&a[0])?.min(int(&a[1])?)))
        }),
        ("java.lang.Math", "min", &[J, J], |a| {
            Ok(Value::Long(long(&a[0])?.min(long(&a[1])?)))
        }),
        ("java.lang.Math", "min", &[D, D], |a| {
            Ok(Value::Double(double(&a[0])?.min(double(&a[1])?)))
        }),
        ("java.lang.Math", "sqrt", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.sqrt()))
        }),
        ("java.lang.Math", "cbrt", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.cbrt()))
        }),
        ("java.lang.Math", "pow", &[D, D], |a| {
            Ok(Value::Double(double(&a[0])?.powf(double(&a[1])?)))
        }),
        ("java.lang.Math", "exp", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.exp()))
        }),
        ("java.lang.Math", "log", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.ln()))
        }),
        ("java.lang.Math", "log10", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.log10()))
        }),
        ("java.lang.Math", "floor", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.floor()))
        }),
        ("java.lang.Math", "ceil", &[D], |a| {
            Ok(Value::Double(double(&a[0])?.ceil()))
        }),
        ("java.lang.Math", "round", &[D], |a| {
            // Java rounds half up: floor(x + 0.5).
            Ok(Value::Long((double(&a[0])? + 0.5).floor() as i64))
        }),
        ("java.lang.Math", "signum", &[D], |a| {
            let x = double(&a[0])?;
            Ok(Value::Double(if x == 0.0 || x.is_nan() {
                x
            } else {
                x.signum()
            }))
        }),
        ("java.lang.Math", "floorDiv", &[I, I], |a| {
            let (x, y) = (int(&a[0])?, int(&a[1])?);
            if y == 0 {
                return Err(Thrown("java.lang.ArithmeticException"));
            }
            let q = x.wrapping_div(y);
            Ok(Value::Int(if x.wrapping_rem(y) != 0 && (x ^ y) < 0 {
                q - 1
            } else {
                q
            }))
        }),
        ("java.lang.Math", "floorMod", &[I, I], |a| {
            let (x, y) = (int(&a[0])?, int(&a[1])?);
            if y == 0 {
                return Err(Thrown("java.lang.ArithmeticException"));
            }
            let m = x.wrapping_rem(y);
            Ok(Value::Int(if m != 0 && (m < 0) != (y < 0) {
                m + y
            } else {
                m
            }))
        }),
        ("java.lang.Integer", "parseInt", &[S], |a| {
            parse_int(string(&a[0])?)
        }),
        ("java.lang.Integer", "valueOf", &[S], |a| {
            parse_int(string(&a[0])?)
        }),
        ("java.lang.Integer", "toHexString", &[I], |a| {
            Ok(Value::Str(format!("{:x}", int(&a[0])?)))
        }),
        ("java.lang.Integer", "toBinaryString", &[I], |a| {
            Ok(Value::Str(format!("{:b}", int(&a[0])?)))
        }),
        ("java.lang.Integer", "toOctalString", &[I], |a| {
            Ok(Value::Str(format!("{:o}", int(&a[0])?)))
        }),
        ("java.lang.Integer", "toString", &[I], |a| {
            Ok(Value::Int(int(&a[0])?))
        }),
        ("java.lang.Integer", "bitCount", &[I], |a| {
            Ok(Value::Int(int(&a[0])?.count_ones() as i32))
        }),
        ("java.lang.Long", "parseLong", &[S], |a| {
            parse_long(string(&a[0])?)
        }),
        ("java.lang.Long", "valueOf", &[S], |a| {
            parse_long(string(&a[0])?)
        }),
        ("java.lang.Long", "toHexString", &[J], |a| {
            Ok(Value::Str(format!("{:x}", long(&a[0])?)))
        }),
        ("java.lang.Long", "toBinaryString", &[J], |a| {
            Ok(Value::Str(format!("{:b}", long(&a[0])?)))
        }),
        ("java.lang.Long", "toString", &[J], |a| {
            Ok(Value::Long(long(&a[0])?))
        }),
        ("java.lang.Long", "bitCount", &[J], |a| {
            Ok(Value::Int(long(&a[0])?.count_ones() as i32))
        }),
        ("java.lang.Double", "parseDouble", &[S], |a| {
            parse_double(string(&a[0])?)
        }),
        ("java.lang.Double", "valueOf", &[S], |a| {
            parse_double(string(&a[0])?)
        }),
        ("java.lang.Double", "isNaN", &[D], |a| {
            Ok(Value::Boolean(double(&a[0])?.is_nan()))
        }),
        ("java.lang.Boolean", "parseBoolean", &[S], |a| {
            Ok(Value::Boolean(
                matches!(&a[0], Value::Str(s) if s.eq_ignore_ascii_case("true")),
            ))
        }),
        ("java.lang.String", "valueOf", &[S], |a| {
            Ok(Value::Str(a[0].text().unwrap_or_else(|| "null".into())))
        }),
        ("java.lang.String", "valueOf", &[I], |a| {
            Ok(Value::Int(int(&a[0])?))
        }),
        ("java.lang.String", "valueOf", &[J], |a| {
            Ok(Value::Long(long(&a[0])?))
        }),
        ("java.lang.String", "valueOf", &[D], |a| {
            Ok(Value::Double(double(&a[0])?))
        }),
        (
            "java.lang.String",
            "valueOf",
            &[JavaType::Boolean],
            |a| match &a[0] {
                Value::Boolean(b) => Ok(Value::Boolean(*b)),
                _ => Err(Thrown("java.lang.IllegalArgumentException")),
            },
        ),
        ("java.net.URLDecoder", "decode", &[S], |a| {
            url_decode(string(&a[0])?)
        }),
        ("java.net.URLDecoder", "decode", &[S, S], |a| {
            utf8_charset(&a[1])?;
            url_decode(string(&a[0])?)
        }),
        ("java.net.URLEncoder", "encode", &[S], |a| {
            Ok(Value::Str(url_encode(string(&a[0])?)))
        }),
        ("java.net.URLEncoder", "encode", &[S, S], |a| {
            utf8_charset(&a[1])?;
            Ok(Value::Str(url_encode(string(&a[0])?)))
        }),
    ]
}

/// A NULL passed to a primitive parameter fails the call, as Java's reflection does.
fn int(v: &Value) -> std::result::Result<i32, Thrown> {
    match v {
        Value::Int(i) => Ok(*i),
        _ => Err(Thrown("java.lang.IllegalArgumentException")),
    }
}

fn long(v: &Value) -> std::result::Result<i64, Thrown> {
    match v {
        Value::Long(l) => Ok(*l),
        _ => Err(Thrown("java.lang.IllegalArgumentException")),
    }
}

fn double(v: &Value) -> std::result::Result<f64, Thrown> {
    match v {
        Value::Double(d) => Ok(*d),
        _ => Err(Thrown("java.lang.IllegalArgumentException")),
    }
}

fn string(v: &Value) -> std::result::Result<&str, Thrown> {
    match v {
        Value::Str(s) => Ok(s),
        _ => Err(Thrown("java.lang.NullPointerException")),
    }
}

fn parse_int(s: &str) -> std::result::Result<Value, Thrown> {
    s.strip_prefix('+')
        .unwrap_or(s)
        .parse::<i32>()
        .ok()
        .filter(|_| !s.starts_with("+-"))
        .map(Value::Int)
        .ok_or(Thrown("java.lang.NumberFormatException"))
}

fn parse_long(s: &str) -> std::result::Result<Value, Thrown> {
    s.strip_prefix('+')
        .unwrap_or(s)
        .parse::<i64>()
        .ok()
        .filter(|_| !s.starts_with("+-"))
        .map(Value::Long)
        .ok_or(Thrown("java.lang.NumberFormatException"))
}

fn parse_double(s: &str) -> std::result::Result<Value, Thrown> {
    let t = s.trim();
    let t = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
    t.parse::<f64>()
        .map(Value::Double)
        .map_err(|_| Thrown("java.lang.NumberFormatException"))
}

fn utf8_charset(v: &Value) -> std::result::Result<(), Thrown> {
    match v {
        Value::Str(c) if c.eq_ignore_ascii_case("utf-8") || c.eq_ignore_ascii_case("utf8") => {
            Ok(())
        }
        _ => Err(Thrown("java.io.UnsupportedEncodingException")),
    }
}

/// `URLDecoder.decode`: `+` is a space, `%XX` bytes form UTF-8 (a `%` without two hex digits
/// is Java's IllegalArgumentException).
fn url_decode(s: &str) -> std::result::Result<Value, Thrown> {
    let bytes = s.as_bytes();
    let valid = bytes.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if !valid {
        return Err(Thrown("java.lang.IllegalArgumentException"));
    }
    let spaced = s.replace('+', " ");
    let decoded = percent_encoding::percent_decode_str(&spaced).decode_utf8_lossy();
    Ok(Value::Str(decoded.into_owned()))
}

/// `URLEncoder.encode`: letters, digits and `.-*_` kept, space as `+`, the rest `%XX`.
fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Whether a class is one this module knows (for Spark's class-not-found check).
pub fn known_class(class: &str) -> bool {
    methods().iter().any(|(c, ..)| *c == class)
}

/// Whether the class has a supported method of that name (of any parameters).
pub fn has_method(class: &str, name: &str) -> bool {
    methods().iter().any(|(c, n, ..)| *c == class && *n == name)
}

/// Whether `class.name(params)` is supported.
pub fn find(class: &str, name: &str, params: &[JavaType]) -> bool {
    methods()
        .iter()
        .any(|(c, n, p, _)| *c == class && *n == name && *p == params)
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReflectCall {
    pub class: String,
    pub method: String,
    pub params: Vec<JavaType>,
    /// `try_reflect`: a failed call is NULL.
    pub fail: bool,
}

pub fn evaluate(call: &ReflectCall, args: &[ArrayRef], rows: usize) -> Result<ArrayRef> {
    let Some((.., method)) = methods()
        .iter()
        .find(|(c, n, p, _)| *c == call.class && *n == call.method && *p == call.params.as_slice())
    else {
        return internal_err!("reflect of {}.{}", call.class, call.method);
    };
    let columns = args
        .iter()
        .zip(&call.params)
        .map(|(a, t)| arrow::compute::cast(a, &t.arrow()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let mut out = StringBuilder::new();
    let mut values = Vec::with_capacity(columns.len());
    for row in 0..rows {
        values.clear();
        for (column, t) in columns.iter().zip(&call.params) {
            values.push(if column.is_null(row) {
                Value::Null
            } else {
                match t {
                    JavaType::Boolean => Value::Boolean(column.as_boolean().value(row)),
                    JavaType::Int => Value::Int(column.as_primitive::<Int32Type>().value(row)),
                    JavaType::Long => Value::Long(column.as_primitive::<Int64Type>().value(row)),
                    JavaType::Float => {
                        Value::Float(column.as_primitive::<Float32Type>().value(row))
                    }
                    JavaType::Double => {
                        Value::Double(column.as_primitive::<Float64Type>().value(row))
                    }
                    JavaType::String => {
                        Value::Str(column.as_string::<i32>().value(row).to_string())
                    }
                }
            });
        }
        match method(&values) {
            Ok(v) => out.append_option(v.text()),
            Err(_) if !call.fail => out.append_null(),
            Err(Thrown(class)) => {
                // Spark fails the task with the method's exception: no error class.
                return Err(to_datafusion(SparkError::new(
                    ErrorKind::Spark,
                    "",
                    "XX000",
                    format!(
                        "java.lang.reflect.InvocationTargetException: {}.{} threw {class}",
                        call.class, call.method
                    ),
                    vec![],
                )));
            }
        }
    }
    Ok(Arc::new(out.finish()))
}
