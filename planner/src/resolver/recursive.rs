//! `WITH RECURSIVE`: a CTE `anchor UNION [ALL] step` whose step reads the rows the previous
//! step added, run by DataFusion's recursive query (a work table per CTE), under Spark's
//! limits on its levels and rows ([`RecursionLimitNode`](crate::logical::recursion)).

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::catalog::cte_worktable::CteWorkTable;
use datafusion::datasource::{provider_as_source, source_as_provider};
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder, cast};
use ember_execution::plan::shared_work_table::SharedWorkTable;

use super::Resolver;
use crate::error::{PlanResult, SparkError};
use crate::spec::{Plan, PlanNode, SetOpKind, SetOperation};

/// A recursive CTE whose anchor or step is being resolved.
pub(crate) struct WorkTable {
    name: String,
    /// The scan of the rows the previous step added; `None` while the anchor is resolved
    /// (which may not read them).
    scan: Option<LogicalPlan>,
    /// How many CTEs were in scope when it was bound (one defined after it, inside the step,
    /// of the same name, shadows it).
    depth: usize,
    /// How many times the step read it.
    reads: usize,
}

impl Resolver<'_> {
    /// A CTE of `WITH RECURSIVE`: `anchor UNION ALL step` (`step` `None` when its body is of
    /// another form, which may then not read itself).
    pub(crate) fn resolve_recursive_cte(
        &mut self,
        name: &str,
        anchor: &Plan,
        step: Option<&Plan>,
        all: bool,
    ) -> PlanResult<LogicalPlan> {
        let anchor_plan = self.with_work_table(name, None, |r| r.resolve(anchor))?.0;
        let Some(step) = step else {
            return Ok(anchor_plan);
        };
        let (step_plan, reads) = self.resolve_step(name, &anchor_plan, step, false)?;
        if reads == 0 {
            // A step that does not read the CTE: an ordinary union.
            return self.resolve(&Plan::new(PlanNode::SetOperation(SetOperation {
                left: Box::new(anchor.clone()),
                right: Box::new(step.clone()),
                kind: SetOpKind::Union,
                all,
                by_name: false,
                allow_missing_columns: false,
            })));
        }
        if !all {
            return Err(SparkError::analysis(
                "UNION_NOT_SUPPORTED_IN_RECURSIVE_CTE",
                "42836",
                "The UNION operator is not yet supported within recursive common table expressions (WITH clauses that refer to themselves, directly or indirectly). Please use UNION ALL instead.",
            )
            .into());
        }
        // A step that reads the CTE more than once reads it through scans that share the
        // work table's rows (DataFusion gives them to one scan).
        let shared = reads > 1;
        let step_plan = if shared {
            self.resolve_step(name, &anchor_plan, step, shared)?.0
        } else {
            step_plan
        };
        if misplaced_reference(&step_plan, false)? {
            return Err(SparkError::analysis(
                "INVALID_RECURSIVE_REFERENCE.PLACE",
                "42836",
                "Invalid recursive reference found inside WITH RECURSIVE clause. Recursive references cannot be used on the right side of left outer/semi/anti joins, on the left side of right outer joins, in full outer joins, in aggregates, window functions or sorts",
            )
            .into());
        }
        // The columns' nested types take the step's NULLs too, as Spark's union of the two
        // (`array(1)` and `array_append(path, n)` make an array of possibly NULL elements):
        // the anchor's rows and the work table then have those types.
        let (anchor_fields, step_fields) =
            (anchor_plan.schema().fields(), step_plan.schema().fields());
        let merged: Vec<DataType> = anchor_fields
            .iter()
            .zip(step_fields)
            .map(|(a, s)| with_nested_nulls_of(a.data_type(), s.data_type()))
            .collect();
        let (anchor_plan, step_plan) = if merged
            .iter()
            .zip(anchor_fields)
            .any(|(m, a)| m != a.data_type())
        {
            let columns: Vec<_> = anchor_fields
                .iter()
                .zip(merged)
                .map(|(a, m)| cast(Self::column(a.name()), m).alias(a.name().clone()))
                .collect();
            let anchor_plan = LogicalPlanBuilder::from(anchor_plan)
                .project(columns)?
                .build()?;
            let step_plan = self.resolve_step(name, &anchor_plan, step, shared)?.0;
            (anchor_plan, step_plan)
        } else {
            (anchor_plan, step_plan)
        };
        let step_plan = self.as_anchor_columns(&anchor_plan, step_plan)?;
        let levels = crate::logical::recursion::RecursionLimits {
            levels: self.config.cte_recursion_level_limit,
            rows: -1,
        };
        let step_plan = crate::logical::recursion::RecursionLimitNode::plan(step_plan, levels);
        // (A column is nullable where the anchor's or the step's is: the step's reads of the
        // CTE are, as in Spark.)
        let schema = anchor_plan.schema().clone();
        let nullable = schema
            .fields()
            .iter()
            .zip(step_plan.schema().fields())
            .map(|(a, s)| {
                let e = crate::functions::nullability::with_nullability(
                    Self::column(a.name()),
                    a.is_nullable() || s.is_nullable(),
                    &schema,
                )?;
                Ok(e.alias(a.name().clone()))
            })
            .collect::<PlanResult<Vec<_>>>()?;
        let anchor_plan = LogicalPlanBuilder::from(anchor_plan)
            .project(nullable)?
            .build()?;
        let plan = LogicalPlanBuilder::from(anchor_plan)
            .to_recursive_query(name.to_string(), step_plan, false)?
            .build()?;
        let rows = crate::logical::recursion::RecursionLimits {
            levels: -1,
            rows: self.config.cte_recursion_row_limit,
        };
        Ok(crate::logical::recursion::RecursionLimitNode::plan(
            plan, rows,
        ))
    }

    /// The step, reading the work table `name` of the anchor's columns (nullable, as
    /// DataFusion's SQL planner makes them: a step may add NULLs), and how many times it read
    /// it; `shared`: through scans that share the work table's rows.
    fn resolve_step(
        &mut self,
        name: &str,
        anchor: &LogicalPlan,
        step: &Plan,
        shared: bool,
    ) -> PlanResult<(LogicalPlan, usize)> {
        let fields: Vec<Field> = anchor
            .schema()
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let source = if shared {
            provider_as_source(Arc::new(SharedWorkTable::new(name, schema)))
        } else {
            provider_as_source(Arc::new(CteWorkTable::new(name, schema)))
        };
        let scan = LogicalPlanBuilder::scan(name, source, None)?.build()?;
        self.with_work_table(name, Some(scan), |r| r.resolve(step))
    }

    /// `resolve` with `name` standing for the work table `scan` (the anchor's `None`: an
    /// error), and how many times it was read.
    fn with_work_table(
        &mut self,
        name: &str,
        scan: Option<LogicalPlan>,
        resolve: impl FnOnce(&mut Self) -> PlanResult<LogicalPlan>,
    ) -> PlanResult<(LogicalPlan, usize)> {
        self.work_tables.push(WorkTable {
            name: name.to_string(),
            scan,
            depth: self.ctes.len(),
            reads: 0,
        });
        let resolved = resolve(self);
        let reads = self.work_tables.pop().map(|t| t.reads).unwrap_or_default();
        Ok((resolved?, reads))
    }

    /// The step's rows as the anchor's columns: its types (a type the anchor's is wider
    /// than is cast; others are Spark's CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE), its internal
    /// names.
    fn as_anchor_columns(
        &self,
        anchor: &LogicalPlan,
        step: LogicalPlan,
    ) -> PlanResult<LogicalPlan> {
        let (anchor_fields, step_fields) = (anchor.schema().fields(), step.schema().fields());
        if anchor_fields.len() != step_fields.len() {
            return Err(SparkError::analysis(
                "NUM_COLUMNS_MISMATCH",
                "42826",
                format!(
                    "UNION can only be performed on inputs with the same number of columns, but the first input has {} columns and the second input has {} columns.",
                    anchor_fields.len(),
                    step_fields.len()
                ),
            )
            .into());
        }
        let mut columns = Vec::with_capacity(anchor_fields.len());
        for (a, s) in anchor_fields.iter().zip(step_fields) {
            let (to, from) = (a.data_type(), s.data_type());
            // (The same type but for nullability or a nested field's name, or one the
            // anchor's is wider than.)
            let same = crate::types::sql_name(to) == crate::types::sql_name(from);
            let widened = super::coercion::common_type(&[to.clone(), from.clone()]);
            if !same && from != &DataType::Null && widened.as_ref() != Some(to) {
                // (A SparkException in Spark, raised where it merges the schemas.)
                return Err(SparkError::new(
                    crate::error::ErrorKind::Spark,
                    "CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE",
                    "42825",
                    format!(
                        "Failed to merge incompatible data types \"{}\" and \"{}\". Please check the data types of the columns being merged and ensure that they are compatible. If necessary, consider casting the columns to compatible data types before attempting the merge.",
                        crate::types::sql_name(to),
                        crate::types::sql_name(from)
                    ),
                    vec![
                        ("left", format!("\"{}\"", crate::types::sql_name(to))),
                        ("right", format!("\"{}\"", crate::types::sql_name(from))),
                    ],
                )
                .into());
            }
            columns.push(cast(Self::column(s.name()), to.clone()).alias(a.name().clone()));
        }
        Ok(LogicalPlanBuilder::from(step).project(columns)?.build()?)
    }

    /// The scan of the work table `name` stands for inside a recursive CTE, if any (Spark's
    /// INVALID_RECURSIVE_CTE in its anchor).
    pub(crate) fn work_table_scan(&mut self, name: &[String]) -> PlanResult<Option<LogicalPlan>> {
        let [single] = name else { return Ok(None) };
        let shadowed_from = self
            .find_cte(name)
            .map(|(position, _)| position + 1)
            .unwrap_or(0);
        let case_sensitive = self.config.case_sensitive;
        let Some(table) = self.work_tables.iter_mut().rev().find(|t| {
            if case_sensitive {
                t.name == *single
            } else {
                t.name.eq_ignore_ascii_case(single)
            }
        }) else {
            return Ok(None);
        };
        if shadowed_from > table.depth {
            return Ok(None);
        }
        let Some(scan) = &table.scan else {
            return Err(SparkError::analysis(
                "INVALID_RECURSIVE_CTE",
                "42836",
                "Invalid recursive definition found. Recursive queries must contain an UNION or an UNION ALL statement with 2 children. The first child needs to be the anchor term without any recursive references. Any top level inner CTE must not contain self references.",
            )
            .into());
        };
        table.reads += 1;
        Ok(Some(scan.clone()))
    }
}

