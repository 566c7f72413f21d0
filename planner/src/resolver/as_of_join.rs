//! `df._joinAsOf(...)` (Spark Connect's AsOfJoin): every left row joined with the right row of
//! equal keys whose as-of value is the closest before it (`backward`), after it (`forward`)
//! or either side (`nearest`), within a tolerance. Spark's conditions (`AsOfJoin.makeAsOfCond`:
//! the tolerance bound is strict when exact matches are not allowed) and ordering
//! (`makeOrderingExpr`) are resolved as Spark expressions; planned as a join on the keys and
//! those conditions, then the best match of each left row (numbered by a PartitionIds node)
//! kept by a window's `row_number()`. Among equally close rows the last one wins, as Spark's
//! `min_by` keeps the last of equal values.

use arrow::datatypes::DataType;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::functions_window::expr_fn::row_number;
use datafusion::logical_expr::{
    Expr, ExprFunctionExt, ExprSchemable, JoinType, LogicalPlan, LogicalPlanBuilder, lit,
};

use super::Resolver;
use super::names::column_exprs;
use crate::error::{ErrorKind, PlanError, PlanResult, SparkError};
use crate::logical::partition_ids::{PARTITION_ID, PartitionIdsNode, ROW_IN_PARTITION};
use crate::spec::{self, AsOfJoin, Expr as SExpr};

/// The partition and position of each right row (see [`Resolver::numbered`]).
pub(super) const RIGHT_PARTITION: &str = "__ember_right_partition_id";
pub(super) const RIGHT_ROW: &str = "__ember_right_row_in_partition";
/// Each left row's rank among its candidate matches.
pub(super) const MATCH_RANK: &str = "__ember_match";

// Names the as-of values and the tolerance stand under while Spark's expressions over them
// are resolved.
const LEFT: &str = "__ember_as_of_left";
const RIGHT: &str = "__ember_as_of_right";
const TOLERANCE: &str = "__ember_as_of_tolerance";

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Backward,
    Forward,
    Nearest,
}

