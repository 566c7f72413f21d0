//! Spark's `ImplicitCastInputTypes` for the functions whose arguments expect one kind of value:
//! each such argument is cast to the type the function expects by Spark's (ANSI) implicit cast
//! rules (`AnsiTypeCoercion.implicitCast`), or the call is refused with
//! DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE when no implicit cast reaches it (`acos(true)`,
//! `lower(array(1))`). A number, boolean, datetime or binary value where a string is expected is
//! cast to its text (`lower(1)`); a string where a number is expected is read as one
//! (`abs('-1')`, `substring(s, '2')`; an ANSI cast, so text that is not a number is
//! CAST_INVALID_INPUT, and NULL outside ANSI mode); other numbers where an INT is expected are
//! cast to it (`left(s, 2.5D)`); an untyped NULL becomes a NULL of the expected type
//! (`negative(NULL)` is a DOUBLE).

use arrow::datatypes::DataType;
use datafusion::common::DFSchema;
use datafusion::logical_expr::Expr;

use super::Resolver;
use crate::error::{PlanResult, SparkError};
use crate::types::{is_binary, is_text};

/// What an argument expects (Spark's `AbstractDataType` of the position).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Implicit {
    /// Anything (no implicit cast).
    Any,
    /// STRING: atomic values are cast to their text; arrays, maps and structs are refused.
    Text,
    /// STRING or BINARY: either kept, other atomic values cast to their text.
    TextOrBinary,
    /// STRING only, no implicit cast (`get_json_object`, `mask`).
    StrictText,
    /// NUMERIC: numbers kept, text read as a DOUBLE.
    Numeric,
    /// NUMERIC or an interval (`abs`, `negative`): numbers and intervals kept, text read as a
    /// DOUBLE.
    NumericOrInterval,
    /// What `sum` and `avg` take: numbers and intervals kept, text read as a DOUBLE, a
    /// timestamp as its seconds (a DOUBLE).
    Summable,
    /// INT: numbers and text cast to INT.
    Int,
    /// BIGINT: numbers and text cast to BIGINT.
    Long,
    /// TINYINT, SMALLINT or INT kept, text cast to INT, other numbers refused (`date_add`'s
    /// days).
    SmallInt,
    /// STRING or an ARRAY: arrays kept, other atomic values cast to their text (`concat_ws`).
    TextOrArray,
    /// INT or BIGINT kept, other numbers and text cast to INT (`shiftleft`).
    IntOrLong,
    /// BINARY: text cast to its bytes.
    Binary,
    /// BOOLEAN: text read as a boolean.
    Boolean,
    /// BOOLEAN only, no implicit cast (`assert_true`, `sort_array`'s order).
    StrictBoolean,
    /// ARRAY of anything, no implicit cast.
    Array,
    /// ARRAY of anything, not even an untyped NULL (`array_sort(NULL)`).
    StrictArray,
    /// ARRAY of anything, an untyped NULL taken as an ARRAY<VOID> (`sort_array(NULL)`).
    ArrayOrNull,
    /// A number, date, timestamp or interval kept, text read as a DOUBLE (`percentile`).
    Ordered,
    /// An integer kept, an untyped NULL taken as an INT (`bit_and`).
    Integral,
    /// Anything kept (the builder reads it), an untyped NULL taken as a DATE (`year(NULL)`).
    NullAsDate,
    /// Anything kept (the builder reads it), text read as a TIMESTAMP (NULL outside ANSI mode
    /// where it is none) and an untyped NULL taken as one (`date_part('YEAR', NULL)`).
    NullAsTimestamp,
    /// A TIMESTAMP only, an untyped NULL taken as one (`unix_seconds`).
    StrictTimestamp,
    /// An integer only (TINYINT to BIGINT), an untyped NULL taken as a BIGINT
    /// (`timestamp_millis`).
    StrictIntegral,
    /// TINYINT, SMALLINT or INT only, no implicit cast, no untyped NULL (`array_insert`'s
    /// position).
    StrictInt,
    /// TINYINT, SMALLINT or INT kept, or a NULL as an INT; nothing cast (`array_repeat`'s count).
    StrictIntOrNull,
    /// A TIMESTAMP: a date cast to its midnight in the session time zone (`hour(DATE'..')` is
    /// 0), text read as one (NULL outside ANSI mode where it is none), an untyped NULL taken
    /// as one, anything else kept (the builder reads it).
    DateAsTimestamp,
    /// BIGINT, BINARY or STRING (`hex`): integers, bytes and text kept, other numbers cast to
    /// a BIGINT, booleans, dates and timestamps to their text.
    LongBinaryOrText,
    /// DECIMAL: decimals kept, other numbers cast to the decimal that holds them, text and an
    /// untyped NULL to DECIMAL(38,18) (`ceil(x, scale)`).
    Decimal,
    /// STRING, BINARY or an ARRAY kept, other atomic values cast to their text (`concat`).
    TextBinaryOrArray,
    /// DECIMAL(16,6): numbers, text and an untyped NULL cast to it (`make_timestamp`'s
    /// seconds).
    Seconds,
    /// TIMESTAMP_NTZ: dates and timestamps kept (the builder reads them), text and an untyped
    /// NULL cast to it (`convert_timezone`'s value).
    LocalTimestamp,
    /// NUMERIC only, no implicit cast (`format_number`'s value).
    StrictNumeric,
    /// INT or STRING, no implicit cast (`format_number`'s format).
    IntOrText,
    /// STRING, DATE or a timestamp, no implicit cast (`unix_timestamp`'s value).
    TextOrDatetime,
}

