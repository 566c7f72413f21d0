//! Rows a join's (or a top-k's) dynamic filter rules out leave right after the scan, in one
//! process.
//!
//! DataFusion pushes a hash join's dynamic filter (its build side's key bounds and keys) into
//! the scans below its probe side, including scans that are the build side of a join further
//! down: in TPC-H q21 the filtered `nation` (one row) gives its `s_nationkey` filter to the
//! scan of `supplier`, which is the build side of `supplier ⋈ lineitem`. With parquet
//! `pushdown_filters` off (as Ember and Sail run: on, every static filter moved into the
//! decoder and the TPC-H total was 1.25x slower), the scan uses such a filter only to skip
//! row groups whose statistics rule them out, and passes every row: q21 built its join on all
//! 10,000 suppliers, joined 3.8 million `lineitem` rows with them and then 1.8 million with
//! `orders`, to keep the 76,000 rows of the one nation at the end.
//!
//! [`filter_rows`] puts a [`DynamicRowFilterExec`] over each parquet scan that a hash join
//! builds from and whose predicate has dynamic filters (their columns mapped to the scan's
//! output). It reads the scan once the filters of hash joins among them are complete (a join
//! completes its filter when its hash table is built, before it reads the probe side this
//! scan is in, so the wait is the join's own), and filters each batch by those that have been
//! filled in (a filter not yet filled is `true`; a top-k's fills as it goes). A filter that
//! passes more than half of the first [`TRIAL_ROWS`] rows it tests in a partition is not
//! evaluated there again. A probe side's scan is left alone: the join's own probe does the same
//! lookup in its hash table, and filtering those rows first only did it twice (the TPC-H total
//! 1.06x in an A/B run). Only the local runner applies it: in the job graph a join's dynamic
//! filter does not cross the stages, and key filter stages (`job_graph::key_filters`) do this
//! there.
//!
//! A/B in one run (release, TPC-H SF1 local mode, min of 5, alternating): q21 0.80x (its
//! `supplier` 411 rows instead of 10,000), the 22 queries 0.97x.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use arrow::array::{Array, AsArray, BooleanArray, RecordBatch};
use arrow::compute::{BatchCoalescer, prep_null_mask_filter};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, ScalarValue};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSource, ParquetSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::expressions::{Column, DynamicFilterPhysicalExpr, Literal};
use datafusion::physical_expr::{PhysicalExpr, split_conjunction};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::metrics::{
    BaselineMetrics, Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, apply_expression_roots,
    replace_children_if_necessary,
};

use futures::StreamExt;

/// Rows a partition tests a filter on before it may give up on one that passes most of them.
const TRIAL_ROWS: usize = 1 << 17;

