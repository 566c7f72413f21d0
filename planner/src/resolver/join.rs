//! Joins (ON conditions and USING columns, Spark's output column order) and set operations
//! (UNION [ALL] [BY NAME], INTERSECT, EXCEPT).

use std::collections::HashSet;

use arrow::datatypes::DataType;
use datafusion::common::{Column, DFSchema, ScalarValue};
use datafusion::logical_expr::{
    Expr, JoinType as DfJoinType, LogicalPlan, LogicalPlanBuilder, cast,
};

use super::Resolver;
use super::names::Named;
use super::names::column_exprs;
use crate::error::{PlanResult, SparkError};
use crate::spec::{Join, JoinType, SetOpKind, SetOperation};

/// A USING join's output with extra columns computed over the join's own columns.
pub(crate) struct UsingJoin {
    pub(crate) plan: LogicalPlan,
    /// The extra columns' internal names (after the output's).
    pub(crate) hidden: Vec<String>,
    /// Per extra expression, its columns (one, or a star's several).
    pub(crate) extras: Vec<Vec<ExtraColumn>>,
}

/// A column an extra expression over a USING join gives.
pub(crate) struct ExtraColumn {
    /// Its internal name in the join's plan.
    pub(crate) internal: String,
    /// The name Spark gives it.
    pub(crate) name: String,
    /// A bare column's qualifier (`t2` of `t2.id`).
    pub(crate) qualifier: Vec<String>,
    /// Whether it is a key the join's output left out (Spark's qualified-access-only column).
    pub(crate) left_out_key: bool,
}