impl Implicit {
    /// How Spark names the expected type in UNEXPECTED_INPUT_TYPE.
    fn expected(self) -> &'static str {
        match self {
            Implicit::Any => "ANY",
            Implicit::Text | Implicit::StrictText => "\"STRING\"",
            Implicit::TextOrBinary => "(\"STRING\" or \"BINARY\")",
            Implicit::Numeric => "\"NUMERIC\"",
            Implicit::NumericOrInterval => "(\"NUMERIC\" or \"INTERVAL\")",
            Implicit::Summable => "(\"NUMERIC\" or \"INTERVAL\")",
            Implicit::Int => "\"INT\"",
            Implicit::Long => "\"BIGINT\"",
            Implicit::SmallInt => "(\"INT\" or \"SMALLINT\" or \"TINYINT\")",
            Implicit::TextOrArray => "(\"ARRAY<STRING>\" or \"STRING\")",
            Implicit::IntOrLong => "(\"INT\" or \"BIGINT\")",
            Implicit::Binary => "\"BINARY\"",
            Implicit::Boolean | Implicit::StrictBoolean => "\"BOOLEAN\"",
            Implicit::Array | Implicit::ArrayOrNull | Implicit::StrictArray => "\"ARRAY\"",
            Implicit::Ordered => "(\"NUMERIC\" or \"DATE\" or \"TIMESTAMP\" or \"INTERVAL\")",
            Implicit::Integral => "\"INTEGRAL\"",
            Implicit::NullAsDate => "\"DATE\"",
            Implicit::NullAsTimestamp | Implicit::DateAsTimestamp | Implicit::StrictTimestamp => {
                "\"TIMESTAMP\""
            }
            Implicit::StrictIntegral => "\"INTEGRAL\"",
            Implicit::StrictInt | Implicit::StrictIntOrNull => "\"INT\"",
            Implicit::LongBinaryOrText => "(\"BIGINT\" or \"BINARY\" or \"STRING\")",
            Implicit::Decimal => "\"DECIMAL\"",
            Implicit::TextBinaryOrArray => "(\"STRING\" or \"BINARY\" or \"ARRAY\")",
            Implicit::Seconds => "\"DECIMAL(16,6)\"",
            Implicit::LocalTimestamp => "\"TIMESTAMP_NTZ\"",
            Implicit::StrictNumeric => "\"NUMERIC\"",
            Implicit::IntOrText => "(\"INT\" or \"STRING\")",
            Implicit::TextOrDatetime => {
                "(\"STRING\" or \"DATE\" or \"TIMESTAMP\" or \"TIMESTAMP_NTZ\")"
            }
        }
    }
}

