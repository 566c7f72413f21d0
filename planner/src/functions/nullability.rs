//! Whether a function's value may be NULL, as Spark says in a schema: one rule per Spark
//! name (the table below, checked against real Spark by `python-tests/nullability_probe.py`),
//! applied where the resolver builds a call. Where DataFusion's implementation reports
//! another nullability, the call is wrapped in [`SparkNullability`], a pass-through whose
//! field states Spark's (its input array is its output).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use arrow::datatypes::{DataType, FieldRef};
use datafusion::common::tree_node::TreeNode;
use datafusion::common::{DFSchema, Result, ScalarValue, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ExprSchemable, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};

/// Spark's nullability of a function's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// NULL only where an argument is (Spark's null-intolerant expressions). An argument
    /// Spark casts implicitly where the cast may fail to NULL (text to a date) counts as
    /// nullable.
    OfArguments,
    /// As `OfArguments`, and where a list argument may hold NULL (`array_contains`).
    OfArgumentsAndItems,
    /// As `OfArguments`, and where one of the first `n` arguments (dates or timestamps) is
    /// text, which Spark casts and may fail to NULL.
    OfDates(usize),
    /// NULL only where every argument is (`coalesce`, `greatest`).
    OfAll,
    /// NULL only where the first argument is.
    OfFirst,
    /// As `OfArguments`, and for a DECIMAL result outside ANSI mode (Spark's decimal
    /// arithmetic: an overflow is NULL there, an error in ANSI mode) or of an integer literal.
    Arithmetic,
    /// Never NULL.
    Never,
    /// May be NULL whatever the arguments.
    Always,
    /// In ANSI mode as `OfArguments` (a value it cannot read fails the query), else `Always`
    /// (such a value is NULL): Spark's parsing and date-time construction.
    OfArgumentsInAnsi,
    /// NULL where a value it may answer is, or where no branch is taken and there is no
    /// ELSE (`if`, `when`, `nvl2`; Spark's CaseWhen, which never asks whether a branch can
    /// be taken).
    OfBranches,
}

use Rule::*;
use ember_execution::codec::EncodedUdf;

pub use super::cast_nullability::{CastNulls, cast, cast_may_fail, legacy_exact, lossless_cast};
use crate::types::{is_binary, is_text};