/// Whether the step reads the work table where Spark does not allow it: in an aggregate,
/// window or sort, on the right side of a left outer, semi or anti join, on the left side of
/// a right outer join, or in a full outer join (`under`: below such a place).
fn misplaced_reference(plan: &LogicalPlan, under: bool) -> PlanResult<bool> {
    use datafusion::logical_expr::JoinType as J;
    match plan {
        LogicalPlan::TableScan(t) => {
            let provider = source_as_provider(&t.source)?;
            Ok(under
                && (provider.downcast_ref::<CteWorkTable>().is_some()
                    || provider.downcast_ref::<SharedWorkTable>().is_some()))
        }
        LogicalPlan::Aggregate(a) => misplaced_reference(&a.input, true),
        LogicalPlan::Window(w) => misplaced_reference(&w.input, true),
        LogicalPlan::Sort(s) => misplaced_reference(&s.input, true),
        LogicalPlan::Join(j) => {
            let (left, right) = match j.join_type {
                J::Inner => (false, false),
                J::Left | J::LeftSemi | J::LeftAnti | J::LeftMark => (false, true),
                J::Right | J::RightSemi | J::RightAnti | J::RightMark => (true, false),
                J::Full => (true, true),
            };
            Ok(misplaced_reference(&j.left, under || left)?
                || misplaced_reference(&j.right, under || right)?)
        }
        other => {
            for input in other.inputs() {
                if misplaced_reference(input, under)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
    }
}

/// `a` with the NULLs `b`'s nested fields allow (array elements, map values, struct fields).
fn with_nested_nulls_of(a: &DataType, b: &DataType) -> DataType {
    let field = |x: &FieldRef, y: &FieldRef| {
        Arc::new(
            x.as_ref()
                .clone()
                .with_data_type(with_nested_nulls_of(x.data_type(), y.data_type()))
                .with_nullable(x.is_nullable() || y.is_nullable()),
        )
    };
    match (a, b) {
        (DataType::List(x), DataType::List(y)) => DataType::List(field(x, y)),
        (DataType::LargeList(x), DataType::LargeList(y)) => DataType::LargeList(field(x, y)),
        (DataType::FixedSizeList(x, n), DataType::FixedSizeList(y, m)) if n == m => {
            DataType::FixedSizeList(field(x, y), *n)
        }
        (DataType::Map(x, sorted), DataType::Map(y, _)) => DataType::Map(field(x, y), *sorted),
        (DataType::Struct(xs), DataType::Struct(ys)) if xs.len() == ys.len() => {
            DataType::Struct(xs.iter().zip(ys.iter()).map(|(x, y)| field(x, y)).collect())
        }
        _ => a.clone(),
    }
}
