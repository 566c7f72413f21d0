//! Aggregations: GROUP BY (with grouping sets, ROLLUP/CUBE and time windows), the aggregate
//! functions of a select list and HAVING, and the check that what is selected is grouped.

use datafusion::common::DFSchema;
use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::logical_expr::utils::find_aggregate_exprs;
use datafusion::logical_expr::{Expr, GroupingSet, LogicalPlan, LogicalPlanBuilder};

use super::Resolver;
use super::names::Named;
use super::project::{contains_aggregate, ordinal, replace_exprs, substitute_aliases};
use super::time_windows::{Session, with_window_key_fields};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{self, Expr as SExpr, GroupType};

impl Resolver<'_> {
    /// GROUP BY: group keys, aggregate functions found in `items`/`having`, then HAVING,
    /// window functions and the final projection of `items`.
    pub(crate) fn build_aggregate(
        &mut self,
        input: LogicalPlan,
        group: Vec<Named>,
        group_type: GroupType,
        grouping_sets: Vec<Vec<Named>>,
        items: Vec<Named>,
        having: Option<Expr>,
    ) -> PlanResult<LogicalPlan> {
        // Non-column keys are computed first so that every key is a plain column.
        let mut keys: Vec<Named> = group.clone();
        for set in &grouping_sets {
            for k in set {
                if !keys.iter().any(|(e, _)| e == &k.0) {
                    keys.push(k.clone());
                }
            }
        }
        let mut replacements: Vec<(Expr, Expr)> = Vec::new();
        let mut pre = Vec::new();
        let mut key_columns = Vec::with_capacity(keys.len());
        // Sliding windows: a row counts in each window holding it (the list unnested).
        let mut unnest = Vec::new();
        let mut session: Option<Session> = None;
        for (e, name) in &keys {
            match e {
                Expr::Column(_) => key_columns.push(e.clone()),
                Expr::ScalarFunction(f)
                    if f.func.name() == crate::functions::native::SESSION_WINDOW =>
                {
                    if session.is_some() {
                        return Err(PlanError::Unsupported(
                            "more than one session_window in a GROUP BY".into(),
                        ));
                    }
                    let key = self.session_key(f, name, &mut pre)?;
                    replacements.push((e.clone(), Self::column(&key.key)));
                    key_columns.push(Self::column(&key.key));
                    session = Some(key);
                }
                Expr::ScalarFunction(f)
                    if f.func.name() == crate::functions::native::SLIDING_WINDOWS =>
                {
                    let internal = self.fresh(name, vec![]);
                    let windows = f
                        .args
                        .first()
                        .cloned()
                        .unwrap_or(Expr::Literal(datafusion::common::ScalarValue::Null, None));
                    pre.push(windows.alias(&internal));
                    replacements.push((e.clone(), Self::column(&internal)));
                    key_columns.push(Self::column(&internal));
                    unnest.push(internal);
                }
                other => {
                    let internal = self.fresh(name, vec![]);
                    pre.push(other.clone().alias(&internal));
                    replacements.push((other.clone(), Self::column(&internal)));
                    key_columns.push(Self::column(&internal));
                }
            }
        }
        let input = if pre.is_empty() {
            input
        } else {
            let mut all: Vec<Expr> = input
                .schema()
                .fields()
                .iter()
                .map(|f| Self::column(f.name()))
                .collect();
            all.extend(pre);
            let mut plan = LogicalPlanBuilder::from(input).project(all)?;
            let options = datafusion::common::UnnestOptions::new().with_preserve_nulls(false);
            for column in unnest {
                plan = plan.unnest_column_with_options(column.as_str(), options.clone())?;
            }
            plan.build()?
        };
        let input = match session {
            Some(session) => {
                let others: Vec<Expr> = key_columns
                    .iter()
                    .filter(|k| **k != Self::column(&session.key))
                    .cloned()
                    .collect();
                self.sessions(input, &session, others)?
            }
            None => input,
        };
        let key_of = |e: &Expr| -> Expr {
            replacements
                .iter()
                .find(|(o, _)| o == e)
                .map(|(_, c)| c.clone())
                .unwrap_or_else(|| e.clone())
        };
        let group_expr: Vec<Expr> = match group_type {
            GroupType::GroupBy | GroupType::Pivot => key_columns.clone(),
            GroupType::Rollup => vec![Expr::GroupingSet(GroupingSet::Rollup(
                group.iter().map(|(e, _)| key_of(e)).collect(),
            ))],
            GroupType::Cube => vec![Expr::GroupingSet(GroupingSet::Cube(
                group.iter().map(|(e, _)| key_of(e)).collect(),
            ))],
            GroupType::GroupingSets => vec![Expr::GroupingSet(GroupingSet::GroupingSets(
                grouping_sets
                    .iter()
                    .map(|s| s.iter().map(|(e, _)| key_of(e)).collect())
                    .collect(),
            ))],
        };

        // Aggregate functions, each computed once.
        let mut all_exprs: Vec<&Expr> = items.iter().map(|(e, _)| e).collect();
        if let Some(h) = &having {
            all_exprs.push(h);
        }
        let aggregates = find_aggregate_exprs(all_exprs);
        let mut agg_exprs = Vec::with_capacity(aggregates.len());
        // grouping()/grouping_id() name the grouping keys as computed above (all of them when
        // grouping_id() has no arguments).
        let set_keys: Vec<Expr> = match group_type {
            GroupType::Rollup | GroupType::Cube => group.iter().map(|(e, _)| key_of(e)).collect(),
            GroupType::GroupingSets => keys.iter().map(|(e, _)| key_of(e)).collect(),
            GroupType::GroupBy | GroupType::Pivot => vec![],
        };
        super::python::check_python_aggregates(&aggregates)?;
        let mut computed_aggregates = Vec::with_capacity(aggregates.len());
        for a in aggregates {
            let internal = self.fresh("agg", vec![]);
            let is_grouping =
                matches!(&a, Expr::AggregateFunction(f) if f.func.name() == "grouping");
            let computed = match &a {
                Expr::AggregateFunction(f) if f.func.name() == "grouping" => {
                    if set_keys.is_empty() {
                        return Err(SparkError::analysis(
                            "UNSUPPORTED_GROUPING_EXPRESSION",
                            "42K0E",
                            "grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup.",
                        )
                        .into());
                    }
                    let mut f = f.clone();
                    f.params.args = if f.params.args.is_empty() {
                        set_keys.clone()
                    } else {
                        f.params.args.iter().map(&key_of).collect()
                    };
                    Expr::AggregateFunction(f)
                }
                _ => a.clone(),
            };
            agg_exprs.push(computed.alias(&internal));
            let column = Self::column(&internal);
            // grouping()/grouping_id() are never NULL (Spark's schema says so).
            let column = if is_grouping {
                crate::functions::nullability::SparkNullability::udf(false).call(vec![column])
            } else {
                column
            };
            computed_aggregates.push((a, column));
        }
        replacements.extend(computed_aggregates);
        let plan = LogicalPlanBuilder::from(input)
            .aggregate(group_expr, agg_exprs)?
            .build()?;
        let out_schema = plan.schema().clone();

        let mut items = items
            .into_iter()
            .map(|(e, n)| Ok((replace_exprs(e, &replacements)?, n)))
            .collect::<PlanResult<Vec<_>>>()?;
        let grouped = !keys.is_empty();
        for (e, _) in &items {
            self.check_grouped(e, &out_schema, grouped)?;
        }
        let plan = match having {
            Some(h) => {
                let h = replace_exprs(h, &replacements)?;
                // A column of HAVING neither grouped nor aggregated: Spark cannot resolve it
                // over the aggregation's output.
                if let Some(name) = self.ungrouped_column(&h, &out_schema)? {
                    let candidates = self.output_names(&out_schema);
                    return Err(SparkError::unresolved_column(&name, &candidates).into());
                }
                LogicalPlanBuilder::from(plan).filter(h)?.build()?
            }
            None => plan,
        };
        let (plan, rewritten) = self.apply_windows(plan, std::mem::take(&mut items))?;
        self.project_items(plan, rewritten)
    }

    /// Every column an output expression uses must come out of the aggregation.
    /// Without any grouping (`grouped` false), Spark's MISSING_GROUP_BY.
    fn check_grouped(&self, e: &Expr, schema: &DFSchema, grouped: bool) -> PlanResult<()> {
        match self.ungrouped_column(e, schema)? {
            Some(_) if !grouped => Err(SparkError::analysis(
                "MISSING_GROUP_BY",
                "42803",
                "The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using OVER clauses.",
            )
            .into()),
            Some(name) => Err(SparkError::new(
                crate::error::ErrorKind::Analysis,
                "MISSING_AGGREGATION",
                "42803",
                format!(
                    "The non-aggregating expression \"{name}\" is based on columns which are not participating in the GROUP BY clause.\nAdd the columns or the expression to the GROUP BY, aggregate the expression, or use \"any_value({name})\" if you do not care which of the values within a group is returned."
                ),
                vec![("expression", format!("\"{name}\"")), ("expressionAnyValue", format!("\"any_value({name})\""))],
            )
            .into()),
            None => Ok(()),
        }
    }

    /// The first column `e` uses that the aggregation's output lacks (outside subqueries).
    fn ungrouped_column(&self, e: &Expr, schema: &DFSchema) -> PlanResult<Option<String>> {
        let mut missing = None;
        e.apply(|x| {
            if let Expr::Column(c) = x
                && schema.field_with_unqualified_name(&c.name).is_err()
            {
                missing = Some(self.info(&c.name).name);
                return Ok(TreeNodeRecursion::Stop);
            }
            if matches!(
                x,
                Expr::ScalarSubquery(_) | Expr::Exists(_) | Expr::InSubquery(_)
            ) {
                return Ok(TreeNodeRecursion::Jump);
            }
            Ok(TreeNodeRecursion::Continue)
        })?;
        Ok(missing)
    }

    pub(crate) fn resolve_aggregate(&mut self, a: &spec::Aggregate) -> PlanResult<LogicalPlan> {
        // (Columns of the input's DataFrames the aggregation drops are UNRESOLVED_COLUMN.)
        self.plan_ids.enter_aggregate_input();
        let input = self.resolve(&a.input);
        self.plan_ids.leave_aggregate_input();
        let input = input?;
        if let Some((column, values)) = &a.pivot {
            return self.resolve_pivot(input, a, column, values);
        }
        if a.group_type == GroupType::Pivot {
            return Err(PlanError::InvalidPlan("pivot without a column".into()));
        }
        self.aggregate_resolved(input, a)
    }

    /// An aggregation over its already resolved input.
    pub(crate) fn aggregate_resolved(
        &mut self,
        input: LogicalPlan,
        a: &spec::Aggregate,
    ) -> PlanResult<LogicalPlan> {
        // (`groupBy(spark_partition_id())` reads each row's partition.)
        let outer = std::mem::replace(&mut self.in_aggregation, true);
        let input = self
            .rows_with_window_times(input, a.grouping.iter().chain(&a.aggregates))
            .and_then(|input| {
                self.with_partition_ids(input, a.grouping.iter().chain(&a.aggregates))
            });
        self.in_aggregation = outer;
        let input = input?;
        let schema = input.schema().clone();
        let sql_semantics = !a.output_grouping;
        // In SQL, `window.start` names a field of a window grouping key.
        let aggregates = if sql_semantics {
            with_window_key_fields(a, &schema)
        } else {
            a.aggregates.clone()
        };
        let outer = std::mem::replace(&mut self.in_aggregation, true);
        let items = self.resolve_items(&aggregates, &schema);
        self.in_aggregation = outer;
        let items = items?;
        let mut group = Vec::new();
        for g in &a.grouping {
            group.extend(self.resolve_group_key(
                g,
                &a.aggregates,
                &items,
                sql_semantics,
                &schema,
            )?);
        }
        let mut sets = Vec::new();
        for set in &a.grouping_sets {
            let mut keys = Vec::new();
            for g in set {
                keys.extend(self.resolve_group_key(
                    g,
                    &a.aggregates,
                    &items,
                    sql_semantics,
                    &schema,
                )?);
            }
            sets.push(keys);
        }
        if a.group_type == GroupType::GroupingSets && group.is_empty() {
            // The keys of all sets are the grouping columns of the output (DataFrame API).
            for set in &sets {
                for k in set {
                    if !group.iter().any(|(e, _): &Named| e == &k.0) {
                        group.push(k.clone());
                    }
                }
            }
        }
        let having = match &a.having {
            Some(h) => Some(match self.resolve_expr(h, &schema) {
                Ok((e, _)) => e,
                Err(first) => {
                    let substituted =
                        substitute_aliases(h, &a.aggregates, self.config.case_sensitive);
                    if &substituted == h {
                        return Err(first);
                    }
                    self.resolve_expr(&substituted, &schema)?.0
                }
            }),
            None => None,
        };
        let outputs = if a.output_grouping {
            group.iter().cloned().chain(items).collect()
        } else {
            items
        };
        let (group_keys, group_type) = (group, a.group_type);
        self.build_aggregate(input, group_keys, group_type, sets, outputs, having)
    }

    /// A GROUP BY key. In SQL, a key may be an ordinal or a select-list alias, and
    /// `GROUP BY ALL` groups by every select item without an aggregate.
    fn resolve_group_key(
        &mut self,
        g: &SExpr,
        select: &[SExpr],
        items: &[Named],
        sql: bool,
        schema: &DFSchema,
    ) -> PlanResult<Vec<Named>> {
        if sql {
            if let SExpr::Function(f) = g
                && f.name == "__group_by_all"
            {
                return Ok(items
                    .iter()
                    .filter(|(e, _)| !contains_aggregate(e))
                    .cloned()
                    .collect());
            }
            if let Some(i) = ordinal(g) {
                return match items.get(i.wrapping_sub(1)) {
                    Some(item) if !contains_aggregate(&item.0) => Ok(vec![item.clone()]),
                    Some(_) => Err(SparkError::analysis(
                        "GROUP_BY_POS_AGGREGATE",
                        "42903",
                        format!("GROUP BY {i} refers to an expression that contains an aggregate function. Aggregate functions are not allowed in GROUP BY."),
                    )
                    .into()),
                    None => Err(SparkError::analysis(
                        "GROUP_BY_POS_OUT_OF_RANGE",
                        "42805",
                        format!("GROUP BY position {i} is not in select list (valid range is [1, {}]).", items.len()),
                    )
                    .into()),
                };
            }
        }
        match self.resolve_expr(g, schema) {
            Ok(named) => Ok(vec![named]),
            Err(e) if sql => {
                // `GROUP BY alias` of a select item.
                if let SExpr::Attribute { name, .. } = g
                    && let [single] = name.as_slice()
                {
                    for (s, item) in select.iter().zip(items) {
                        if let SExpr::Alias { names, .. } = s
                            && names.len() == 1
                            && self.names_equal(&names[0], single)
                        {
                            return Ok(vec![item.clone()]);
                        }
                    }
                }
                Err(e)
            }
            Err(e) => Err(e),
        }
    }
}