/// The implicit casts of `function`'s arguments, by position (`Any` beyond the list).
pub(super) fn implicit_inputs(function: &str, arity: usize) -> Vec<Implicit> {
    use Implicit::*;
    match function {
        // Strings.
        "lower" | "lcase" | "upper" | "ucase" | "trim" | "ltrim" | "rtrim" | "btrim"
        | "initcap" | "ascii" | "replace" | "translate" | "contains" | "startswith"
        | "endswith" | "rlike" | "regexp_like" | "regexp" | "regexp_count" | "regexp_substr"
        | "find_in_set" | "quote" | "sentences" | "url_decode" | "url_encode"
        | "try_url_decode" | "unbase64" | "unhex" | "luhn_check" | "is_valid_utf8"
        | "make_valid_utf8" | "validate_utf8" | "try_validate_utf8" | "to_number"
        | "try_to_number" => vec![Text; arity],
        "regexp_replace" => vec![Text, Text, Text, Int],
        // (The escape character is checked by the builder.)
        "like" | "ilike" => vec![Text, Text],
        "regexp_instr" => vec![Text, Text, Int],
        // (A position and an occurrence, Spark's 4.x form.)
        "instr" => vec![Text, Text, Int, Int],
        "concat_ws" => {
            let mut v = vec![Text];
            v.resize(arity.max(1), TextOrArray);
            v
        }
        "bit_length" | "octet_length" | "length" | "char_length" | "character_length" | "len" => {
            vec![TextOrBinary]
        }
        "levenshtein" => vec![Text, Text, Int],
        "locate" | "position" => vec![Text, Text, Int],
        "lpad" | "rpad" => vec![TextOrBinary, Int, TextOrBinary],
        "repeat" | "right" => vec![Text, Int],
        "left" => vec![TextOrBinary, Int],
        "substring" | "substr" => vec![TextOrBinary, Int, Int],
        "split" => vec![Text, Text, Int],
        "split_part" => vec![Text, Text, Int],
        "substring_index" => vec![Text, Text, Int],
        "regexp_extract" | "regexp_extract_all" => vec![Text, Text, Int],
        "encode" => vec![Text, Text],
        "to_binary" | "try_to_binary" => vec![Text],
        "decode" if arity == 2 => vec![Binary, Text],
        "format_string" | "printf" => vec![Text],
        "space" => vec![Int],
        "sha2" => vec![Any, Int],
        "conv" => vec![Text, Int, Int],
        // (get_json_object's path, mask's characters and str_to_map's delimiters are
        // strings too: Spark casts nothing to them.)
        "get_json_object" => vec![StrictText, StrictText],
        "mask" => vec![StrictText; 5],
        "str_to_map" => vec![StrictText; 3],
        "json_array_length" | "json_object_keys" | "schema_of_json" | "schema_of_csv" => {
            vec![StrictText]
        }
        "from_json" | "from_csv" => vec![StrictText],
        // Booleans.
        "any" | "some" | "every" | "bool_and" | "bool_or" | "count_if" => vec![Boolean],
        "assert_true" => vec![StrictBoolean],
        // (A pattern is Spark's STRING: `date_format(ts, DATE'2024-02-29')` formats with its
        // text.)
        "date_format" => vec![Any, Text],
        "from_unixtime" => vec![Long, Text],
        "sort_array" => vec![ArrayOrNull, StrictBoolean],
        // (Not an untyped NULL: Spark has no ARRAY to sort then.)
        "array_sort" if arity == 1 => vec![StrictArray],
        "array_distinct" | "array_compact" => vec![ArrayOrNull],
        "approx_percentile" | "percentile_approx" | "percentile" | "median"
        | "histogram_numeric" => vec![Ordered],
        "bit_and" | "bit_or" | "bit_xor" => vec![Integral],
        "overlay" => vec![TextOrBinary, TextOrBinary, Int, Int],
        "listagg" | "string_agg" => vec![TextOrBinary],
        "elt" => {
            let mut v = vec![Int];
            v.resize(arity.max(1), TextOrBinary);
            v
        }
        "arrays_zip" => vec![Array; arity],
        "map_from_arrays" if arity == 2 => vec![Array; 2],
        // Numbers.
        "abs" | "negative" | "positive" => vec![NumericOrInterval],
        // (Spark's RoundCeil/RoundFloor take a DECIMAL and a literal INT scale.)
        "ceil" | "ceiling" | "floor" if arity == 2 => vec![Decimal, Any],
        "concat" | "reverse" => vec![TextBinaryOrArray; arity],
        "sqrt" | "cbrt" | "exp" | "expm1" | "ln" | "log10" | "log2" | "log1p" | "ceil"
        | "ceiling" | "floor" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "sinh"
        | "cosh" | "tanh" | "asinh" | "acosh" | "atanh" | "cot" | "csc" | "sec" | "rint"
        | "degrees" | "radians" | "signum" | "sign" | "isnan" | "stddev" | "std"
        | "stddev_samp" | "stddev_pop" | "variance" | "var_samp" | "var_pop" | "kurtosis"
        | "skewness" => vec![Numeric],
        "sum" | "avg" | "mean" | "try_sum" | "try_avg" => vec![Summable],
        "round" | "bround" => vec![Numeric, Int],
        "log" | "pow" | "power" | "atan2" | "hypot" | "nanvl" | "corr" | "covar_pop"
        | "covar_samp" | "regr_avgx" | "regr_avgy" | "regr_count" | "regr_intercept"
        | "regr_r2" | "regr_slope" | "regr_sxx" | "regr_sxy" | "regr_syy" => {
            vec![Numeric; arity]
        }
        "factorial" => vec![Int],
        "bin" | "char" | "chr" | "bitmap_bit_position" | "bitmap_bucket_number" => vec![Long],
        "bit_get" | "getbit" => vec![Any, Int],
        "shiftleft" | "shiftright" | "shiftrightunsigned" => vec![IntOrLong, Int],
        "slice" => vec![Any, Int, Int],
        "width_bucket" => vec![Numeric, Numeric, Numeric, Long],
        "date_add" | "date_sub" | "dateadd" => vec![Any, SmallInt],
        "year" | "month" | "day" | "dayofmonth" | "quarter" | "dayofyear" | "weekofyear"
        | "dayofweek" | "weekday" => vec![NullAsDate],
        "hour" | "minute" | "second" => vec![DateAsTimestamp],
        "from_utc_timestamp" | "to_utc_timestamp" => vec![DateAsTimestamp, Text],
        "date_part" | "datepart" | "extract" => vec![Any, NullAsTimestamp],
        "date_trunc" => vec![Any, DateAsTimestamp],
        "add_months" => vec![Any, Int],
        "unix_seconds" | "unix_millis" | "unix_micros" => vec![StrictTimestamp],
        "timestamp_millis" | "timestamp_micros" => vec![StrictIntegral],
        "timestamp_seconds" => vec![StrictNumeric],
        "date_from_unix_date" => vec![Int],
        "get" => vec![Any, Int],
        "array_insert" => vec![Any, StrictInt],
        "array_repeat" => vec![Any, StrictIntOrNull],
        "hex" => vec![LongBinaryOrText],
        "array_max" | "array_min" => vec![ArrayOrNull],
        "array_size" => vec![ArrayOrNull],
        "make_date" => vec![Int; 3],
        "make_dt_interval" => vec![Int, Int, Int],
        "format_number" => vec![StrictNumeric, IntOrText],
        "unix_timestamp" | "to_unix_timestamp" => vec![TextOrDatetime, StrictText],
        "convert_timezone" if arity == 2 => vec![Text, LocalTimestamp],
        "convert_timezone" => vec![Text, Text, LocalTimestamp],
        "make_timestamp"
        | "make_timestamp_ltz"
        | "make_timestamp_ntz"
        | "try_make_timestamp"
        | "try_make_timestamp_ltz"
        | "try_make_timestamp_ntz"
            if arity >= 6 =>
        {
            vec![Int, Int, Int, Int, Int, Seconds, Text]
        }
        _ => vec![],
    }
}

