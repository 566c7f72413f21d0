//! Spark's errors for the failures of DataFusion and arrow-rs: planning refusals (operand
//! types of no common type, nested aggregates), execution failures of their functions (map
//! keys, bit positions, date overflows), readers' malformed input and the memory pool's
//! refusals, matched by kind and by the messages those crates give.

use datafusion::error::DataFusionError;

use super::{ErrorKind, SparkError};

/// Map a DataFusion error (planning or execution) to the closest Spark error.
pub fn spark_error_from_datafusion(e: &DataFusionError) -> SparkError {
    use arrow::error::ArrowError;
    match e {
        DataFusionError::External(inner) => {
            if let Some(spark) = inner.downcast_ref::<SparkError>() {
                return spark.clone();
            }
            if let Some(df) = inner.downcast_ref::<DataFusionError>() {
                return spark_error_from_datafusion(df);
            }
            if let Some(arrow) = inner.downcast_ref::<ArrowError>() {
                return spark_error_from_arrow(arrow);
            }
            internal(e)
        }
        DataFusionError::ArrowError(arrow, _) => spark_error_from_arrow(arrow),
        DataFusionError::Context(_, inner) => spark_error_from_datafusion(inner),
        DataFusionError::Shared(inner) => spark_error_from_datafusion(inner),
        DataFusionError::Diagnostic(_, inner) => spark_error_from_datafusion(inner),
        DataFusionError::Collection(errors) => match errors.first() {
            Some(first) => spark_error_from_datafusion(first),
            None => internal(e),
        },
        DataFusionError::NotImplemented(msg) => SparkError::unsupported(msg),
        DataFusionError::SchemaError(..) | DataFusionError::Plan(..) => {
            let msg = e.strip_backtrace();
            if let Some(error) = data_diff_types(&msg) {
                return error;
            }
            let class = if msg.contains("Aggregate function calls cannot be nested") {
                ("NESTED_AGGREGATE_FUNCTION", "42607")
            } else if msg.contains("No function matches the given name and argument types")
                || msg.contains("does not support type")
            {
                ("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09")
            } else if let Some(class) = type_mismatch_class(&msg) {
                (class, "42K09")
            } else if msg.contains("must be a literal") && msg.contains("Percentile value") {
                ("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "42K09")
            } else {
                ("INTERNAL_ERROR", "XX000")
            };
            SparkError::new(ErrorKind::Analysis, class.0, class.1, msg, vec![])
        }
        DataFusionError::ResourcesExhausted(_) => {
            let msg = crate::memory::exhausted_message(e).unwrap_or_else(|| e.strip_backtrace());
            // Spark's refusal of memory (SparkOutOfMemoryError).
            SparkError::new(
                ErrorKind::Runtime,
                "UNABLE_TO_ACQUIRE_MEMORY",
                "53200",
                msg,
                vec![],
            )
        }
        DataFusionError::ExecutionJoin(_) => internal(e),
        _ => {
            let msg = e.strip_backtrace();
            if msg.contains("Divide by zero") {
                SparkError::divide_by_zero()
            } else if let Some(key) = msg
                .split("map key must be unique, duplicate key found: ")
                .nth(1)
                .or_else(|| {
                    // (datafusion-spark's map functions.)
                    msg.split("[DUPLICATED_MAP_KEY] Duplicate map key ")
                        .nth(1)
                        .and_then(|rest| rest.split(" was found").next())
                })
            {
                SparkError::duplicated_map_key(key)
            } else if msg.contains("Unable to parse date from") {
                SparkError::new(
                    ErrorKind::DateTime,
                    "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION",
                    "22023",
                    msg,
                    vec![],
                )
            } else if let Some(spark) = runtime_error(&msg) {
                spark
            } else if msg.contains("Overflow") || msg.contains("overflow") {
                SparkError::arithmetic_overflow("overflow", "")
            } else if let Some(class) = type_mismatch_class(&msg) {
                SparkError::new(ErrorKind::Analysis, class, "42K09", msg, vec![])
            } else {
                internal(e)
            }
        }
    }
}

/// Spark's DATATYPE_MISMATCH class for DataFusion's refusals of operand types (operators
/// whose sides have no common type, a non-boolean condition or lambda, a function's argument
/// of the wrong kind), which Spark's analyzer reports before running anything.
fn type_mismatch_class(msg: &str) -> Option<&'static str> {
    let has = |s: &str| msg.contains(s);
    Some(
        if has("Cannot infer common argument type for logical boolean operation") {
            "DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE"
        } else if has("IS DISTINCT FROM Boolean") || has("IS NOT DISTINCT FROM Boolean") {
            // (`NOT x` of a non-boolean.)
            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
        } else if has("Cannot coerce arithmetic expression")
            || has("Cannot infer common argument type for comparison operation")
        {
            "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES"
        } else if has("Negation only supports")
            || has("Cannot infer common type for bitwise operation")
            || has("lambda must return boolean")
            || has("expects an array, got")
        {
            "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
        } else if has("to common types in CASE WHEN expression") {
            // (`if`, `nvl2`, CASE: branches of no common type.)
            "DATATYPE_MISMATCH.DATA_DIFF_TYPES"
        } else if has("Percentile value must be between 0.0 and 1.0") {
            "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE"
        } else {
            return None;
        },
    )
}