impl Resolver<'_> {
    pub(crate) fn resolve_as_of_join(&mut self, j: &AsOfJoin) -> PlanResult<LogicalPlan> {
        let left = self.resolve(&j.left)?;
        let right = self.resolve(&j.right)?;
        let right = self.distinct_from(&left, right)?;
        // Checked in Spark's order: the join type's name, the direction, the tolerance.
        let join_type = spark_join_type(&j.join_type)?;
        let direction = match j.direction.to_ascii_lowercase().as_str() {
            "backward" => Direction::Backward,
            "forward" => Direction::Forward,
            "nearest" => Direction::Nearest,
            _ => {
                return Err(SparkError::analysis(
                    "AS_OF_JOIN.UNSUPPORTED_DIRECTION",
                    "42604",
                    format!(
                        "Invalid as-of join. Unsupported as-of join direction '{}'. Supported as-of join direction include: 'forward', 'backward', 'nearest'.",
                        j.direction
                    ),
                )
                .into());
            }
        };
        let tolerance = j
            .tolerance
            .as_ref()
            .map(|t| self.constant_tolerance(t))
            .transpose()?;
        let join_type = match join_type {
            "Inner" => JoinType::Inner,
            "LeftOuter" => JoinType::Left,
            other => {
                return Err(SparkError::illegal_argument(
                    "",
                    format!("requirement failed: Unsupported as-of join type {other}"),
                )
                .into());
            }
        };
        if let Some(t) = &tolerance
            && negative_or_null(&t.1)
        {
            return Err(SparkError::analysis(
                "AS_OF_JOIN.TOLERANCE_IS_NON_NEGATIVE",
                "42604",
                "Invalid as-of join. The input argument `tolerance` must be non-negative.",
            )
            .into());
        }
        let (l, l_name) = self.resolve_expr(&j.left_as_of, left.schema())?;
        let (r, r_name) = self.resolve_expr(&j.right_as_of, right.schema())?;
        // Spark orders the candidates by `l - r`: values without a difference fail there.
        let (lt, rt) = (l.get_type(left.schema())?, r.get_type(right.schema())?);
        if !subtractable(&lt) && !subtractable(&rt) {
            return Err(SparkError::analysis(
                "DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"({l_name} - {r_name})\" due to data type mismatch: the binary operator requires the input type (\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\" or \"INTERVAL\"), not \"{}\".",
                    crate::types::sql_name(&lt)
                ),
            )
            .into());
        }
        let mut condition = vec![];
        for name in &j.using {
            let lc = self.existing_column(left.schema(), name)?;
            let rc = self.existing_column(right.schema(), name)?;
            condition.push(Self::column(&lc).eq(Self::column(&rc)));
        }
        let outputs: Vec<Expr> =
            [column_exprs(left.schema()), column_exprs(right.schema())].concat();
        let joined = left.schema().join(right.schema())?;
        if let Some(c) = &j.condition {
            condition.push(self.resolve_expr(c, &joined)?.0);
        }
        let exact = j.allow_exact_matches;
        let (as_of, order) = self.as_of_condition(
            (l.clone(), r.clone()),
            tolerance.map(|(t, _)| t),
            exact,
            direction,
            &joined,
        )?;
        condition.extend(as_of);
        if direction == Direction::Nearest && exact && j.tolerance.is_none() {
            // (Every pair qualifies; a NULL distance is no match, as `min_by` skips it.)
            condition.push(l.is_not_null().and(r.is_not_null()));
        }
        // Each left row's identity, for choosing its best match.
        let left = PartitionIdsNode::plan(left)?;
        let right = self.numbered(right)?;
        let on = condition
            .into_iter()
            .reduce(Expr::and)
            .unwrap_or_else(|| lit(true));
        let best = row_number()
            .partition_by(vec![
                Self::column(PARTITION_ID),
                Self::column(ROW_IN_PARTITION),
            ])
            .order_by(vec![
                order.sort(true, false),
                Self::column(RIGHT_PARTITION).sort(false, false),
                Self::column(RIGHT_ROW).sort(false, false),
            ])
            .build()?
            .alias(MATCH_RANK);
        let plan = LogicalPlanBuilder::from(left)
            .join_on(right, join_type, vec![on])?
            .window(vec![best])?
            .filter(Self::column(MATCH_RANK).eq(lit(1u64)))?
            .project(outputs)?
            .build()?;
        Ok(plan)
    }

    /// `plan` with the partition of each row and its position in it, as [`RIGHT_PARTITION`]
    /// and [`RIGHT_ROW`].
    pub(super) fn numbered(&mut self, plan: LogicalPlan) -> PlanResult<LogicalPlan> {
        let mut columns: Vec<Expr> = column_exprs(plan.schema());
        columns.push(Self::column(PARTITION_ID).alias(RIGHT_PARTITION));
        columns.push(Self::column(ROW_IN_PARTITION).alias(RIGHT_ROW));
        Ok(LogicalPlanBuilder::from(PartitionIdsNode::plan(plan)?)
            .project(columns)?
            .build()?)
    }

    /// The tolerance's value: a constant (Spark fails on a column, which its Connect planner
    /// leaves unresolved).
    fn constant_tolerance(&mut self, t: &SExpr) -> PlanResult<(Expr, ScalarValue)> {
        let resolved = match self.resolve_expr(t, &DFSchema::empty()) {
            Ok((e, _)) => e,
            Err(PlanError::Spark(e)) if e.error_class.starts_with("UNRESOLVED_COLUMN") => {
                return Err(unresolved_tolerance());
            }
            Err(e) => return Err(e),
        };
        match datafusion::optimizer::simplify_expressions::ExprSimplifier::new(
            datafusion::optimizer::simplify_expressions::SimplifyContext::default(),
        )
        .simplify(resolved)?
        {
            Expr::Literal(v, meta) => Ok((Expr::Literal(v.clone(), meta), v)),
            _ => Err(unresolved_tolerance()),
        }
    }

    /// Spark's as-of conditions and the distance that orders the candidates, over the as-of
    /// values `l` and `r` resolved in `schema`.
    fn as_of_condition(
        &mut self,
        (l, r): (Expr, Expr),
        tolerance: Option<Expr>,
        exact: bool,
        direction: Direction,
        schema: &DFSchema,
    ) -> PlanResult<(Vec<Expr>, Expr)> {
        let call = |name: &str, a: SExpr, b: SExpr| {
            SExpr::Function(Box::new(spec::FunctionCall::new(name, vec![a, b])))
        };
        let var = |name: &str| SExpr::LambdaVariable(vec![name.to_string()]);
        let (lv, rv, tv) = (var(LEFT), var(RIGHT), var(TOLERANCE));
        let strict = |inclusive: &str, strict: &str| {
            if exact {
                inclusive.to_string()
            } else {
                strict.to_string()
            }
        };
        let mut conditions = vec![];
        match direction {
            Direction::Backward => {
                conditions.push(call(&strict(">=", ">"), lv.clone(), rv.clone()))
            }
            Direction::Forward => conditions.push(call(&strict("<=", "<"), lv.clone(), rv.clone())),
            Direction::Nearest if !exact => conditions.push(SExpr::Function(Box::new(
                spec::FunctionCall::new("not", vec![call("==", lv.clone(), rv.clone())]),
            ))),
            Direction::Nearest => {}
        }
        if tolerance.is_some() {
            let lower = call(
                &strict(">=", ">"),
                rv.clone(),
                call("-", lv.clone(), tv.clone()),
            );
            let upper = call(
                &strict("<=", "<"),
                rv.clone(),
                call("+", lv.clone(), tv.clone()),
            );
            match direction {
                Direction::Backward => conditions.push(lower),
                Direction::Forward => conditions.push(upper),
                Direction::Nearest => conditions.extend([lower, upper]),
            }
        }
        let order = match direction {
            Direction::Backward => call("-", lv.clone(), rv.clone()),
            Direction::Forward => call("-", rv.clone(), lv.clone()),
            Direction::Nearest => SExpr::Case {
                operand: None,
                branches: vec![(
                    call(">", lv.clone(), rv.clone()),
                    call("-", lv.clone(), rv.clone()),
                )],
                otherwise: Some(Box::new(call("-", rv, lv))),
            },
        };
        let scope = self.lambda_variables.len();
        self.lambda_variables.push((LEFT.to_string(), l));
        self.lambda_variables.push((RIGHT.to_string(), r));
        if let Some(t) = tolerance {
            self.lambda_variables.push((TOLERANCE.to_string(), t));
        }
        let resolved = (|| -> PlanResult<(Vec<Expr>, Expr)> {
            let conditions = conditions
                .iter()
                .map(|c| Ok(self.resolve_expr(c, schema)?.0))
                .collect::<PlanResult<Vec<_>>>()?;
            Ok((conditions, self.resolve_expr(&order, schema)?.0))
        })();
        self.lambda_variables.truncate(scope);
        resolved
    }
}