/// Spark's atomic types (all but arrays, maps, structs and the like).
fn is_atomic(t: &DataType) -> bool {
    t.is_numeric()
        || is_text(t)
        || is_binary(t)
        || matches!(
            t,
            DataType::Boolean
                | DataType::Date32
                | DataType::Timestamp(..)
                | DataType::Time64(_)
                | DataType::Duration(_)
                | DataType::Interval(_)
        )
}

/// What an argument of type `t` becomes where `want` is expected: `Ok(None)` when it stays as
/// it is, `Ok(Some(type))` when it is cast, `Err(())` when Spark refuses it.
fn implicit_cast(want: Implicit, t: &DataType, ansi: bool) -> Result<Option<DataType>, ()> {
    use DataType::*;
    use Implicit as I;
    let number = t.is_numeric();
    let to = |d: DataType| Ok(Some(d));
    // (A zoned timestamp: the cast takes the session's zone.)
    let instant = || Timestamp(arrow::datatypes::TimeUnit::Microsecond, Some("UTC".into()));
    match (want, t) {
        (I::Any, _) => Ok(None),
        (
            I::Array | I::ArrayOrNull | I::StrictArray,
            List(_) | LargeList(_) | FixedSizeList(..),
        ) => Ok(None),
        (I::Array, Null) => Ok(None),
        (I::ArrayOrNull, Null) => to(List(std::sync::Arc::new(arrow::datatypes::Field::new(
            "element", Null, true,
        )))),
        (I::Ordered, Null) => to(Float64),
        (I::Ordered, t) if is_text(t) => to(Float64),
        (I::Ordered, Date32 | Timestamp(..) | Duration(_) | Interval(_)) => Ok(None),
        (I::Ordered, _) if number => Ok(None),
        (I::Integral, Null) => to(Int32),
        (I::NullAsDate, Null) => to(Date32),
        // (A date function reads a date, a timestamp, or text as a date; nothing else.)
        (I::NullAsDate, t) if !(is_text(t) || matches!(t, Date32 | Timestamp(..))) => Err(()),
        (I::StrictTimestamp, Timestamp(..)) => Ok(None),
        (I::StrictTimestamp, Null) => to(instant()),
        (I::StrictIntegral, t) if t.is_integer() => Ok(None),
        (I::StrictIntegral, Null) => to(Int64),
        (I::StrictInt | I::StrictIntOrNull, Int8 | Int16 | Int32) => Ok(None),
        (I::StrictIntOrNull, Null) => to(Int32),
        (I::NullAsTimestamp, t) if *t == Null || is_text(t) => to(instant()),
        (I::DateAsTimestamp, t) if *t == Null || *t == Date32 || is_text(t) => to(instant()),
        (I::NullAsDate | I::NullAsTimestamp | I::DateAsTimestamp, _) => Ok(None),
        (I::LongBinaryOrText, t) if t.is_integer() || is_text(t) || is_binary(t) => Ok(None),
        (I::LongBinaryOrText, Null) => Ok(None),
        (I::LongBinaryOrText, _) if number => to(Int64),
        (I::LongBinaryOrText, Boolean | Date32 | Timestamp(..)) => to(Utf8),
        (I::Integral, _) => Ok(None),
        (I::StrictText, Null) | (I::StrictBoolean, Null) => Ok(None),
        (I::Text | I::TextOrBinary | I::StrictText, t) if is_text(t) => Ok(None),
        (I::TextOrBinary | I::Binary, t) if is_binary(t) => Ok(None),
        (I::TextOrArray, Null) => to(Utf8),
        (I::TextOrArray, t) if is_text(t) => Ok(None),
        (I::TextOrArray, List(_) | LargeList(_)) => Ok(None),
        (I::Text | I::TextOrBinary, Null) => to(Utf8),
        (I::Text | I::TextOrBinary | I::TextOrArray, t) if is_atomic(t) => to(Utf8),
        (I::SmallInt, Int8 | Int16 | Int32) => Ok(None),
        (I::SmallInt, t) if is_text(t) || *t == Null => to(Int32),
        (I::Numeric | I::NumericOrInterval | I::Summable, Null) => to(Float64),
        (I::Numeric | I::NumericOrInterval | I::Summable, _) if number => Ok(None),
        (I::Numeric | I::NumericOrInterval | I::Summable, t) if is_text(t) => to(Float64),
        (I::NumericOrInterval, Duration(_) | Interval(_)) => Ok(None),
        // (A timestamp is summed as its seconds, a DOUBLE.)
        (I::Summable, Timestamp(..)) => to(Float64),
        (I::Summable, Duration(_) | Interval(_)) => Ok(None),
        (I::Int, Int32) | (I::IntOrLong, Int32 | Int64) | (I::Long, Int64) => Ok(None),
        (I::Int | I::IntOrLong, t) if number || is_text(t) || *t == Null => to(Int32),
        (I::Long, t) if number || is_text(t) || *t == Null => to(Int64),
        (I::Binary, t) if is_text(t) || *t == Null => to(Binary),
        (I::Decimal, Decimal128(..)) => Ok(None),
        (I::Decimal, Int8) => to(Decimal128(3, 0)),
        (I::Decimal, Int16) => to(Decimal128(5, 0)),
        (I::Decimal, Int32) => to(Decimal128(10, 0)),
        (I::Decimal, Int64) => to(Decimal128(20, 0)),
        (I::Decimal, Float32) => to(Decimal128(14, 7)),
        (I::Decimal, Float64) => to(Decimal128(30, 15)),
        (I::Decimal, t) if is_text(t) || *t == Null => to(Decimal128(38, 18)),
        (I::Seconds, Decimal128(16, 6)) => Ok(None),
        (I::LocalTimestamp, Date32 | Timestamp(..)) => Ok(None),
        (I::StrictNumeric, Null) => Ok(None),
        (I::StrictNumeric, _) if number => Ok(None),
        (I::IntOrText, Int32) => Ok(None),
        (I::IntOrText, t) if is_text(t) => Ok(None),
        (I::IntOrText, Null) => to(Int32),
        (I::TextOrDatetime, Null | Date32 | Timestamp(..)) => Ok(None),
        (I::TextOrDatetime, t) if is_text(t) => Ok(None),
        (I::LocalTimestamp, t) if is_text(t) || *t == Null => {
            to(Timestamp(arrow::datatypes::TimeUnit::Microsecond, None))
        }
        (I::Seconds, t) if number || is_text(t) || *t == Null => to(Decimal128(16, 6)),
        (I::TextBinaryOrArray, Null | List(_) | LargeList(_)) => Ok(None),
        (I::TextBinaryOrArray, t) if is_text(t) || is_binary(t) => Ok(None),
        (I::TextBinaryOrArray, t) if is_atomic(t) => to(Utf8),
        (I::Boolean | I::StrictBoolean, Boolean) => Ok(None),
        (I::Boolean, Null) => to(Boolean),
        // (Outside ANSI mode Spark reads no text as a boolean here.)
        (I::Boolean, t) if is_text(t) && ansi => to(Boolean),
        _ => Err(()),
    }
}

