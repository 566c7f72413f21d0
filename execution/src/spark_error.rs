//! Errors the way Spark reports them, shared by every layer.
//!
//! A [`SparkError`] is an error the way Spark reports it: an error class such as
//! `UNRESOLVED_COLUMN.WITH_SUGGESTION`, its SQLSTATE, message parameters and the family of JVM
//! exception that PySpark turns into `AnalysisException`, `ParseException`, ... The server
//! sends these fields to the client verbatim. Errors raised inside DataFusion execution (by
//! functions, readers, writers) travel as `DataFusionError::External(SparkError)` and are
//! recovered by the server ([`spark_error_from_datafusion`]).

use std::fmt;

use datafusion::error::DataFusionError;

/// The JVM exception family of an error; PySpark maps the class names to its exceptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Analysis,
    Parse,
    Arithmetic,
    NumberFormat,
    IllegalArgument,
    Unsupported,
    DateTime,
    ArrayIndexOutOfBounds,
    NoSuchElement,
    InvalidPlanInput,
    Runtime,
    /// `org.apache.spark.SparkException` (e.g. CATALOG_NOT_FOUND).
    Spark,
    /// A class (e.g. a data source's) that is not there.
    ClassNotFound,
    /// `org.apache.spark.SparkSQLException` (e.g. INVALID_HANDLE.SESSION_NOT_FOUND).
    SparkSql,
    /// `org.apache.spark.api.python.PythonException`: a Python UDF raised.
    Python,
    Internal,
}

impl ErrorKind {
    /// JVM class hierarchy, most specific first, as Spark sends it in the `classes` metadata.
    pub fn jvm_classes(self) -> &'static [&'static str] {
        const TAIL: [&str; 3] = [
            "java.lang.Exception",
            "java.lang.Throwable",
            "java.lang.Object",
        ];
        match self {
            ErrorKind::Analysis => &[
                "org.apache.spark.sql.AnalysisException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::Parse => &[
                "org.apache.spark.sql.catalyst.parser.ParseException",
                "org.apache.spark.sql.AnalysisException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::Arithmetic => &[
                "org.apache.spark.SparkArithmeticException",
                "java.lang.ArithmeticException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::NumberFormat => &[
                "org.apache.spark.SparkNumberFormatException",
                "java.lang.NumberFormatException",
                "java.lang.IllegalArgumentException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::IllegalArgument => &[
                "org.apache.spark.SparkIllegalArgumentException",
                "java.lang.IllegalArgumentException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::Unsupported => &[
                "org.apache.spark.SparkUnsupportedOperationException",
                "java.lang.UnsupportedOperationException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::DateTime => &[
                "org.apache.spark.SparkDateTimeException",
                "java.time.DateTimeException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::ArrayIndexOutOfBounds => &[
                "org.apache.spark.SparkArrayIndexOutOfBoundsException",
                "java.lang.ArrayIndexOutOfBoundsException",
                "java.lang.IndexOutOfBoundsException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::NoSuchElement => &[
                "org.apache.spark.SparkNoSuchElementException",
                "java.util.NoSuchElementException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::InvalidPlanInput => &[
                "org.apache.spark.sql.connect.common.InvalidPlanInput",
                "java.lang.IllegalArgumentException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::Runtime => &[
                "org.apache.spark.SparkRuntimeException",
                "java.lang.RuntimeException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::Spark => &["org.apache.spark.SparkException", TAIL[0], TAIL[1], TAIL[2]],
            ErrorKind::Python => &[
                "org.apache.spark.api.python.PythonException",
                "org.apache.spark.SparkException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::ClassNotFound => &[
                "org.apache.spark.SparkClassNotFoundException",
                "java.lang.ClassNotFoundException",
                "java.lang.ReflectiveOperationException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
            ErrorKind::Internal => &["org.apache.spark.SparkException", TAIL[0], TAIL[1], TAIL[2]],
            ErrorKind::SparkSql => &[
                "org.apache.spark.SparkSQLException",
                "java.sql.SQLException",
                TAIL[0],
                TAIL[1],
                TAIL[2],
            ],
        }
    }
}

/// An error as Spark reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct SparkError {
    pub kind: ErrorKind,
    /// Spark's error class, e.g. `TABLE_OR_VIEW_NOT_FOUND`.
    pub error_class: String,
    pub sql_state: String,
    /// The message without the `[CLASS]` prefix and SQLSTATE suffix.
    pub message: String,
    pub parameters: Vec<(String, String)>,
}

