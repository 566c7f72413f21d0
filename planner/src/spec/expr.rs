//! Unresolved expressions.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;

use super::Plan;

/// An unresolved expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A typed literal.
    Literal(ScalarValue),
    /// A column reference, by name parts (`a`, `t.a`, `s.field`), optionally pinned to the
    /// DataFrame (plan id) it was taken from.
    Attribute {
        name: Vec<String>,
        plan_id: Option<i64>,
    },
    /// `*` or `t.*`, optionally pinned to a DataFrame.
    Star {
        target: Option<Vec<String>>,
        plan_id: Option<i64>,
    },
    /// `*` or `t.*` without some columns (`SELECT * EXCEPT (a, b)`).
    StarExcept {
        target: Option<Vec<String>>,
        except: Vec<Vec<String>>,
    },
    /// Columns whose names match a regular expression (`df.colRegex`, or a backquoted regex).
    Regex {
        pattern: String,
        plan_id: Option<i64>,
    },
    /// A function or operator call by Spark name (`+`, `==`, `upper`, `count`, ...).
    Function(Box<FunctionCall>),
    /// `expr AS name`, or `expr AS (a, b)` for generators.
    Alias {
        expr: Box<Expr>,
        names: Vec<String>,
        metadata: Option<String>,
    },
    Cast {
        expr: Box<Expr>,
        to: DataType,
        mode: CastMode,
        /// Spark's name for the target type as the user wrote it (for column names).
        type_name: String,
    },
    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`.
    Case {
        operand: Option<Box<Expr>>,
        branches: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    /// A sort order: only meaningful inside sorts and window specifications.
    SortOrder(Box<SortOrder>),
    /// A window function application.
    Window(Box<WindowSpec>),
    /// `expr[key]`, `expr.field`.
    ExtractValue {
        child: Box<Expr>,
        extraction: Box<Expr>,
    },
    /// `withField` / `dropFields`.
    UpdateFields {
        expr: Box<Expr>,
        field: Vec<String>,
        value: Option<Box<Expr>>,
    },
    /// `x -> f(x)`.
    Lambda {
        function: Box<Expr>,
        args: Vec<String>,
    },
    LambdaVariable(Vec<String>),
    /// `name => value` in a function call.
    NamedArgument {
        name: String,
        value: Box<Expr>,
    },
    ScalarSubquery(Box<Plan>),
    Exists {
        plan: Box<Plan>,
        negated: bool,
    },
    InSubquery {
        expr: Box<Expr>,
        plan: Box<Plan>,
        negated: bool,
    },
    /// `expr [NOT] IN (list)`.
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    /// `expr [NOT] BETWEEN low AND high`.
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    /// A typed SQL parameter marker left unbound.
    Parameter(String),
    /// A call of a Python function the client sent (`udf`, `pandas_udf`, ...).
    PythonUdf(Box<PythonUdfCall>),
}

/// A Python function: what `udf`/`pandas_udf` build and `spark.udf.register` names.
#[derive(Debug, Clone, PartialEq)]
pub struct PythonUdf {
    pub name: String,
    pub function: ember_execution::python::PythonFunction,
    /// The declared return type.
    pub output_type: DataType,
    pub deterministic: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PythonUdfCall {
    pub udf: PythonUdf,
    pub args: Vec<Expr>,
}

/// The name prefix of a partition transform's call (`__partition_transform_years`): the
/// transforms of `writeTo().partitionedBy()`, which are not functions.
pub const PARTITION_TRANSFORM: &str = "__partition_transform_";

/// The call SQL's `x [NOT] LIKE ANY|ALL ('p1', ...)` of text patterns becomes (Spark's
/// `LikeAny`, `NotLikeAll`, ...): the kind (`likeany`, `notlikeall`, ...), the value, then
/// the patterns.
pub const QUANTIFIED_LIKE: &str = "__quantified_like";

#[derive(Debug, Clone, PartialEq)]
pub struct FunctionCall {
    /// The name as written; resolution is case-insensitive.
    pub name: String,
    pub args: Vec<Expr>,
    pub distinct: bool,
    /// `FILTER (WHERE ...)` on an aggregate.
    pub filter: Option<Expr>,
    /// `IGNORE NULLS` on first/last/lag/lead/nth_value.
    pub ignore_nulls: Option<bool>,
    /// Whether this call came from an operator (`a + b`) rather than a named call.
    pub is_operator: bool,
}

impl FunctionCall {
    /// A plain call by name: no DISTINCT, FILTER or null treatment.
    pub fn new(name: &str, args: Vec<Expr>) -> Self {
        Self {
            name: name.to_string(),
            args,
            distinct: false,
            filter: None,
            ignore_nulls: None,
            is_operator: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastMode {
    /// Follows `spark.sql.ansi.enabled`.
    Default,
    Ansi,
    Legacy,
    Try,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SortOrder {
    pub expr: Expr,
    pub ascending: bool,
    /// `None` means Spark's default: NULLS FIRST for ascending, NULLS LAST for descending.
    pub nulls_first: Option<bool>,
}

impl SortOrder {
    pub fn nulls_first(&self) -> bool {
        self.nulls_first.unwrap_or(self.ascending)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct WindowSpec {
    pub function: Expr,
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<SortOrder>,
    pub frame: Option<WindowFrame>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WindowFrame {
    pub rows: bool,
    pub lower: FrameBound,
    pub upper: FrameBound,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FrameBound {
    CurrentRow,
    UnboundedPreceding,
    UnboundedFollowing,
    /// Offset relative to the current row: negative is preceding.
    Value(Expr),
}

impl Expr {
    /// Whether `pred` holds for this expression or any expression inside it (subquery
    /// plans excluded).
    pub fn any(&self, pred: &dyn Fn(&Expr) -> bool) -> bool {
        if pred(self) {
            return true;
        }
        let sort = |o: &SortOrder| o.expr.any(pred);
        match self {
            Expr::Literal(_)
            | Expr::Attribute { .. }
            | Expr::Star { .. }
            | Expr::StarExcept { .. }
            | Expr::Regex { .. }
            | Expr::LambdaVariable(_)
            | Expr::ScalarSubquery(_)
            | Expr::Exists { .. }
            | Expr::Parameter(_) => false,
            Expr::Function(f) => {
                f.args.iter().any(|a| a.any(pred)) || f.filter.as_ref().is_some_and(|x| x.any(pred))
            }
            Expr::PythonUdf(f) => f.args.iter().any(|a| a.any(pred)),
            Expr::Alias { expr, .. }
            | Expr::Cast { expr, .. }
            | Expr::InSubquery { expr, .. }
            | Expr::NamedArgument { value: expr, .. }
            | Expr::Lambda { function: expr, .. } => expr.any(pred),
            Expr::Case {
                operand,
                branches,
                otherwise,
            } => {
                operand.as_ref().is_some_and(|x| x.any(pred))
                    || branches.iter().any(|(w, t)| w.any(pred) || t.any(pred))
                    || otherwise.as_ref().is_some_and(|x| x.any(pred))
            }
            Expr::SortOrder(o) => sort(o),
            Expr::Window(w) => {
                w.function.any(pred)
                    || w.partition_by.iter().any(|x| x.any(pred))
                    || w.order_by.iter().any(sort)
            }
            Expr::ExtractValue { child, extraction } => child.any(pred) || extraction.any(pred),
            Expr::UpdateFields { expr, value, .. } => {
                expr.any(pred) || value.as_ref().is_some_and(|x| x.any(pred))
            }
            Expr::InList { expr, list, .. } => expr.any(pred) || list.iter().any(|x| x.any(pred)),
            Expr::Between {
                expr, low, high, ..
            } => expr.any(pred) || low.any(pred) || high.any(pred),
        }
    }

    /// Whether this expression calls the function `name` (case-insensitive).
    pub fn calls(&self, name: &str) -> bool {
        self.any(&|e| matches!(e, Expr::Function(f) if f.name.eq_ignore_ascii_case(name)))
    }

    pub fn attribute(name: &str) -> Expr {
        Expr::Attribute {
            name: vec![name.to_string()],
            plan_id: None,
        }
    }

    pub fn function(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Function(Box::new(FunctionCall::new(name, args)))
    }

    pub fn operator(name: &str, args: Vec<Expr>) -> Expr {
        Expr::Function(Box::new(FunctionCall {
            name: name.to_string(),
            args,
            distinct: false,
            filter: None,
            ignore_nulls: None,
            is_operator: true,
        }))
    }

    pub fn alias(self, name: &str) -> Expr {
        Expr::Alias {
            expr: Box::new(self),
            names: vec![name.to_string()],
            metadata: None,
        }
    }

    pub fn literal(value: ScalarValue) -> Expr {
        Expr::Literal(value)
    }
}