/// Spark's `JoinType(name)`: the name of the join type a string means, or
/// UNSUPPORTED_JOIN_TYPE.
fn spark_join_type(name: &str) -> PlanResult<&'static str> {
    Ok(match name.to_ascii_lowercase().replace('_', "").as_str() {
        "inner" => "Inner",
        "outer" | "full" | "fullouter" => "FullOuter",
        "leftouter" | "left" => "LeftOuter",
        "rightouter" | "right" => "RightOuter",
        "leftsemi" | "semi" => "LeftSemi",
        "leftanti" | "anti" => "LeftAnti",
        "cross" => "Cross",
        _ => {
            return Err(SparkError::analysis(
                "UNSUPPORTED_JOIN_TYPE",
                "0A000",
                format!(
                    "Unsupported join type '{name}'. Supported join types include: 'inner', 'outer', 'full', 'fullouter', 'full_outer', 'leftouter', 'left', 'left_outer', 'rightouter', 'right', 'right_outer', 'leftsemi', 'left_semi', 'semi', 'leftanti', 'left_anti', 'anti', 'cross'."
                ),
            )
            .into());
        }
    })
}

/// Whether values of a type have a difference (numbers, dates, timestamps, intervals).
fn subtractable(t: &DataType) -> bool {
    t.is_numeric()
        || matches!(
            t,
            DataType::Date32
                | DataType::Timestamp(..)
                | DataType::Duration(_)
                | DataType::Interval(_)
        )
}

/// What Spark answers for a tolerance that is not a constant.
fn unresolved_tolerance() -> PlanError {
    SparkError::new(
        ErrorKind::Spark,
        "INTERNAL_ERROR",
        "XX000",
        "Invalid call to dataType on unresolved object",
        vec![],
    )
    .into()
}

/// Whether a tolerance fails Spark's `tolerance >= 0` (NULL fails it too).
fn negative_or_null(v: &ScalarValue) -> bool {
    match v {
        _ if v.is_null() => return true,
        // (-0.0 is not below 0.0.)
        ScalarValue::Float32(Some(x)) => return *x < 0.0,
        ScalarValue::Float64(Some(x)) => return *x < 0.0,
        _ => {}
    }
    ScalarValue::new_zero(&v.data_type())
        .ok()
        .and_then(|zero| v.partial_cmp(&zero))
        .is_some_and(|o| o.is_lt())
}