/// Spark's rule of each scalar function (by its lower-case name); functions not listed keep
/// the nullability of their implementation.
#[rustfmt::skip]
const RULES: &[(Rule, &[&str])] = &[
    (OfArguments, &[
        "abs", "ascii", "atan2", "base64", "between", "bin", "bit_count", "bit_get", "bit_length",
        "bitmap_bit_position", "bitmap_bucket_number", "btrim", "char", "char_length",
        "character_length", "chr", "contains", "convert_timezone", "crc32", "date_from_unix_date",
        "endswith", "find_in_set", "from_base32", "getbit", "hex", "hypot", "ilike", "initcap",
        "instr", "lcase", "left", "len", "length", "levenshtein", "like", "locate", "lower",
        "lpad", "ltrim", "make_dt_interval", "make_interval", "make_ym_interval",
        "md5", "negative", "octet_length", "overlay", "position", "positive", "pow", "power",
        "regexp", "regexp_count", "regexp_extract", "regexp_extract_all", "regexp_instr",
        "regexp_like", "regexp_replace", "repeat", "replace", "rlike", "rpad", "rtrim", "sequence",
        "sha", "sha1", "shiftleft", "shiftright", "shiftrightunsigned", "soundex", "space",
        "split", "startswith", "str_to_map", "substr", "substring", "substring_index",
        "timestamp_micros", "timestamp_millis", "timestamp_seconds", "to_base32", "translate",
        "trim", "ucase", "unbase64", "upper", "unix_date", "unix_micros", "unix_millis",
        "unix_seconds", "date_part", "datepart", "extract", "size", "cardinality", "array_size",
        "array_compact", "array_distinct", "array_except", "array_intersect", "array_union",
        "array_remove", "array_repeat", "array_join", "array_position", "array_insert",
        "sort_array", "array_sort", "slice", "reverse", "concat", "||", "shuffle",
        "arrays_zip", "map_keys", "map_values", "map_entries", "map_from_arrays",
        "map_concat", "=", "==", "<", "<=", ">", ">=", "!=", "<>", "and", "or",
        "not", "!", "&", "|", "^", "~", "bitwise_not", "<<", ">>", ">>>",
        "to_number", "to_char", "to_varchar", "from_csv", "schema_of_variant",
        "is_valid_variant", "uniform", "randstr", "time_bucket", "nanvl",
        "kll_sketch_get_rank_bigint", "timestampadd", "timestampdiff",
    ]),
    (OfArgumentsInAnsi, &[
        "unix_timestamp", "to_unix_timestamp", "make_timestamp", "make_timestamp_ntz",
        "make_timestamp_ltz", "to_date", "to_timestamp", "to_timestamp_ntz", "to_timestamp_ltz",
        "make_date",
    ]),
    (OfArgumentsAndItems, &[
        "array_contains", "arrays_overlap", "flatten", "map_from_entries",
    ]),
    (OfDates(1), &[
        "date_format", "add_months", "from_utc_timestamp", "to_utc_timestamp", "date_add",
        "date_sub", "dateadd", "day", "dayofmonth", "dayofweek", "dayofyear", "month",
        "monthname", "dayname", "quarter", "year", "weekday", "weekofyear", "last_day", "hour",
        "minute", "second",
    ]),
    (OfDates(2), &[
        "datediff", "date_diff", "months_between",
    ]),
    (Arithmetic, &[
        "+", "-", "*",
    ]),
    (OfAll, &[
        "coalesce", "nvl", "ifnull", "greatest", "least",
    ]),
    (OfFirst, &[
        "format_string", "printf", "concat_ws", "array_append", "array_prepend",
    ]),
    (OfBranches, &[
        "if", "iff", "nvl2", "when",
    ]),
    (Never, &[
        "array", "map", "named_struct", "struct", "hash", "xxhash64", "isnull", "isnotnull",
        "isnan", "<=>", "equal_null", "typeof", "pi", "e", "rand", "randn", "random", "uuid",
        "current_date", "curdate", "current_timestamp", "now", "localtimestamp",
        "current_timezone", "monotonically_increasing_id", "spark_partition_id", "zeroifnull",
        "current_time", "localtime",
    ]),
    (Always, &[
        "/", "%", "div", "mod", "pmod", "acos", "acosh", "asin", "asinh", "atan", "atanh",
        "bround", "cbrt", "ceil", "ceiling", "conv", "cos", "cosh", "cot", "csc", "degrees", "elt",
        "exp", "expm1", "factorial", "floor", "format_number", "from_json", "from_unixtime",
        "from_xml", "get_json_object",
        "json_array_length", "json_object_keys", "ln", "log", "log10", "log1p", "log2",
        "luhn_check", "make_valid_utf8", "map_contains_key", "mask",
        "next_day", "nullif", "nullifzero", "parse_url", "quote", "radians", "rint", "round",
        "sec", "sentences", "sha2", "sign", "signum", "sin", "sinh", "split_part", "sqrt", "tan",
        "tanh", "to_binary", "to_csv", "to_json", "to_xml", "trunc", "date_trunc", "try_add",
        "try_divide", "try_mod", "try_multiply", "try_subtract", "try_to_binary", "try_to_date",
        "try_to_number", "try_to_timestamp", "try_make_timestamp_ntz", "try_url_decode", "try_validate_utf8",
        "try_element_at", "element_at", "get", "array_max", "array_min", "unhex", "url_decode",
        "url_encode", "validate_utf8", "is_valid_utf8", "width_bucket", "encode", "right",
        "regexp_substr", "jaro_winkler_similarity",
    ]),
];

