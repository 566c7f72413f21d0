//! The resolver: [`spec::Plan`] -> DataFusion `LogicalPlan` with Spark's semantics.
//!
//! Column identity. Every column the resolver produces gets a unique internal name (`#12`),
//! and the resolver keeps, per internal name, the name Spark shows and the qualifiers it
//! can be referenced by. This gives Spark's behaviour where DataFusion's differs: duplicate
//! output names (`SELECT 1 AS a, 2 AS a`, joins), case-insensitive lookup with the written
//! case preserved, `df1.col` references pinned to a DataFrame by plan id, and qualifiers from
//! aliases. The final output names are applied to the Arrow schema when results are sent.

mod aggregate;
mod calls;
mod cast_rules;
pub(crate) use cast_rules::number_to_timestamp;
mod coercion;
mod config;
mod expr;
mod function;
mod generate;
mod in_subquery;
mod input_file;
mod input_types;
mod intervals;
pub use generate::GENERATORS;
mod as_of_join;
mod join;
mod lambda;
mod like;
mod na;
mod names;
mod nearest_by_join;
mod observe;
mod parse;
mod plan_ids;
pub use observe::Observation;
mod pivot;
mod project;
mod python;
mod python_cogroup;
pub mod python_source;
mod recursive;
mod relation;
mod repartition;
mod scope;
mod sort;
mod stack;
mod stat;
mod time_windows;
mod to_schema;
mod transpose;
mod udtf;
mod udtf_table;
mod window;

use std::collections::HashMap;

use datafusion::common::{DFSchema, DFSchemaRef};
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};

use crate::catalog::Catalog;
use crate::error::{PlanResult, SparkError};
use crate::spec::{self, Plan, PlanNode};

pub use config::{PlannerConfig, SPARK_VERSION};
pub use names::FieldInfo;

/// `e` with its constant parts computed (`1 + 2` is `3`), for arguments Spark requires to be
/// foldable (range bounds, window frame bounds).
pub(crate) use coercion::{common_type, deferred_if_failing};

pub(crate) fn fold_constants(e: Expr) -> PlanResult<Expr> {
    use datafusion::optimizer::simplify_expressions::{ExprSimplifier, SimplifyContext};
    Ok(ExprSimplifier::new(SimplifyContext::default()).simplify(e)?)
}

/// Columns operators add for expressions to read, never shown (`*` skips them).
pub(crate) fn is_hidden(internal: &str) -> bool {
    internal.starts_with("__ember_")
}

/// What to do with the rows of a query before they reach the client.
#[derive(Debug, Clone, PartialEq)]
pub enum PostProcess {
    None,
    /// `df.show()`: render the rows as Spark's text table in one string column.
    ShowString {
        num_rows: usize,
        truncate: usize,
        vertical: bool,
    },
    /// `df.tail(n)`: keep the last `n` rows.
    Tail(usize),
    /// `_repr_html_`: the rows as an HTML table in one string column.
    HtmlString {
        num_rows: usize,
        truncate: usize,
    },
}

/// A resolved query: a DataFusion plan and the names Spark shows for its columns.
#[derive(Debug, Clone)]
pub struct ResolvedQuery {
    pub plan: LogicalPlan,
    pub names: Vec<String>,
    pub post: PostProcess,
    /// Metrics observed on relations of the query (`df.observe`), computed after it.
    pub observations: Vec<Observation>,
}

