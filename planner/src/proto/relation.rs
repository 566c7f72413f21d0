//! Spark Connect `Relation` -> [`spec::Plan`].

use std::sync::Arc;

use ember_protos::spark::connect as pb;

use super::local_data::{decode_arrow, local_relation};
use ember_protos::spark::connect::relation::RelType;

use super::ProtoContext;
use super::expression::{convert as expr, convert_all, sort_order};
use crate::error::{PlanError, PlanResult, invalid, unsupported};
use crate::spec::{
    self, Aggregate, DataSource, Expr, GroupType, Join, JoinType, LocalData, Plan, PlanNode,
    SetOpKind, SetOperation,
};
use crate::sql;

pub fn convert(ctx: &ProtoContext, rel: &pb::Relation) -> PlanResult<Plan> {
    let plan_id = rel.common.as_ref().and_then(|c| c.plan_id);
    let Some(rel_type) = &rel.rel_type else {
        return invalid("relation without a type");
    };
    let depth = ctx.depth.get() + 1;
    if depth > ctx.max_depth {
        return Err(crate::error::SparkError::illegal_argument(
            "INVALID_PARAMETER_VALUE",
            format!(
                "The plan nests more than {} relations (the static setting spark.ember.maxPlanDepth). \
                 Break the chain of operations, e.g. with df.localCheckpoint().",
                ctx.max_depth
            ),
        )
        .into());
    }
    ctx.depth.set(depth);
    let node = convert_node(ctx, rel_type);
    ctx.depth.set(depth - 1);
    let node = node?;
    Ok(Plan {
        plan_id,
        node,
        stored: false,
    })
}

pub(super) fn input(ctx: &ProtoContext, rel: &Option<Box<pb::Relation>>) -> PlanResult<Box<Plan>> {
    match rel {
        Some(r) => Ok(Box::new(convert(ctx, r)?)),
        None => invalid("relation without input"),
    }
}

fn non_negative(v: i32, what: &str) -> PlanResult<usize> {
    usize::try_from(v).map_err(|_| {
        crate::error::SparkError::illegal_argument(
            "INVALID_PARAMETER_VALUE",
            format!("The value of {what} must be non-negative, got {v}."),
        )
        .into()
    })
}

