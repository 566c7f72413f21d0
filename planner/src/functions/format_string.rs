//! `format_string(format, args...)` / `printf`: datafusion-spark's, with the arguments given as
//! Spark's `java.util.Formatter` sees them. A `%s` shows a DECIMAL as its text (datafusion-spark
//! spells it as its unscaled digits: `12345` for 12.345); an integer conversion (`%d`, `%o`,
//! `%x`) takes a DATE as its day number and a TIMESTAMP as its microseconds (Spark's values of
//! them), and a NULL as `null`; one of another type, or a conversion without its argument, is
//! Java's IllegalArgumentException for every row that reaches it (an
//! IllegalFormatConversionException, a MissingFormatArgumentException).

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::RegistryBuilder;
use super::native::{Failure, fail_when};

pub(super) fn register(b: &mut RegistryBuilder) {
    b.scalar(&["format_string", "printf"], |f| {
        f.arity(1, usize::MAX)?;
        let conversions = match f.args.first() {
            Some(Expr::Literal(ScalarValue::Utf8(Some(format)), _)) => conversions(format),
            _ => vec![],
        };
        let mut args = f.args;
        let mut failure: Option<(Expr, String)> = None;
        for (index, conversion) in conversions {
            let Some(t) = f.types.get(index) else {
                failure.get_or_insert((lit(true), format!("Format specifier '%{conversion}'")));
                continue;
            };
            let arg = &mut args[index];
            match conversion {
                's' | 'S' if matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..)) => {
                    *arg = cast(arg.clone(), DataType::Utf8);
                }
                // (An array Spark builds is a GenericArrayData: `[3,1,2]`, `null` for a NULL.)
                's' | 'S' if listed_text(t) => *arg = array_text(arg.clone())?,
                // (Spark prints a byte array's JVM identity, `[B@1da525d1`: no value to copy.)
                's' | 'S' if matches!(t, DataType::Binary | DataType::LargeBinary | DataType::BinaryView) => {
                    let message = "not supported: %s of a BINARY value (Spark prints the byte array's JVM identity)".to_string();
                    failure.get_or_insert((arg.clone().is_not_null(), message));
                    *arg = lit(ScalarValue::Utf8(None));
                }
                'd' | 'o' | 'x' | 'X' => match t {
                    t if t.is_integer() => {}
                    DataType::Date32 => *arg = cast(arg.clone(), DataType::Int32),
                    DataType::Timestamp(TimeUnit::Microsecond, _) | DataType::Null => {
                        *arg = cast(arg.clone(), DataType::Int64)
                    }
                    other => {
                        let message = format!("{conversion} != {}", java_class(other));
                        failure.get_or_insert((arg.clone().is_not_null(), message));
                        *arg = lit(ScalarValue::Int64(None));
                    }
                },
                _ => {}
            }
        }
        let call = super::sp_udf("format_string")?.call(args);
        Ok(match failure {
            Some((when, message)) => {
                fail_when(when, Failure::IllegalArgument, vec![lit(message)], call)
            }
            None => call,
        })
    });
}

/// Whether `t` is an array of integers or text, whose items Java prints as Spark's text does.
fn listed_text(t: &DataType) -> bool {
    match t {
        DataType::List(item) | DataType::LargeList(item) => {
            let t = item.data_type();
            t.is_integer() || matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        }
        _ => false,
    }
}

/// An array as `GenericArrayData.toString` writes it: `[3,1,2]`, a NULL item as `null`.
fn array_text(array: Expr) -> crate::error::PlanResult<Expr> {
    let items = super::df_udf("array_to_string")?.call(vec![array.clone(), lit(","), lit("null")]);
    let text = super::df_udf("concat")?.call(vec![lit("["), items, lit("]")]);
    Ok(
        datafusion::logical_expr::when(array.is_null(), lit(ScalarValue::Utf8(None)))
            .otherwise(text)?,
    )
}

/// The Java class Spark hands `java.util.Formatter` for a value of type `t`.
fn java_class(t: &DataType) -> &'static str {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            "org.apache.spark.unsafe.types.UTF8String"
        }
        DataType::Boolean => "java.lang.Boolean",
        DataType::Float32 => "java.lang.Float",
        DataType::Float64 => "java.lang.Double",
        DataType::Decimal128(..) | DataType::Decimal256(..) => "org.apache.spark.sql.types.Decimal",
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "[B",
        DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..) => {
            "org.apache.spark.sql.catalyst.util.ArrayData"
        }
        DataType::Map(..) => "org.apache.spark.sql.catalyst.util.MapData",
        DataType::Struct(_) => "org.apache.spark.sql.catalyst.InternalRow",
        _ => "java.lang.Object",
    }
}

/// The (1-based) argument and conversion of each format specifier of a Java format string:
/// `%[index$][flags][width][.precision]conversion`, `%<s` the previous argument, `%%` and `%n`
/// none (`%tY` and its kin give `t`).
fn conversions(format: &str) -> Vec<(usize, char)> {
    let chars: Vec<char> = format.chars().collect();
    let (mut out, mut next, mut last) = (vec![], 1usize, 0usize);
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            i += 1;
            continue;
        }
        i += 1;
        let digits = |i: &mut usize| {
            let start = *i;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                *i += 1;
            }
            chars[start..*i].iter().collect::<String>()
        };
        let start = i;
        let number = digits(&mut i);
        let explicit = if i < chars.len() && chars[i] == '$' && !number.is_empty() {
            i += 1;
            number.parse::<usize>().ok()
        } else {
            i = start;
            None
        };
        let mut previous = false;
        while i < chars.len() && "-#+ 0,(<".contains(chars[i]) {
            previous |= chars[i] == '<';
            i += 1;
        }
        digits(&mut i);
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            digits(&mut i);
        }
        let Some(&conversion) = chars.get(i) else {
            break;
        };
        i += 1;
        if matches!(conversion, 't' | 'T') {
            i += 1;
        }
        if matches!(conversion, '%' | 'n') {
            continue;
        }
        let index = match (explicit, previous) {
            (Some(n), _) => n,
            (None, true) => last,
            (None, false) => {
                next += 1;
                next - 1
            }
        };
        last = index;
        out.push((index, conversion));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::conversions;

    #[test]
    fn finds_each_specifier_argument_and_conversion() {
        assert_eq!(conversions("%s-%d"), vec![(1, 's'), (2, 'd')]);
        assert_eq!(
            conversions("%d %5.2s %% %n %S"),
            vec![(1, 'd'), (2, 's'), (3, 'S')]
        );
        assert_eq!(
            conversions("%2$s %1$d %<s"),
            vec![(2, 's'), (1, 'd'), (1, 's')]
        );
        assert_eq!(
            conversions("%-10s|%,.3f|%s|%tY"),
            vec![(1, 's'), (2, 'f'), (3, 's'), (4, 't')]
        );
        assert!(conversions("no args").is_empty());
    }
}