impl SparkError {
    pub fn new(
        kind: ErrorKind,
        error_class: &str,
        sql_state: &str,
        message: impl Into<String>,
        parameters: Vec<(&str, String)>,
    ) -> Self {
        Self {
            kind,
            error_class: error_class.to_string(),
            sql_state: sql_state.to_string(),
            message: message.into(),
            parameters: parameters
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }

    /// The full message the way Spark prints it: `[CLASS] message SQLSTATE: xxxxx`.
    pub fn full_message(&self) -> String {
        // An exception of the JVM without an error class (`require` failures), or one of
        // Spark's legacy errors, whose messages are shown bare.
        if self.error_class.is_empty() || self.error_class.starts_with("_LEGACY_ERROR_") {
            return self.message.clone();
        }
        if self.sql_state.is_empty() {
            return format!("[{}] {}", self.error_class, self.message);
        }
        format!(
            "[{}] {} SQLSTATE: {}",
            self.error_class, self.message, self.sql_state
        )
    }

    pub fn unresolved_column(name: &str, candidates: &[String]) -> Self {
        let quoted = quote_identifier(name);
        if candidates.is_empty() {
            return Self::new(
                ErrorKind::Analysis,
                "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                "42703",
                format!(
                    "A column, variable, or function parameter with name {quoted} cannot be resolved."
                ),
                vec![("objectName", quoted.clone())],
            );
        }
        let proposal = candidates
            .iter()
            .take(5)
            .map(|c| quote_identifier(c))
            .collect::<Vec<_>>()
            .join(", ");
        Self::new(
            ErrorKind::Analysis,
            "UNRESOLVED_COLUMN.WITH_SUGGESTION",
            "42703",
            format!(
                "A column, variable, or function parameter with name {quoted} cannot be resolved. Did you mean one of the following? [{proposal}]."
            ),
            vec![("objectName", quoted.clone()), ("proposal", proposal)],
        )
    }

    pub fn ambiguous_reference(name: &str, candidates: &[String]) -> Self {
        let quoted = quote_identifier(name);
        let list = candidates.join(", ");
        Self::new(
            ErrorKind::Analysis,
            "AMBIGUOUS_REFERENCE",
            "42704",
            format!("Reference {quoted} is ambiguous, could be: [{list}]."),
            vec![
                ("name", quoted.clone()),
                ("referenceNames", format!("[{list}]")),
            ],
        )
    }

    pub fn table_not_found(name: &str) -> Self {
        let quoted = quote_name_parts(name);
        let search_path = "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]";
        Self::new(
            ErrorKind::Analysis,
            "TABLE_OR_VIEW_NOT_FOUND",
            "42P01",
            format!(
                "The table or view {quoted} cannot be found. Verify the spelling and correctness of the schema and catalog.\nIf you did not qualify the name with a schema, verify the current_schema() output, or qualify the name with the correct schema and catalog.\nTo tolerate the error on drop use DROP VIEW IF EXISTS or DROP TABLE IF EXISTS."
            ),
            vec![
                ("relationName", quoted.clone()),
                ("searchPath", search_path.to_string()),
            ],
        )
    }

    pub fn unresolved_routine(name: &str) -> Self {
        let quoted = quote_name_parts(name);
        let search_path = "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]";
        Self::new(
            ErrorKind::Analysis,
            "UNRESOLVED_ROUTINE",
            "42883",
            format!("Cannot resolve routine {quoted} on search path {search_path}."),
            vec![
                ("routineName", quoted.clone()),
                ("searchPath", search_path.to_string()),
            ],
        )
    }

    pub fn parse_syntax(error: &str, hint: &str) -> Self {
        Self::new(
            ErrorKind::Parse,
            "PARSE_SYNTAX_ERROR",
            "42601",
            format!("Syntax error at or near {error}{hint}."),
            vec![("error", error.to_string()), ("hint", hint.to_string())],
        )
    }

    /// Spark's parser error for a statement nested too deeply (its parser's stack overflowed;
    /// Ember's nesting bound is `spark.ember.maxExpressionDepth`).
    pub fn too_complex_to_parse() -> Self {
        Self::new(
            ErrorKind::Parse,
            "FAILED_TO_PARSE_TOO_COMPLEX",
            "54001",
            "The statement, including potential SQL functions and referenced views, was too \
             complex to parse. To mitigate this error divide the statement into multiple, less \
             complex chunks.",
            vec![],
        )
    }

    /// Any other analysis error, with a Spark error class chosen by the caller.
    pub fn analysis(error_class: &str, sql_state: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Analysis, error_class, sql_state, message, vec![])
    }