fn rules() -> &'static HashMap<&'static str, Rule> {
    static RULE_OF: LazyLock<HashMap<&'static str, Rule>> = LazyLock::new(|| {
        RULES
            .iter()
            .flat_map(|(rule, names)| names.iter().map(move |n| (*n, *rule)))
            .collect()
    });
    &RULE_OF
}

/// Spark's rule for the function `name`, if the table has one.
pub fn rule(name: &str) -> Option<Rule> {
    rules().get(name).copied()
}

/// `call` (built for the Spark function `name` of `args`) with Spark's nullability.
pub fn apply(name: &str, args: &[Expr], call: Expr, schema: &DFSchema, ansi: bool) -> Result<Expr> {
    // (Spark's builders of hour, minute and second pass over all but their first argument.)
    let args = match name {
        "hour" | "minute" | "second" => &args[..args.len().min(1)],
        _ => args,
    };
    if let ("element_at" | "try_element_at" | "get", [array, index]) = (name, args)
        && matches!(
            array.get_type(schema)?,
            DataType::List(_) | DataType::LargeList(_)
        )
    {
        let fail = name == "element_at" && ansi;
        return array_item(call, array, index, name != "get", fail, schema);
    }
    // (A NaN or infinite number of seconds is NULL: Spark's SecondsToTimestamp.)
    if let ("timestamp_seconds", [seconds]) = (name, args)
        && matches!(
            seconds.get_type(schema)?,
            DataType::Float32 | DataType::Float64
        )
    {
        return with_nullability(call, true, schema);
    }
    let Some(mut rule) = rule(name) else {
        return Ok(call);
    };
    // (An interval divided: zero is an error, in every mode.)
    if name == "/"
        && let Some(a) = args.first()
        && matches!(
            a.get_type(schema)?,
            DataType::Interval(_) | DataType::Duration(_)
        )
    {
        rule = OfArguments;
    }
    // (`to_binary(x, 'base64')` is Spark's UnBase64, which fails on a bad value.)
    if name == "to_binary"
        && let Some(Expr::Literal(ScalarValue::Utf8(Some(format)), _)) = args.get(1).map(unwrapped)
        && format.eq_ignore_ascii_case("base64")
    {
        rule = OfArguments;
    }
    // (Of a date or timestamp they are casts between datetimes, which always answer.)
    if matches!(
        name,
        "to_date" | "to_timestamp" | "to_timestamp_ntz" | "to_timestamp_ltz" | "try_to_date"
    ) && let [x] = args
        && let t = x.get_type(schema)?
        && matches!(t, DataType::Date32 | DataType::Timestamp(..))
    {
        // (Spark's `to_timestamp_ntz` of a DATE is nullable all the same.)
        let nullable = x.nullable(schema)? || (name == "to_timestamp_ntz" && t == DataType::Date32);
        return with_nullability(call, nullable, schema);
    }
    // (`locate(substr, str, pos)`: a NULL position is 0, not NULL.)
    if name == "locate"
        && let [substr, text, _] = args
    {
        let nullable = substr.nullable(schema)? || text.nullable(schema)?;
        return with_nullability(call, nullable, schema);
    }
    // (`to_date(text)` and `to_timestamp(text)` are casts, whose nullability is their own.)
    if matches!(
        name,
        "to_date" | "to_timestamp" | "to_timestamp_ntz" | "to_timestamp_ltz"
    ) && args.len() == 1
    {
        return Ok(call);
    }
    // (Inside the values of array, map and struct constructors too.)
    let call = super::nested_nullability::apply(name, args, call, schema)?;
    // (Spark's ArrayInsert: NULL where the array or the position is, ArrayRepeat where the
    // count is; the item only goes in.)
    let args = match name {
        "array_insert" => &args[..args.len().min(2)],
        "array_repeat" => &args[args.len().min(1)..],
        _ => args,
    };
    let nullable = |e: &Expr| e.nullable(schema);
    let any = || -> Result<bool> {
        for a in args {
            if nullable(a)? {
                return Ok(true);
            }
        }
        implicit_cast_may_fail(&call, schema)
    };
    let spark = match rule {
        Never => false,
        Always => true,
        OfArguments => any()? || implicit_cast_may_be_null(name, args, schema)?,
        OfArgumentsInAnsi => !ansi || any()? || implicit_cast_may_be_null(name, args, schema)?,
        OfArgumentsAndItems => {
            let items = args.iter().try_fold(false, |acc, a| -> Result<bool> {
                Ok(acc
                    || matches!(a.get_type(schema)?, DataType::List(f) | DataType::LargeList(f)
                        if f.is_nullable()))
            })?;
            items || any()?
        }
        OfDates(n) => {
            let text = args
                .iter()
                .take(n)
                .try_fold(false, |acc, a| -> Result<bool> {
                    Ok(acc || is_text(&a.get_type(schema)?))
                })?;
            text || any()? || implicit_cast_may_be_null(name, args, schema)?
        }
        Arithmetic => {
            // (Spark casts an integer literal to the narrowest DECIMAL that holds it, a cast it
            // calls nullable.)
            let integer_literal = args
                .iter()
                .any(|a| matches!(unwrapped(a), Expr::Literal(v, _) if v.data_type().is_integer()));
            any()?
                || ((!ansi || integer_literal)
                    && matches!(call.get_type(schema)?, DataType::Decimal128(..)))
        }
        OfBranches => {
            let values = branch_values(name, args);
            let no_else = name == "when" && args.len().is_multiple_of(2);
            let mut spark = no_else;
            for v in values {
                spark |= nullable(v)?;
            }
            spark
        }
        OfFirst => match args.first() {
            Some(a) => nullable(a)?,
            None => false,
        },
        OfAll => {
            let mut all = !args.is_empty();
            for a in args {
                all &= nullable(a)?;
            }
            all
        }
    };
    with_nullability(call, spark, schema)
}

