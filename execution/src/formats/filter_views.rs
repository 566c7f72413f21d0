//! Strings a scan's filter only compares are decoded as views.
//!
//! Ember's tables hold Spark's `STRING` as plain `Utf8` (see `parquet_strings`). A string
//! column that a filter right above a parquet scan compares and then drops (TPC-H q19's
//! `l_shipmode` and `l_shipinstruct`, q10's `l_returnflag`, q21's `o_orderstatus`) is decoded
//! for every row only to be compared once. Decoded as `Utf8View` it costs a 16-byte view per
//! value that points into the page's (or dictionary's) bytes instead of a copy of them, and a
//! comparison reads a short value's bytes from the view itself.
//!
//! [`FilterStringViews`] changes such a column's type in the scan to `Utf8View` (DataFusion's
//! parquet reader then decodes it as views directly), and the filter's (and the scan's pruning
//! predicate's) comparisons of it with text literals to view literals. It applies only where
//! every use of the column is one whose answer does not depend on the string type: `=`, `<>`,
//! `<`, `<=`, `>`, `>=`, `IS [NOT] DISTINCT FROM` against a literal, `IN` of literals,
//! `[NOT] LIKE`/`ILIKE` a literal pattern (also Ember's `LIKE` of several parts), `IS [NOT]
//! NULL`. Nothing above the filter sees a view: a column the filter keeps is cast back to
//! plain strings after it, and only where the filter keeps few rows for it (a conjunct of the
//! filter is `column = literal`, `column IN (literals)` or an `OR` of such equalities: TPC-H
//! q12's `l_shipmode`), since a cast copies each kept string the reader would have copied once.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, ScalarValue, Statistics};
use datafusion::config::ConfigOptions;
use datafusion::datasource::physical_plan::{
    FileScanConfig, FileScanConfigBuilder, FileSource, ParquetSource,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{
    BinaryExpr, CastExpr, Column, InListExpr, IsNotNullExpr, IsNullExpr, LikeExpr, Literal,
};
use datafusion::physical_expr::split_conjunction;
use datafusion::physical_expr::utils::collect_columns;
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::filter::{FilterExec, FilterExecBuilder};
use datafusion::physical_plan::projection::ProjectionExec;

/// The physical optimizer rule (module docs).
#[derive(Debug, Default)]
pub struct FilterStringViews;

impl PhysicalOptimizerRule for FilterStringViews {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            Ok(match filter_with_views(&node)? {
                Some(rewritten) => Transformed::yes(rewritten),
                None => Transformed::no(node),
            })
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "filter_string_views"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `node` (a filter over a parquet scan) reading its string columns as views where it may,
/// or `None` when it is not such a filter or has no such column.
fn filter_with_views(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(filter) = node.downcast_ref::<FilterExec>() else {
        return Ok(None);
    };
    let Some(scan) = filter.input().downcast_ref::<DataSourceExec>() else {
        return Ok(None);
    };
    let Some(config) = scan.data_source().downcast_ref::<FileScanConfig>() else {
        return Ok(None);
    };
    let Some(source) = config.file_source().downcast_ref::<ParquetSource>() else {
        return Ok(None);
    };
    let options = source.table_parquet_options();
    let table = source.table_schema();
    if !table.virtual_columns().is_empty()
        || options.crypto.file_decryption.is_some()
        || options.crypto.factory_id.is_some()
    {
        return Ok(None);
    }
    let file_schema = table.file_schema();
    let output = filter.input().schema();
    let kept: Vec<usize> = match filter.projection() {
        Some(kept) => kept.iter().copied().collect(),
        None => (0..output.fields().len()).collect(),
    };
    // The scan's output columns that read a file column as it is: output index -> file index.
    let read_as_is = |i: usize| -> Option<usize> {
        let file = match source.projection() {
            Some(projection) => projection
                .as_ref()
                .get(i)?
                .expr
                .downcast_ref::<Column>()?
                .index(),
            None => i,
        };
        (file < file_schema.fields().len()).then_some(file)
    };
    let uses = view_safe_uses(filter.predicate(), &output);
    let pinned = pinned_columns(filter.predicate());
    let mut chosen: HashMap<usize, usize> = HashMap::new();
    for (column, all_safe) in uses {
        if all_safe
            && (!kept.contains(&column) || pinned.contains(&column))
            && let Some(file) = read_as_is(column)
        {
            chosen.insert(column, file);
        }
    }
    // The scan's own predicate (pruning, dynamic filters) must read the columns alike.
    let scan_predicate = source.filter();
    if let Some(predicate) = &scan_predicate {
        let table_schema = table.table_schema();
        let scan_uses = view_safe_uses(predicate, table_schema);
        chosen.retain(|_, file| scan_uses.get(file).is_none_or(|safe| *safe));
    }
    // So must the scan's projected expressions (DataFusion moves an expression the filter
    // repeats, `i_category = 'Women'` in TPC-DS q41, into the scan's projection): their columns
    // stay plain.
    if let Some(projection) = source.projection() {
        for projected in projection.as_ref().iter() {
            if projected.expr.downcast_ref::<Column>().is_none() {
                for column in collect_columns(&projected.expr) {
                    chosen.retain(|_, file| *file != column.index());
                }
            }
        }
    }
    if chosen.is_empty() {
        return Ok(None);
    }
    let files: Vec<usize> = chosen.values().copied().collect();
    let new_file_schema = with_views(file_schema, &files);
    let new_table = TableSchema::builder(Arc::clone(&new_file_schema))
        .with_table_partition_cols(table.table_partition_cols().clone())
        .build();
    let mut new_source = ParquetSource::new(new_table).with_table_parquet_options(options.clone());
    if let Some(hint) = options.global.metadata_size_hint {
        new_source = new_source.with_metadata_size_hint(hint);
    }
    if let Some(factory) = source.parquet_file_reader_factory() {
        new_source = new_source.with_parquet_file_reader_factory(Arc::clone(factory));
    }
    if let Some(predicate) = &scan_predicate {
        let table_schema = with_views(table.table_schema(), &files);
        new_source = new_source.with_predicate(to_views(predicate, &table_schema)?);
    }
    let new_source: Arc<dyn FileSource> = match source.projection() {
        Some(projection) => match new_source.try_pushdown_projection(projection)? {
            Some(projected) => projected,
            None => return Ok(None),
        },
        None => Arc::new(new_source),
    };
    let statistics = views_in_statistics(config.statistics(), &files);
    let new_config = FileScanConfigBuilder::from(config.clone())
        .with_source(new_source)
        .with_statistics(statistics)
        .build();
    let new_scan: Arc<dyn ExecutionPlan> = DataSourceExec::from_data_source(new_config);
    let columns: Vec<usize> = chosen.keys().copied().collect();
    let new_output = with_views(&output, &columns);
    if new_scan.schema().fields() != new_output.fields() {
        // The scan does not answer the schema this rule expects: leave it as it was.
        return Ok(None);
    }
    let predicate = to_views(filter.predicate(), &new_output)?;
    let rewritten: Arc<dyn ExecutionPlan> = Arc::new(
        FilterExecBuilder::from(filter)
            .with_input(new_scan)
            .with_predicate(predicate)
            .build()?,
    );
    let plain = node.schema();
    if rewritten.schema().fields() == plain.fields() {
        return Ok(Some(rewritten));
    }
    // Kept columns read as views: plain strings again for what is above the filter.
    let views = rewritten.schema();
    let exprs: Vec<(Arc<dyn PhysicalExpr>, String)> = views
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let column: Arc<dyn PhysicalExpr> = Arc::new(Column::new(f.name(), i));
            let expr = if f.data_type() == &DataType::Utf8View {
                Arc::new(CastExpr::new(column, DataType::Utf8, None)) as Arc<dyn PhysicalExpr>
            } else {
                column
            };
            (expr, f.name().clone())
        })
        .collect();
    let projected: Arc<dyn ExecutionPlan> = Arc::new(ProjectionExec::try_new(exprs, rewritten)?);
    if projected.schema().fields() != plain.fields() {
        return Ok(None);
    }
    Ok(Some(projected))
}