pub(super) fn spark_error_from_arrow(e: &arrow::error::ArrowError) -> SparkError {
    use arrow::error::ArrowError;
    match e {
        ArrowError::DivideByZero => SparkError::divide_by_zero(),
        ArrowError::ArithmeticOverflow(msg) => {
            let _ = msg;
            SparkError::arithmetic_overflow("overflow", "")
        }
        ArrowError::InvalidArgumentError(msg)
            if msg.contains("too large to store in a Decimal") =>
        {
            SparkError::new(
                ErrorKind::Arithmetic,
                "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                "22003",
                format!(
                    "{msg}. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and return NULL instead."
                ),
                vec![("config", "\"spark.sql.ansi.enabled\"".to_string())],
            )
        }
        ArrowError::ExternalError(inner) => {
            if let Some(spark) = inner.downcast_ref::<SparkError>() {
                spark.clone()
            } else if let Some(df) = inner.downcast_ref::<DataFusionError>() {
                spark_error_from_datafusion(df)
            } else {
                SparkError::new(
                    ErrorKind::Runtime,
                    "INTERNAL_ERROR",
                    "XX000",
                    e.to_string(),
                    vec![],
                )
            }
        }
        // A data file that does not parse (FAILFAST, or malformed beyond repair); arrow's CSV
        // reader reports values that do not fit their column with their line.
        ArrowError::CsvError(msg) | ArrowError::JsonError(msg) => SparkError::new(
            ErrorKind::Spark,
            "FAILED_READ_FILE.NO_HINT",
            "KD001",
            format!("Encountered error while reading file: {msg}"),
            vec![],
        ),
        ArrowError::ParseError(msg)
            if msg.starts_with("Error while parsing value") && msg.contains(" at line ") =>
        {
            SparkError::new(
                ErrorKind::Spark,
                "FAILED_READ_FILE.NO_HINT",
                "KD001",
                format!("Encountered error while reading file: {msg}"),
                vec![],
            )
        }
        // (Spark's malformed dates and timestamps are DateTimeExceptions, malformed booleans
        // SparkRuntimeExceptions, others NumberFormatExceptions.)
        ArrowError::CastError(msg) | ArrowError::ParseError(msg) => {
            let kind = if msg.contains(" of Date32 type") || msg.contains(" of Timestamp(") {
                ErrorKind::DateTime
            } else if msg.contains(" of Boolean type") {
                ErrorKind::Runtime
            } else {
                ErrorKind::NumberFormat
            };
            let mut error = match malformed_string_cast(msg) {
                Some((value, target)) => SparkError::cast_invalid_input(value, "STRING", &target),
                None => SparkError::new(kind, "CAST_INVALID_INPUT", "22018", msg.clone(), vec![]),
            };
            error.kind = kind;
            error
        }
        _ => {
            let msg = e.to_string();
            runtime_error(&msg).unwrap_or_else(|| {
                SparkError::new(ErrorKind::Runtime, "INTERNAL_ERROR", "XX000", msg, vec![])
            })
        }
    }
}