/// The values a conditional function answers: `if(c, a, b)`'s `a` and `b`, `nvl2(x, a, b)`'s,
/// `when(c1, v1, c2, v2, ..., else)`'s values.
fn branch_values<'a>(name: &str, args: &'a [Expr]) -> Vec<&'a Expr> {
    match name {
        "when" => {
            let mut values: Vec<&Expr> = args.iter().skip(1).step_by(2).collect();
            if args.len() % 2 == 1
                && let Some(otherwise) = args.last()
            {
                values.push(otherwise);
            }
            values
        }
        _ => args.iter().skip(1).collect(),
    }
}

/// `case` (a CASE expression), nullable as Spark's CaseWhen is: where a branch's value or
/// the ELSE value may be NULL, or there is no ELSE (DataFusion leaves out branches it proves
/// are never taken, `WHEN false THEN ...`).
pub fn case(case: Expr, schema: &DFSchema) -> Result<Expr> {
    let Expr::Case(c) = &case else {
        return Ok(case);
    };
    let mut spark = c.else_expr.is_none();
    for v in c.when_then_expr.iter().map(|(_, v)| v).chain(&c.else_expr) {
        spark |= v.nullable(schema)?;
    }
    with_nullability(case, spark, schema)
}

/// `call`, an item of `array` (`element_at`, `get`, `array[index]`; `one_based` for
/// `element_at`, `fail` where an index out of bounds is an error), with Spark's nullability
/// (its `computeNullabilityFromArray`): of a constant index into `array(...)` the item's; of
/// an index out of bounds NULL only where it is no error; of an index of each row, where
/// the index fails, where the index or the array's items may be NULL.
pub fn array_item(
    call: Expr,
    array: &Expr,
    index: &Expr,
    one_based: bool,
    fail: bool,
    schema: &DFSchema,
) -> Result<Expr> {
    let items_nullable = match array.get_type(schema)? {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            f.is_nullable()
        }
        _ => true,
    };
    let nullable = if array.nullable(schema)? {
        true
    } else {
        match unwrapped(index) {
            Expr::Literal(v, _) if v.is_null() => !fail,
            // (Spark's cast of another index to INT may fail, so it is no constant to it.)
            Expr::Literal(v, _) if !v.data_type().is_integer() => true,
            Expr::Literal(v, _) => {
                let elements = match unwrapped(array) {
                    Expr::ScalarFunction(f) if f.name() == "make_array" => Some(&f.args),
                    _ => None,
                };
                match (elements, v.cast_to(&DataType::Int64)) {
                    (Some(elements), Ok(ScalarValue::Int64(Some(i)))) => {
                        let n = elements.len() as i64;
                        let position = match (one_based, i) {
                            (true, 0) => None,
                            (true, i) if i < 0 => Some(n + i),
                            (true, i) => Some(i - 1),
                            (false, i) => Some(i),
                        };
                        match position {
                            None => false,
                            Some(p) if (0..n).contains(&p) => {
                                elements[p as usize].nullable(schema)?
                            }
                            Some(_) => !fail,
                        }
                    }
                    _ => true,
                }
            }
            // (Not a column index's: Spark's computeNullabilityFromArray looks at the elements
            // only. A constant NULL index, which Spark folds to a NULL it calls never NULL, is
            // NULL here.)
            _ => {
                !fail
                    || items_nullable
                    || (index.column_refs().is_empty() && index.nullable(schema)?)
            }
        }
    };
    // A NULL index of a column where Spark declares the item never NULL: Spark's generated
    // code reads it as its type's default, -1 (a constant one it folds to NULL) (`a[NULL]` is INVALID_ARRAY_INDEX for -1, `element_at`
    // the last item).
    let call = match call {
        Expr::ScalarFunction(mut f)
            if !nullable
                && index.nullable(schema)?
                && !index.column_refs().is_empty()
                && f.args.get(1) == Some(index) =>
        {
            let default = ScalarValue::Int64(Some(-1)).cast_to(&index.get_type(schema)?)?;
            f.args[1] = datafusion::functions::core::expr_fn::coalesce(vec![
                index.clone(),
                Expr::Literal(default, None),
            ]);
            Expr::ScalarFunction(f)
        }
        call => call,
    };
    with_nullability(call, nullable, schema)
}

