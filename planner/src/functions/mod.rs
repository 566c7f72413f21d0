//! Spark's function library as data: each Spark name maps to how it is built on DataFusion
//! (a DataFusion or `datafusion-spark` UDF, or one of Ember's own) and how Spark names the
//! resulting column. Modules group the table by family; `registry()` merges them once.

mod aggregate;
pub mod cast_nullability;
mod collect;
mod collection;
mod conditional;
mod datetime;
mod datetime_parse;
pub mod decimal;
mod decimal_batch;
mod decimal_sum;
pub(crate) use decimal_sum::DecimalSum;
pub mod fold;
mod format_string;
mod formats;
pub(crate) mod java_regex;
mod make_timestamp;
mod math;
pub mod native;
pub mod nested_nullability;
pub mod nullability;
mod ordered_set;
pub mod recompute;
pub(crate) use aggregate::{decimal_average, exact_percentile};
pub(crate) mod comparison;
pub(crate) mod operators;
mod pattern;
pub mod python;
pub mod python_agg;
mod reflect;
pub(crate) mod size_limit;
mod sketch;
mod spatial;
mod string;
mod text;
pub mod time;
mod time_windows;
pub mod timestamp_nanos;
mod to_binary;
mod to_char;
mod truncation;
pub mod udf;
mod udf_codec;
pub mod variant;
mod vector;
mod window;
pub use aggregate::CONNECT_PRODUCT;
pub use collect::{IN_INPUT_ORDER, input_order};
pub use window::DISTRIBUTED_SEQUENCE_ID;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use arrow::datatypes::DataType;
use datafusion::logical_expr::{AggregateUDF, Expr, ScalarUDF, WindowUDF};

use crate::error::{PlanResult, SparkError};
use crate::resolver::PlannerConfig;

/// The resolved arguments of a call, ready for a builder.
#[derive(Clone)]
pub struct FunctionInput<'a> {
    pub name: &'a str,
    pub args: Vec<Expr>,
    pub types: Vec<DataType>,
    pub distinct: bool,
    pub filter: Option<Expr>,
    pub ignore_nulls: Option<bool>,
    pub config: &'a PlannerConfig,
    /// For each argument, the column name it carries when it is a column or an alias
    /// (`struct(a, b)` names its fields after them).
    pub field_names: Vec<Option<String>>,
    /// The call as Spark shows it in errors (`sequence(true, 5)`), and each argument.
    pub shown: String,
    pub arg_names: Vec<String>,
    /// `WITHIN GROUP (ORDER BY ...)` of an aggregate.
    pub order_by: Vec<datafusion::logical_expr::expr::Sort>,
    /// Whether the input carries each row's partition and position (see
    /// `logical::partition_ids`), which seeded random functions draw by.
    pub partition_ids: bool,
}

impl FunctionInput<'_> {
    /// The call as Spark shows it in errors (its name where the resolver did not say).
    pub fn shown(&self) -> &str {
        if self.shown.is_empty() {
            self.name
        } else {
            &self.shown
        }
    }

    /// Argument `i` as Spark shows it in errors.
    pub fn arg_name(&self, i: usize) -> String {
        self.arg_names
            .get(i)
            .cloned()
            .or_else(|| self.field_names.get(i).cloned().flatten())
            .unwrap_or_default()
    }

    /// Fail unless the argument count is within `range`.
    pub fn arity(&self, min: usize, max: usize) -> PlanResult<()> {
        let n = self.args.len();
        if n < min || n > max {
            let expected = if min == max {
                min.to_string()
            } else if max == usize::MAX {
                format!("at least {min}")
            } else {
                format!("[{min}, {max}]")
            };
            return Err(self.wrong_num_args(expected));
        }
        Ok(())
    }

    /// Fail unless the argument count is one of `counts` (Spark lists them: `[2, 3, 6, 7]`).
    pub fn arity_of(&self, counts: &[usize]) -> PlanResult<()> {
        if counts.contains(&self.args.len()) {
            return Ok(());
        }
        let listed: Vec<String> = counts.iter().map(usize::to_string).collect();
        Err(self.wrong_num_args(format!("[{}]", listed.join(", "))))
    }

    fn wrong_num_args(&self, expected: String) -> crate::error::PlanError {
        wrong_num_args(self.name, &expected, self.args.len())
    }
}