impl Resolver<'_> {
    /// The arguments of `function` (shown as `shown`, its arguments as `names`) with Spark's
    /// implicit casts of their input types (see [`Implicit`]), or its UNEXPECTED_INPUT_TYPE.
    /// Returns the positions whose cast may make a NULL of a value (text read as another type
    /// outside ANSI mode).
    pub(super) fn implicit_casts(
        &self,
        function: &str,
        shown: &str,
        names: &[String],
        args: &mut [Expr],
        types: &mut [DataType],
        schema: &DFSchema,
    ) -> PlanResult<Vec<usize>> {
        check_array_function(function, shown, names, types)?;
        check_arithmetic(function, shown, types)?;
        super::coercion::check_text_meets_bytes(function, shown, types)?;
        let ansi = self.config.ansi;
        let mut may_null = vec![];
        if let Some(to) = try_arithmetic_text(function, ansi, types) {
            for (arg, t) in args.iter_mut().zip(types.iter_mut()) {
                if is_text(t) {
                    *arg = self.cast_to(arg.clone(), &to, crate::spec::CastMode::Try, schema)?;
                    *t = to.clone();
                }
            }
        }
        for (i, want) in implicit_inputs(function, args.len())
            .into_iter()
            .enumerate()
        {
            let (Some(arg), Some(t)) = (args.get_mut(i), types.get_mut(i)) else {
                break;
            };
            // (Outside ANSI mode the literal text number of days of date_add/date_sub is read
            // while planning: Spark's SECOND_FUNCTION_ARGUMENT_NOT_INTEGER when it is none.)
            if matches!(want, Implicit::SmallInt)
                && !ansi
                && matches!(function, "date_add" | "date_sub" | "dateadd")
                && let Expr::Literal(datafusion::common::ScalarValue::Utf8(Some(days)), _) = arg
                && days.trim().parse::<i32>().is_err()
            {
                let name = if function == "dateadd" {
                    "date_add"
                } else {
                    function
                };
                return Err(SparkError::analysis(
                    "SECOND_FUNCTION_ARGUMENT_NOT_INTEGER",
                    "22023",
                    format!("The second argument of `{name}` function needs to be an integer."),
                )
                .into());
            }
            let to = match implicit_cast(want, t, ansi) {
                Ok(Some(to)) => to,
                Ok(None) => continue,
                Err(()) => {
                    let arg = names.get(i).map(String::as_str).unwrap_or_default();
                    return Err(SparkError::analysis(
                        "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                        "42K09",
                        format!(
                            "Cannot resolve \"{shown}\" due to data type mismatch: The {} parameter requires the {} type, however \"{arg}\" has the type \"{}\".",
                            crate::error::ordinal_number(i),
                            want.expected(),
                            crate::types::sql_name(t)
                        ),
                    )
                    .into());
                }
            };
            *arg = if *t == DataType::Null {
                Expr::Literal(datafusion::common::ScalarValue::try_from(&to)?, None)
            } else {
                // (Spark's casts of text to other types, in any mode, and of fractions to
                // integers may be NULL: its Cast.forceNullable.)
                let fraction = matches!(
                    t,
                    DataType::Float32 | DataType::Float64 | DataType::Decimal128(..)
                );
                if (is_text(t) && !is_text(&to) && !is_binary(&to))
                    || (fraction && to.is_integer() && !matches!(function, "locate" | "position"))
                {
                    may_null.push(i);
                }
                let widening = (t.is_integer()
                    && matches!(to, DataType::Int64 | DataType::Float64))
                    || (t.is_numeric() && to == DataType::Float64);
                if widening {
                    // (Never fails, in any mode.)
                    datafusion::logical_expr::cast(arg.clone(), to.clone())
                } else {
                    self.cast_to(arg.clone(), &to, crate::spec::CastMode::Default, schema)?
                }
            };
            *t = to;
        }
        Ok(may_null)
    }
}