    /// A map with a key twice under `spark.sql.mapKeyDedupPolicy=EXCEPTION`.
    pub fn duplicated_map_key(key: &str) -> Self {
        Self::new(
            ErrorKind::Runtime,
            "DUPLICATED_MAP_KEY",
            "23505",
            format!(
                "Duplicate map key {key} was found, please check the input data.\nIf you want to remove the duplicated keys, you can set \"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key inserted at last takes precedence."
            ),
            vec![
                ("key", key.to_string()),
                (
                    "mapKeyDedupPolicy",
                    "\"spark.sql.mapKeyDedupPolicy\"".to_string(),
                ),
            ],
        )
    }

    pub fn divide_by_zero() -> Self {
        Self::new(
            ErrorKind::Arithmetic,
            "DIVIDE_BY_ZERO",
            "22012",
            "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
            vec![("config", "\"spark.sql.ansi.enabled\"".to_string())],
        )
    }

    pub fn arithmetic_overflow(message: &str, alternative: &str) -> Self {
        let alt = if alternative.is_empty() {
            String::new()
        } else {
            format!(" Use '{alternative}' to tolerate overflow and return NULL instead.")
        };
        Self::new(
            ErrorKind::Arithmetic,
            "ARITHMETIC_OVERFLOW",
            "22003",
            format!(
                "{message}.{alt} If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error."
            ),
            vec![
                ("message", message.to_string()),
                ("alternative", alt.clone()),
                ("config", "\"spark.sql.ansi.enabled\"".to_string()),
            ],
        )
    }

    pub fn cast_invalid_input(value: &str, source: &str, target: &str) -> Self {
        Self::new(
            ErrorKind::NumberFormat,
            "CAST_INVALID_INPUT",
            "22018",
            format!(
                "The value '{value}' of the type \"{source}\" cannot be cast to \"{target}\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead."
            ),
            vec![
                ("expression", format!("'{value}'")),
                ("sourceType", format!("\"{source}\"")),
                ("targetType", format!("\"{target}\"")),
                ("ansiConfig", "\"spark.sql.ansi.enabled\"".to_string()),
            ],
        )
    }

    pub fn unsupported(what: impl fmt::Display) -> Self {
        Self::new(
            ErrorKind::Unsupported,
            "UNSUPPORTED_FEATURE",
            "0A000",
            format!("not supported: {what}"),
            vec![("feature", what.to_string())],
        )
    }

    /// A partitioned write or table whose every column is a partition column.
    pub fn all_partition_columns() -> Self {
        Self::new(
            ErrorKind::Analysis,
            "ALL_PARTITION_COLUMNS_NOT_ALLOWED",
            "KD005",
            "Cannot use all columns for partition columns.",
            vec![],
        )
    }

    /// Two columns of one name where names must be unique.
    pub fn column_already_exists(name: &str) -> Self {
        Self::new(
            ErrorKind::Analysis,
            "COLUMN_ALREADY_EXISTS",
            "42711",
            format!(
                "The column `{name}` already exists. Choose another name or rename the existing column."
            ),
            vec![("columnName", format!("`{name}`"))],
        )
    }

    /// A typed literal (`DATE '...'`, `X'...'`) whose text is no value of its type.
    pub fn invalid_typed_literal(kind: &str, text: &str) -> Self {
        Self::new(
            ErrorKind::Parse,
            "INVALID_TYPED_LITERAL",
            "42604",
            format!("The value of the typed literal \"{kind}\" is invalid: '{text}'."),
            vec![
                ("valueType", format!("\"{kind}\"")),
                ("value", format!("'{text}'")),
            ],
        )
    }

    /// A DECIMAL wider than Spark's 38 digits (`kind`: where it is raised).
    pub fn decimal_precision_exceeds_max(precision: impl fmt::Display, kind: ErrorKind) -> Self {
        Self::new(
            kind,
            "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
            "22003",
            format!("Decimal precision {precision} exceeds max precision 38."),
            vec![
                ("precision", precision.to_string()),
                ("maxPrecision", "38".into()),
            ],
        )
    }

