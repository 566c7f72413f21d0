//! Projections: select lists (with stars, lateral aliases, aggregates and window functions),
//! withColumn(s), withColumnRenamed, drop, dropDuplicates (GROUP BY is in `aggregate`,
//! repartition in `repartition`).

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Column, DFSchema, ScalarValue};
use datafusion::logical_expr::utils::{find_aggregate_exprs, find_window_exprs};
use datafusion::logical_expr::{Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{Expr as SExpr, GroupType, Plan};

impl Resolver<'_> {
    /// Resolve select-list items, expanding `*` and regexes.
    pub(crate) fn resolve_items(
        &mut self,
        exprs: &[SExpr],
        schema: &DFSchema,
    ) -> PlanResult<Vec<Named>> {
        let mut out = Vec::with_capacity(exprs.len());
        for e in exprs {
            match e {
                SExpr::Star { target, plan_id } => {
                    out.extend(self.expand_star(target.as_deref(), *plan_id, schema)?)
                }
                SExpr::StarExcept { target, except } => {
                    let mut items = self.expand_star(target.as_deref(), None, schema)?;
                    for name in except {
                        let (e, _) = self.resolve_expr(
                            &SExpr::Attribute {
                                name: name.clone(),
                                plan_id: None,
                            },
                            schema,
                        )?;
                        items.retain(|(i, _)| i != &e);
                    }
                    out.extend(items)
                }
                SExpr::Regex { pattern, plan_id } => {
                    out.extend(self.expand_regex(pattern, *plan_id, schema)?)
                }
                other => {
                    let (e, name) = self.resolve_expr(other, schema)?;
                    let name = match other {
                        // A cast of a column keeps the column's name at the top of a select
                        // list (`CAST(id AS STRING)` inside calls; `CAST(s.a AS STRING)` of
                        // a struct's field, which is no column).
                        SExpr::Cast { expr, .. }
                            if matches!(expr.as_ref(), SExpr::Attribute { .. }) =>
                        {
                            match self.resolve_expr(expr, schema)? {
                                (Expr::Column(_), inner) => inner,
                                _ => name,
                            }
                        }
                        // (So does a cast of a time window: Spark's TimeWindowing makes it a
                        // column named `window` first.)
                        SExpr::Cast { expr, .. }
                            if matches!(expr.as_ref(), SExpr::Function(f)
                                if ["window", "session_window"].iter().any(|n| f.name.eq_ignore_ascii_case(n))) =>
                        {
                            self.resolve_expr(expr, schema)?.1
                        }
                        _ => name,
                    };
                    out.push((e, name));
                }
            }
        }
        Ok(out)
    }

    /// A select (`PlanNode::Project`) of `spec`'s rows.
    pub(crate) fn resolve_select(
        &mut self,
        spec: &Plan,
        exprs: &[SExpr],
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(spec)?;
        let output = input.schema().clone();
        match self.resolve_project(input, exprs) {
            Ok(plan) if !exprs.iter().any(super::join::is_side_star) => Ok(plan),
            // An outer USING join's left-out key (Spark's hidden output of the join).
            first => match self.select_over_using_join(spec, exprs, &output) {
                Ok(Some(plan)) => Ok(plan),
                Ok(None) | Err(_) => first,
            },
        }
    }

    pub(crate) fn resolve_project(
        &mut self,
        input: LogicalPlan,
        exprs: &[SExpr],
    ) -> PlanResult<LogicalPlan> {
        if exprs
            .iter()
            .any(|e| super::generate::generator_of(e).is_some())
        {
            return self.resolve_project_with_generators(input, exprs);
        }
        let input = self.rows_with_window_times(input, exprs.iter())?;
        let input = self.with_partition_ids(input, exprs.iter())?;
        let schema = input.schema().clone();
        let items = match self.resolve_items(exprs, &schema) {
            Ok(items) => items,
            Err(PlanError::Spark(e)) if e.error_class.starts_with("UNRESOLVED_COLUMN") => {
                // (A column no alias names either is the first error, as Spark reports it.)
                return match self.lateral_aliases(&input, exprs) {
                    Ok(Some((lower, items))) => self.finish_projection(lower, items),
                    Ok(None) => Err(PlanError::Spark(e)),
                    Err(PlanError::Spark(later))
                        if later.error_class.starts_with("UNRESOLVED_COLUMN") =>
                    {
                        Err(PlanError::Spark(e))
                    }
                    Err(other) => Err(other),
                };
            }
            Err(e) => return Err(e),
        };
        self.finish_projection(input, items)
    }

    /// Spark's lateral column aliases (`SELECT x + 1 AS a, a * 2 AS b`): a select list whose
    /// items refer to aliases of earlier items. The aliased values are computed in a
    /// projection below (with every input column), the items over it. None when the list
    /// does not read that way (an alias of an aggregate or window function, a star, an alias
    /// that names an input column, which the input column wins).
    fn lateral_aliases(
        &mut self,
        input: &LogicalPlan,
        exprs: &[SExpr],
    ) -> PlanResult<Option<(LogicalPlan, Vec<Named>)>> {
        let schema = input.schema().clone();
        if exprs.iter().any(|e| {
            matches!(
                e,
                SExpr::Star { .. } | SExpr::StarExcept { .. } | SExpr::Regex { .. }
            )
        }) {
            return Ok(None);
        }
        let mut lower: Vec<Named> = schema
            .columns()
            .into_iter()
            .map(|c| {
                let name = self.info(&c.name).name.clone();
                (Expr::Column(c), name)
            })
            .collect();
        let mut upper = Vec::with_capacity(exprs.len());
        // The positions of the items that became columns below, with their names.
        let mut pushed: Vec<(usize, String)> = vec![];
        for e in exprs {
            let alias = match e {
                SExpr::Alias {
                    expr,
                    names,
                    metadata: None,
                } if names.len() == 1 => Some((expr, &names[0])),
                _ => None,
            };
            let Some((inner, name)) = alias else {
                upper.push(e.clone());
                continue;
            };
            let shadows = lower.iter().any(|(_, n)| n.eq_ignore_ascii_case(name));
            let resolved = self.resolve_expr(inner, &schema);
            match resolved {
                Ok((value, _))
                    if !shadows
                        && !contains_aggregate(&value)
                        && find_window_exprs([&value]).is_empty() =>
                {
                    lower.push((value, name.clone()));
                    pushed.push((upper.len(), name.clone()));
                    upper.push(SExpr::Attribute {
                        name: vec![name.clone()],
                        plan_id: None,
                    });
                }
                // (An alias over earlier aliases, or one this does not handle: resolved
                // over the lower projection with the rest, or refused there.)
                _ => upper.push(e.clone()),
            }
        }
        if lower.len() == schema.fields().len() {
            return Ok(None);
        }
        let first_alias = schema.fields().len();
        let lower = self.project_items(input.clone(), lower)?;
        let lower_schema = lower.schema().clone();
        let marked: Vec<String> = lower_schema
            .columns()
            .into_iter()
            .skip(first_alias)
            .map(|c| c.name)
            .collect();
        let before = self.lateral_aliases.len();
        self.lateral_aliases.extend(marked);
        let resolved = self.lateral_items(lower, &upper, pushed);
        self.lateral_aliases.truncate(before);
        resolved
    }

    /// The items over the projection of lateral aliases (`pushed`: the positions of the
    /// aliased items, now references to its columns, with their names).
    fn lateral_items(
        &mut self,
        lower: LogicalPlan,
        upper: &[SExpr],
        pushed: Vec<(usize, String)>,
    ) -> PlanResult<Option<(LogicalPlan, Vec<Named>)>> {
        let lower_schema = lower.schema().clone();
        let (plan, mut items) = match self.resolve_items(upper, &lower_schema) {
            Ok(items) => (lower, items),
            // (Aliases of aliases: one more projection for each step of the chain.)
            Err(PlanError::Spark(e)) if e.error_class.starts_with("UNRESOLVED_COLUMN") => {
                match self.lateral_aliases(&lower, upper)? {
                    Some(done) => done,
                    None => return Err(PlanError::Spark(e)),
                }
            }
            Err(e) => return Err(e),
        };
        // (The aliased items themselves keep their names.)
        for (i, name) in pushed {
            if let Some(item) = items.get_mut(i) {
                item.1 = name;
            }
        }
        Ok(Some((plan, items)))
    }

    /// A projection of resolved items; aggregates make it a global aggregation (Spark's
    /// `SELECT count(*) FROM t`), window functions add window nodes below it.
    pub(crate) fn finish_projection(
        &mut self,
        input: LogicalPlan,
        items: Vec<Named>,
    ) -> PlanResult<LogicalPlan> {
        if items.iter().any(|(e, _)| contains_aggregate(e)) {
            return self.build_aggregate(input, vec![], GroupType::GroupBy, vec![], items, None);
        }
        let items = items
            .into_iter()
            .map(|(e, n)| Ok((subqueries_as_values(e, input.schema())?, n)))
            .collect::<PlanResult<Vec<_>>>()?;
        let (input, items) = self.apply_windows(input, items)?;
        self.project_items(input, items)
    }

    /// Project `items`, keeping a bare column's internal name when nothing about it changes.
    pub(crate) fn project_items(
        &mut self,
        input: LogicalPlan,
        items: Vec<Named>,
    ) -> PlanResult<LogicalPlan> {
        let mut used = std::collections::HashSet::new();
        let mut exprs = Vec::with_capacity(items.len());
        for (e, name) in items {
            if let Expr::Column(c) = &e
                && self.info(&c.name).name == name
                && used.insert(c.name.clone())
            {
                exprs.push(e);
                continue;
            }
            let internal = self.fresh(&name, vec![]);
            used.insert(internal.clone());
            // (An alias's own metadata, Spark's column metadata, stays with the column.)
            let (e, metadata) = match e {
                Expr::Alias(a) => (*a.expr, a.metadata),
                other => (other, None),
            };
            exprs.push(e.alias_with_metadata(internal, metadata));
        }
        Ok(LogicalPlanBuilder::from(input).project(exprs)?.build()?)
    }

    /// Compute window functions in window nodes and refer to their results by column.
    pub(crate) fn apply_windows(
        &mut self,
        input: LogicalPlan,
        items: Vec<Named>,
    ) -> PlanResult<(LogicalPlan, Vec<Named>)> {
        let windows = find_window_exprs(items.iter().map(|(e, _)| e));
        if windows.is_empty() {
            return Ok((input, items));
        }
        // Window nodes name their outputs after the window expression; refer to them so. The
        // name leaves out casts (DataFusion names `CAST(x AS T)` `x`): windows whose names
        // clash (`sum(x)` and `sum(CAST(x AS DOUBLE))`) are computed in rounds, each round's
        // outputs renamed before the next.
        let mut rounds: Vec<Vec<Expr>> = vec![];
        for w in windows {
            let name = w.schema_name().to_string();
            match rounds
                .iter_mut()
                .find(|r| r.iter().all(|x| x.schema_name().to_string() != name))
            {
                Some(round) => round.push(w),
                None => rounds.push(vec![w]),
            }
        }
        let mut replacements: Vec<(Expr, Expr)> = vec![];
        let mut plan = input;
        let last = rounds.len() - 1;
        for (i, round) in rounds.into_iter().enumerate() {
            plan = LogicalPlanBuilder::window_plan(plan, round.clone())?;
            if i == last {
                replacements.extend(
                    round
                        .into_iter()
                        .map(|w| (w.clone(), Self::column(&w.schema_name().to_string()))),
                );
                break;
            }
            let mut renamed = std::collections::HashMap::new();
            for w in round {
                let name = w.schema_name().to_string();
                let internal = self.fresh(&name, vec![]);
                replacements.push((w, Self::column(&internal)));
                renamed.insert(name, internal);
            }
            let exprs: Vec<Expr> = plan
                .schema()
                .columns()
                .into_iter()
                .map(|c| match renamed.get(&c.name) {
                    Some(internal) if c.relation.is_none() => Expr::Column(c).alias(internal),
                    _ => Expr::Column(c),
                })
                .collect();
            plan = LogicalPlanBuilder::from(plan).project(exprs)?.build()?;
        }
        let items = items
            .into_iter()
            .map(|(e, n)| Ok((replace_exprs(e, &replacements)?, n)))
            .collect::<PlanResult<Vec<_>>>()?;
        Ok((plan, items))
    }

    pub(crate) fn resolve_with_columns(
        &mut self,
        input: &Plan,
        columns: &[(String, SExpr)],
    ) -> PlanResult<LogicalPlan> {
        // `withColumns({"a": .., "A": ..})`: Spark's COLUMN_ALREADY_EXISTS (named in lower case
        // unless spark.sql.caseSensitive).
        for (i, (name, _)) in columns.iter().enumerate() {
            if columns[..i].iter().any(|(n, _)| self.names_equal(n, name)) {
                let shown = match self.config.case_sensitive {
                    true => name.clone(),
                    false => name.to_lowercase(),
                };
                return Err(SparkError::column_already_exists(&shown).into());
            }
        }
        let resolved = self.resolve(input)?;
        match self.with_columns_resolved(resolved, columns) {
            Ok(plan) => Ok(plan),
            // Columns reading what the input left out (a USING join's left-out key,
            // `withColumn("k", df2.id)`): computed below, as a select's items are.
            Err(first) => self
                .with_columns_with_extras(input, columns, &[])
                .map(|(plan, _)| plan)
                .map_err(|_| first),
        }
    }

    /// `withColumns` with `extras` computed below it as hidden columns (see
    /// `resolve_with_extras`); its columns that do not resolve over the input's output (a USING
    /// join's left-out key, `withColumn("k", df2.id)`) are computed below it too and take their
    /// place.
    pub(crate) fn with_columns_with_extras(
        &mut self,
        input: &Plan,
        columns: &[(String, SExpr)],
        extras: &[SExpr],
    ) -> PlanResult<(LogicalPlan, Vec<String>)> {
        let (plan, hidden) = self.resolve_with_extras(input, extras)?;
        let output = super::join::schema_without(plan.schema(), |n| hidden.iter().any(|h| h == n))?;
        // (Only a USING join's hidden output reaches a column: what a select dropped does
        // not, as in Spark.)
        let below: Vec<usize> = match super::join::over_using_join(input) {
            true => (0..columns.len())
                .filter(|&i| {
                    super::generate::generator_of(&columns[i].1).is_none()
                        && self.resolve_expr(&columns[i].1, &output).is_err()
                })
                .collect(),
            false => vec![],
        };
        if below.is_empty() {
            return Ok((self.with_columns_resolved(plan, columns)?, hidden));
        }
        let mut all = extras.to_vec();
        all.extend(below.iter().map(|&i| columns[i].1.clone()));
        let (plan, mut hidden) = self.resolve_with_extras(input, &all)?;
        let computed: Vec<(usize, String)> = below
            .into_iter()
            .zip(hidden.split_off(extras.len()))
            .collect();
        Ok((
            self.with_columns_computed(plan, columns, &computed)?,
            hidden,
        ))
    }

    /// Each column of `schema` under the name Spark shows (a projection that keeps them all).
    pub(crate) fn visible_items(&self, schema: &DFSchema) -> Vec<Named> {
        schema
            .fields()
            .iter()
            .map(|f| (Self::column(f.name()), self.info(f.name()).name))
            .collect()
    }

    /// `withColumns` over an already resolved input.
    pub(crate) fn with_columns_resolved(
        &mut self,
        input: LogicalPlan,
        columns: &[(String, SExpr)],
    ) -> PlanResult<LogicalPlan> {
        self.with_columns_computed(input, columns, &[])
    }

    /// `withColumns` over an already resolved input, of which `computed` columns (by
    /// position in `columns`) are hidden columns of the input, left out of the output.
    fn with_columns_computed(
        &mut self,
        input: LogicalPlan,
        columns: &[(String, SExpr)],
        computed: &[(usize, String)],
    ) -> PlanResult<LogicalPlan> {
        let mut items = self.visible_items(input.schema());
        items.retain(
            |(e, _)| !matches!(e, Expr::Column(c) if computed.iter().any(|(_, h)| *h == c.name)),
        );
        let input = self.rows_with_window_times(input, columns.iter().map(|(_, e)| e))?;
        let input = self.with_partition_ids(input, columns.iter().map(|(_, e)| e))?;
        let schema = input.schema().clone();
        let mut plan = input;
        for (i, (name, e)) in columns.iter().enumerate() {
            let precomputed = computed.iter().find(|(k, _)| *k == i);
            let resolved = match super::generate::generator_of(e) {
                _ if let Some((_, hidden)) = precomputed => Self::column(hidden),
                // `withColumn("x", explode(...))`: one row per element, the element as `x`.
                Some((call, _)) => {
                    let (next, generated) = self.resolve_generate(
                        plan,
                        call,
                        std::slice::from_ref(name),
                        vec![],
                        false,
                    )?;
                    plan = next;
                    generated
                        .into_iter()
                        .next()
                        .map(|(e, _)| e)
                        .ok_or_else(|| crate::error::SparkError::invalid_plan("empty generator"))?
                }
                None => {
                    let resolved = self.resolve_expr(e, &schema)?.0;
                    // Spark's withColumns gives each column `withMetadata`'s metadata or an
                    // empty one: a source column's metadata is dropped (an empty object over
                    // it, as aliases only add metadata).
                    let explicit = matches!(
                        e,
                        SExpr::Alias {
                            metadata: Some(_),
                            ..
                        }
                    );
                    if !explicit
                        && resolved
                            .to_field(&schema)?
                            .1
                            .metadata()
                            .contains_key(crate::types::SPARK_METADATA_KEY)
                    {
                        let empty = SExpr::Alias {
                            expr: Box::new(e.clone()),
                            names: vec![name.clone()],
                            metadata: Some("{}".into()),
                        };
                        self.resolve_expr(&empty, &schema)?.0
                    } else {
                        resolved
                    }
                }
            };
            let mut replaced = false;
            for item in items.iter_mut() {
                if self.names_equal(&item.1, name) {
                    *item = (resolved.clone(), name.clone());
                    replaced = true;
                }
            }
            if !replaced {
                items.push((resolved, name.clone()));
            }
        }
        self.finish_projection(plan, items)
    }

    pub(crate) fn resolve_with_columns_renamed(
        &mut self,
        input: &Plan,
        renames: &[(String, String)],
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        self.rename_columns(input, renames)
    }

    /// `input` with the columns named `old` named `new` (the others kept as they are).
    pub(crate) fn rename_columns(
        &mut self,
        input: LogicalPlan,
        renames: &[(String, String)],
    ) -> PlanResult<LogicalPlan> {
        let mut items = self.visible_items(input.schema());
        for (old, new) in renames {
            for item in items.iter_mut() {
                if self.names_equal(&item.1, old) {
                    item.1 = new.clone();
                }
            }
        }
        self.project_items(input, items)
    }

    pub(crate) fn resolve_drop(
        &mut self,
        input: &Plan,
        exprs: &[SExpr],
        names: &[String],
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        self.drop_columns(input, exprs, names)
    }

    /// `input` without the columns `names` and `exprs` name (a name that matches none is no
    /// error; a DataFrame's column that is not in the query is, as in Spark).
    pub(crate) fn drop_columns(
        &mut self,
        input: LogicalPlan,
        exprs: &[SExpr],
        names: &[String],
    ) -> PlanResult<LogicalPlan> {
        let schema = input.schema().clone();
        let mut dropped: Vec<String> = Vec::new();
        for n in names {
            dropped.extend(self.columns_named(&schema, n));
        }
        for e in exprs {
            match e {
                SExpr::Attribute { name, plan_id } => {
                    self.check_plan_id(name, *plan_id)?;
                    if let Ok(Some((Expr::Column(c), _))) =
                        self.lookup_attribute(name, *plan_id, &schema)
                    {
                        dropped.push(c.name);
                    }
                }
                _ => {
                    return Err(SparkError::analysis(
                        "UNSUPPORTED_FEATURE.DROP_COLUMN",
                        "0A000",
                        "drop() takes column names or column references.",
                    )
                    .into());
                }
            }
        }
        let items: Vec<Named> = schema
            .fields()
            .iter()
            .filter(|f| !dropped.contains(f.name()))
            .map(|f| (Self::column(f.name()), self.info(f.name()).name))
            .collect();
        self.project_items(input, items)
    }

    pub(crate) fn resolve_deduplicate(
        &mut self,
        input: &Plan,
        columns: &[String],
        all: bool,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        if all {
            return Ok(LogicalPlanBuilder::from(input).distinct()?.build()?);
        }
        let schema = input.schema().clone();
        let mut on = Vec::new();
        for c in columns {
            let (e, _) = self.resolve_attribute(std::slice::from_ref(c), None, &schema)?;
            on.push(e);
        }
        let select: Vec<Expr> = schema
            .fields()
            .iter()
            .map(|f| Self::column(f.name()))
            .collect();
        Ok(LogicalPlanBuilder::from(input)
            .distinct_on(on, select, None)?
            .build()?)
    }
}