/// The longest a scan waits for the hash joins' filters it has before it reads without them.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// `plan` with a [`DynamicRowFilterExec`] over each parquet scan that is (through
/// projections, filters, repartitions and coalescing) the build side of a hash join, has
/// dynamic filters and does not filter rows itself (module docs).
pub fn filter_rows(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    let mut joins_filters = HashSet::new();
    plan.apply(|node| {
        if node.downcast_ref::<HashJoinExec>().is_some() {
            for produced in node.dynamic_expressions_produced() {
                joins_filters.extend(produced.expression_id());
            }
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    plan.transform_down(|node| {
        let Some(join) = node.downcast_ref::<HashJoinExec>() else {
            return Ok(Transformed::no(node));
        };
        let build = Arc::clone(join.left());
        match filter_build_scan(&build, &joins_filters)? {
            Some(filtered) => {
                let probe = Arc::clone(join.right());
                Ok(Transformed::yes(replace_children_if_necessary(
                    node,
                    vec![filtered, probe],
                )?))
            }
            None => Ok(Transformed::no(node)),
        }
    })
    .map(|t| t.data)
}

/// `plan` (a join's build side) with its scan filtered, when it reaches one through nodes
/// that pass rows on as they are or thinned.
fn filter_build_scan(
    plan: &Arc<dyn ExecutionPlan>,
    joins_filters: &HashSet<u64>,
) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let filters = scan_dynamic_filters(plan);
    if !filters.is_empty() {
        let awaited = filters
            .iter()
            .filter(|f| {
                f.expression_id()
                    .is_some_and(|id| joins_filters.contains(&id))
            })
            .cloned()
            .collect();
        return Ok(Some(Arc::new(
            DynamicRowFilterExec::new(Arc::clone(plan), filters).awaiting(awaited),
        )));
    }
    let passes_rows = plan.downcast_ref::<ProjectionExec>().is_some()
        || plan.downcast_ref::<FilterExec>().is_some()
        || plan.downcast_ref::<RepartitionExec>().is_some()
        || plan.downcast_ref::<CoalescePartitionsExec>().is_some();
    let children = plan.children();
    if !passes_rows || children.len() != 1 {
        return Ok(None);
    }
    match filter_build_scan(children[0], joins_filters)? {
        Some(child) => Ok(Some(replace_children_if_necessary(
            Arc::clone(plan),
            vec![child],
        )?)),
        None => Ok(None),
    }
}

/// The dynamic filters of `node`'s predicate when it is a parquet scan that does not filter
/// rows itself, each over the scan's output columns (those whose columns the scan does not
/// output as they are are left out).
fn scan_dynamic_filters(node: &Arc<dyn ExecutionPlan>) -> Vec<Arc<dyn PhysicalExpr>> {
    let Some(scan) = node.downcast_ref::<DataSourceExec>() else {
        return vec![];
    };
    let Some(config) = scan.data_source().downcast_ref::<FileScanConfig>() else {
        return vec![];
    };
    let Some(source) = config.file_source().downcast_ref::<ParquetSource>() else {
        return vec![];
    };
    if source.table_parquet_options().global.pushdown_filters {
        return vec![];
    }
    let Some(predicate) = source.filter() else {
        return vec![];
    };
    let output = node.schema();
    // Table column index -> the scan's output column that is that column.
    let output_of = |table_index: usize| -> Option<Arc<dyn PhysicalExpr>> {
        let position = match source.projection() {
            Some(projection) => projection.as_ref().iter().position(|p| {
                p.expr
                    .downcast_ref::<Column>()
                    .is_some_and(|c| c.index() == table_index)
            })?,
            None => table_index,
        };
        let field = output.fields().get(position)?;
        Some(Arc::new(Column::new(field.name(), position)))
    };
    split_conjunction(&predicate)
        .into_iter()
        .filter(|c| c.downcast_ref::<DynamicFilterPhysicalExpr>().is_some())
        .filter_map(|filter| {
            let mapped = filter
                .children()
                .into_iter()
                .map(|child| {
                    let column = child.downcast_ref::<Column>()?;
                    output_of(column.index())
                })
                .collect::<Option<Vec<_>>>()?;
            Arc::clone(filter).with_new_children(mapped).ok()
        })
        .collect()
}

/// Drops the rows its input's dynamic filters rule out (module docs).
#[derive(Debug)]
pub struct DynamicRowFilterExec {
    input: Arc<dyn ExecutionPlan>,
    filters: Vec<Arc<dyn PhysicalExpr>>,
    /// The filters (of `filters`) of hash joins in the plan: the input is read once they are
    /// complete (or after [`MAX_WAIT`]).
    awaited: Vec<Arc<dyn PhysicalExpr>>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl DynamicRowFilterExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, filters: Vec<Arc<dyn PhysicalExpr>>) -> Self {
        let properties = Arc::clone(input.properties());
        Self {
            input,
            filters,
            awaited: vec![],
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// Reads the input only once `filters` (hash joins' dynamic filters, of this node's) are
    /// complete, or [`MAX_WAIT`] has passed. A join completes its filter when it has built its
    /// hash table, before it reads its probe side (where this node is), so that wait is the
    /// join's own; the limit keeps a filter that is never completed from holding a query.
    pub fn awaiting(mut self, filters: Vec<Arc<dyn PhysicalExpr>>) -> Self {
        self.awaited = filters;
        self
    }
}

impl DisplayAs for DynamicRowFilterExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let filters: Vec<String> = self.filters.iter().map(|e| e.to_string()).collect();
        write!(f, "DynamicRowFilterExec: {}", filters.join(" AND "))
    }
}

impl ExecutionPlan for DynamicRowFilterExec {
    fn name(&self) -> &str {
        "DynamicRowFilterExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn benefits_from_input_partitioning(&self) -> Vec<bool> {
        vec![false]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        apply_expression_roots(&self.filters, f)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [input] = children.try_into().map_err(|_| {
            datafusion::common::DataFusionError::Internal(
                "DynamicRowFilterExec takes one input".into(),
            )
        })?;
        Ok(Arc::new(
            Self::new(input, self.filters.clone()).awaiting(self.awaited.clone()),
        ))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let input = self.input.execute(partition, Arc::clone(&context))?;
        let schema = input.schema();
        let awaited = self.awaited.clone();
        let wait: futures::future::BoxFuture<'static, ()> = Box::pin(async move {
            let all = futures::future::join_all(awaited.iter().filter_map(|f| {
                f.downcast_ref::<DynamicFilterPhysicalExpr>()
                    .map(|d| d.wait_complete())
            }));
            let _ = tokio::time::timeout(MAX_WAIT, all).await;
        });
        let baseline = BaselineMetrics::new(&self.metrics, partition);
        let tested = MetricBuilder::new(&self.metrics).counter("rows_tested", partition);
        let dropped = MetricBuilder::new(&self.metrics).counter("rows_dropped", partition);
        let state = RowFilter {
            filters: self
                .filters
                .iter()
                .map(|f| Trial {
                    filter: Arc::clone(f),
                    tested: 0,
                    passed: 0,
                    given_up: false,
                })
                .collect(),
            coalescer: BatchCoalescer::new(
                Arc::clone(&schema),
                context.session_config().batch_size(),
            ),
            tested,
            dropped,
        };
        let stream = futures::stream::unfold(Some((input, state, Some(wait))), move |running| {
            let baseline = baseline.clone();
            async move {
                let (mut input, mut state, wait) = running?;
                if let Some(wait) = wait {
                    wait.await;
                }
                match input.next().await {
                    Some(Ok(batch)) => {
                        let out = {
                            let _timer = baseline.elapsed_compute().timer();
                            state.filter(batch)
                        };
                        record(&baseline, &out);
                        Some((out, Some((input, state, None))))
                    }
                    Some(Err(e)) => Some((Err(e), None)),
                    // The coalescer's last rows come out after the input ends.
                    None => {
                        let out = state.finish();
                        record(&baseline, &out);
                        Some((out, None))
                    }
                }
            }
        })
        .flat_map(|batches| {
            futures::stream::iter(match batches {
                Ok(batches) => batches.into_iter().map(Ok).collect::<Vec<_>>(),
                Err(e) => vec![Err(e)],
            })
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

fn record(baseline: &BaselineMetrics, batches: &Result<Vec<RecordBatch>>) {
    if let Ok(batches) = batches {
        for b in batches {
            baseline.record_output(b.num_rows());
        }
    }
}

/// A filter and what it did in this partition.
struct Trial {
    filter: Arc<dyn PhysicalExpr>,
    tested: usize,
    passed: usize,
    given_up: bool,
}

struct RowFilter {
    filters: Vec<Trial>,
    coalescer: BatchCoalescer,
    tested: Count,
    dropped: Count,
}

impl RowFilter {
    /// The batches complete after `batch`'s kept rows (a batch no filter tests passes whole).
    fn filter(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>> {
        let mut mask: Option<BooleanArray> = None;
        for trial in &mut self.filters {
            if trial.given_up || !filled(&trial.filter) {
                continue;
            }
            let rows = batch.num_rows();
            // A filter that cannot be evaluated here is dropped: the join above still drops
            // the rows it would have (never a wrong answer, at worst no gain).
            let result = trial
                .filter
                .evaluate(&batch)
                .and_then(|r| r.into_array(rows));
            let Some(mut keep) = result.ok().and_then(|r| r.as_boolean_opt().cloned()) else {
                trial.given_up = true;
                continue;
            };
            if keep.null_count() > 0 {
                keep = prep_null_mask_filter(&keep);
            }
            trial.tested += rows;
            trial.passed += keep.true_count();
            self.tested.add(rows);
            if trial.tested >= TRIAL_ROWS && trial.passed * 2 > trial.tested {
                trial.given_up = true;
            }
            mask = Some(match mask {
                Some(m) => arrow::compute::and(&m, &keep)?,
                None => keep,
            });
        }
        match mask {
            None if self.coalescer.is_empty() => Ok(vec![batch]),
            None => {
                self.coalescer.push_batch(batch)?;
                Ok(self.completed())
            }
            Some(mask) => {
                self.dropped.add(mask.len() - mask.true_count());
                self.coalescer.push_batch_with_filter(batch, &mask)?;
                Ok(self.completed())
            }
        }
    }

    fn completed(&mut self) -> Vec<RecordBatch> {
        let mut out = vec![];
        while let Some(b) = self.coalescer.next_completed_batch() {
            out.push(b);
        }
        out
    }

    /// What the coalescer still holds.
    fn finish(&mut self) -> Result<Vec<RecordBatch>> {
        self.coalescer.finish_buffered_batch()?;
        Ok(self.completed())
    }
}

/// Whether a dynamic filter has been filled in (it is `true` until its producer sets it).
fn filled(filter: &Arc<dyn PhysicalExpr>) -> bool {
    let current = match filter.downcast_ref::<DynamicFilterPhysicalExpr>() {
        Some(dynamic) => match dynamic.current() {
            Ok(current) => current,
            Err(_) => return false,
        },
        None => Arc::clone(filter),
    };
    !current
        .downcast_ref::<Literal>()
        .is_some_and(|l| l.value() == &ScalarValue::Boolean(Some(true)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use datafusion::datasource::memory::MemorySourceConfig;
    use datafusion::execution::SessionStateBuilder;
    use datafusion::logical_expr::Operator;
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::physical_expr::expressions::{BinaryExpr, lit};
    use datafusion::physical_plan::collect;
    use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

    fn rows(batches: &[RecordBatch]) -> usize {
        batches.iter().map(|b| b.num_rows()).sum()
    }

    fn metric(plan: &DynamicRowFilterExec, name: &str) -> usize {
        plan.metrics()
            .and_then(|m| m.sum_by_name(name))
            .map_or(0, |v| v.as_usize())
    }

    /// 300,000 rows of `a` = 0, 1, ... in batches of 8,192, under a filter of one dynamic
    /// filter on `a`; the filter, to update.
    fn counting() -> (Arc<DynamicRowFilterExec>, Arc<DynamicFilterPhysicalExpr>) {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)]));
        let values: Vec<i64> = (0..300_000).collect();
        let batches: Vec<RecordBatch> = values
            .chunks(8192)
            .map(|c| {
                RecordBatch::try_new(
                    Arc::clone(&schema),
                    vec![Arc::new(Int64Array::from(c.to_vec()))],
                )
                .unwrap()
            })
            .collect();
        let input = MemorySourceConfig::try_new_exec(&[batches], schema, None).unwrap();
        let a: Arc<dyn PhysicalExpr> = Arc::new(Column::new("a", 0));
        let dynamic = Arc::new(DynamicFilterPhysicalExpr::new(vec![a], lit(true)));
        let exec = DynamicRowFilterExec::new(input, vec![Arc::clone(&dynamic) as _]);
        (Arc::new(exec), dynamic)
    }

    fn below(value: i64) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(
            Arc::new(Column::new("a", 0)),
            Operator::Lt,
            lit(value),
        ))
    }

    #[tokio::test]
    async fn rows_pass_until_the_filter_is_filled_then_it_drops_them() {
        let (exec, dynamic) = counting();
        let context = Arc::new(TaskContext::default());
        let all = collect(Arc::clone(&exec) as _, Arc::clone(&context))
            .await
            .unwrap();
        assert_eq!(rows(&all), 300_000);
        assert_eq!(metric(&exec, "rows_tested"), 0);

        let (exec, dynamic_2) = counting();
        dynamic_2.update(below(1000)).unwrap();
        let kept = collect(Arc::clone(&exec) as _, Arc::clone(&context))
            .await
            .unwrap();
        assert_eq!(rows(&kept), 1000);
        assert_eq!(metric(&exec, "rows_dropped"), 299_000);
        // Kept rows come out in full batches, not one small batch per input batch.
        assert_eq!(kept.len(), 1);
        drop(dynamic);
    }

    #[tokio::test]
    async fn a_filter_that_passes_most_rows_is_given_up_after_its_trial() {
        let (exec, dynamic) = counting();
        dynamic.update(below(200_000)).unwrap();
        let context = Arc::new(TaskContext::default());
        let out = collect(Arc::clone(&exec) as _, context).await.unwrap();
        // Everything passed the trial; the rows after it are not tested (a join above
        // drops what the filter would have).
        assert_eq!(rows(&out), 300_000);
        let tested = metric(&exec, "rows_tested");
        assert!(
            (TRIAL_ROWS..TRIAL_ROWS + 8192).contains(&tested),
            "{tested}"
        );
    }

    /// `supplier ⋈ nation` under `lineitem`: nation's filter reaches supplier's scan, a join's
    /// build side, and its rows are dropped there; the answers are the plain plan's.
    #[tokio::test]
    async fn a_build_sides_scan_drops_the_rows_a_filter_from_above_rules_out() {
        let dir = std::env::temp_dir().join(format!(
            "ember-dynamic-rows-{}",
            uuid::Uuid::new_v4().simple()
        ));
        let write = |name: &str, batch: RecordBatch| {
            let table = dir.join(name);
            std::fs::create_dir_all(&table).unwrap();
            let file = std::fs::File::create(table.join("part-0.parquet")).unwrap();
            let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
            writer.write(&batch).unwrap();
            writer.close().unwrap();
        };
        let lineitem: Vec<i64> = (0..50_000).collect();
        write(
            "lineitem",
            RecordBatch::try_from_iter([
                (
                    "l_suppkey",
                    Arc::new(Int64Array::from_iter_values(
                        lineitem.iter().map(|i| i % 1000),
                    )) as _,
                ),
                ("l_value", Arc::new(Int64Array::from(lineitem.clone())) as _),
            ])
            .unwrap(),
        );
        let suppliers: Vec<i64> = (0..1000).collect();
        write(
            "supplier",
            RecordBatch::try_from_iter([
                (
                    "s_suppkey",
                    Arc::new(Int64Array::from(suppliers.clone())) as _,
                ),
                (
                    "s_nationkey",
                    Arc::new(Int64Array::from_iter_values(
                        suppliers.iter().map(|i| i % 25),
                    )) as _,
                ),
            ])
            .unwrap(),
        );
        let nations: Vec<i64> = (0..25).collect();
        write(
            "nation",
            RecordBatch::try_from_iter([
                (
                    "n_nationkey",
                    Arc::new(Int64Array::from(nations.clone())) as _,
                ),
                (
                    "n_name",
                    Arc::new(StringArray::from_iter_values(
                        nations.iter().map(|i| format!("nation {i}")),
                    )) as _,
                ),
            ])
            .unwrap(),
        );
        let mut config = SessionConfig::new().with_target_partitions(2);
        config.options_mut().optimizer.join_reordering = false;
        // (No logical rules: they would join nation with supplier first.)
        let context = SessionContext::new_with_state(
            SessionStateBuilder::new()
                .with_config(config)
                .with_default_features()
                .with_optimizer_rules(vec![])
                .build(),
        );
        for t in ["lineitem", "supplier", "nation"] {
            context
                .register_parquet(
                    t,
                    dir.join(t).to_str().unwrap(),
                    ParquetReadOptions::default(),
                )
                .await
                .unwrap();
        }
        // nation ⋈ (supplier ⋈ lineitem), each left side the build side.
        let plan = || async {
            use datafusion::functions_aggregate::expr_fn::{count, sum};
            use datafusion::logical_expr::{JoinType, col, lit};
            let supplier_lineitem = context
                .table("supplier")
                .await
                .unwrap()
                .join(
                    context.table("lineitem").await.unwrap(),
                    JoinType::Inner,
                    &["s_suppkey"],
                    &["l_suppkey"],
                    None,
                )
                .unwrap();
            context
                .table("nation")
                .await
                .unwrap()
                .filter(col("n_name").eq(lit("nation 7")))
                .unwrap()
                .join(
                    supplier_lineitem,
                    JoinType::Inner,
                    &["n_nationkey"],
                    &["s_nationkey"],
                    None,
                )
                .unwrap()
                .aggregate(vec![], vec![count(lit(1)), sum(col("l_value"))])
                .unwrap()
                .create_physical_plan()
                .await
                .unwrap()
        };
        let expected = collect(plan().await, context.task_ctx()).await.unwrap();
        let filtered = filter_rows(plan().await).unwrap();
        let answer = collect(Arc::clone(&filtered), context.task_ctx())
            .await
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let format = |b: &[RecordBatch]| {
            arrow::util::pretty::pretty_format_batches(b)
                .unwrap()
                .to_string()
        };
        assert_eq!(format(&answer), format(&expected));
        assert!(format(&answer).contains("| 2000 "), "{}", format(&answer));
        // supplier's scan dropped the suppliers of the other nations.
        let mut dropped = None;
        filtered
            .apply(|node| {
                if let Some(f) = node.downcast_ref::<DynamicRowFilterExec>() {
                    dropped = Some(metric(f, "rows_dropped"));
                }
                Ok(TreeNodeRecursion::Continue)
            })
            .unwrap();
        assert_eq!(dropped, Some(960), "{}", {
            datafusion::physical_plan::displayable(filtered.as_ref()).indent(true)
        });
    }
}