impl Resolver<'_> {
    pub(crate) fn resolve_join(&mut self, j: &Join) -> PlanResult<LogicalPlan> {
        let plan = self.join_of(j)?;
        if !j.lateral {
            return Ok(plan);
        }
        // DataFusion's lateral rewrite adds the correlated columns to the join's output:
        // a projection keeps the join's own.
        let columns: Vec<Expr> = column_exprs(plan.schema());
        Ok(LogicalPlanBuilder::from(plan).project(columns)?.build()?)
    }

    fn join_of(&mut self, j: &Join) -> PlanResult<LogicalPlan> {
        if j.lateral
            && let Some(plan) = self.lateral_udtf(j)?
        {
            return Ok(plan);
        }
        let left = self.resolve(&j.left)?;
        let mut right = if j.lateral {
            self.push_outer(left.schema().clone());
            let right = self.resolve(&j.right);
            self.pop_outer();
            right?
        } else {
            self.resolve(&j.right)?
        };
        right = self.distinct_from(&left, right)?;
        if j.lateral {
            // A right side reading the left's columns is a subquery DataFusion's lateral
            // join rewrite decorrelates.
            let outer_refs = super::expr::collect_outer_refs(&right);
            if !outer_refs.is_empty() {
                if !matches!(
                    j.join_type,
                    JoinType::Inner | JoinType::Cross | JoinType::LeftOuter
                ) {
                    return Err(crate::error::PlanError::Unsupported(
                        "LATERAL joins other than inner, cross and left outer".into(),
                    ));
                }
                let subquery = LogicalPlan::Subquery(datafusion::logical_expr::Subquery {
                    subquery: std::sync::Arc::new(right),
                    outer_ref_columns: outer_refs,
                    spans: Default::default(),
                });
                // Under an alias, as SQL plans it: the rewrite then keeps the subquery's
                // own columns (without, a projected subquery's schema changes under it).
                right =
                    LogicalPlan::SubqueryAlias(datafusion::logical_expr::SubqueryAlias::try_new(
                        std::sync::Arc::new(subquery),
                        "__lateral",
                    )?);
            }
        }
        if j.natural {
            let common = self.natural_keys(&left, &right);
            if common.is_empty() {
                return Ok(LogicalPlanBuilder::from(left).cross_join(right)?.build()?);
            }
            return Ok(self
                .resolve_using_join(left, right, j.join_type, &common, &[])?
                .plan);
        }
        if !j.using.is_empty() {
            return Ok(self
                .resolve_using_join(left, right, j.join_type, &j.using, &[])?
                .plan);
        }
        let join_type = df_join_type(j.join_type);
        match &j.condition {
            None if matches!(j.join_type, JoinType::Inner | JoinType::Cross) => {
                Ok(LogicalPlanBuilder::from(left).cross_join(right)?.build()?)
            }
            None => Ok(LogicalPlanBuilder::from(left)
                .join_on(
                    right,
                    join_type,
                    vec![Expr::Literal(ScalarValue::Boolean(Some(true)), None)],
                )?
                .build()?),
            Some(cond) => {
                let schema = left.schema().join(right.schema())?;
                let (cond, _) = self.resolve_expr(cond, &schema)?;
                Ok(LogicalPlanBuilder::from(left)
                    .join_on(right, join_type, vec![cond])?
                    .build()?)
            }
        }
    }

    /// The columns both sides have, in the left side's order (a NATURAL join's keys).
    fn natural_keys(&self, left: &LogicalPlan, right: &LogicalPlan) -> Vec<String> {
        let right_names = self.output_names(right.schema());
        self.output_names(left.schema())
            .into_iter()
            .filter(|n| right_names.iter().any(|r| self.names_equal(r, n)))
            .collect()
    }

    /// A USING or NATURAL join with `extras` computed over the join's own columns as hidden
    /// output columns: a filter, sort or select over the join may read the key its output left
    /// out, as Spark's hidden output of the join allows (`df.join(df2, "a", "left")` then
    /// `filter(df2.a.isNull())`, `select(df2.a)`, `select(df2["*"])`). `None` for other joins.
    pub(crate) fn using_join_with_extras(
        &mut self,
        j: &Join,
        extras: &[crate::spec::Expr],
    ) -> PlanResult<Option<UsingJoin>> {
        if j.lateral || (!j.natural && j.using.is_empty()) {
            return Ok(None);
        }
        let left = self.resolve(&j.left)?;
        let right = self.resolve(&j.right)?;
        let right = self.distinct_from(&left, right)?;
        let using = if j.natural {
            self.natural_keys(&left, &right)
        } else {
            j.using.clone()
        };
        if using.is_empty() {
            return Ok(None);
        }
        self.resolve_using_join(left, right, j.join_type, &using, extras)
            .map(Some)
    }

    /// A select over a USING join whose items read what the join's output left out
    /// (the other side's key: `select(df2.a)` after a left join) or take a side's columns
    /// (`df2["*"]`, `t2.*`, whose key is that side's own): those items are resolved over the
    /// join's own columns, the others over its output (`output`), as Spark's hidden output of
    /// the join allows. `None` when the select needs none of it.
    pub(crate) fn select_over_using_join(
        &mut self,
        input: &crate::spec::Plan,
        exprs: &[crate::spec::Expr],
        output: &DFSchema,
    ) -> PlanResult<Option<LogicalPlan>> {
        // (Through filters and sorts over the join, as Spark's hidden output goes.)
        let mut node = input;
        while let crate::spec::PlanNode::Filter { input, .. }
        | crate::spec::PlanNode::Sort { input, .. }
        | crate::spec::PlanNode::Limit { input, .. }
        | crate::spec::PlanNode::Hint { input, .. } = &node.node
        {
            node = input;
        }
        let crate::spec::PlanNode::Join(j) = &node.node else {
            return Ok(None);
        };
        if !matches!(
            j.join_type,
            JoinType::Inner | JoinType::LeftOuter | JoinType::RightOuter | JoinType::FullOuter
        ) {
            return Ok(None);
        }
        let mut at_join = Vec::with_capacity(exprs.len());
        let mut inner = Vec::new();
        // (An inner join's output key stands for both sides' (`df2["*"]` has it), not under
        // the other side's name (`t2.*` has not).)
        let star_needs = |e: &crate::spec::Expr| match j.join_type {
            JoinType::Inner => matches!(
                e,
                crate::spec::Expr::Star {
                    target: Some(_),
                    plan_id: None
                }
            ),
            _ => is_side_star(e),
        };
        for e in exprs {
            let needs =
                star_needs(e) || self.resolve_items(std::slice::from_ref(e), output).is_err();
            if needs {
                inner.push(e.clone());
            }
            at_join.push(needs);
        }
        if inner.is_empty() {
            return Ok(None);
        }
        // (The names Spark gives the items, from the join's columns; the items themselves
        // computed at the join and carried up as hidden columns.)
        let Some(named) = self.using_join_with_extras(j, &inner)? else {
            return Ok(None);
        };
        let (plan, hidden) = self.resolve_with_extras(input, &inner)?;
        // (The other items see the output only.)
        let visible = schema_without(plan.schema(), |n| hidden.iter().any(|h| h == n))?;
        let mut columns = hidden.iter();
        let mut extras = named.extras.into_iter().map(|names| {
            names
                .into_iter()
                .filter_map(|c| {
                    columns.next().map(|h| ExtraColumn {
                        internal: h.clone(),
                        ..c
                    })
                })
                .collect::<Vec<_>>()
        });
        let mut items = Vec::new();
        // (Per select-list position of a column read at the join: its qualifier and whether
        // it is a left-out key.)
        let mut at_join_columns = Vec::new();
        for (e, needs) in exprs.iter().zip(at_join) {
            if needs {
                for c in extras.next().unwrap_or_default() {
                    at_join_columns.push((
                        items.len(),
                        c.internal.clone(),
                        c.qualifier,
                        c.left_out_key,
                    ));
                    items.push((Self::column(&c.internal), c.name));
                }
            } else {
                items.extend(self.resolve_items(std::slice::from_ref(e), &visible)?);
            }
        }
        let count = items.len();
        let plan = self.finish_projection(plan, items)?;
        // The output column of `t2.id` keeps its qualifier (`ORDER BY t2.id` over the select);
        // of a left-out key, its qualified-only access.
        if plan.schema().fields().len() == count {
            for (i, hidden, qualifier, left_out_key) in at_join_columns {
                let internal = plan.schema().field(i).name().clone();
                if internal == hidden {
                    continue;
                }
                if let Some(info) = self.fields.get_mut(&internal) {
                    info.qualifier = qualifier;
                }
                if left_out_key {
                    self.qualified_only.insert(internal);
                }
            }
        }
        Ok(Some(plan))
    }

    fn resolve_using_join(
        &mut self,
        left: LogicalPlan,
        right: LogicalPlan,
        join_type: JoinType,
        using: &[String],
        extras: &[crate::spec::Expr],
    ) -> PlanResult<UsingJoin> {
        let (ls, rs) = (left.schema().clone(), right.schema().clone());
        let mut left_keys = Vec::new();
        let mut right_keys = Vec::new();
        for name in using {
            let parts = vec![name.clone()];
            let l = self.using_side(&parts, &ls, "left")?;
            let r = self.using_side(&parts, &rs, "right")?;
            left_keys.push(l);
            right_keys.push(r);
        }
        let join_type_df = df_join_type(join_type);
        let mut plan = LogicalPlanBuilder::from(left)
            .join(
                right,
                join_type_df,
                (left_keys.clone(), right_keys.clone()),
                None,
            )?
            .build()?;
        let shown_names: Vec<String> = left_keys
            .iter()
            .zip(using)
            .map(|(l, name)| {
                let shown = self.info(&l.name).name;
                if shown.is_empty() {
                    name.clone()
                } else {
                    shown
                }
            })
            .collect();
        // (With extras to compute, a full join's coalesced keys are columns of their own
        // below the output, which the extras read by name as they read the output's.)
        let mut coalesced: Vec<Option<String>> = vec![None; using.len()];
        if !extras.is_empty() && join_type == JoinType::FullOuter {
            let mut exprs = column_exprs(plan.schema());
            for (i, ((l, r), shown)) in left_keys
                .iter()
                .zip(&right_keys)
                .zip(&shown_names)
                .enumerate()
            {
                let internal = self.fresh(shown, vec![]);
                let key = crate::functions::df_udf("coalesce")?
                    .call(vec![Expr::Column(l.clone()), Expr::Column(r.clone())]);
                exprs.push(key.alias(internal.clone()));
                coalesced[i] = Some(internal);
            }
            plan = LogicalPlanBuilder::from(plan).project(exprs)?.build()?;
        }
        // Output: the keys, then the other left columns, then the other right columns.
        let mut items: Vec<Named> = Vec::new();
        for (i, ((l, r), shown)) in left_keys
            .iter()
            .zip(&right_keys)
            .zip(shown_names)
            .enumerate()
        {
            let (le, re) = (Expr::Column(l.clone()), Expr::Column(r.clone()));
            let key = match (join_type, &coalesced[i]) {
                (_, Some(internal)) => Self::column(internal),
                (JoinType::RightOuter, _) => re,
                (JoinType::FullOuter, _) => {
                    crate::functions::df_udf("coalesce")?.call(vec![le, re])
                }
                _ => le,
            };
            // (An inner join's key has both sides' values: `df2.a` reads it, as in Spark.)
            if join_type == JoinType::Inner {
                self.plan_ids.derived(&l.name, &r.name);
            }
            items.push((key, shown));
        }
        let left_key_names: HashSet<&String> = left_keys.iter().map(|c| &c.name).collect();
        let right_key_names: HashSet<&String> = right_keys.iter().map(|c| &c.name).collect();
        for f in ls.fields() {
            if !left_key_names.contains(f.name()) {
                items.push((Self::column(f.name()), self.info(f.name()).name));
            }
        }
        if !matches!(join_type, JoinType::LeftSemi | JoinType::LeftAnti) {
            for f in rs.fields() {
                if !right_key_names.contains(f.name()) {
                    items.push((Self::column(f.name()), self.info(f.name()).name));
                }
            }
        }
        let visible = items.len();
        // The extras see the join's columns as its output does (`a`: the key it keeps), then
        // all of them (`df2.a`: a key it leaves out); `df2["*"]` and `t2.*` take their side's own key.
        let schema = plan.schema().clone();
        let left_out: HashSet<&String> = match join_type {
            JoinType::RightOuter => left_key_names,
            JoinType::FullOuter => left_key_names.union(&right_key_names).copied().collect(),
            _ => right_key_names,
        };
        let as_output = schema_without(&schema, |n| left_out.iter().any(|k| *k == n))?;
        let mut names = Vec::with_capacity(extras.len());
        for e in extras {
            let one = std::slice::from_ref(e);
            let resolved = match is_side_star(e) {
                true => self.resolve_items(one, &schema)?,
                false => match self.resolve_items(one, &as_output) {
                    Ok(resolved) => resolved,
                    Err(_) => self.resolve_items(one, &schema)?,
                },
            };
            let mut these = Vec::with_capacity(resolved.len());
            for (resolved, name) in resolved {
                if super::project::contains_aggregate(&resolved)
                    || !datafusion::logical_expr::utils::find_window_exprs([&resolved]).is_empty()
                {
                    return Err(crate::error::PlanError::Unsupported(
                        "an aggregate or window function over a USING join's keys".into(),
                    ));
                }
                let (qualifier, left_out_key) = match &resolved {
                    Expr::Column(c) => (self.info(&c.name).qualifier, left_out.contains(&c.name)),
                    _ => (vec![], false),
                };
                items.push((resolved, "__hidden".to_string()));
                these.push((name, qualifier, left_out_key));
            }
            names.push(these);
        }
        let plan = self.project_items(plan, items)?;
        let hidden: Vec<String> = plan.schema().fields()[visible..]
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let mut rest = hidden.iter();
        let extras = names
            .into_iter()
            .map(|these| {
                these
                    .into_iter()
                    .filter_map(|(name, qualifier, left_out_key)| {
                        rest.next().map(|h| ExtraColumn {
                            internal: h.clone(),
                            name,
                            qualifier,
                            left_out_key,
                        })
                    })
                    .collect()
            })
            .collect();
        Ok(UsingJoin {
            plan,
            hidden,
            extras,
        })
    }

    fn using_side(&self, parts: &[String], schema: &DFSchema, side: &str) -> PlanResult<Column> {
        match self.lookup_attribute(parts, None, schema)? {
            Some((Expr::Column(c), _)) => Ok(c),
            _ => Err(SparkError::analysis(
                "UNRESOLVED_USING_COLUMN_FOR_JOIN",
                "42703",
                format!(
                    "USING column `{}` cannot be resolved on the {side} side of the join. The {side}-side columns: [{}].",
                    parts.join("."),
                    self.output_names(schema).iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
            )
            .into()),
        }
    }

    pub(crate) fn resolve_set_operation(&mut self, s: &SetOperation) -> PlanResult<LogicalPlan> {
        let left = self.resolve(&s.left)?;
        let mut right = self.resolve(&s.right)?;
        let mut left = left;
        if s.by_name {
            (left, right) = self.align_by_name(left, right, s.allow_missing_columns)?;
        }
        let (ln, rn) = (left.schema().fields().len(), right.schema().fields().len());
        let operation = match s.kind {
            SetOpKind::Union => "UNION",
            SetOpKind::Intersect => "INTERSECT",
            SetOpKind::Except => "EXCEPT",
        };
        if ln != rn {
            return Err(SparkError::analysis(
                "NUM_COLUMNS_MISMATCH",
                "42826",
                format!("{operation} can only be performed on inputs with the same number of columns, but the first input has {ln} columns and the second input has {rn} columns."),
            )
            .into());
        }
        let (left, right) = self.coerce_set_operands(operation, left, right)?;
        let names = self.output_names(left.schema());
        let plan = match s.kind {
            SetOpKind::Union => {
                let b = LogicalPlanBuilder::from(left);
                if s.all {
                    b.union(right)?.build()?
                } else {
                    b.union_distinct(right)?.build()?
                }
            }
            SetOpKind::Intersect if s.all => self.multiset(left, right, DfJoinType::LeftSemi)?,
            SetOpKind::Except if s.all => self.multiset(left, right, DfJoinType::LeftAnti)?,
            SetOpKind::Intersect => LogicalPlanBuilder::intersect(left, right, false)?,
            SetOpKind::Except => LogicalPlanBuilder::except(left, right, false)?,
        };
        // Fresh names keep every internal name unique to one schema.
        self.rename_all(plan, &names, Some(vec![]))
    }

    /// INTERSECT ALL (semi join) and EXCEPT ALL (anti join) as multiset operations: the
    /// n-th copy of a row on the left meets the n-th copy on the right, so a row kept
    /// min(l, r) times (INTERSECT ALL) or max(l - r, 0) times (EXCEPT ALL), as in Spark.
    fn multiset(
        &mut self,
        left: LogicalPlan,
        right: LogicalPlan,
        join_type: DfJoinType,
    ) -> PlanResult<LogicalPlan> {
        let (left, left_keys) = self.numbered_copies(left)?;
        let (right, right_keys) = self.numbered_copies(right)?;
        let plan = LogicalPlanBuilder::from(left)
            .join_detailed(
                right,
                join_type,
                (left_keys.clone(), right_keys),
                None,
                datafusion::common::NullEquality::NullEqualsNull,
            )?
            .build()?;
        let n = left_keys.len() - 1;
        let out: Vec<Expr> = left_keys[..n]
            .iter()
            .map(|c| Expr::Column(c.clone()))
            .collect();
        Ok(LogicalPlanBuilder::from(plan).project(out)?.build()?)
    }

    /// The plan's columns under fresh names, plus which copy of its row each row is
    /// (row_number over all columns); returns the columns, copy number last.
    fn numbered_copies(&mut self, plan: LogicalPlan) -> PlanResult<(LogicalPlan, Vec<Column>)> {
        use datafusion::logical_expr::ExprFunctionExt;
        let plan = self.reassign(plan, Some(vec![]))?;
        let columns: Vec<Expr> = column_exprs(plan.schema());
        let copy = self.fresh("copy", vec![]);
        let number = datafusion::functions_window::expr_fn::row_number()
            .partition_by(columns)
            .build()?
            .alias(&copy);
        let plan = LogicalPlanBuilder::from(plan)
            .window(vec![number])?
            .build()?;
        let keys = plan.schema().columns();
        Ok((plan, keys))
    }

    /// UNION BY NAME: reorder the right side to the left's column names (case rules apply);
    /// with `allowMissingColumns`, add NULL columns to either side.
    fn align_by_name(
        &mut self,
        left: LogicalPlan,
        right: LogicalPlan,
        allow_missing: bool,
    ) -> PlanResult<(LogicalPlan, LogicalPlan)> {
        let lnames = self.output_names(left.schema());
        let rnames = self.output_names(right.schema());
        let lfields: Vec<(String, DataType)> = left
            .schema()
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect();
        let rfields: Vec<(String, DataType)> = right
            .schema()
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect();
        let mut right_items: Vec<Named> = Vec::new();
        for (i, ln) in lnames.iter().enumerate() {
            match rnames.iter().position(|r| self.names_equal(r, ln)) {
                Some(j) => right_items.push((Self::column(&rfields[j].0), ln.clone())),
                None if allow_missing => right_items.push((null_of(&lfields[i].1)?, ln.clone())),
                None => {
                    return Err(SparkError::analysis(
                        "NUM_COLUMNS_MISMATCH",
                        "42826",
                        format!(
                            "Cannot resolve column name \"{ln}\" among ({}).",
                            rnames.join(", ")
                        ),
                    )
                    .into());
                }
            }
        }
        let mut left_items: Vec<Named> = lfields
            .iter()
            .zip(&lnames)
            .map(|((i, _), n)| (Self::column(i), n.clone()))
            .collect();
        if allow_missing {
            for (j, rn) in rnames.iter().enumerate() {
                if !lnames.iter().any(|l| self.names_equal(l, rn)) {
                    left_items.push((null_of(&rfields[j].1)?, rn.clone()));
                    right_items.push((Self::column(&rfields[j].0), rn.clone()));
                }
            }
        } else if rnames.len() != lnames.len() {
            return Err(SparkError::analysis(
                "NUM_COLUMNS_MISMATCH",
                "42826",
                format!("UNION can only be performed on inputs with the same number of columns, but the first input has {} columns and the second input has {} columns.", lnames.len(), rnames.len()),
            )
            .into());
        }
        let left = self.project_items(left, left_items)?;
        let right = self.project_items(right, right_items)?;
        Ok((left, right))
    }
}