pub(crate) fn contains_aggregate(e: &Expr) -> bool {
    !find_aggregate_exprs(std::iter::once(e)).is_empty()
}

/// An integer literal used as a position (`GROUP BY 1`, `ORDER BY 2`).
pub(crate) fn ordinal(e: &SExpr) -> Option<usize> {
    match e {
        SExpr::Literal(ScalarValue::Int32(Some(i))) if *i > 0 => Some(*i as usize),
        SExpr::Literal(ScalarValue::Int64(Some(i))) if *i > 0 => Some(*i as usize),
        _ => None,
    }
}

/// Replace sub-expressions equal to a key with its replacement (outermost first).
pub(crate) fn replace_exprs(e: Expr, replacements: &[(Expr, Expr)]) -> PlanResult<Expr> {
    if replacements.is_empty() {
        return Ok(e);
    }
    Ok(e.transform_down(|x| {
        if let Some((_, r)) = replacements.iter().find(|(o, _)| o == &x) {
            return Ok(Transformed::new(r.clone(), true, TreeNodeRecursion::Jump));
        }
        Ok(Transformed::no(x))
    })?
    .data)
}

/// In HAVING, replace `name` with the select item aliased `name` (compared as
/// `spark.sql.caseSensitive` says).
pub(crate) fn substitute_aliases(e: &SExpr, select: &[SExpr], case_sensitive: bool) -> SExpr {
    match e {
        SExpr::Attribute {
            name,
            plan_id: None,
        } if name.len() == 1 => {
            for s in select {
                if let SExpr::Alias { expr, names, .. } = s
                    && names.len() == 1
                    && (names[0] == name[0]
                        || (!case_sensitive && names[0].eq_ignore_ascii_case(&name[0])))
                {
                    return (**expr).clone();
                }
            }
            e.clone()
        }
        SExpr::Function(f) => {
            let mut f = (**f).clone();
            f.args = f
                .args
                .iter()
                .map(|a| substitute_aliases(a, select, case_sensitive))
                .collect();
            SExpr::Function(Box::new(f))
        }
        other => other.clone(),
    }
}

