//! Filter and Sort, including Spark's "missing reference" rule: a condition or sort key may
//! use columns of the projection's input (`df.select("a").orderBy("b")`) or aggregates not in
//! the select list (`ORDER BY count(*)`, HAVING-like filters); such keys are computed as hidden
//! columns below and projected away above.

use datafusion::common::DFSchema;
use datafusion::logical_expr::utils::find_window_exprs;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder, SortExpr};

use super::Resolver;
use super::project::{contains_aggregate, ordinal, substitute_aliases};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{self, Expr as SExpr, Plan, PlanNode, SortOrder};

impl Resolver<'_> {
    pub(crate) fn resolve_filter(
        &mut self,
        input_spec: &Plan,
        condition: &SExpr,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input_spec)?;
        let schema = input.schema().clone();
        let mut conjuncts = Vec::new();
        super::in_subquery::filter_conjuncts(condition, &mut conjuncts);
        let outer = std::mem::replace(&mut self.filter_in_subqueries, conjuncts);
        let resolved = self.resolve_expr(condition, &schema);
        self.filter_in_subqueries = outer;
        let first = match resolved {
            Ok((e, _)) if !contains_aggregate(&e) && !contains_window(&e) => {
                let e = super::in_subquery::spark_not_in(e, &schema)?;
                return Ok(LogicalPlanBuilder::from(input).filter(e)?.build()?);
            }
            // An aggregate or window function in a filter of rows: Spark's
            // INVALID_WHERE_CONDITION unless the input can compute it (HAVING-like filters
            // of aggregations, QUALIFY-like ones of windows).
            Ok((e, _)) if !contains_aggregate(&e) => Some(PlanError::from(SparkError::analysis(
                "WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE",
                "42601",
                "Cannot use window functions in WHERE clause.",
            ))),
            Ok((_, name)) => Some(PlanError::from(SparkError::analysis(
                "INVALID_WHERE_CONDITION",
                "42903",
                format!(
                    "The WHERE condition \"{name}\" contains invalid expressions. Rewrite the query to avoid window functions, aggregate functions, and generator functions in the WHERE clause."
                ),
            ))),
            Err(e) if is_ambiguous(&e) => return Err(e),
            Err(e) => Some(e),
        };
        match self.resolve_with_extras(input_spec, std::slice::from_ref(condition)) {
            Ok((plan, hidden)) => {
                let visible = visible_columns(&plan, &hidden);
                let filtered = LogicalPlanBuilder::from(plan)
                    .filter(Self::column(&hidden[0]))?
                    .build()?;
                Ok(LogicalPlanBuilder::from(filtered)
                    .project(visible)?
                    .build()?)
            }
            Err(e) => Err(first.unwrap_or(e)),
        }
    }

    pub(crate) fn resolve_sort(
        &mut self,
        input_spec: &Plan,
        order: &[SortOrder],
        _global: bool,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input_spec)?;
        let schema = input.schema().clone();
        // A position out of the select list is an error, not a key to compute below.
        for o in order {
            if let SExpr::Literal(v) = &o.expr
                && let Some(i) = position_literal(v)
                && !(1..=schema.fields().len() as i64).contains(&i)
            {
                return Err(position_out_of_range(i, schema.fields().len()));
            }
        }
        let outer = std::mem::replace(&mut self.in_sort_keys, true);
        let sorted = self.sort_exprs(order, &schema);
        self.in_sort_keys = outer;
        let first = match sorted {
            Ok(sorts)
                if !sorts
                    .iter()
                    .any(|s| contains_aggregate(&s.expr) || contains_window(&s.expr)) =>
            {
                return stable_sort(input, sorts, self.input_file_calls > 0);
            }
            Ok(_) => None,
            Err(e) if is_ambiguous(&e) => return Err(e),
            Err(e) => Some(e),
        };
        let keys: Vec<SExpr> = order.iter().map(|o| o.expr.clone()).collect();
        match self.resolve_with_extras(input_spec, &keys) {
            Ok((plan, hidden)) => {
                let visible = visible_columns(&plan, &hidden);
                let sorts = order
                    .iter()
                    .zip(&hidden)
                    .map(|(o, h)| SortExpr::new(Self::column(h), o.ascending, o.nulls_first()))
                    .collect::<Vec<_>>();
                let sorted = stable_sort(plan, sorts, self.input_file_calls > 0)?;
                Ok(LogicalPlanBuilder::from(sorted).project(visible)?.build()?)
            }
            Err(e) => Err(first.unwrap_or(e)),
        }
    }

    fn sort_exprs(&mut self, order: &[SortOrder], schema: &DFSchema) -> PlanResult<Vec<SortExpr>> {
        let mut out = Vec::with_capacity(order.len());
        for o in order {
            if let Some(i) = ordinal(&o.expr) {
                let field = schema
                    .fields()
                    .get(i - 1)
                    .ok_or_else(|| position_out_of_range(i as i64, schema.fields().len()))?;
                out.push(SortExpr::new(
                    Self::column(field.name()),
                    o.ascending,
                    o.nulls_first(),
                ));
                continue;
            }
            out.push(self.resolve_sort_order(o, schema)?.0);
        }
        Ok(out)
    }

    /// Resolve `spec` with `extras` computed as additional hidden output columns.
    pub(crate) fn resolve_with_extras(
        &mut self,
        spec: &Plan,
        extras: &[SExpr],
    ) -> PlanResult<(LogicalPlan, Vec<String>)> {
        match &spec.node {
            // A select with a generator (`explode`): the extras are items of it, computed
            // for each row it makes.
            PlanNode::Project { input, exprs }
                if exprs
                    .iter()
                    .any(|e| super::generate::generator_of(e).is_some()) =>
            {
                let input = self.resolve(input)?;
                let mut with_extras = exprs.clone();
                with_extras.extend(extras.iter().map(|e| SExpr::Alias {
                    expr: Box::new(e.clone()),
                    names: vec!["__hidden".to_string()],
                    metadata: None,
                }));
                let plan = self.resolve_project_with_generators(input, &with_extras)?;
                let n = plan.schema().fields().len();
                let start = n.saturating_sub(extras.len());
                let hidden: Vec<String> = plan.schema().fields()[start..]
                    .iter()
                    .map(|f| f.name().clone())
                    .collect();
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            PlanNode::Project { input, exprs } => {
                match self.select_with_extras(spec, input, exprs, extras) {
                    Ok(done) => Ok(done),
                    Err(first) => self
                        .select_over_extras_below(spec, input, exprs, extras)
                        .map_err(|_| first),
                }
            }
            PlanNode::Aggregate(a) => {
                if a.having.is_some() {
                    self.check_over_having(a, extras)?;
                }
                let mut with_extras = a.clone();
                for e in extras {
                    with_extras.aggregates.push(
                        substitute_aliases(e, &a.aggregates, self.config.case_sensitive)
                            .alias("__hidden"),
                    );
                }
                let plan = self.resolve_aggregate(&with_extras)?;
                let start = plan.schema().fields().len().saturating_sub(extras.len());
                Ok(self.hidden_after(spec, plan, start))
            }
            PlanNode::Filter { input, condition } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let schema = plan.schema().clone();
                if let Ok((cond, _)) = self.resolve_expr(condition, &schema) {
                    let plan = LogicalPlanBuilder::from(plan).filter(cond)?.build()?;
                    self.record_visible(spec, &plan, &hidden);
                    return Ok((plan, hidden));
                }
                // The condition too may use columns its input dropped: computed below with
                // the extras, filtered on, then left out.
                let mut with_condition = extras.to_vec();
                with_condition.push(condition.clone());
                let (plan, mut hidden) = self.resolve_with_extras(input, &with_condition)?;
                let Some(condition) = hidden.pop() else {
                    return Err(PlanError::InvalidPlan("a filter's hidden condition".into()));
                };
                let filtered = LogicalPlanBuilder::from(plan)
                    .filter(Self::column(&condition))?
                    .build()?;
                let kept = visible_columns(&filtered, std::slice::from_ref(&condition));
                let plan = LogicalPlanBuilder::from(filtered).project(kept)?.build()?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            PlanNode::Drop {
                input,
                exprs,
                names,
            } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let plan = self.drop_columns(plan, exprs, names)?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            PlanNode::WithColumnsRenamed { input, renames } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let plan = self.rename_columns(plan, renames)?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            // `distinct()`/`dropDuplicates(cols)` keep the extras of one row of each group.
            PlanNode::Deduplicate {
                input,
                columns,
                all_columns,
                sql: false,
            } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let schema = plan.schema().clone();
                let on = if *all_columns {
                    visible_columns(&plan, &hidden)
                } else {
                    let mut on = Vec::with_capacity(columns.len());
                    for c in columns {
                        on.push(
                            self.resolve_attribute(std::slice::from_ref(c), None, &schema)?
                                .0,
                        );
                    }
                    on
                };
                let select = schema
                    .fields()
                    .iter()
                    .map(|f| Self::column(f.name()))
                    .collect();
                let plan = LogicalPlanBuilder::from(plan)
                    .distinct_on(on, select, None)?
                    .build()?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            PlanNode::Sort { input, order, .. } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let schema = plan.schema().clone();
                if let Ok(sorts) = self.sort_exprs(order, &schema) {
                    let plan = stable_sort(plan, sorts, self.input_file_calls > 0)?;
                    self.record_visible(spec, &plan, &hidden);
                    return Ok((plan, hidden));
                }
                // The keys too may use columns the input dropped: computed below with the
                // extras, sorted on, then left out.
                let mut with_keys = extras.to_vec();
                with_keys.extend(order.iter().map(|o| o.expr.clone()));
                let (plan, mut hidden) = self.resolve_with_extras(input, &with_keys)?;
                let keys = hidden.split_off(extras.len());
                let sorts: Vec<SortExpr> = order
                    .iter()
                    .zip(&keys)
                    .map(|(o, k)| SortExpr::new(Self::column(k), o.ascending, o.nulls_first()))
                    .collect();
                let sorted = stable_sort(plan, sorts, self.input_file_calls > 0)?;
                let kept = visible_columns(&sorted, &keys);
                let plan = LogicalPlanBuilder::from(sorted).project(kept)?.build()?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            PlanNode::Limit { input, limit } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                Ok((
                    LogicalPlanBuilder::from(plan)
                        .limit(0, Some(*limit))?
                        .build()?,
                    hidden,
                ))
            }
            PlanNode::Hint { input, .. } => self.resolve_with_extras(input, extras),
            PlanNode::WithColumns { input, columns } => {
                let (plan, hidden) = self.with_columns_with_extras(input, columns, extras)?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            PlanNode::Sample {
                input,
                lower,
                upper,
                seed,
                by_row_values,
                with_replacement: false,
            } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let plan = self.sample_resolved(plan, *lower, *upper, *seed, *by_row_values)?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            // `toDF(names)`: the visible columns renamed, the extras kept as they are.
            PlanNode::ToDf { input, names } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let visible = visible_columns(&plan, &hidden);
                let renamed = self.rename_all(
                    LogicalPlanBuilder::from(plan.clone())
                        .project(visible)?
                        .build()?,
                    names,
                    None,
                )?;
                let mut exprs: Vec<Expr> = Vec::new();
                if let LogicalPlan::Projection(p) = &renamed {
                    exprs.extend(p.expr.iter().cloned());
                }
                exprs.extend(hidden.iter().map(|h| Self::column(h)));
                let plan = LogicalPlanBuilder::from(plan).project(exprs)?.build()?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            PlanNode::Repartition {
                input,
                num_partitions,
                exprs,
                shuffle,
            } => {
                let (plan, hidden) = self.resolve_with_extras(input, extras)?;
                let plan = self.repartition_resolved(plan, *num_partitions, exprs, *shuffle)?;
                self.record_visible(spec, &plan, &hidden);
                Ok((plan, hidden))
            }
            // A USING join: the extras over the join's columns, its left-out key too.
            PlanNode::Join(j) if !j.lateral && (j.natural || !j.using.is_empty()) => {
                match self.using_join_with_extras(j, extras)? {
                    Some(joined) => {
                        self.record_visible(spec, &joined.plan, &joined.hidden);
                        Ok((joined.plan, joined.hidden))
                    }
                    None => self.extras_over_relation(spec, extras),
                }
            }
            _ => self.extras_over_relation(spec, extras),
        }
    }

    /// A select with `extras` computed over its input as hidden items of it.
    fn select_with_extras(
        &mut self,
        spec: &Plan,
        input: &Plan,
        exprs: &[SExpr],
        extras: &[SExpr],
    ) -> PlanResult<(LogicalPlan, Vec<String>)> {
        let input = self.resolve(input)?;
        let schema = input.schema().clone();
        let mut items = self.resolve_items(exprs, &schema)?;
        let visible = items.len();
        for e in extras {
            let resolved = match self.resolve_expr(e, &schema) {
                Ok(r) => r,
                Err(err) => {
                    let substituted = substitute_aliases(e, exprs, self.config.case_sensitive);
                    if &substituted == e {
                        return Err(err);
                    }
                    self.resolve_expr(&substituted, &schema)?
                }
            };
            items.push((resolved.0, "__hidden".to_string()));
        }
        let plan = self.finish_projection(input, items)?;
        Ok(self.hidden_after(spec, plan, visible))
    }

    /// A select whose extras read what its input left out: columns a select below dropped
    /// (`select("a", "b").select("a").orderBy("b")`, as Spark's missing-reference rule goes
    /// down through projections) or a USING join's left-out key (`SELECT * FROM t1 LEFT JOIN
    /// t2 USING (id) ORDER BY t2.id`): computed below and carried through the select; or items
    /// of a select over a USING join that read its left-out key (`SELECT t2.id ... ORDER BY
    /// v`).
    fn select_over_extras_below(
        &mut self,
        spec: &Plan,
        input: &Plan,
        exprs: &[SExpr],
        extras: &[SExpr],
    ) -> PlanResult<(LogicalPlan, Vec<String>)> {
        let mut with_extras = exprs.to_vec();
        with_extras.extend(extras.iter().map(|e| SExpr::Alias {
            expr: Box::new(e.clone()),
            names: vec!["__hidden".to_string()],
            metadata: None,
        }));
        if let Ok(plan) = self.resolve_select(input, &with_extras) {
            let n = plan.schema().fields().len();
            if let Some(visible) = n.checked_sub(extras.len()) {
                return Ok(self.hidden_after(spec, plan, visible));
            }
        }
        let (below, below_hidden) = self.resolve_with_extras(input, extras)?;
        let schema =
            super::join::schema_without(below.schema(), |n| below_hidden.iter().any(|h| h == n))?;
        let mut items = self.resolve_items(exprs, &schema)?;
        if items
            .iter()
            .any(|(e, _)| contains_aggregate(e) || contains_window(e))
        {
            return Err(PlanError::Unsupported(
                "columns a select dropped, under an aggregation or window".into(),
            ));
        }
        let visible = items.len();
        items.extend(
            below_hidden
                .iter()
                .map(|h| (Self::column(h), "__hidden".to_string())),
        );
        let plan = self.finish_projection(below, items)?;
        Ok(self.hidden_after(spec, plan, visible))
    }

    /// Any other relation: the extras over its own columns.
    fn extras_over_relation(
        &mut self,
        spec: &Plan,
        extras: &[SExpr],
    ) -> PlanResult<(LogicalPlan, Vec<String>)> {
        let plan = self.resolve(spec)?;
        let schema = plan.schema().clone();
        let mut items = self.visible_items(&schema);
        let visible = items.len();
        for e in extras {
            let (resolved, _) = self.resolve_expr(e, &schema)?;
            if contains_aggregate(&resolved) || contains_window(&resolved) {
                return Err(PlanError::Unsupported(
                    "an aggregate or window function over this relation".into(),
                ));
            }
            items.push((resolved, "__hidden".to_string()));
        }
        let plan = self.finish_projection(plan, items)?;
        let hidden = plan.schema().fields()[visible..]
            .iter()
            .map(|f| f.name().clone())
            .collect();
        Ok((plan, hidden))
    }

    /// Keys over an aggregation's HAVING (`... HAVING min(a) > 1 ORDER BY avg(b)`) reach
    /// through the filter only the aggregation's output and its grouping columns: Spark's
    /// UNRESOLVED_COLUMN for any other column (even one an aggregate function would read).
    fn check_over_having(&self, a: &spec::Aggregate, extras: &[SExpr]) -> PlanResult<()> {
        let last = |e: &SExpr| match e {
            SExpr::Attribute { name, .. } => name.last().cloned(),
            SExpr::Alias { names, .. } => names.last().cloned(),
            _ => None,
        };
        let reachable: Vec<String> = a
            .aggregates
            .iter()
            .chain(&a.grouping)
            .filter_map(last)
            .collect();
        for e in extras {
            let attributes = std::cell::RefCell::new(Vec::new());
            e.any(&|x| {
                if let SExpr::Attribute { name, .. } = x {
                    attributes.borrow_mut().push(name.clone());
                }
                false
            });
            // An aggregate function the select list does not compute: Spark's
            // UNSUPPORTED_EXPR_FOR_OPERATOR (it cannot add one below a HAVING).
            let is_aggregate = |x: &SExpr| {
                matches!(x, SExpr::Function(f) if {
                    let name = f.name.to_ascii_lowercase();
                    crate::functions::datafusion_aggregate(&name).is_some()
                        || crate::functions::spark_aggregate(&name).is_some()
                })
            };
            let selected = |x: &SExpr| {
                a.aggregates.iter().any(|item| match item {
                    SExpr::Alias { expr, .. } => **expr == *x,
                    other => other == x,
                })
            };
            let unselected = std::cell::Cell::new(false);
            e.any(&|x| {
                if is_aggregate(x) && !selected(x) {
                    unselected.set(true);
                }
                false
            });
            let attributes = attributes.into_inner();
            if unselected.get() && attributes.is_empty() {
                return Err(SparkError::analysis(
                    "UNSUPPORTED_EXPR_FOR_OPERATOR",
                    "42K0E",
                    "A query operator contains one or more unsupported expressions. Consider to rewrite it to avoid window functions, aggregate functions, and generator functions in the WHERE clause.",
                )
                .into());
            }
            for parts in attributes {
                let name = parts.last().map(String::as_str).unwrap_or_default();
                if !reachable.iter().any(|r| self.names_equal(r, name)) {
                    let shown: Vec<String> = a.aggregates.iter().filter_map(last).collect();
                    return Err(SparkError::unresolved_column(&parts.join("."), &shown).into());
                }
            }
        }
        Ok(())
    }

    /// Record the columns of `plan` but `hidden` as the output of `spec`'s plan id.
    pub(crate) fn record_visible(&mut self, spec: &Plan, plan: &LogicalPlan, hidden: &[String]) {
        if let Some(id) = spec.plan_id {
            let names: Vec<String> = plan
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .filter(|n| !hidden.contains(n))
                .collect();
            self.plan_ids.resolved(id, &names);
            self.plan_outputs.entry(id).or_default().extend(names);
        }
    }

    /// `plan`, whose columns from `visible` on are the hidden ones, with them: the others are
    /// `spec`'s output.
    fn hidden_after(
        &mut self,
        spec: &Plan,
        plan: LogicalPlan,
        visible: usize,
    ) -> (LogicalPlan, Vec<String>) {
        let hidden = plan.schema().fields()[visible..]
            .iter()
            .map(|f| f.name().clone())
            .collect();
        self.record_plan_id(spec, &plan, visible);
        (plan, hidden)
    }

    fn record_plan_id(&mut self, spec: &Plan, plan: &LogicalPlan, visible: usize) {
        if let Some(id) = spec.plan_id {
            let names: Vec<String> = plan.schema().fields()[..visible]
                .iter()
                .map(|f| f.name().clone())
                .collect();
            self.plan_ids.resolved(id, &names);
            self.plan_outputs.entry(id).or_default().extend(names);
        }
    }
}