fn null_of(dt: &DataType) -> PlanResult<Expr> {
    Ok(cast(Expr::Literal(ScalarValue::Null, None), dt.clone()))
}

fn df_join_type(t: JoinType) -> DfJoinType {
    match t {
        JoinType::Inner | JoinType::Cross => DfJoinType::Inner,
        JoinType::LeftOuter => DfJoinType::Left,
        JoinType::RightOuter => DfJoinType::Right,
        JoinType::FullOuter => DfJoinType::Full,
        JoinType::LeftSemi => DfJoinType::LeftSemi,
        JoinType::LeftAnti => DfJoinType::LeftAnti,
    }
}

/// `schema` without the columns whose internal names `left_out` picks.
pub(crate) fn schema_without(
    schema: &DFSchema,
    left_out: impl Fn(&str) -> bool,
) -> PlanResult<DFSchema> {
    let fields = schema
        .iter()
        .filter(|(_, f)| !left_out(f.name()))
        .map(|(q, f)| (q.cloned(), f.clone()))
        .collect();
    Ok(DFSchema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    )?)
}

/// Whether `plan` is a USING (or NATURAL) join, through filters, sorts, limits, hints and
/// `withColumns` over it (which keep its hidden output).
pub(crate) fn over_using_join(plan: &crate::spec::Plan) -> bool {
    use crate::spec::PlanNode;
    let mut node = plan;
    loop {
        match &node.node {
            PlanNode::Filter { input, .. }
            | PlanNode::Sort { input, .. }
            | PlanNode::Limit { input, .. }
            | PlanNode::Hint { input, .. }
            | PlanNode::WithColumns { input, .. } => node = input,
            PlanNode::Join(j) => return !j.lateral && (j.natural || !j.using.is_empty()),
            _ => return false,
        }
    }
}

/// `df["*"]` or `t.*`: one side's columns.
pub(crate) fn is_side_star(e: &crate::spec::Expr) -> bool {
    matches!(
        e,
        crate::spec::Expr::Star {
            plan_id: Some(_),
            ..
        } | crate::spec::Expr::Star {
            target: Some(_),
            ..
        }
    )
}