/// Spark's WRONG_NUM_ARGS.WITHOUT_SUGGESTION: `name` called with `n` arguments where it takes
/// `expected` (`2`, `[3, 4]`).
pub(crate) fn wrong_num_args(name: &str, expected: &str, n: usize) -> crate::error::PlanError {
    // (Functions whose parameters have names: a call without arguments misses the first.)
    let required = match name.to_ascii_lowercase().as_str() {
        "explode" | "explode_outer" | "posexplode" | "posexplode_outer" => Some("collection"),
        "inline" | "inline_outer" | "mask" => Some("input"),
        _ => None,
    };
    if let (0, Some(parameter)) = (n, required) {
        return SparkError::new(
            crate::error::ErrorKind::Analysis,
            "REQUIRED_PARAMETER_NOT_FOUND",
            "4274K",
            format!(
                "Cannot invoke routine `{name}` because the parameter named `{parameter}` is required, but the routine call did not supply a value. Please update the routine call to supply an argument value (either positionally at index 0 or by name) and retry the query again."
            ),
            vec![
                ("routineName", format!("`{name}`")),
                ("parameterName", format!("`{parameter}`")),
                ("index", "0".into()),
            ],
        )
        .into();
    }
    {
        SparkError::new(
            crate::error::ErrorKind::Analysis,
            "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
            "42605",
            format!(
                "The `{name}` requires {expected} parameters but the actual number is {n}. Please, refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix."
            ),
            vec![
                ("functionName", format!("`{name}`")),
                ("expectedNum", expected.to_string()),
                ("actualNum", n.to_string()),
            ],
        )
        .into()
    }
}

pub type BuildFn = Arc<dyn Fn(FunctionInput) -> PlanResult<Expr> + Send + Sync>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Scalar,
    Aggregate,
    /// Ranking and offset functions that only exist with OVER.
    Window,
    /// Produces rows (explode); resolved by the relation resolver.
    Generator,
}