/// A reference that names several columns of the input: Spark's error, never a column its
/// missing-reference rule would find below.
/// `plan` sorted by `sorts`, rows that tie in the input's order, as Spark's sort (stable)
/// leaves them: the input's rows numbered, the numbers the last keys, and left out again
/// (not where a key or the input reads the file a row came from, `reads_files` for calls not
/// yet resolved: that needs the scan right below it).
/// (Without them, ties came out in the order a shuffle delivered the partitions' rows.)
fn stable_sort(
    plan: LogicalPlan,
    mut sorts: Vec<SortExpr>,
    reads_files: bool,
) -> PlanResult<LogicalPlan> {
    use crate::logical::partition_ids::{PARTITION_ID, PartitionIdsNode};
    use datafusion::common::tree_node::TreeNode;
    // (Reading the file a row came from needs the scan right below the expression: no
    // numbering in between.)
    let file_name =
        |e: &Expr| matches!(e, Expr::ScalarFunction(f) if f.name() == "input_file_name");
    let reads_file = reads_files
        || sorts
            .iter()
            .any(|s| s.expr.exists(|e| Ok(file_name(e))).unwrap_or(false))
        || plan
            .exists(|p| {
                Ok(p.expressions()
                    .iter()
                    .any(|e| e.exists(|e| Ok(file_name(e))).unwrap_or(false)))
            })
            .unwrap_or(false);
    if reads_file || plan.schema().has_column_with_unqualified_name(PARTITION_ID) {
        return Ok(LogicalPlanBuilder::from(plan).sort(sorts)?.build()?);
    }
    let columns: Vec<Expr> = plan
        .schema()
        .columns()
        .into_iter()
        .map(Expr::Column)
        .collect();
    sorts.extend(crate::functions::input_order());
    let sorted = LogicalPlanBuilder::from(PartitionIdsNode::plan(plan)?)
        .sort(sorts)?
        .build()?;
    Ok(LogicalPlanBuilder::from(sorted).project(columns)?.build()?)
}