/// Spark's error for a failure of a DataFusion or datafusion-spark function whose message
/// names what Spark reports with a class of its own.
fn runtime_error(msg: &str) -> Option<SparkError> {
    let has = |s: &str| msg.contains(s);
    Some(
        if has("map key cannot be null")
            || has("Found unmasked nulls for non-nullable StructArray field \"key\"")
        {
            SparkError::new(
                ErrorKind::Runtime,
                "NULL_MAP_KEY",
                "2200E",
                "Cannot use null as map key.",
                vec![],
            )
        } else if has("keys and values lists in the same row must have equal lengths") {
            SparkError::new(
                ErrorKind::Runtime,
                "_LEGACY_ERROR_TEMP_2128",
                "",
                "The key array and value array of MapData must have the same length.",
                vec![],
            )
        } else if let Some(rest) = msg.split("bit_get: position ").nth(1) {
            // datafusion-spark's "bit_get: position P is out of bounds. Expected pos < N ...".
            let position = rest.split(' ').next().unwrap_or_default().to_string();
            let size = rest
                .split("pos < ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .unwrap_or("64")
                .to_string();
            SparkError::new(
                ErrorKind::IllegalArgument,
                "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE",
                "22023",
                format!(
                    "The value of parameter(s) `pos` in `bit_get` is invalid: expects an integer value in [0, {size}), but got {position}."
                ),
                vec![
                    ("parameter", "`pos`".to_string()),
                    ("functionName", "`bit_get`".to_string()),
                    ("upper", size),
                    ("invalidValue", position),
                ],
            )
        } else if has("Date arithmetic overflow") {
            SparkError::arithmetic_overflow("integer overflow", "")
        } else {
            return None;
        },
    )
}

fn internal(e: &DataFusionError) -> SparkError {
    SparkError::new(
        ErrorKind::Internal,
        "INTERNAL_ERROR",
        "XX000",
        e.strip_backtrace(),
        vec![],
    )
}

/// Spark's DATA_DIFF_TYPES for a function whose arguments must share one type (`coalesce` and
/// what is planned on it, `array`, `greatest`, `least`) when DataFusion found none, and
/// BINARY_OP_DIFF_TYPES for `nullif` (an `=` in Spark) of types that do not compare.
fn data_diff_types(msg: &str) -> Option<SparkError> {
    if !msg.contains("No function matches the given name and argument types") {
        return None;
    }
    let function = msg.split("unction '").nth(1)?.split('\'').next()?;
    let types = msg
        .split("argument types '")
        .nth(1)
        .and_then(|rest| rest.split_once('(')?.1.split(")'").next())
        .unwrap_or_default();
    let (class, message) = match function {
        "coalesce" | "greatest" | "least" | "make_array" => {
            let spark = if function == "make_array" {
                "array"
            } else {
                function
            };
            (
                "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
                format!("Input to `{spark}` should all be the same type, but it's [{types}]."),
            )
        }
        "nullif" => (
            "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES",
            format!(
                "the left and right operands of the binary operator have incompatible types ({types})."
            ),
        ),
        _ => return None,
    };
    Some(SparkError::new(
        ErrorKind::Analysis,
        class,
        "42K09",
        message,
        vec![],
    ))
}

/// The text and Spark's target type of arrow's "Cannot cast string 'x' to value of Int64 type"
/// (a cast DataFusion made, such as an implicit one), for Spark's CAST_INVALID_INPUT message.
fn malformed_string_cast(msg: &str) -> Option<(&str, String)> {
    let rest = msg.strip_prefix("Cannot cast string '")?;
    let at = rest.rfind("' to value of ")?;
    let (value, target) = (&rest[..at], &rest[at + "' to value of ".len()..]);
    let target = target.strip_suffix(" type")?;
    let spark = match target {
        "Int8" => "TINYINT".to_string(),
        "Int16" => "SMALLINT".to_string(),
        "Int32" => "INT".to_string(),
        "Int64" => "BIGINT".to_string(),
        "Float32" => "FLOAT".to_string(),
        "Float64" => "DOUBLE".to_string(),
        "Boolean" => "BOOLEAN".to_string(),
        "Date32" => "DATE".to_string(),
        t if t.starts_with("Timestamp(") => "TIMESTAMP".to_string(),
        t => {
            let (p, s) = t
                .strip_prefix("Decimal128(")?
                .strip_suffix(')')?
                .split_once(',')?;
            format!("DECIMAL({},{})", p.trim(), s.trim())
        }
    };
    Some((value, spark))
}