/// How Spark prints a call in a generated column name.
#[derive(Clone)]
pub enum Naming {
    /// `name(a, b)` with the name as the user wrote it (lower case).
    Call,
    /// `NAME(a, b)` with a fixed pretty name (e.g. `SQRT`, `POWER`).
    Fixed(&'static str),
    /// `(a op b)`.
    Infix(&'static str),
    /// `(op a)`.
    Prefix(&'static str),
    /// `name(a, b, ...)` as written, with the values Spark's analyzer gives omitted trailing
    /// parameters shown (`substr(s, 2, 2147483647)`): parameter `from + i` defaults to
    /// `values[i]`.
    Defaults {
        from: usize,
        values: &'static [&'static str],
    },
    Custom(fn(&str, &[String], bool) -> String),
    /// By the arguments' types after coercion (`to_char` of a date is `date_format(..)`);
    /// `name(a, b)` where the types are not known yet.
    Typed(fn(&str, &[String], &[DataType]) -> String),
}

#[derive(Clone)]
pub struct FunctionDef {
    pub kind: FunctionKind,
    pub build: BuildFn,
    pub naming: Naming,
}

impl FunctionDef {
    pub fn display(&self, written_name: &str, args: &[String], distinct: bool) -> String {
        match &self.naming {
            Naming::Call => {
                let d = if distinct { "DISTINCT " } else { "" };
                format!("{}({d}{})", written_name.to_lowercase(), args.join(", "))
            }
            Naming::Fixed(name) => format!("{name}({})", args.join(", ")),
            Naming::Infix(op) => format!("({})", args.join(&format!(" {op} "))),
            Naming::Prefix(op) => format!("({op} {})", args.join(", ")),
            Naming::Defaults { from, values } => {
                let given = args.len().checked_sub(*from).unwrap_or(values.len());
                let shown: Vec<&str> = args
                    .iter()
                    .map(String::as_str)
                    .chain(values.iter().skip(given).copied())
                    .collect();
                let d = if distinct { "DISTINCT " } else { "" };
                format!("{}({d}{})", written_name.to_lowercase(), shown.join(", "))
            }
            Naming::Custom(f) => f(written_name, args, distinct),
            Naming::Typed(_) => format!("{}({})", written_name.to_lowercase(), args.join(", ")),
        }
    }

    /// The column name of a call whose arguments have `types`.
    pub fn display_typed(
        &self,
        written_name: &str,
        args: &[String],
        types: &[DataType],
        distinct: bool,
    ) -> String {
        match &self.naming {
            Naming::Typed(f) => f(written_name, args, types),
            _ => self.display(written_name, args, distinct),
        }
    }
}

/// Whether a value is of an atomic type (no array, struct or map): what Spark reads as its text
/// where it wants a string (a unit, a pattern, a day name).
pub(crate) fn atomic(t: &DataType) -> bool {
    !matches!(
        t,
        DataType::List(_) | DataType::LargeList(_) | DataType::Struct(_) | DataType::Map(..)
    )
}

/// Whether a value is one Spark reads as a date or timestamp: a date, a timestamp, text, or a
/// NULL.
pub(crate) fn date_like(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Date32
            | DataType::Timestamp(..)
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Null
    )
}

/// A constant argument of another atomic type as the text Spark casts it to (`true`,
/// `2024-02-29`, `2024-03-10 12:34:56`, a binary's bytes), folded while planning; `None` for
/// text, a NULL, or a value of the rows.
pub(crate) fn constant_text(e: &Expr, t: &DataType, time_zone: &str) -> Option<String> {
    if !e.column_refs().is_empty() || is_null_constant(e) || !atomic(t) {
        return None;
    }
    let text = match t {
        DataType::Binary | DataType::LargeBinary => {
            datafusion::logical_expr::cast(e.clone(), DataType::Utf8)
        }
        _ => udf::CastToString::udf(time_zone).call(vec![e.clone()]),
    };
    match crate::resolver::fold_constants(text) {
        Ok(Expr::Literal(datafusion::common::ScalarValue::Utf8(Some(s)), _)) => Some(s),
        _ => None,
    }
}

/// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE unless argument `i` has one of `accepted` types
/// or is a NULL (which Spark casts).
pub(crate) fn check_type(
    f: &FunctionInput,
    i: usize,
    accepted: &[&str],
    ok: impl Fn(&DataType) -> bool,
) -> PlanResult<()> {
    require_type(f, i, accepted, |t| *t == DataType::Null || ok(t))
}

/// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE unless argument `i` has one of `accepted` types (a
/// NULL, of the type VOID, has none).
pub(crate) fn require_type(
    f: &FunctionInput,
    i: usize,
    accepted: &[&str],
    ok: impl Fn(&DataType) -> bool,
) -> PlanResult<()> {
    let Some(t) = f.types.get(i) else {
        return Ok(());
    };
    if ok(t) {
        return Ok(());
    }
    let expected = if accepted.len() == 1 {
        format!("\"{}\"", accepted[0])
    } else {
        format!(
            "({})",
            accepted
                .iter()
                .map(|a| format!("\"{a}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    };
    Err(crate::error::SparkError::analysis(
        "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: The {} parameter requires the {expected} type, however \"{}\" has the type \"{}\".",
            f.shown(),
            crate::error::ordinal_number(i),
            f.arg_name(i),
            crate::types::sql_name(t)
        ),
    )
    .into())
}

/// `CASE WHEN cond THEN then [ELSE otherwise] END`.
pub(crate) fn when(cond: Expr, then: Expr, otherwise: Option<Expr>) -> Expr {
    Expr::Case(datafusion::logical_expr::expr::Case::new(
        None,
        vec![(Box::new(cond), Box::new(then))],
        otherwise.map(Box::new),
    ))
}

/// Whether any of `exprs` is NULL (false for none).
pub(crate) fn any_null<'e>(exprs: impl IntoIterator<Item = &'e Expr>) -> Expr {
    exprs
        .into_iter()
        .map(|e| e.clone().is_null())
        .reduce(Expr::or)
        .unwrap_or_else(|| datafusion::logical_expr::lit(false))
}

/// Whether `e` is a NULL constant: a NULL literal, or casts of one (`CAST(NULL AS INT)`).
pub(crate) fn is_null_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(v, _) => v.is_null(),
        Expr::Cast(c) => is_null_constant(&c.expr),
        Expr::TryCast(c) => is_null_constant(&c.expr),
        Expr::Alias(a) => is_null_constant(&a.expr),
        _ => false,
    }
}

/// Spark's DATATYPE_MISMATCH.NON_FOLDABLE_INPUT when argument `i` reads a column (`input`:
/// the parameter's name in Spark's message, `type_name` its type), where Spark wants a constant.
pub(crate) fn require_foldable(
    f: &FunctionInput,
    i: usize,
    input: &str,
    type_name: &str,
) -> PlanResult<()> {
    match f.args.get(i) {
        Some(e) if !e.column_refs().is_empty() => Err(SparkError::analysis(
            "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: the input `{input}` should be a foldable \"{type_name}\" expression; however, got \"{}\".",
                f.shown(),
                f.arg_name(i)
            ),
        )
        .into()),
        _ => Ok(()),
    }
}