/// Whether Spark's value may be NULL for its arguments' types: where its implicit cast of an
/// argument may be (its `Cast.forceNullable`, even in ANSI mode: a fraction cast to INT
/// (`make_date`, `make_timestamp`'s fields) or to BIGINT (`hex(2.5D)`,
/// `kll_sketch_get_rank_bigint(s, 2.5D)`), `make_timestamp`'s seconds cast to DECIMAL(16,6)
/// from a BIGINT, a floating-point number or a wider decimal, text read as a timestamp), and
/// where Spark's form of the function for that type is nullable (binary, TIME).
fn implicit_cast_may_be_null(name: &str, args: &[Expr], schema: &DFSchema) -> Result<bool> {
    let any_of = |args: &[Expr], kind: &dyn Fn(&DataType) -> bool| -> Result<bool> {
        for a in args {
            if kind(&a.get_type(schema)?) {
                return Ok(true);
            }
        }
        Ok(false)
    };
    let any_fraction = |args: &[Expr]| {
        any_of(args, &|t| {
            matches!(
                t,
                DataType::Float32 | DataType::Float64 | DataType::Decimal128(..)
            )
        })
    };
    match name {
        "hex" | "make_date" => any_fraction(args),
        // (A TIMESTAMP_NTZ taken as a DATE: Spark's cast rule names TIMESTAMP only.)
        "date_add" | "date_sub" | "dateadd" | "day" | "dayofmonth" | "dayofweek" | "dayofyear"
        | "month" | "monthname" | "dayname" | "quarter" | "year" | "weekday" | "weekofyear"
        | "last_day" | "add_months" | "datediff" | "date_diff" => {
            let dates = if name.contains("diff") { 2 } else { 1 };
            any_of(&args[..args.len().min(dates)], &|t| {
                matches!(t, DataType::Timestamp(_, None))
            })
        }
        // (Text compared with a number, a date, ... is cast to its type.)
        "=" | "==" | "<" | "<=" | ">" | ">=" | "!=" | "<>" => {
            let other = |t: &DataType| !is_text(t) && !is_binary(t) && *t != DataType::Null;
            Ok(any_of(args, &|t| is_text(t))? && any_of(args, &other)?)
        }
        // (Spark's forms of binary values only, and of a TIME, call their value nullable.)
        "contains" | "startswith" | "endswith" => {
            Ok(!args.is_empty() && !any_of(args, &|t| !is_binary(t))?)
        }
        "hour" | "minute" | "second" => any_of(&args[..args.len().min(1)], &|t| {
            matches!(t, DataType::Time64(_) | DataType::Time32(_))
        }),
        // (A number of floating point as its DECIMAL; binary as text in a charset.)
        "to_char" | "to_varchar" => {
            let first = args.first().map(|a| a.get_type(schema)).transpose()?;
            let charset = args.get(1).is_some_and(|f| {
                matches!(unwrapped(f), Expr::Literal(ScalarValue::Utf8(Some(f)), _)
                    if !matches!(f.to_ascii_lowercase().as_str(), "hex" | "base64"))
            });
            Ok(match first {
                Some(DataType::Float32 | DataType::Float64) => true,
                Some(t) if is_binary(&t) => charset,
                _ => false,
            })
        }
        // (Text or a date read as a TIMESTAMP_NTZ.)
        "convert_timezone" => any_of(&args[args.len().saturating_sub(1)..], &|t| {
            is_text(t) || *t == DataType::Date32
        }),
        // (Its value cast to BIGINT, as a BIGINT sketch's items.)
        "kll_sketch_get_rank_bigint" => any_fraction(args.get(1..).unwrap_or(&[])),
        // (Spark's TIMESTAMP_NTZ of a date and a time is nullable; its TIMESTAMP is not.)
        "make_timestamp_ntz" if args.len() == 2 => Ok(true),
        n if n.starts_with("make_timestamp") && args.len() >= 6 => {
            if any_fraction(&args[..5])? {
                return Ok(true);
            }
            Ok(match args[5].get_type(schema)? {
                DataType::Int64 | DataType::UInt64 | DataType::Float32 | DataType::Float64 => true,
                DataType::Decimal128(p, s) => i16::from(p) - i16::from(s) > 10,
                _ => false,
            })
        }
        _ => Ok(false),
    }
}