    /// A number of buckets out of Spark's range (`kind`: SQL raises it as a parse error).
    pub fn invalid_bucket_count(n: i64, kind: ErrorKind) -> Self {
        Self::new(
            kind,
            "INVALID_BUCKET_COUNT",
            "22003",
            format!(
                "Number of buckets should be greater than 0 but less than or equal to \
                 bucketing.maxBuckets (`100000`). Got `{n}`."
            ),
            vec![],
        )
    }

    /// A partition transform other than `bucket` (`years(ts)`), which Spark's session catalog
    /// refuses.
    pub fn unsupported_partition_transform(shown: &str) -> Self {
        Self::new(
            ErrorKind::Unsupported,
            "UNSUPPORTED_PARTITION_TRANSFORM",
            "0A000",
            format!(
                "Unsupported partition transform: `{shown}`. The supported transforms are \
                 `identity`, `bucket`, and `clusterBy`. Ensure your transform expression uses \
                 one of these."
            ),
            vec![],
        )
    }

    pub fn multiple_bucket_transforms() -> Self {
        Self::new(
            ErrorKind::Unsupported,
            "UNSUPPORTED_FEATURE.MULTIPLE_BUCKET_TRANSFORMS",
            "0A000",
            "The feature is not supported: Multiple bucket TRANSFORMs.",
            vec![],
        )
    }

    pub fn invalid_plan(message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::InvalidPlanInput,
            "INTERNAL_ERROR",
            "XX000",
            message,
            vec![],
        )
    }

    pub fn illegal_argument(error_class: &str, message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::IllegalArgument,
            error_class,
            "22023",
            message,
            vec![],
        )
    }
}

impl fmt::Display for SparkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.full_message())
    }
}

impl std::error::Error for SparkError {}

/// The result of the steps that raise Spark's errors directly (option checks, schema
/// inference, reading values).
pub type SparkResult<T> = Result<T, SparkError>;

impl From<DataFusionError> for SparkError {
    fn from(e: DataFusionError) -> Self {
        spark_error_from_datafusion(&e)
    }
}

impl From<arrow::error::ArrowError> for SparkError {
    fn from(e: arrow::error::ArrowError) -> Self {
        spark_error_from_arrow(&e)
    }
}

/// Spark's ordinal of the `i`-th (0-based) argument or column in messages: `first`, `second`,
/// `third`, then `4th`, `5th`, ...
pub fn ordinal_number(i: usize) -> String {
    match i {
        0 => "first".into(),
        1 => "second".into(),
        2 => "third".into(),
        i => format!("{}th", i + 1),
    }
}

/// Quote a single identifier the way Spark prints it: `` `name` ``.
pub fn quote_identifier(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Quote a possibly dotted name part by part: `` `db`.`t` ``.
pub fn quote_name_parts(name: &str) -> String {
    name.split('.')
        .map(quote_identifier)
        .collect::<Vec<_>>()
        .join(".")
}

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

fn spark_error_from_arrow(e: &arrow::error::ArrowError) -> SparkError {
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
        // (Spark's malformed dates and timestamps are DateTimeExceptions.)
        ArrowError::CastError(msg) | ArrowError::ParseError(msg)
            if msg.contains(" of Date32 type") || msg.contains(" of Timestamp(") =>
        {
            SparkError::new(
                ErrorKind::DateTime,
                "CAST_INVALID_INPUT",
                "22018",
                msg.clone(),
                vec![],
            )
        }
        // (and malformed booleans SparkRuntimeExceptions).
        ArrowError::CastError(msg) | ArrowError::ParseError(msg)
            if msg.contains(" of Boolean type") =>
        {
            SparkError::new(
                ErrorKind::Runtime,
                "CAST_INVALID_INPUT",
                "22018",
                msg.clone(),
                vec![],
            )
        }
        ArrowError::CastError(msg) | ArrowError::ParseError(msg) => SparkError::new(
            ErrorKind::NumberFormat,
            "CAST_INVALID_INPUT",
            "22018",
            msg.clone(),
            vec![],
        ),
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

/// Wrap a Spark error so that it can travel through DataFusion execution.
pub fn to_datafusion(e: SparkError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