/// `value`, NULL where `cond` holds.
pub(crate) fn null_when(cond: Expr, value: Expr) -> Expr {
    when(
        cond,
        Expr::Literal(datafusion::common::ScalarValue::Null, None),
        Some(value),
    )
}

/// `value`, NULL when `x` is.
pub(crate) fn null_if_null(x: Expr, value: Expr) -> Expr {
    null_when(x.is_null(), value)
}

/// Every function Ember knows, by lower-case Spark name.
pub struct Registry {
    functions: HashMap<String, FunctionDef>,
}

impl Registry {
    pub fn get(&self, name: &str) -> Option<&FunctionDef> {
        self.functions.get(&name.to_ascii_lowercase())
    }

    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.functions.keys()
    }
}

pub fn registry() -> &'static Registry {
    static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
        let mut b = RegistryBuilder::default();
        operators::register(&mut b);
        conditional::register(&mut b);
        collection::register(&mut b);
        string::register(&mut b);
        formats::register(&mut b);
        math::register(&mut b);
        datetime::register(&mut b);
        truncation::register(&mut b);
        time_windows::register(&mut b);
        aggregate::register(&mut b);
        ordered_set::register(&mut b);
        window::register(&mut b);
        variant::register(&mut b);
        sketch::register(&mut b);
        spatial::register(&mut b);
        reflect::register(&mut b);
        time::register(&mut b);
        timestamp_nanos::register(&mut b);
        to_char::register(&mut b);
        to_binary::register(&mut b);
        text::register(&mut b);
        vector::register(&mut b);
        // (Last: it wraps functions registered above.)
        size_limit::register(&mut b);
        Registry {
            functions: b.functions,
        }
    });
    &REGISTRY
}

/// Collects table entries; the helpers keep each family's table to one line per function.
#[derive(Default)]
pub struct RegistryBuilder {
    functions: HashMap<String, FunctionDef>,
}

impl RegistryBuilder {
    pub fn add(&mut self, names: &[&str], kind: FunctionKind, naming: Naming, build: BuildFn) {
        for name in names {
            self.functions.insert(
                name.to_string(),
                FunctionDef {
                    kind,
                    build: build.clone(),
                    naming: naming.clone(),
                },
            );
        }
    }

