//! Errors the way Spark reports them, shared by every layer.
//!
//! A [`SparkError`] is an error the way Spark reports it: an error class such as
//! `UNRESOLVED_COLUMN.WITH_SUGGESTION`, its SQLSTATE, message parameters and the family of JVM
//! exception that PySpark turns into `AnalysisException`, `ParseException`, ... The server
//! sends these fields to the client verbatim. Errors raised inside DataFusion execution (by
//! functions, readers, writers) travel as `DataFusionError::External(SparkError)` and are
//! recovered by the server ([`spark_error_from_datafusion`]).

mod engine;

use std::fmt;

use datafusion::error::DataFusionError;

use engine::spark_error_from_arrow;
pub use engine::spark_error_from_datafusion;

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

/// Wrap a Spark error so that it can travel through DataFusion execution.
pub fn to_datafusion(e: SparkError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