/// `expr`, wrapped where its nullability is not `nullable`.
pub fn with_nullability(expr: Expr, nullable: bool, schema: &DFSchema) -> Result<Expr> {
    if expr.nullable(schema)? == nullable {
        return Ok(expr);
    }
    // (A wrapper of a wrapper: the inner one's value.)
    let inner = match expr {
        Expr::ScalarFunction(f)
            if (f.func.inner().as_ref() as &dyn std::any::Any).is::<SparkNullability>() =>
        {
            match <[Expr; 1]>::try_from(f.args) {
                Ok([e]) => e,
                Err(_) => return internal_err!("ember_nullability takes one argument"),
            }
        }
        e => e,
    };
    Ok(SparkNullability::udf(nullable).call(vec![inner]))
}

/// `e` without the wrappers [`with_nullability`] and the nested types of
/// [`super::nested_nullability`] may have put around it (for builders that
/// read a call's arguments, such as the literal lists of `array(...)`).
pub fn unwrapped(e: &Expr) -> &Expr {
    use super::nested_nullability::NestedType;
    match e {
        Expr::ScalarFunction(f)
            if (f.func.inner().as_ref() as &dyn std::any::Any).is::<SparkNullability>()
                || (f.func.inner().as_ref() as &dyn std::any::Any).is::<NestedType>() =>
        {
            f.args.first().map_or(e, unwrapped)
        }
        e => e,
    }
}