    pub fn scalar(
        &mut self,
        names: &[&str],
        build: impl Fn(FunctionInput) -> PlanResult<Expr> + Send + Sync + 'static,
    ) {
        self.add(names, FunctionKind::Scalar, Naming::Call, Arc::new(build));
    }

    pub fn scalar_named(
        &mut self,
        names: &[&str],
        naming: Naming,
        build: impl Fn(FunctionInput) -> PlanResult<Expr> + Send + Sync + 'static,
    ) {
        self.add(names, FunctionKind::Scalar, naming, Arc::new(build));
    }

    /// A scalar function that is exactly a UDF call with `min..=max` arguments.
    pub fn udf(&mut self, names: &[&str], udf: Arc<ScalarUDF>, min: usize, max: usize) {
        self.udf_named(names, Naming::Call, udf, min, max);
    }

    pub fn udf_named(
        &mut self,
        names: &[&str],
        naming: Naming,
        udf: Arc<ScalarUDF>,
        min: usize,
        max: usize,
    ) {
        self.scalar_named(names, naming, move |f| {
            f.arity(min, max)?;
            Ok(udf.call(f.args))
        });
    }

    pub fn aggregate(
        &mut self,
        names: &[&str],
        build: impl Fn(FunctionInput) -> PlanResult<Expr> + Send + Sync + 'static,
    ) {
        self.add(
            names,
            FunctionKind::Aggregate,
            Naming::Call,
            Arc::new(build),
        );
    }

    pub fn add_named_aggregate(
        &mut self,
        names: &[&str],
        naming: Naming,
        build: impl Fn(FunctionInput) -> PlanResult<Expr> + Send + Sync + 'static,
    ) {
        self.add(names, FunctionKind::Aggregate, naming, Arc::new(build));
    }

    pub fn window(
        &mut self,
        names: &[&str],
        build: impl Fn(FunctionInput) -> PlanResult<Expr> + Send + Sync + 'static,
    ) {
        self.add(names, FunctionKind::Window, Naming::Call, Arc::new(build));
    }
}

/// DataFusion's scalar functions by their DataFusion name.
pub fn datafusion_scalar(name: &str) -> Option<Arc<ScalarUDF>> {
    static MAP: LazyLock<HashMap<String, Arc<ScalarUDF>>> = LazyLock::new(|| {
        datafusion::functions::all_default_functions()
            .into_iter()
            .chain(datafusion::functions_nested::all_default_nested_functions())
            .map(|f| (f.name().to_string(), f))
            .collect()
    });
    MAP.get(name).cloned()
}

/// The codec parts of Ember's own functions, one line per function type (see
/// `ember_execution::codec::EncodedUdf`).
pub fn codec_parts() -> Vec<Arc<dyn ember_execution::codec::CodecPart>> {
    use ember_execution::codec::{udaf_part, udf_part};
    vec![
        udf_part::<udf::CheckedArithmetic>(),
        udf_part::<udf::DoubleDivide>(),
        udf_part::<udf::IntegralDivide>(),
        udf_part::<udf::ArrayIndex>(),
        udf_part::<udf::RaiseError>(),
        udf_part::<udf::CastToString>(),
        udf_part::<native::NativeUdf>(),
        udf_part::<nullability::SparkNullability>(),
        udf_part::<nested_nullability::NestedType>(),
        udf_part::<decimal::DecimalDivide>(),
        udf_part::<decimal::DecimalExact>(),
        udf_part::<python::PythonScalarUdf>(),
        udaf_part::<python_agg::PythonAggUdf>(),
        udaf_part::<native::counter_diff::CounterDiff>(),
        udaf_part::<native::max_by::ByOrder>(),
        udaf_part::<decimal_sum::DecimalSum>(),
        udaf_part::<native::SketchAgg>(),
        udaf_part::<recompute::Recomputed>(),
        udf_codec::spark_functions_part(),
    ]
}