#[allow(deprecated)] // old clients send SQL arguments in the deprecated fields
fn convert_node(ctx: &ProtoContext, rel: &RelType) -> PlanResult<PlanNode> {
    Ok(match rel {
        RelType::Read(r) => match &r.read_type {
            _ if r.is_streaming => return unsupported("streaming read"),
            Some(pb::read::ReadType::NamedTable(t)) => PlanNode::Table {
                name: sql::parse_identifier_parts(&t.unparsed_identifier)?,
            },
            Some(pb::read::ReadType::DataSource(d)) => {
                if !d.predicates.is_empty() {
                    return unsupported("JDBC predicates");
                }
                PlanNode::DataSource(DataSource {
                    format: d.format.clone(),
                    schema: d.schema.clone(),
                    options: d.options.clone().into_iter().collect(),
                    paths: d.paths.clone(),
                })
            }
            None => return invalid("read without a source"),
        },
        RelType::Project(p) => {
            let exprs = convert_all(ctx, &p.expressions)?;
            match &p.input {
                Some(i) => PlanNode::Project {
                    input: Box::new(convert(ctx, i)?),
                    exprs,
                },
                // `spark.range(1).select(...)` always has input; a bare select has none.
                None => PlanNode::Project {
                    input: Plan::boxed(PlanNode::OneRow),
                    exprs,
                },
            }
        }
        RelType::Filter(f) => PlanNode::Filter {
            input: input(ctx, &f.input)?,
            condition: match &f.condition {
                Some(c) => expr(ctx, c)?,
                None => return invalid("filter without condition"),
            },
        },
        RelType::Join(j) => {
            use pb::join::JoinType as T;
            let join_type = match T::try_from(j.join_type).unwrap_or(T::Unspecified) {
                T::Inner | T::Unspecified => JoinType::Inner,
                T::FullOuter => JoinType::FullOuter,
                T::LeftOuter => JoinType::LeftOuter,
                T::RightOuter => JoinType::RightOuter,
                T::LeftAnti => JoinType::LeftAnti,
                T::LeftSemi => JoinType::LeftSemi,
                T::Cross => JoinType::Cross,
            };
            if j.join_data_type.is_some() {
                return unsupported("joinWith");
            }
            PlanNode::Join(Join {
                using: j.using_columns.clone(),
                ..join(ctx, &j.left, &j.right, join_type, &j.join_condition, false)?
            })
        }
        // `df.lateralJoin(other, on, how)`: `other` reads `df`'s columns (`col.outer()`).
        RelType::LateralJoin(j) => {
            use pb::join::JoinType as T;
            let join_type = match T::try_from(j.join_type).unwrap_or(T::Unspecified) {
                T::Inner | T::Unspecified => JoinType::Inner,
                T::LeftOuter => JoinType::LeftOuter,
                T::Cross => JoinType::Cross,
                other => return unsupported(format!("lateralJoin of type {other:?}")),
            };
            PlanNode::Join(join(
                ctx,
                &j.left,
                &j.right,
                join_type,
                &j.join_condition,
                true,
            )?)
        }
        RelType::SetOp(s) => {
            use pb::set_operation::SetOpType as T;
            let kind = match T::try_from(s.set_op_type).unwrap_or(T::Unspecified) {
                T::Union => SetOpKind::Union,
                T::Intersect => SetOpKind::Intersect,
                T::Except => SetOpKind::Except,
                T::Unspecified => return invalid("set operation without type"),
            };
            PlanNode::SetOperation(SetOperation {
                left: input(ctx, &s.left_input)?,
                right: input(ctx, &s.right_input)?,
                kind,
                all: s.is_all.unwrap_or(false),
                by_name: s.by_name.unwrap_or(false),
                allow_missing_columns: s.allow_missing_columns.unwrap_or(false),
            })
        }
        RelType::Sort(s) => PlanNode::Sort {
            input: input(ctx, &s.input)?,
            order: s
                .order
                .iter()
                .map(|o| sort_order(ctx, o))
                .collect::<PlanResult<_>>()?,
            global: s.is_global.unwrap_or(true),
        },
        RelType::Limit(l) => PlanNode::Limit {
            input: input(ctx, &l.input)?,
            limit: non_negative(l.limit, "limit")?,
        },
        RelType::Offset(o) => PlanNode::Offset {
            input: input(ctx, &o.input)?,
            offset: non_negative(o.offset, "offset")?,
        },
        RelType::Tail(t) => PlanNode::Tail {
            input: input(ctx, &t.input)?,
            limit: non_negative(t.limit, "tail")?,
        },
        RelType::Aggregate(a) => {
            use pb::aggregate::GroupType as T;
            let group_type = match T::try_from(a.group_type).unwrap_or(T::Unspecified) {
                T::Groupby | T::Unspecified => GroupType::GroupBy,
                T::Rollup => GroupType::Rollup,
                T::Cube => GroupType::Cube,
                T::Pivot => GroupType::Pivot,
                T::GroupingSets => GroupType::GroupingSets,
            };
            let pivot = match &a.pivot {
                Some(p) => {
                    let col = p
                        .col
                        .as_ref()
                        .ok_or_else(|| PlanError::InvalidPlan("pivot without column".into()))?;
                    let values = p
                        .values
                        .iter()
                        .map(|v| {
                            Ok(Expr::Literal(crate::literal::from_proto(
                                v,
                                &ctx.time_zone,
                            )?))
                        })
                        .collect::<PlanResult<Vec<_>>>()?;
                    Some((expr(ctx, col)?, values))
                }
                None => None,
            };
            PlanNode::Aggregate(Aggregate {
                input: input(ctx, &a.input)?,
                group_type,
                grouping: convert_all(ctx, &a.grouping_expressions)?,
                aggregates: convert_all(ctx, &a.aggregate_expressions)?,
                grouping_sets: a
                    .grouping_sets
                    .iter()
                    .map(|s| convert_all(ctx, &s.grouping_set))
                    .collect::<PlanResult<_>>()?,
                pivot,
                having: None,
                output_grouping: true,
            })
        }
        RelType::Sql(s) => {
            let named = s
                .named_arguments
                .iter()
                .map(|(k, v)| Ok((k.clone(), expr(ctx, v)?)))
                .chain(s.args.iter().map(|(k, v)| {
                    Ok((
                        k.clone(),
                        Expr::Literal(crate::literal::from_proto(v, &ctx.time_zone)?),
                    ))
                }))
                .collect::<PlanResult<Vec<_>>>()?;
            let positional = if !s.pos_arguments.is_empty() {
                convert_all(ctx, &s.pos_arguments)?
            } else {
                s.pos_args
                    .iter()
                    .map(|v| {
                        Ok(Expr::Literal(crate::literal::from_proto(
                            v,
                            &ctx.time_zone,
                        )?))
                    })
                    .collect::<PlanResult<Vec<_>>>()?
            };
            let args = sql::Arguments { named, positional };
            match sql::parse_statement(&s.query, &args)? {
                spec::Statement::Query(plan) => return Ok(plan.node),
                _ => return unsupported("a SQL command used as a relation"),
            }
        }
        RelType::LocalRelation(l) => local_relation(l)?,
        RelType::CachedLocalRelation(c) => {
            let lookup = ctx
                .artifacts
                .as_ref()
                .ok_or_else(|| PlanError::Unsupported("cached local relation".into()))?;
            let bytes = lookup(&format!("cache/{}", c.hash)).ok_or_else(|| {
                PlanError::InvalidPlan(format!("no cached local relation with hash {}", c.hash))
            })?;
            // The cached artifact is a serialized LocalRelation proto.
            let local: pb::LocalRelation = prost::Message::decode(bytes)
                .map_err(|e| PlanError::InvalidPlan(format!("bad cached relation: {e}")))?;
            local_relation(&local)?
        }
        RelType::ChunkedCachedLocalRelation(c) => {
            let lookup = ctx
                .artifacts
                .as_ref()
                .ok_or_else(|| PlanError::Unsupported("chunked cached local relation".into()))?;
            let mut batches = Vec::new();
            let mut schema = None;
            for hash in &c.data_hashes {
                let bytes = lookup(&format!("cache/{hash}"))
                    .ok_or_else(|| PlanError::InvalidPlan(format!("no cached chunk {hash}")))?;
                let data = decode_arrow(&bytes)?;
                schema.get_or_insert(data.schema.clone());
                batches.extend(data.batches);
            }
            let schema_text = match &c.schema_hash {
                Some(h) => {
                    let bytes = lookup(&format!("cache/{h}"))
                        .ok_or_else(|| PlanError::InvalidPlan(format!("no cached schema {h}")))?;
                    Some(String::from_utf8_lossy(&bytes).into_owned())
                }
                None => None,
            };
            PlanNode::LocalRelation {
                data: schema.map(|schema| Arc::new(LocalData { schema, batches })),
                schema: schema_text,
            }
        }
        RelType::Deduplicate(d) => {
            if d.within_watermark.unwrap_or(false) {
                return unsupported("dropDuplicatesWithinWatermark");
            }
            PlanNode::Deduplicate {
                input: input(ctx, &d.input)?,
                columns: d.column_names.clone(),
                all_columns: d.all_columns_as_keys.unwrap_or(false) || d.column_names.is_empty(),
                sql: false,
            }
        }
        RelType::Range(r) => {
            if r.step == 0 {
                return Err(crate::error::SparkError::illegal_argument(
                    "INVALID_PARAMETER_VALUE",
                    "The step of range must not be 0.",
                )
                .into());
            }
            PlanNode::Range {
                start: r.start.unwrap_or(0),
                end: r.end,
                step: r.step,
                num_partitions: r.num_partitions.map(|n| n.max(1) as usize),
            }
        }
        RelType::SubqueryAlias(s) => PlanNode::SubqueryAlias {
            input: input(ctx, &s.input)?,
            alias: s.alias.clone(),
            columns: vec![],
        },
        RelType::Repartition(r) => PlanNode::Repartition {
            input: input(ctx, &r.input)?,
            num_partitions: Some(non_negative(r.num_partitions, "numPartitions")?.max(1)),
            exprs: vec![],
            shuffle: r.shuffle.unwrap_or(true),
        },
        RelType::RepartitionByExpression(r) => PlanNode::Repartition {
            input: input(ctx, &r.input)?,
            num_partitions: r.num_partitions.map(|n| n.max(1) as usize),
            exprs: convert_all(ctx, &r.partition_exprs)?,
            shuffle: true,
        },
        RelType::ToDf(t) => PlanNode::ToDf {
            input: input(ctx, &t.input)?,
            names: t.column_names.clone(),
        },
        RelType::WithColumnsRenamed(w) => {
            let mut renames: Vec<(String, String)> = w
                .renames
                .iter()
                .map(|r| (r.col_name.clone(), r.new_col_name.clone()))
                .collect();
            if renames.is_empty() {
                let mut legacy: Vec<_> = w
                    .rename_columns_map
                    .iter()
                    .map(|(a, b)| (a.clone(), b.clone()))
                    .collect();
                legacy.sort();
                renames = legacy;
            }
            PlanNode::WithColumnsRenamed {
                input: input(ctx, &w.input)?,
                renames,
            }
        }
        RelType::FreqItems(f) => {
            let support = f.support.unwrap_or(0.01);
            if !(1e-4..=1.0).contains(&support) {
                return Err(crate::error::SparkError::illegal_argument(
                    "",
                    format!("requirement failed: Support must be in [1e-4, 1], but got {support}."),
                )
                .into());
            }
            PlanNode::FreqItems {
                input: input(ctx, &f.input)?,
                cols: f.cols.clone(),
                support,
            }
        }
        RelType::CollectMetrics(c) => PlanNode::CollectMetrics {
            input: input(ctx, &c.input)?,
            name: c.name.clone(),
            metrics: convert_all(ctx, &c.metrics)?,
        },
        RelType::Transpose(t) => PlanNode::Transpose {
            input: input(ctx, &t.input)?,
            index: match t.index_columns.as_slice() {
                [] => None,
                [one] => Some(expr(ctx, one)?),
                _ => return unsupported("transpose with more than one index column"),
            },
        },
        RelType::CachedRemoteRelation(c) => {
            let data = ctx
                .cached_relations
                .as_ref()
                .and_then(|lookup| lookup(&c.relation_id));
            match data {
                Some(data) => PlanNode::LocalRelation {
                    data: Some(data),
                    schema: None,
                },
                None => {
                    return invalid(format!(
                        "No DataFrame with id {} is found in the session",
                        c.relation_id
                    ));
                }
            }
        }
        RelType::Parse(p) => {
            use pb::parse::ParseFormat as F;
            let format = match F::try_from(p.format).unwrap_or(F::Unspecified) {
                F::Csv => "csv",
                F::Json => "json",
                F::Xml => "xml",
                F::Unspecified => return invalid("parse without a format"),
            };
            let schema = match &p.schema {
                Some(dt) => match crate::types::from_proto(dt, &ctx.time_zone)? {
                    arrow::datatypes::DataType::Struct(fields) => {
                        Some(Arc::new(arrow::datatypes::Schema::new(fields)))
                    }
                    other => return invalid(format!("parse schema of type {other}")),
                },
                None => None,
            };
            let mut options: Vec<(String, String)> = p
                .options
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                .collect();
            options.sort();
            PlanNode::Parse {
                input: input(ctx, &p.input)?,
                format: format.to_string(),
                schema,
                options,
            }
        }
        RelType::AsOfJoin(j) => super::joins::as_of_join(ctx, j)?,
        RelType::NearestByJoin(j) => super::joins::nearest_by_join(ctx, j)?,
        RelType::ToSchema(t) => super::to_schema::convert(ctx, t)?,
        RelType::HtmlString(s) => PlanNode::HtmlString {
            input: input(ctx, &s.input)?,
            num_rows: s.num_rows.max(0) as usize,
            truncate: s.truncate.max(0) as usize,
        },
        RelType::ShowString(s) => PlanNode::ShowString {
            input: input(ctx, &s.input)?,
            num_rows: s.num_rows.max(0) as usize,
            truncate: s.truncate.max(0) as usize,
            vertical: s.vertical,
        },
        RelType::FillNa(f) => PlanNode::FillNa {
            input: input(ctx, &f.input)?,
            cols: f.cols.clone(),
            values: f
                .values
                .iter()
                .map(|l| crate::literal::from_proto(l, &ctx.time_zone))
                .collect::<PlanResult<_>>()?,
        },
        RelType::DropNa(d) => PlanNode::DropNa {
            input: input(ctx, &d.input)?,
            cols: d.cols.clone(),
            min_non_nulls: d
                .min_non_nulls
                .map(|n| non_negative(n, "min_non_nulls"))
                .transpose()?,
        },
        RelType::Replace(r) => {
            let literal = |l: &Option<pb::expression::Literal>| match l {
                Some(l) => crate::literal::from_proto(l, &ctx.time_zone),
                None => Ok(datafusion::common::ScalarValue::Null),
            };
            PlanNode::ReplaceNa {
                input: input(ctx, &r.input)?,
                cols: r.cols.clone(),
                replacements: r
                    .replacements
                    .iter()
                    .map(|p| Ok((literal(&p.old_value)?, literal(&p.new_value)?)))
                    .collect::<PlanResult<_>>()?,
            }
        }
        RelType::Sample(s) => {
            let with_replacement = s.with_replacement == Some(true);
            if with_replacement && s.upper_bound - s.lower_bound < 0.0 {
                return Err(crate::error::SparkError::illegal_argument(
                    "",
                    format!(
                        "requirement failed: Sampling fraction ({:?}) must be nonnegative with replacement",
                        s.upper_bound - s.lower_bound
                    ),
                )
                .into());
            }
            // Spark's check of the fraction (within its sampler's rounding epsilon).
            let fraction = s.upper_bound - s.lower_bound;
            if !with_replacement && !(-1e-6..=1.0 + 1e-6).contains(&fraction) {
                return Err(crate::error::SparkError::illegal_argument(
                    "",
                    format!(
                        "requirement failed: Sampling fraction ({fraction:?}) must be on interval [0, 1] without replacement"
                    ),
                )
                .into());
            }
            // (With replacement a fraction is a mean number of copies: it may exceed 1.)
            let in_range = |b: f64| b >= 0.0 && (with_replacement || b <= 1.0);
            if !in_range(s.lower_bound) || !in_range(s.upper_bound) || s.lower_bound > s.upper_bound
            {
                return Err(crate::error::SparkError::illegal_argument(
                    "",
                    format!(
                        "requirement failed: Upper bound ({}) must be on or after lower bound ({})",
                        s.upper_bound, s.lower_bound
                    ),
                )
                .into());
            }
            PlanNode::Sample {
                input: input(ctx, &s.input)?,
                lower: s.lower_bound,
                upper: s.upper_bound,
                seed: s.seed.unwrap_or(0),
                by_row_values: s.deterministic_order,
                with_replacement,
            }
        }
        RelType::SampleBy(s) => {
            let col = s
                .col
                .as_ref()
                .ok_or_else(|| PlanError::InvalidPlan("sampleBy without a column".into()))?;
            let mut fractions = Vec::with_capacity(s.fractions.len());
            for f in &s.fractions {
                if !(0.0..=1.0).contains(&f.fraction) {
                    return Err(crate::error::SparkError::illegal_argument(
                        "",
                        format!(
                            "requirement failed: Fractions must be in [0, 1], but got {}.",
                            f.fraction
                        ),
                    )
                    .into());
                }
                let stratum = match &f.stratum {
                    Some(l) => crate::literal::from_proto(l, &ctx.time_zone)?,
                    None => return invalid("a sampleBy fraction without a stratum"),
                };
                fractions.push((stratum, f.fraction));
            }
            PlanNode::SampleBy {
                input: input(ctx, &s.input)?,
                col: expr(ctx, col)?,
                fractions,
                seed: s.seed.unwrap_or(0),
            }
        }
        RelType::ApproxQuantile(q) => {
            if q.relative_error < 0.0 {
                return Err(crate::error::SparkError::illegal_argument(
                    "",
                    format!(
                        "requirement failed: Relative Error must be non-negative but got {}",
                        q.relative_error
                    ),
                )
                .into());
            }
            PlanNode::ApproxQuantile {
                input: input(ctx, &q.input)?,
                cols: q.cols.clone(),
                probabilities: q.probabilities.clone(),
            }
        }
        // crosstab(c1, c2): the values of c1 by the values of c2 (as strings, "null" for
        // NULL), counting pairs, 0 for none; the first column is `c1_c2` (nullable as
        // Spark's: `nullif(.., NULL)` is its value).
        RelType::Crosstab(c) => {
            let quote = |n: &str| format!("`{}`", n.replace('`', "``"));
            let first = format!("{}_{}", c.col1, c.col2);
            let rows = sql::parse_expression(&format!(
                "nullif(coalesce(CAST({} AS STRING), 'null'), NULL) AS {}",
                quote(&c.col1),
                quote(&first)
            ))?;
            let columns = sql::parse_expression(&format!(
                "coalesce(CAST({} AS STRING), 'null') AS `__crosstab`",
                quote(&c.col2)
            ))?;
            let projected = Plan::new(PlanNode::Project {
                input: input(ctx, &c.input)?,
                exprs: vec![rows, columns],
            });
            let counts = Plan::new(PlanNode::Aggregate(Aggregate {
                input: Box::new(projected),
                group_type: GroupType::Pivot,
                grouping: vec![sql::parse_expression(&quote(&first))?],
                aggregates: vec![sql::parse_expression("count(1)")?],
                grouping_sets: vec![],
                pivot: Some((sql::parse_expression("`__crosstab`")?, vec![])),
                having: None,
                output_grouping: true,
            }));
            PlanNode::FillNa {
                input: Box::new(counts),
                cols: vec![],
                values: vec![datafusion::common::ScalarValue::Int64(Some(0))],
            }
        }
        RelType::Describe(d) => PlanNode::Describe {
            input: input(ctx, &d.input)?,
            cols: d.cols.clone(),
            statistics: vec![],
        },
        RelType::Summary(d) => PlanNode::Describe {
            input: input(ctx, &d.input)?,
            cols: vec![],
            statistics: if d.statistics.is_empty() {
                ["count", "mean", "stddev", "min", "25%", "50%", "75%", "max"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            } else {
                d.statistics.clone()
            },
        },
        RelType::Cov(c) => PlanNode::CovCorr {
            input: input(ctx, &c.input)?,
            col1: c.col1.clone(),
            col2: c.col2.clone(),
            correlation: false,
        },
        RelType::Corr(c) => {
            if c.method.as_deref().is_some_and(|m| m != "pearson") {
                return Err(crate::error::SparkError::illegal_argument(
                    "",
                    "requirement failed: Currently only the calculation of the Pearson Correlation coefficient is supported.",
                )
                .into());
            }
            PlanNode::CovCorr {
                input: input(ctx, &c.input)?,
                col1: c.col1.clone(),
                col2: c.col2.clone(),
                correlation: true,
            }
        }
        RelType::Drop(d) => PlanNode::Drop {
            input: input(ctx, &d.input)?,
            exprs: convert_all(ctx, &d.columns)?,
            names: d.column_names.clone(),
        },
        RelType::WithColumns(w) => {
            let mut columns = Vec::with_capacity(w.aliases.len());
            for a in &w.aliases {
                let e = a.expr.as_deref().ok_or_else(|| {
                    PlanError::InvalidPlan("withColumns without expression".into())
                })?;
                let [name] = a.name.as_slice() else {
                    return invalid("withColumns needs exactly one name per column");
                };
                // `withMetadata`'s metadata, never an `alias(..., metadata=...)`'s, as in Spark (the
                // resolver drops a source column's metadata).
                let mut column = expr(ctx, e)?;
                if let Expr::Alias { metadata, .. } = &mut column {
                    *metadata = None;
                }
                if a.metadata.is_some() {
                    column = Expr::Alias {
                        expr: Box::new(column),
                        names: vec![name.clone()],
                        metadata: a.metadata.clone(),
                    };
                }
                columns.push((name.clone(), column));
            }
            PlanNode::WithColumns {
                input: input(ctx, &w.input)?,
                columns,
            }
        }
        RelType::Hint(h) => PlanNode::Hint {
            input: input(ctx, &h.input)?,
            name: h.name.clone(),
        },
        // SQL over named DataFrames (`spark.sql("... {df}", df=df)`): each reference is a
        // SubqueryAlias the query names, as a temporary view would be (Spark's SQL with refs).
        RelType::WithRelations(w) if sql_with_named_references(w) => PlanNode::With {
            ctes: w
                .references
                .iter()
                .filter_map(|r| match &r.rel_type {
                    Some(RelType::SubqueryAlias(a)) => Some((a.alias.clone(), &a.input)),
                    _ => None,
                })
                .map(|(alias, plan)| Ok((alias, *input(ctx, plan)?)))
                .collect::<PlanResult<_>>()?,
            body: input(ctx, &w.root)?,
        },
        RelType::WithRelations(w) => PlanNode::WithRelations {
            root: input(ctx, &w.root)?,
            references: w
                .references
                .iter()
                .map(|r| convert(ctx, r))
                .collect::<PlanResult<_>>()?,
        },
        // The DataFrame `spark.catalog.createTable` returns reads the table it created
        // (ExecutePlan runs the creation itself; this is the plan analysis sees).
        RelType::Catalog(pb::Catalog {
            cat_type:
                Some(
                    pb::catalog::CatType::CreateTable(pb::CreateTable { table_name, .. })
                    | pb::catalog::CatType::CreateExternalTable(pb::CreateExternalTable {
                        table_name,
                        ..
                    }),
                ),
        }) => PlanNode::Table {
            name: crate::sql::parse_identifier_parts(table_name)?,
        },
        RelType::Unpivot(u) => PlanNode::Unpivot {
            input: input(ctx, &u.input)?,
            ids: Some(convert_all(ctx, &u.ids)?),
            values: match &u.values {
                Some(v) => Some(
                    convert_all(ctx, &v.values)?
                        .into_iter()
                        .map(|e| (e, None))
                        .collect(),
                ),
                None => None,
            },
            variable_column: u.variable_column_name.clone(),
            value_column: u.value_column_name.clone(),
            include_nulls: true,
        },
        RelType::UnresolvedTableValuedFunction(f) => PlanNode::TableFunction {
            name: f.function_name.clone(),
            args: convert_all(ctx, &f.arguments)?,
        },
        RelType::WithWatermark(_) => return unsupported("withWatermark (structured streaming)"),
        RelType::GroupMap(g) => super::python::group_map(ctx, g)?,
        RelType::CoGroupMap(g) => super::python::co_group_map(ctx, g)?,
        RelType::MapPartitions(m) => super::python::map_partitions(ctx, m)?,
        RelType::CommonInlineUserDefinedTableFunction(f) => super::udtf::table_function(ctx, f)?,
        other => return unsupported(relation_name(other)),
    })
}

/// The Spark Connect name of a relation, for "not supported" messages.
fn relation_name(rel: &RelType) -> String {
    let debug = format!("{rel:?}");
    let name = debug.split('(').next().unwrap_or("relation");
    format!("relation {name}")
}

/// Whether a `WithRelations` is SQL whose references are all named (SubqueryAlias): Spark
/// then makes each reference visible to the query under its alias.
fn sql_with_named_references(w: &pb::WithRelations) -> bool {
    let is_sql = w
        .root
        .as_ref()
        .is_some_and(|r| matches!(r.rel_type, Some(RelType::Sql(_))));
    is_sql
        && !w.references.is_empty()
        && w.references
            .iter()
            .all(|r| matches!(r.rel_type, Some(RelType::SubqueryAlias(_))))
}

/// A join of two relations on a condition (no USING columns).
fn join(
    ctx: &ProtoContext,
    left: &Option<Box<pb::Relation>>,
    right: &Option<Box<pb::Relation>>,
    join_type: JoinType,
    condition: &Option<pb::Expression>,
    lateral: bool,
) -> PlanResult<Join> {
    Ok(Join {
        left: input(ctx, left)?,
        right: input(ctx, right)?,
        join_type,
        condition: condition.as_ref().map(|c| expr(ctx, c)).transpose()?,
        using: vec![],
        natural: false,
        lateral,
    })
}