#[allow(dead_code)]
fn col(name: &str) -> Expr {
    Expr::Column(Column::from_name(name))
}

/// `EXISTS (subquery)` and `x IN (subquery)` as values (in a SELECT list): DataFusion turns
/// correlated scalar subqueries into joins, but not EXISTS or IN outside a filter. EXISTS
/// becomes `(SELECT count(1) > 0 FROM subquery)`; `x IN` whether a row equals `x`, and
/// `x NOT IN` that no row equals `x`, is NULL, or meets a NULL `x` (Spark's existence join:
/// neither is ever NULL).
fn subqueries_as_values(e: Expr, outer: &DFSchema) -> PlanResult<Expr> {
    use datafusion::logical_expr::expr::{Exists, InSubquery};
    use datafusion::logical_expr::{Subquery, lit};
    let count_where = |plan: &LogicalPlan,
                       condition: Option<Expr>,
                       outer_refs: Vec<Expr>|
     -> datafusion::common::Result<Expr> {
        let mut b = LogicalPlanBuilder::from(plan.clone());
        if let Some(c) = condition {
            b = b.filter(c)?;
        }
        let counted = b
            .aggregate(
                Vec::<Expr>::new(),
                vec![datafusion::functions_aggregate::count::count(lit(1)).alias("n")],
            )?
            .build()?;
        let scalar = Expr::ScalarSubquery(Subquery {
            subquery: std::sync::Arc::new(counted),
            outer_ref_columns: outer_refs,
            spans: Default::default(),
        });
        Ok(datafusion::functions::expr_fn::coalesce(vec![
            scalar,
            lit(0i64),
        ]))
    };
    Ok(e.transform_up(|e| match e {
        Expr::Exists(Exists { subquery, negated }) => {
            let found = count_where(&subquery.subquery, None, subquery.outer_ref_columns.clone())?
                .gt(lit(0i64));
            Ok(Transformed::yes(if negated { !found } else { found }))
        }
        Expr::InSubquery(InSubquery {
            expr,
            subquery,
            negated,
        }) => {
            let plan = subquery.subquery.as_ref();
            let fields = plan.schema().fields();
            let (Some(field), 1) = (fields.first(), fields.len()) else {
                return datafusion::common::plan_err!("IN (subquery) of more than one column");
            };
            let column = Expr::Column(Column::from_name(field.name()));
            // The value, as the subquery sees it: outer references.
            let mut refs = subquery.outer_ref_columns.clone();
            let outer_value = super::in_subquery::as_outer_value(&expr, outer, &mut refs)?;
            let rows = count_where(plan, None, subquery.outer_ref_columns.clone())?;
            let nulls = count_where(
                plan,
                Some(column.clone().is_null()),
                subquery.outer_ref_columns.clone(),
            )?;
            let matches = count_where(plan, Some(column.eq(outer_value)), refs)?;
            let found = matches.gt(lit(0i64));
            // Spark's existence join: NOT IN also fails for a NULL value (of a non-empty
            // subquery) and for a NULL row; both answers are never NULL, though Spark calls
            // them nullable where the value or the subquery's column is.
            let nullable = expr.nullable(outer)? || field.is_nullable();
            let value = if negated {
                !(found
                    .or(rows.gt(lit(0i64)).and(expr.is_null()))
                    .or(nulls.gt(lit(0i64))))
            } else {
                found
            };
            Ok(Transformed::yes(
                crate::functions::nullability::with_nullability(value, nullable, outer)?,
            ))
        }
        other => Ok(Transformed::no(other)),
    })?
    .data)
}