/// The columns a conjunct of `predicate` pins to a few literals (`c = 'x'`, `c IN ('x', 'y')`,
/// `c = 'x' OR c = 'y'`).
fn pinned_columns(predicate: &Arc<dyn PhysicalExpr>) -> Vec<usize> {
    split_conjunction(predicate)
        .into_iter()
        .filter_map(pinned_column)
        .collect()
}

fn pinned_column(expr: &Arc<dyn PhysicalExpr>) -> Option<usize> {
    let column = |e: &Arc<dyn PhysicalExpr>| e.downcast_ref::<Column>().map(Column::index);
    if let Some(binary) = expr.downcast_ref::<BinaryExpr>() {
        match binary.op() {
            Operator::Eq if text_literal(binary.right()) => column(binary.left()),
            Operator::Eq if text_literal(binary.left()) => column(binary.right()),
            Operator::Or => {
                let left = pinned_column(binary.left())?;
                (pinned_column(binary.right())? == left).then_some(left)
            }
            _ => None,
        }
    } else if let Some(in_list) = expr.downcast_ref::<InListExpr>() {
        (!in_list.negated() && in_list.list().iter().all(text_literal))
            .then(|| column(in_list.expr()))
            .flatten()
    } else {
        None
    }
}

/// `schema` with the top-level columns at `indices` typed `Utf8View`.
fn with_views(schema: &SchemaRef, indices: &[usize]) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if indices.contains(&i) {
                f.as_ref().clone().with_data_type(DataType::Utf8View)
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// The string columns (`Utf8`) `predicate` reads, each with whether every use of it is one a
/// view answers alike (module docs).
fn view_safe_uses(predicate: &Arc<dyn PhysicalExpr>, schema: &Schema) -> HashMap<usize, bool> {
    let is_text = |e: &Arc<dyn PhysicalExpr>| -> Option<usize> {
        let column = e.downcast_ref::<Column>()?;
        let field = schema.fields().get(column.index())?;
        (field.data_type() == &DataType::Utf8).then_some(column.index())
    };
    let mut total: HashMap<usize, usize> = HashMap::new();
    let mut safe: HashMap<usize, usize> = HashMap::new();
    let _ = predicate.apply(|node| {
        if let Some(index) = is_text(node) {
            *total.entry(index).or_default() += 1;
        }
        for column in safe_operands(node) {
            if let Some(index) = is_text(column) {
                *safe.entry(index).or_default() += 1;
            }
        }
        Ok(TreeNodeRecursion::Continue)
    });
    total
        .into_iter()
        .map(|(index, n)| (index, safe.get(&index).copied().unwrap_or(0) == n))
        .collect()
}

/// The operands of `node` that it reads alike as plain strings or as views.
fn safe_operands(node: &Arc<dyn PhysicalExpr>) -> Vec<&Arc<dyn PhysicalExpr>> {
    if let Some(binary) = node.downcast_ref::<BinaryExpr>() {
        let comparison = matches!(
            binary.op(),
            Operator::Eq
                | Operator::NotEq
                | Operator::Lt
                | Operator::LtEq
                | Operator::Gt
                | Operator::GtEq
                | Operator::IsDistinctFrom
                | Operator::IsNotDistinctFrom
        );
        if comparison {
            if text_literal(binary.right()) {
                return vec![binary.left()];
            }
            if text_literal(binary.left()) {
                return vec![binary.right()];
            }
        }
    } else if let Some(in_list) = node.downcast_ref::<InListExpr>() {
        if in_list.list().iter().all(text_literal) {
            return vec![in_list.expr()];
        }
    } else if let Some(like) = node.downcast_ref::<LikeExpr>() {
        if text_literal(like.pattern()) {
            return vec![like.expr()];
        }
    } else if let Some(function) = node.downcast_ref::<ScalarFunctionExpr>() {
        // Ember's LIKE of several parts (`functions::native::like_segments`) reads plain
        // strings and views alike.
        if function.name() == "ember_like_segments"
            && let [text] = function.args()
        {
            return vec![text];
        }
    } else if let Some(is_null) = node.downcast_ref::<IsNullExpr>() {
        return vec![is_null.arg()];
    } else if let Some(is_not_null) = node.downcast_ref::<IsNotNullExpr>() {
        return vec![is_not_null.arg()];
    }
    Vec::new()
}

fn text_literal(expr: &Arc<dyn PhysicalExpr>) -> bool {
    expr.downcast_ref::<Literal>()
        .is_some_and(|l| matches!(l.value(), ScalarValue::Utf8(_)))
}

/// `literal` as a view literal when it is a text one.
fn view_literal(literal: &Arc<dyn PhysicalExpr>) -> Arc<dyn PhysicalExpr> {
    match literal.downcast_ref::<Literal>().map(|l| l.value()) {
        Some(ScalarValue::Utf8(v)) => Arc::new(Literal::new(ScalarValue::Utf8View(v.clone()))),
        _ => Arc::clone(literal),
    }
}

/// `predicate` over `schema` (whose chosen columns are views): the literals compared with a
/// view column become view literals.
fn to_views(predicate: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Arc<dyn PhysicalExpr>> {
    let is_view = |e: &Arc<dyn PhysicalExpr>| {
        e.downcast_ref::<Column>().is_some_and(|c| {
            schema
                .fields()
                .get(c.index())
                .is_some_and(|f| f.data_type() == &DataType::Utf8View)
        })
    };
    Arc::clone(predicate)
        .transform_up(|node| {
            if let Some(binary) = node.downcast_ref::<BinaryExpr>() {
                let (left, right) = (binary.left(), binary.right());
                if is_view(left) && text_literal(right) {
                    let rewritten =
                        BinaryExpr::new(Arc::clone(left), *binary.op(), view_literal(right));
                    return Ok(Transformed::yes(
                        Arc::new(rewritten) as Arc<dyn PhysicalExpr>
                    ));
                }
                if is_view(right) && text_literal(left) {
                    let rewritten =
                        BinaryExpr::new(view_literal(left), *binary.op(), Arc::clone(right));
                    return Ok(Transformed::yes(
                        Arc::new(rewritten) as Arc<dyn PhysicalExpr>
                    ));
                }
            } else if let Some(in_list) = node.downcast_ref::<InListExpr>() {
                if is_view(in_list.expr()) {
                    let list = in_list.list().iter().map(view_literal).collect();
                    let rewritten = InListExpr::try_new(
                        Arc::clone(in_list.expr()),
                        list,
                        in_list.negated(),
                        schema,
                    )?;
                    return Ok(Transformed::yes(
                        Arc::new(rewritten) as Arc<dyn PhysicalExpr>
                    ));
                }
            } else if let Some(like) = node.downcast_ref::<LikeExpr>()
                && is_view(like.expr())
            {
                let rewritten = LikeExpr::new(
                    like.negated(),
                    like.case_insensitive(),
                    Arc::clone(like.expr()),
                    view_literal(like.pattern()),
                );
                return Ok(Transformed::yes(
                    Arc::new(rewritten) as Arc<dyn PhysicalExpr>
                ));
            }
            Ok(Transformed::no(node))
        })
        .map(|t| t.data)
}

/// `statistics` with the minimum and maximum of the columns at `indices` as view values.
fn views_in_statistics(mut statistics: Statistics, indices: &[usize]) -> Statistics {
    let to_view = |p: &Precision<ScalarValue>| -> Precision<ScalarValue> {
        let view = |v: &ScalarValue| match v {
            ScalarValue::Utf8(s) => Some(ScalarValue::Utf8View(s.clone())),
            _ => None,
        };
        match p {
            Precision::Exact(v) => view(v).map_or(Precision::Absent, Precision::Exact),
            Precision::Inexact(v) => view(v).map_or(Precision::Absent, Precision::Inexact),
            Precision::Absent => Precision::Absent,
        }
    };
    for &i in indices {
        if let Some(column) = statistics.column_statistics.get_mut(i) {
            column.min_value = to_view(&column.min_value);
            column.max_value = to_view(&column.max_value);
            column.sum_value = Precision::Absent;
        }
    }
    statistics
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, RecordBatch, StringArray};
    use datafusion::arrow::util::pretty::pretty_format_batches;
    use datafusion::execution::SessionStateBuilder;
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::physical_plan::collect;
    use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

    const LONG: &str = "a string longer than twelve bytes";

    /// A session with the rule over a parquet table `t(id BIGINT, s STRING, u STRING)`, and one
    /// without it; the file is removed on drop.
    struct Tables {
        with_rule: SessionContext,
        without: SessionContext,
        dir: std::path::PathBuf,
    }

    impl Drop for Tables {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    async fn tables() -> Tables {
        let dir = std::env::temp_dir().join(format!(
            "ember-filter-views-{}",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let batch = RecordBatch::try_from_iter([
            ("id", Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5])) as _),
            (
                "s",
                Arc::new(StringArray::from(vec![
                    Some("b"),
                    Some("x"),
                    None,
                    Some(LONG),
                    Some("c"),
                ])) as _,
            ),
            (
                "u",
                Arc::new(StringArray::from(vec![
                    Some("p"),
                    Some("q"),
                    Some("r"),
                    None,
                    Some("p"),
                ])) as _,
            ),
        ])
        .unwrap();
        let file = std::fs::File::create(dir.join("t.parquet")).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let context = |rule: bool| {
            let mut config = SessionConfig::new().with_target_partitions(1);
            config
                .options_mut()
                .execution
                .parquet
                .schema_force_view_types = false;
            let mut builder = SessionStateBuilder::new()
                .with_config(config)
                .with_default_features();
            if rule {
                builder = builder.with_physical_optimizer_rule(Arc::new(FilterStringViews));
            }
            SessionContext::new_with_state(builder.build())
        };
        let (with_rule, without) = (context(true), context(false));
        for c in [&with_rule, &without] {
            c.register_parquet("t", dir.to_str().unwrap(), ParquetReadOptions::default())
                .await
                .unwrap();
        }
        Tables {
            with_rule,
            without,
            dir,
        }
    }

    /// The types of the scan's columns in `sql`'s plan, and its answer; the answer is checked
    /// against the session without the rule.
    async fn scan_types(tables: &Tables, sql: &str) -> (Vec<(String, DataType)>, String) {
        let plan = tables
            .with_rule
            .sql(sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let mut types = Vec::new();
        let _ = plan.apply(|node| {
            if node.downcast_ref::<DataSourceExec>().is_some() {
                for f in node.schema().fields() {
                    types.push((f.name().clone(), f.data_type().clone()));
                }
            }
            Ok(TreeNodeRecursion::Continue)
        });
        let without = tables.without.sql(sql).await.unwrap();
        let expected_plan = without.clone().create_physical_plan().await.unwrap();
        assert_eq!(plan.schema(), expected_plan.schema(), "{sql}");
        let answer = collect(plan, tables.with_rule.task_ctx()).await.unwrap();
        let answer = pretty_format_batches(&answer).unwrap().to_string();
        let expected = without.collect().await.unwrap();
        let expected = pretty_format_batches(&expected).unwrap().to_string();
        assert_eq!(answer, expected, "{sql}");
        (types, answer)
    }

    fn type_of(types: &[(String, DataType)], name: &str) -> DataType {
        types
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .unwrap()
    }

    #[tokio::test]
    async fn a_dropped_string_column_a_filter_compares_is_read_as_views() {
        let tables = tables().await;
        let sql = format!(
            "SELECT id FROM t WHERE (s IN ('b', 'c') AND s <> 'x') OR s = '{LONG}' \
             OR s LIKE 'a str%' OR s > 'zz' OR s IS NULL ORDER BY id"
        );
        let (types, answer) = scan_types(&tables, &sql).await;
        assert_eq!(type_of(&types, "s"), DataType::Utf8View);
        assert_eq!(type_of(&types, "id"), DataType::Int64);
        for id in ["1", "3", "4", "5"] {
            assert!(answer.contains(&format!("| {id}  |")), "{answer}");
        }
        assert!(!answer.contains("| 2  |"), "{answer}");
        // Two such columns, NOT IN and NOT LIKE.
        let (types, answer) = scan_types(
            &tables,
            "SELECT id FROM t WHERE s NOT IN ('x') AND u NOT LIKE 'q%' ORDER BY id",
        )
        .await;
        assert_eq!(type_of(&types, "s"), DataType::Utf8View);
        assert_eq!(type_of(&types, "u"), DataType::Utf8View);
        assert!(
            answer.contains("| 1  |") && answer.contains("| 5  |"),
            "{answer}"
        );
    }

    #[tokio::test]
    async fn a_kept_column_pinned_to_literals_is_read_as_views_and_cast_back() {
        let tables = tables().await;
        for sql in [
            format!("SELECT id, s FROM t WHERE s IN ('b', '{LONG}') AND id > 0 ORDER BY id"),
            "SELECT s, u FROM t WHERE 'c' = s OR s IS NULL AND u = 'r' ORDER BY s".to_string(),
            "SELECT upper(s), id FROM t WHERE s = 'x' AND u <> 'p'".to_string(),
        ] {
            // (`scan_types` checks the answer, and so its plain string type, against the
            // session without the rule.)
            let plan = tables.with_rule.sql(&sql).await.unwrap();
            let plan = plan.create_physical_plan().await.unwrap();
            let (types, answer) = scan_types(&tables, &sql).await;
            assert!(answer.contains('|'), "{answer}");
            if sql.contains(" OR ") {
                // Not a conjunct: kept plain.
                assert_eq!(type_of(&types, "s"), DataType::Utf8, "{sql}");
                continue;
            }
            assert_eq!(type_of(&types, "s"), DataType::Utf8View, "{sql}");
            let shown = datafusion::physical_plan::displayable(plan.as_ref())
                .indent(true)
                .to_string();
            assert!(shown.contains("CAST("), "{shown}");
        }
    }

    #[tokio::test]
    async fn a_string_column_kept_or_read_by_a_function_stays_plain() {
        let tables = tables().await;
        // Kept by a filter that keeps most rows: the reader copies each string once.
        let (types, _) = scan_types(&tables, "SELECT id, s FROM t WHERE s <> 'b'").await;
        assert_eq!(type_of(&types, "s"), DataType::Utf8);
        // Read by a function: only the listed comparisons are known to read views alike.
        let (types, _) = scan_types(&tables, "SELECT id FROM t WHERE upper(s) = 'B'").await;
        assert_eq!(type_of(&types, "s"), DataType::Utf8);
        // Compared with another column.
        let (types, _) = scan_types(&tables, "SELECT id FROM t WHERE s = u").await;
        assert_eq!(type_of(&types, "s"), DataType::Utf8);
        assert_eq!(type_of(&types, "u"), DataType::Utf8);
        // One use safe, another not: the column stays plain, the other column becomes views.
        let (types, _) = scan_types(
            &tables,
            "SELECT id FROM t WHERE s = 'b' OR length(s) = 1 OR u = 'r'",
        )
        .await;
        assert_eq!(type_of(&types, "s"), DataType::Utf8);
        assert_eq!(type_of(&types, "u"), DataType::Utf8View);
    }
}