pub struct Resolver<'a> {
    pub(crate) config: &'a PlannerConfig,
    catalog: &'a dyn Catalog,
    next_id: usize,
    fields: HashMap<String, FieldInfo>,
    /// Internal output names of each relation that carried a plan id.
    plan_outputs: HashMap<i64, Vec<String>>,
    plan_ids: plan_ids::PlanIds,
    /// Common table expressions in scope, innermost last.
    ctes: Vec<(String, Plan)>,
    /// Relations registered by `WithRelations`, by plan id.
    references: HashMap<i64, Plan>,
    /// Schemas of enclosing queries, for correlated subqueries (innermost last).
    outer: Vec<DFSchemaRef>,
    /// DataFusion's session, for file sources (object stores, format options).
    state: Option<&'a datafusion::execution::SessionState>,
    /// Variables of the lambda functions being resolved (innermost last).
    /// Each stands for an expression of a DataFusion lambda variable.
    lambda_variables: Vec<(String, datafusion::logical_expr::Expr)>,
    /// `observe` metrics met while resolving.
    observations: Vec<Observation>,
    /// `input_file_name()` calls (and the block functions) not yet replaced by what their
    /// input gives (see `input_file`).
    input_file_calls: usize,
    /// The root and the operations of each `update_fields(...)` name made, by name (see
    /// `update_fields_name`).
    update_names: HashMap<String, calls::UpdateChain>,
    /// Whether the function being resolved is a window function (Spark allows its
    /// aggregates over non-deterministic values).
    in_window: bool,
    /// The internal names of the columns lateral column aliases became while the items
    /// over them are resolved (Spark names a reference `lateralAliasReference(a)`).
    lateral_aliases: Vec<String>,
    /// Whether a stored plan (`Plan::stored`) is being resolved: its expressions may name
    /// plan ids no relation has any more.
    in_stored_plan: bool,
    /// The `IN (subquery)` conjuncts of the filter condition being resolved (by address; see
    /// `in_subquery`).
    filter_in_subqueries: Vec<usize>,
    /// Select-list columns reading a USING join's left-out key (Spark's qualified-access-only
    /// columns): a sort key of their name takes another column of it (`ORDER BY id`).
    qualified_only: std::collections::HashSet<String>,
    /// Whether a sort's keys are being resolved over its input (see `qualified_only`).
    in_sort_keys: bool,
    /// Whether an aggregation's items are being resolved over its input: its window
    /// functions run over the groups, where the input's row numbers are not.
    in_aggregation: bool,
    /// The recursive CTEs whose step is being resolved, innermost last (see `recursive`).
    work_tables: Vec<recursive::WorkTable>,
}

impl<'a> Resolver<'a> {
    pub fn new(config: &'a PlannerConfig, catalog: &'a dyn Catalog) -> Self {
        Self {
            config,
            catalog,
            next_id: 0,
            fields: HashMap::new(),
            plan_outputs: HashMap::new(),
            plan_ids: Default::default(),
            ctes: Vec::new(),
            references: HashMap::new(),
            outer: Vec::new(),
            state: None,
            lambda_variables: Vec::new(),
            observations: Vec::new(),
            input_file_calls: 0,
            update_names: HashMap::new(),
            in_window: false,
            lateral_aliases: vec![],
            in_stored_plan: false,
            qualified_only: Default::default(),
            in_sort_keys: false,
            in_aggregation: false,
            work_tables: Vec::new(),
            filter_in_subqueries: Vec::new(),
        }
    }

    /// Give the resolver DataFusion's session (needed to read files).
    pub fn with_session_state(mut self, state: &'a datafusion::execution::SessionState) -> Self {
        self.state = Some(state);
        self
    }

    /// The stores Iceberg tables of the session's catalogs are read from.
    pub(crate) fn iceberg_io(&self) -> ember_execution::formats::iceberg::io::Io {
        use ember_execution::formats::iceberg::io::Io;
        self.state
            .map_or_else(Io::local, |s| Io::new(s.runtime_env().clone()))
    }