fn element(t: &DataType) -> Option<&DataType> {
    match t {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            Some(f.data_type())
        }
        _ => None,
    }
}

/// Whether an array's elements of type `a` and a value of type `b` meet in one type without
/// string promotion (Spark's tightest common type; `decimals`: a decimal meets other numbers).
fn tightest(a: &DataType, b: &DataType, decimals: bool) -> bool {
    use crate::functions::nested_nullability::relaxed;
    use DataType::*;
    let decimal = |t: &DataType| matches!(t, Decimal128(..));
    match (a, b) {
        (a, b) if a == b => true,
        // (Types that differ only in nested nullability meet in the one that merges it.)
        (a, b) if relaxed(a) == relaxed(b) => true,
        (Null, _) | (_, Null) => true,
        (a, b) if a.is_numeric() && b.is_numeric() => {
            decimals || !(decimal(a) || decimal(b)) || (decimal(a) && decimal(b))
        }
        (Date32 | Timestamp(..), Date32 | Timestamp(..)) => true,
        (a, b) => match (element(a), element(b)) {
            (Some(x), Some(y)) => tightest(x, y, decimals),
            _ => false,
        },
    }
}

/// Spark's checks of the array functions whose array and value (or two arrays) must meet in
/// one element type: BINARY_ARRAY_DIFF_TYPES (`array_except(1, array(1))`),
/// ARRAY_FUNCTION_DIFF_TYPES (`array_remove(array(1), 'a')`), UNEXPECTED_INPUT_TYPE and
/// NULL_TYPE where the array is none.
pub(super) fn check_array_function(
    function: &str,
    shown: &str,
    names: &[String],
    types: &[DataType],
) -> PlanResult<()> {
    let fail = |class: &str, detail: String| -> PlanResult<()> {
        Err(SparkError::analysis(
            &format!("DATATYPE_MISMATCH.{class}"),
            "42K09",
            format!("Cannot resolve \"{shown}\" due to data type mismatch: {detail}"),
        )
        .into())
    };
    let sql = |t: &DataType| format!("\"{}\"", crate::types::sql_name(t));
    match (function, types) {
        ("array_except" | "array_intersect" | "array_union" | "arrays_overlap", [a, b]) => {
            let same =
                matches!((element(a), element(b)), (Some(x), Some(y)) if tightest(x, y, true));
            if !same {
                return fail(
                    "BINARY_ARRAY_DIFF_TYPES",
                    format!(
                        "Input to function `{function}` should have been two \"ARRAY\" with same element type, but it's [{}, {}].",
                        sql(a),
                        sql(b)
                    ),
                );
            }
        }
        (
            "array_remove" | "array_append" | "array_prepend" | "array_position" | "array_contains",
            [a, v],
        )
        | ("array_insert", [a, _, v]) => {
            let Some(e) = element(a) else {
                return match (function, a) {
                    ("array_remove" | "array_insert", _) => fail(
                        "ARRAY_FUNCTION_DIFF_TYPES",
                        format!(
                            "Input to `{function}` should have been \"ARRAY\" followed by a value with same element type, but it's [{}, {}].",
                            sql(a),
                            sql(v)
                        ),
                    ),
                    ("array_position" | "array_contains", DataType::Null) => fail(
                        "NULL_TYPE",
                        format!("Null typed values cannot be used as arguments of `{function}`."),
                    ),
                    _ => fail(
                        "UNEXPECTED_INPUT_TYPE",
                        format!(
                            "The first parameter requires the \"ARRAY\" type, however \"{}\" has the type {}.",
                            names.first().map(String::as_str).unwrap_or_default(),
                            sql(a)
                        ),
                    ),
                };
            };
            if function == "array_contains" && *v == DataType::Null {
                return fail(
                    "NULL_TYPE",
                    format!("Null typed values cannot be used as arguments of `{function}`."),
                );
            }
            if !tightest(e, v, function == "array_contains") {
                return fail(
                    "ARRAY_FUNCTION_DIFF_TYPES",
                    format!(
                        "Input to `{function}` should have been \"ARRAY\" followed by a value with same element type, but it's [{}, {}].",
                        sql(a),
                        sql(v)
                    ),
                );
            }
        }
        ("element_at" | "try_element_at", [a, k]) => {
            let name = |i: usize| names.get(i).map(String::as_str).unwrap_or_default();
            match a {
                DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(..) => {
                    if !matches!(k, DataType::Int8 | DataType::Int16 | DataType::Int32) {
                        return fail(
                            "UNEXPECTED_INPUT_TYPE",
                            format!(
                                "The second parameter requires the \"INT\" type, however \"{}\" has the type {}.",
                                name(1),
                                sql(k)
                            ),
                        );
                    }
                }
                DataType::Map(entries, _) => {
                    let key = match entries.data_type() {
                        DataType::Struct(fields) => fields.first().map(|f| f.data_type().clone()),
                        _ => None,
                    };
                    if let Some(key) = key
                        && *k != DataType::Null
                        && !tightest(&key, k, false)
                    {
                        return fail(
                            "MAP_FUNCTION_DIFF_TYPES",
                            format!(
                                "Input to `{function}` should have been \"MAP\" followed by a value with same key type, but it's [{}, {}].",
                                sql(a),
                                sql(k)
                            ),
                        );
                    }
                }
                DataType::Null => {}
                _ => {
                    return fail(
                        "UNEXPECTED_INPUT_TYPE",
                        format!(
                            "The first parameter requires the (\"ARRAY\" or \"MAP\") type, however \"{}\" has the type {}.",
                            name(0),
                            sql(a)
                        ),
                    );
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Spark's BINARY_OP_DIFF_TYPES for the arithmetic functions (`mod`, `pmod`, `div` and the
/// `try_` forms) given a value that is no number: booleans, binary, arrays, and datetimes
/// (which `try_add` and `try_subtract` take); `div` takes no floating point number either.
pub(super) fn check_arithmetic(function: &str, shown: &str, types: &[DataType]) -> PlanResult<()> {
    use DataType::*;
    let dates = matches!(function, "try_add" | "try_subtract");
    if !matches!(
        function,
        "mod"
            | "pmod"
            | "div"
            | "try_divide"
            | "try_mod"
            | "try_multiply"
            | "try_add"
            | "try_subtract"
    ) || types.len() != 2
    {
        return Ok(());
    }
    let refused = |t: &DataType| match t {
        Boolean | Binary | LargeBinary | BinaryView | List(_) | LargeList(_) | Map(..)
        | Struct(_) => true,
        Date32 | Timestamp(..) => !dates,
        Float32 | Float64 => function == "div",
        _ => false,
    };
    // (`try_add` of a date is `date_add`, which checks its own input types.)
    if !types.iter().any(refused) || (function == "try_add" && types.contains(&Date32)) {
        return Ok(());
    }
    Err(crate::functions::comparison::binary_op_diff_types(
        shown, &types[0], &types[1],
    ))
}

/// The type text is read as in a `try_` arithmetic function (`try_add('1', 2)`), where the
/// cast is a TRY cast: NULL for text that is no number, in any mode.
pub(super) fn try_arithmetic_text(
    function: &str,
    ansi: bool,
    types: &[DataType],
) -> Option<DataType> {
    let target = match function {
        "try_divide" => DataType::Float64,
        "try_add" | "try_subtract" | "try_multiply" | "try_mod" if ansi => DataType::Int64,
        "try_add" | "try_subtract" | "try_multiply" | "try_mod" => DataType::Float64,
        _ => return None,
    };
    // (Only among numbers: a date's arithmetic reads text otherwise.)
    types
        .iter()
        .all(|t| t.is_numeric() || is_text(t) || *t == DataType::Null)
        .then_some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implicit_casts_as_spark_says() {
        use DataType::*;
        assert_eq!(
            implicit_cast(Implicit::Numeric, &Utf8, true),
            Ok(Some(Float64))
        );
        assert_eq!(implicit_cast(Implicit::Numeric, &Int32, true), Ok(None));
        assert_eq!(implicit_cast(Implicit::Numeric, &Boolean, true), Err(()));
        assert_eq!(
            implicit_cast(Implicit::Numeric, &Null, true),
            Ok(Some(Float64))
        );
        assert_eq!(
            implicit_cast(Implicit::Int, &Float64, true),
            Ok(Some(Int32))
        );
        assert_eq!(
            implicit_cast(Implicit::Text, &Boolean, true),
            Ok(Some(Utf8))
        );
        assert_eq!(implicit_cast(Implicit::Text, &Binary, true), Ok(Some(Utf8)));
        assert_eq!(
            implicit_cast(Implicit::TextOrBinary, &Binary, true),
            Ok(None)
        );
        let list = List(std::sync::Arc::new(arrow::datatypes::Field::new(
            "item", Int32, true,
        )));
        assert_eq!(implicit_cast(Implicit::Text, &list, true), Err(()));
        assert_eq!(
            implicit_cast(Implicit::Boolean, &Utf8, true),
            Ok(Some(Boolean))
        );
        assert_eq!(implicit_cast(Implicit::Boolean, &Utf8, false), Err(()));
        assert_eq!(implicit_cast(Implicit::SmallInt, &Int64, true), Err(()));
    }

    #[test]
    fn array_values_meet_without_string_promotion() {
        use DataType::*;
        assert!(tightest(&Int32, &Int64, false));
        assert!(tightest(&Int32, &Float64, false));
        assert!(!tightest(&Int32, &Decimal128(10, 3), false));
        assert!(tightest(&Int32, &Decimal128(10, 3), true));
        assert!(!tightest(&Int32, &Utf8, true));
        assert!(tightest(&Int32, &Null, false));
    }
}