fn is_ambiguous(e: &PlanError) -> bool {
    matches!(e, PlanError::Spark(e) if e.error_class == "AMBIGUOUS_REFERENCE")
}

/// Spark's ORDER_BY_POS_OUT_OF_RANGE for position `i` of a select list of `n` columns.
fn position_out_of_range(i: i64, n: usize) -> PlanError {
    SparkError::analysis(
        "ORDER_BY_POS_OUT_OF_RANGE",
        "42805",
        format!("ORDER BY position {i} is not in select list (valid range is [1, {n}])."),
    )
    .into()
}

/// The integer of an integer literal (`ORDER BY 2`), which Spark reads as a position.
fn position_literal(v: &datafusion::common::ScalarValue) -> Option<i64> {
    use datafusion::common::ScalarValue;
    match v {
        ScalarValue::Int32(Some(i)) => Some(i64::from(*i)),
        ScalarValue::Int64(Some(i)) => Some(*i),
        _ => None,
    }
}

fn contains_window(e: &Expr) -> bool {
    !find_window_exprs(std::iter::once(e)).is_empty()
}

fn visible_columns(plan: &LogicalPlan, hidden: &[String]) -> Vec<Expr> {
    plan.schema()
        .fields()
        .iter()
        .filter(|f| !hidden.contains(f.name()))
        .map(|f| Resolver::column(f.name()))
        .collect()
}