    pub(crate) fn session_state(&self) -> Option<&'a datafusion::execution::SessionState> {
        self.state
    }

    /// `input` with the partition of each row and its position in it when `exprs` call
    /// `spark_partition_id()`, `monotonically_increasing_id()`, a seeded random function, or
    /// an aggregate whose answer depends on the order of its rows (which reads them in the
    /// input's order, as Spark's do, rather than in the order a shuffle delivers them).
    pub(crate) fn with_partition_ids<'e>(
        &self,
        input: LogicalPlan,
        mut exprs: impl Iterator<Item = &'e spec::Expr>,
    ) -> PlanResult<LogicalPlan> {
        // Seeded random values are drawn per partition, in row order, as Spark draws them.
        let by_partition = [
            "spark_partition_id",
            "monotonically_increasing_id",
            "rand",
            "random",
            "randn",
            "uniform",
            "randstr",
            crate::functions::DISTRIBUTED_SEQUENCE_ID,
        ];
        // (An aggregation's windows run over its groups: its input's numbers are not theirs.)
        let grouped = self.in_aggregation;
        let ties = |e: &spec::Expr| {
            !grouped
                && e.any(&|e| matches!(e, spec::Expr::Window(w) if window::ties_in_input_order(w)))
        };
        let calls = |e: &spec::Expr| {
            by_partition
                .iter()
                .chain(&crate::functions::IN_INPUT_ORDER)
                .any(|f| e.calls(f))
        };
        if exprs.any(|e| calls(e) || ties(e)) {
            Ok(crate::logical::partition_ids::PartitionIdsNode::plan(
                input,
            )?)
        } else {
            Ok(input)
        }
    }

    /// Run a plan while planning (for relations whose output columns depend on the data:
    /// pivot without values, transpose), on the driver's DataFusion session.
    pub(crate) fn collect_at_planning(
        &self,
        plan: &LogicalPlan,
        what: &str,
    ) -> PlanResult<Vec<arrow::array::RecordBatch>> {
        let Some(state) = self.session_state() else {
            return Err(crate::error::PlanError::Unsupported(what.to_string()));
        };
        Ok(crate::datasource::block_on(async {
            let physical = state.create_physical_plan(plan).await?;
            datafusion::physical_plan::collect(physical, state.task_ctx()).await
        })??)
    }

    /// `n` partitions, the count `what` asks for, unless above `spark.ember.maxPartitions`.
    pub(crate) fn partitions(&self, n: usize, what: &str) -> PlanResult<usize> {
        let max = self.config.max_partitions;
        if n > max {
            return Err(SparkError::illegal_argument(
                "INVALID_PARAMETER_VALUE",
                format!(
                    "{what} asks for {n} partitions, more than this server allows ({max}; the static setting spark.ember.maxPartitions)."
                ),
            )
            .into());
        }
        Ok(n)
    }

    /// Resolve a top-level query.
    pub fn resolve_query(&mut self, plan: &Plan) -> PlanResult<ResolvedQuery> {
        self.partitions(
            self.config.shuffle_partitions,
            "spark.sql.shuffle.partitions",
        )?;
        let (inner, post) = match &plan.node {
            // One row more than shown tells whether there are more.
            PlanNode::ShowString {
                input,
                num_rows,
                truncate,
                vertical,
            } => (
                self.resolve_limited(input, *num_rows)?,
                PostProcess::ShowString {
                    num_rows: *num_rows,
                    truncate: *truncate,
                    vertical: *vertical,
                },
            ),
            PlanNode::HtmlString {
                input,
                num_rows,
                truncate,
            } => (
                self.resolve_limited(input, *num_rows)?,
                PostProcess::HtmlString {
                    num_rows: *num_rows,
                    truncate: *truncate,
                },
            ),
            PlanNode::Tail { input, limit } => (self.resolve(input)?, PostProcess::Tail(*limit)),
            _ => (self.resolve(plan)?, PostProcess::None),
        };
        let names = self.output_names(inner.schema());
        Ok(ResolvedQuery {
            plan: inner,
            names,
            post,
            observations: std::mem::take(&mut self.observations),
        })
    }

    /// `plan` limited to one row more than `num_rows`.
    fn resolve_limited(&mut self, plan: &Plan, num_rows: usize) -> PlanResult<LogicalPlan> {
        let inner = self.resolve(plan)?;
        Ok(LogicalPlanBuilder::from(inner)
            .limit(0, Some(num_rows.saturating_add(1)))?
            .build()?)
    }

    /// `right` with fresh internal names when it shares one with `left` (a relation joined
    /// with itself), so that the join's columns stay distinct.
    pub(crate) fn distinct_from(
        &mut self,
        left: &LogicalPlan,
        right: LogicalPlan,
    ) -> PlanResult<LogicalPlan> {
        let left_names: std::collections::HashSet<&String> =
            left.schema().fields().iter().map(|f| f.name()).collect();
        if right
            .schema()
            .fields()
            .iter()
            .any(|f| left_names.contains(f.name()))
        {
            self.reassign(right, None)
        } else {
            Ok(right)
        }
    }

    /// Resolve an expression string against a plan (used by `DESCRIBE QUERY` and tests).
    pub fn resolve_plan(&mut self, plan: &Plan) -> PlanResult<LogicalPlan> {
        self.resolve(plan)
    }

    pub(crate) fn resolve(&mut self, plan: &Plan) -> PlanResult<LogicalPlan> {
        if plan.stored && !self.in_stored_plan {
            self.in_stored_plan = true;
            let out = self.resolve(plan);
            self.in_stored_plan = false;
            return out;
        }
        let out = match &plan.node {
            PlanNode::Range {
                start,
                end,
                step,
                num_partitions,
            } => self.resolve_range(*start, *end, *step, *num_partitions)?,
            PlanNode::LocalRelation { data, schema } => {
                self.resolve_local_relation(data.as_deref(), schema.as_deref())?
            }
            PlanNode::Values { rows } => self.resolve_values(rows)?,
            PlanNode::Table { name } => self.resolve_table(name)?,
            PlanNode::TimeTravel { name, at } => self.resolve_time_travel(name, at)?,
            PlanNode::DataSource(ds) => self.resolve_data_source(ds)?,
            PlanNode::TableFunction { name, args } => self.resolve_table_function(name, args)?,
            PlanNode::OneRow => LogicalPlanBuilder::empty(true).build()?,
            PlanNode::Unpivot {
                input,
                ids,
                values,
                variable_column,
                value_column,
                include_nulls,
            } => {
                let input = self.resolve(input)?;
                self.resolve_unpivot(
                    input,
                    ids.as_deref(),
                    values.as_deref(),
                    variable_column,
                    value_column,
                    *include_nulls,
                )?
            }
            PlanNode::Generate {
                input,
                generator,
                outer,
                alias,
                columns,
            } => {
                let input = self.resolve(input)?;
                let qualifier = alias.iter().cloned().collect();
                self.resolve_generate(input, generator, columns, qualifier, *outer)?
                    .0
            }
            PlanNode::Project { input, exprs } => self.resolve_select(input, exprs)?,
            PlanNode::Filter { input, condition } => self.resolve_filter(input, condition)?,
            PlanNode::MapPartitions { input, function } => {
                self.resolve_map_partitions(input, &[], function, false)?
            }
            PlanNode::GroupMap {
                input,
                grouping,
                function,
            } => self.resolve_map_partitions(input, grouping, function, true)?,
            PlanNode::CoGroupMap {
                input,
                grouping,
                other,
                other_grouping,
                function,
            } => self.resolve_co_group_map(input, grouping, other, other_grouping, function)?,
            PlanNode::Sort {
                input,
                order,
                global,
            } => self.resolve_sort(input, order, *global)?,
            PlanNode::Limit { input, limit } => {
                let input = self.resolve(input)?;
                LogicalPlanBuilder::from(input)
                    .limit(0, Some(*limit))?
                    .build()?
            }
            PlanNode::Offset { input, offset } => {
                let input = self.resolve(input)?;
                LogicalPlanBuilder::from(input)
                    .limit(*offset, None)?
                    .build()?
            }
            PlanNode::Tail { .. } => {
                return Err(crate::error::PlanError::Unsupported(
                    "tail() inside another relation".into(),
                ));
            }
            PlanNode::Aggregate(a) => self.resolve_aggregate(a)?,
            PlanNode::Deduplicate {
                input,
                columns,
                all_columns,
                ..
            } => self.resolve_deduplicate(input, columns, *all_columns)?,
            PlanNode::Join(j) => self.resolve_join(j)?,
            PlanNode::AsOfJoin(j) => self.resolve_as_of_join(j)?,
            PlanNode::NearestByJoin(j) => self.resolve_nearest_by_join(j)?,
            PlanNode::ToSchema { input, schema } => self.resolve_to_schema(input, schema)?,
            PlanNode::SetOperation(s) => self.resolve_set_operation(s)?,
            PlanNode::SubqueryAlias {
                input,
                alias,
                columns,
            } => {
                let input = self.resolve(input)?;
                self.resolve_subquery_alias(input, alias, columns)?
            }
            PlanNode::ToDf { input, names } => self.resolve_to_df(input, names)?,
            PlanNode::WithColumns { input, columns } => {
                self.resolve_with_columns(input, columns)?
            }
            PlanNode::WithColumnsRenamed { input, renames } => {
                self.resolve_with_columns_renamed(input, renames)?
            }
            PlanNode::Drop {
                input,
                exprs,
                names,
            } => self.resolve_drop(input, exprs, names)?,
            PlanNode::Describe {
                input,
                cols,
                statistics,
            } => self.resolve_describe(input, cols, statistics)?,
            PlanNode::Sample {
                input,
                lower,
                upper,
                seed,
                by_row_values,
                with_replacement: true,
            } if !*by_row_values => {
                let input = self.resolve(input)?;
                self.sample_with_replacement(input, *upper - *lower, *seed)?
            }
            PlanNode::Sample {
                input,
                lower,
                upper,
                seed,
                by_row_values,
                ..
            } => self.resolve_sample(input, *lower, *upper, *seed, *by_row_values)?,
            PlanNode::SampleBy {
                input,
                col,
                fractions,
                seed,
            } => self.resolve_sample_by(input, col, fractions, *seed)?,
            PlanNode::ApproxQuantile {
                input,
                cols,
                probabilities,
            } => self.resolve_approx_quantile(input, cols, probabilities)?,
            PlanNode::CovCorr {
                input,
                col1,
                col2,
                correlation,
            } => self.resolve_cov_corr(input, col1, col2, *correlation)?,
            PlanNode::FillNa {
                input,
                cols,
                values,
            } => self.resolve_fill_na(input, cols, values)?,
            PlanNode::DropNa {
                input,
                cols,
                min_non_nulls,
            } => self.resolve_drop_na(input, cols, *min_non_nulls)?,
            PlanNode::ReplaceNa {
                input,
                cols,
                replacements,
            } => self.resolve_replace_na(input, cols, replacements)?,
            PlanNode::CollectMetrics {
                input,
                name,
                metrics,
            } => {
                let input = self.resolve(input)?;
                self.observe(&input, name, metrics, plan.plan_id)?;
                input
            }
            PlanNode::FreqItems {
                input,
                cols,
                support,
            } => self.resolve_freq_items(input, cols, *support)?,
            PlanNode::Parse {
                input,
                format,
                schema,
                options,
            } => {
                let input = self.resolve(input)?;
                self.resolve_parse(input, format, schema.clone(), options)?
            }
            PlanNode::Transpose { input, index } => {
                let input = self.resolve(input)?;
                self.resolve_transpose(input, index.as_ref())?
            }
            PlanNode::ShowString { .. } | PlanNode::HtmlString { .. } => {
                return Err(crate::error::PlanError::Unsupported(
                    "show() inside another relation".into(),
                ));
            }
            PlanNode::Repartition {
                input,
                num_partitions,
                exprs,
                shuffle,
            } => self.resolve_repartition(input, *num_partitions, exprs, *shuffle)?,
            PlanNode::Hint { input, .. } => self.resolve(input)?,
            PlanNode::With { ctes, body } => self.resolve_with(ctes, body)?,
            PlanNode::RecursiveCte {
                name,
                anchor,
                recursive,
                all,
            } => self.resolve_recursive_cte(name, anchor, recursive.as_deref(), *all)?,
            PlanNode::WithRelations { root, references } => {
                for r in references {
                    if let Some(id) = r.plan_id {
                        self.references.insert(id, r.clone());
                    }
                }
                self.resolve(root)?
            }
            PlanNode::PlanReference { plan_id } => {
                let plan = self.references.get(plan_id).cloned().ok_or_else(|| {
                    crate::error::PlanError::InvalidPlan(format!(
                        "no relation with plan id {plan_id}"
                    ))
                })?;
                self.resolve(&plan)?
            }
        };
        let out = if self.input_file_calls > 0 {
            let (out, replaced) = input_file::resolve_input_files(out)?;
            self.input_file_calls = self.input_file_calls.saturating_sub(replaced);
            out
        } else {
            out
        };
        if let Some(id) = plan.plan_id {
            let names: Vec<String> = out
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect();
            self.plan_ids.resolved(id, &names);
            self.plan_outputs.entry(id).or_default().extend(names);
        }
        Ok(out)
    }

    /// A new internal column name carrying `name` (as Spark shows it) and its qualifier.
    pub(crate) fn fresh(&mut self, name: &str, qualifier: Vec<String>) -> String {
        self.next_id += 1;
        let internal = format!("#{}", self.next_id);
        self.fields.insert(
            internal.clone(),
            FieldInfo {
                name: name.to_string(),
                qualifier,
            },
        );
        internal
    }

    pub(crate) fn info(&self, internal: &str) -> FieldInfo {
        self.fields
            .get(internal)
            .cloned()
            .unwrap_or_else(|| FieldInfo {
                name: internal.to_string(),
                qualifier: vec![],
            })
    }

    pub(crate) fn output_names(&self, schema: &DFSchema) -> Vec<String> {
        schema
            .fields()
            .iter()
            .map(|f| self.info(f.name()).name)
            .collect()
    }

    pub(crate) fn column(internal: &str) -> Expr {
        Expr::Column(datafusion::common::Column::from_name(internal))
    }

    pub(crate) fn names_equal(&self, a: &str, b: &str) -> bool {
        if self.config.case_sensitive {
            a == b
        } else {
            a.eq_ignore_ascii_case(b)
        }
    }

    /// Re-expose every column of `plan` under fresh internal names (self-joins, aliases).
    pub(crate) fn reassign(
        &mut self,
        plan: LogicalPlan,
        qualifier: Option<Vec<String>>,
    ) -> PlanResult<LogicalPlan> {
        let exprs = plan
            .schema()
            .fields()
            .iter()
            .map(|f| {
                let info = self.info(f.name());
                let q = qualifier.clone().unwrap_or(info.qualifier);
                let fresh = self.fresh(&info.name, q);
                self.plan_ids.derived(&fresh, f.name());
                Self::column(f.name()).alias(fresh)
            })
            .collect::<Vec<_>>();
        Ok(LogicalPlanBuilder::from(plan).project(exprs)?.build()?)
    }

    fn resolve_subquery_alias(
        &mut self,
        input: LogicalPlan,
        alias: &str,
        columns: &[String],
    ) -> PlanResult<LogicalPlan> {
        let qualifier = if alias.is_empty() {
            Some(vec![])
        } else {
            Some(vec![alias.to_string()])
        };
        let plan = self.reassign(input, qualifier)?;
        if columns.is_empty() {
            return Ok(plan);
        }
        self.rename_all(plan, columns, Some(vec![alias.to_string()]))
    }

    /// Give every output column a new name (`toDF`, `AS t(a, b)`).
    pub(crate) fn rename_all(
        &mut self,
        plan: LogicalPlan,
        names: &[String],
        qualifier: Option<Vec<String>>,
    ) -> PlanResult<LogicalPlan> {
        let fields: Vec<String> = plan
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        if fields.len() != names.len() {
            return Err(SparkError::analysis(
                "ASSIGNMENT_ARITY_MISMATCH",
                "42802",
                format!(
                    "The number of columns doesn't match.\nOld column names ({}): {}\nNew column names ({}): {}",
                    fields.len(),
                    self.output_names(plan.schema()).join(", "),
                    names.len(),
                    names.join(", ")
                ),
            )
            .into());
        }
        let exprs = fields
            .iter()
            .zip(names)
            .map(|(internal, name)| {
                let q = qualifier
                    .clone()
                    .unwrap_or_else(|| self.info(internal).qualifier);
                let fresh = self.fresh(name, q);
                Self::column(internal).alias(fresh)
            })
            .collect::<Vec<_>>();
        Ok(LogicalPlanBuilder::from(plan).project(exprs)?.build()?)
    }

    fn resolve_to_df(&mut self, input: &Plan, names: &[String]) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        self.rename_all(input, names, None)
    }

    pub(crate) fn catalog(&self) -> &dyn Catalog {
        self.catalog
    }
}

/// Convenience: resolve one query with a fresh resolver.
pub fn resolve_query(
    config: &PlannerConfig,
    catalog: &dyn Catalog,
    plan: &spec::Plan,
) -> PlanResult<ResolvedQuery> {
    Resolver::new(config, catalog).resolve_query(plan)
}