/// `datafusion-spark`'s Spark-compatible scalar functions by name.
pub fn spark_scalar(name: &str) -> Option<Arc<ScalarUDF>> {
    static MAP: LazyLock<HashMap<String, Arc<ScalarUDF>>> = LazyLock::new(|| {
        datafusion_spark::all_default_scalar_functions()
            .into_iter()
            .map(|f| (f.name().to_string(), f))
            .collect()
    });
    MAP.get(name).cloned()
}

pub fn datafusion_aggregate(name: &str) -> Option<Arc<AggregateUDF>> {
    static MAP: LazyLock<HashMap<String, Arc<AggregateUDF>>> = LazyLock::new(|| {
        datafusion::functions_aggregate::all_default_aggregate_functions()
            .into_iter()
            .map(|f| (f.name().to_string(), f))
            .collect()
    });
    MAP.get(name).cloned()
}

pub fn spark_aggregate(name: &str) -> Option<Arc<AggregateUDF>> {
    static MAP: LazyLock<HashMap<String, Arc<AggregateUDF>>> = LazyLock::new(|| {
        datafusion_spark::all_default_aggregate_functions()
            .into_iter()
            .map(|f| (f.name().to_string(), f))
            .collect()
    });
    MAP.get(name).cloned()
}

pub fn datafusion_window(name: &str) -> Option<Arc<WindowUDF>> {
    static MAP: LazyLock<HashMap<String, Arc<WindowUDF>>> = LazyLock::new(|| {
        datafusion::functions_window::all_default_window_functions()
            .into_iter()
            .map(|f| (f.name().to_string(), f))
            .collect()
    });
    MAP.get(name).cloned()
}

/// Look up a UDF that must exist (a missing one is a programming error reported as internal).
pub fn df_udf(name: &str) -> PlanResult<Arc<ScalarUDF>> {
    datafusion_scalar(name)
        .ok_or_else(|| crate::error::PlanError::Unsupported(format!("function {name}")))
}

pub fn sp_udf(name: &str) -> PlanResult<Arc<ScalarUDF>> {
    spark_scalar(name)
        .ok_or_else(|| crate::error::PlanError::Unsupported(format!("function {name}")))
}

/// Register a DataFusion UDF under Spark names if it exists in this DataFusion build.
pub(crate) fn add_df(
    b: &mut RegistryBuilder,
    names: &[&str],
    df_name: &str,
    min: usize,
    max: usize,
) {
    if let Some(udf) = datafusion_scalar(df_name) {
        b.udf(names, udf, min, max);
    }
}

pub(crate) fn add_df_named(
    b: &mut RegistryBuilder,
    names: &[&str],
    naming: Naming,
    df_name: &str,
    min: usize,
    max: usize,
) {
    if let Some(udf) = datafusion_scalar(df_name) {
        b.udf_named(names, naming, udf, min, max);
    }
}

pub(crate) fn add_spark(
    b: &mut RegistryBuilder,
    names: &[&str],
    spark_name: &str,
    min: usize,
    max: usize,
) {
    if let Some(udf) = spark_scalar(spark_name) {
        b.udf(names, udf, min, max);
    }
}

pub(crate) fn add_spark_named(
    b: &mut RegistryBuilder,
    names: &[&str],
    naming: Naming,
    spark_name: &str,
    min: usize,
    max: usize,
) {
    if let Some(udf) = spark_scalar(spark_name) {
        b.udf_named(names, naming, udf, min, max);
    }
}

/// The bucket of a row of a bucketed table, as Spark's: `pmod(hash(columns), num_buckets)`.
pub fn bucket_id(columns: Vec<Expr>, num_buckets: usize) -> Expr {
    let n = datafusion::logical_expr::lit(i32::try_from(num_buckets).unwrap_or(i32::MAX));
    let hash = native::NativeUdf::udf(native::Native::Murmur3).call(columns);
    ((hash % n.clone()) + n.clone()) % n
}