/// Whether a cast inside `call` (as a builder casts its arguments, Spark's implicit casts)
/// may answer NULL for a value, by Spark's rule.
fn implicit_cast_may_fail(call: &Expr, schema: &DFSchema) -> Result<bool> {
    call.exists(|e| {
        Ok(match e {
            // (Text: the casts a builder makes for other reasons never fail to NULL.)
            Expr::Cast(c) => {
                let from = c.expr.get_type(schema)?;
                is_text(&from) && cast_may_fail(&from, c.field.data_type())
            }
            Expr::TryCast(_) => true,
            _ => false,
        })
    })
}

/// Its argument, with the nullability Spark states. Cheap (its input is its output); a
/// NULL where it states none is an internal error rather than a corrupt batch.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SparkNullability {
    nullable: bool,
    signature: Signature,
}

impl SparkNullability {
    pub fn udf(nullable: bool) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            nullable,
            signature: Signature::any(1, Volatility::Immutable),
        }))
    }

    pub fn nullable(&self) -> bool {
        self.nullable
    }
}

impl ScalarUDFImpl for SparkNullability {
    fn name(&self) -> &str {
        if self.nullable {
            "ember_nullable"
        } else {
            "ember_not_null"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        match arg_types.first() {
            Some(t) => Ok(t.clone()),
            None => internal_err!("{} takes one argument", self.name()),
        }
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        match args.arg_fields.first() {
            Some(f) => Ok(Arc::new(f.as_ref().clone().with_nullable(self.nullable))),
            None => internal_err!("{} takes one argument", self.name()),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let Some(value) = args.args.into_iter().next() else {
            return internal_err!("{} takes one argument", self.name());
        };
        let nulls = match &value {
            ColumnarValue::Array(a) => a.null_count() > 0,
            ColumnarValue::Scalar(s) => s.is_null(),
        };
        if nulls && !self.nullable {
            return internal_err!("a value Spark never has as NULL is NULL");
        }
        Ok(value)
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct NullabilityMessage {
    #[prost(bool, tag = "1")]
    nullable: bool,
}

impl EncodedUdf for SparkNullability {
    const NAME: &'static str = "nullability";
    type Message = NullabilityMessage;

    fn to_message(&self) -> Option<NullabilityMessage> {
        Some(NullabilityMessage {
            nullable: self.nullable(),
        })
    }

    fn from_message(_name: &str, m: NullabilityMessage) -> Result<Arc<ScalarUDF>> {
        Ok(Self::udf(m.nullable))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_that_may_fail_are_spark_s() {
        assert!(cast_may_fail(&DataType::Utf8, &DataType::Int32));
        assert!(!cast_may_fail(&DataType::Int64, &DataType::Utf8));
        assert!(cast_may_fail(
            &DataType::Int64,
            &DataType::Decimal128(10, 2)
        ));
        assert!(!cast_may_fail(
            &DataType::Int32,
            &DataType::Decimal128(12, 2)
        ));
        assert!(cast_may_fail(&DataType::Float64, &DataType::Int64));
        assert!(!cast_may_fail(&DataType::Int64, &DataType::Int32));
        // Spark's rule names TIMESTAMP only: a date to a TIMESTAMP_NTZ and back may fail.
        let ltz = DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, Some("UTC".into()));
        let ntz = DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, None);
        assert!(!cast_may_fail(&DataType::Date32, &ltz));
        assert!(!cast_may_fail(&ltz, &DataType::Date32));
        assert!(cast_may_fail(&DataType::Date32, &ntz));
        assert!(cast_may_fail(&ntz, &DataType::Date32));
    }

    #[test]
    fn every_name_has_one_rule() {
        let listed: usize = RULES.iter().map(|(_, names)| names.len()).sum();
        assert_eq!(listed, rules().len());
    }
}
