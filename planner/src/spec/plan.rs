//! Unresolved relations.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use datafusion::common::ScalarValue;

use super::{Expr, SortOrder};

/// A relation, with the plan id the client gave it (used to disambiguate `df.col` references).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub plan_id: Option<i64>,
    pub node: PlanNode,
    /// A plan kept beyond its request (a view, a cached plan), its plan ids stripped: the
    /// DataFrame references of its expressions (`df.a`) resolve by name.
    pub stored: bool,
}

impl Plan {
    pub fn new(node: PlanNode) -> Self {
        Self {
            plan_id: None,
            node,
            stored: false,
        }
    }

    pub fn boxed(node: PlanNode) -> Box<Self> {
        Box::new(Self::new(node))
    }

    /// Remove plan ids everywhere (stored views must not capture the ids of one request).
    pub fn strip_plan_ids(&mut self) {
        self.plan_id = None;
        self.stored = true;
        self.node.for_each_input_mut(&mut |p| p.strip_plan_ids());
    }
}

/// Rows sent by the client (createDataFrame), decoded once.
#[derive(Debug, Clone)]
pub struct LocalData {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

impl PartialEq for LocalData {
    fn eq(&self, other: &Self) -> bool {
        self.schema == other.schema && self.batches == other.batches
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinType {
    Inner,
    LeftOuter,
    RightOuter,
    FullOuter,
    LeftSemi,
    LeftAnti,
    Cross,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOpKind {
    Union,
    Intersect,
    Except,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupType {
    GroupBy,
    Rollup,
    Cube,
    GroupingSets,
    Pivot,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub input: Box<Plan>,
    pub group_type: GroupType,
    pub grouping: Vec<Expr>,
    pub aggregates: Vec<Expr>,
    pub grouping_sets: Vec<Vec<Expr>>,
    /// Pivot column and values (values empty: compute the distinct values). Without
    /// grouping and `output_grouping` (SQL's PIVOT clause), the input columns neither
    /// aggregated nor pivoted group the rows.
    pub pivot: Option<(Expr, Vec<Expr>)>,
    /// `HAVING` (SQL): may reference aggregate functions not in the select list.
    pub having: Option<Expr>,
    /// DataFrame `groupBy().agg()` outputs the grouping columns first; SQL outputs only the
    /// select list (and allows ordinals, aliases and `GROUP BY ALL` as keys).
    pub output_grouping: bool,
}

/// `df._joinAsOf(other, leftAsOf, rightAsOf, on, how, tolerance, allowExactMatches,
/// direction)`: each left row with the right row of equal keys whose as-of value is the
/// closest in `direction`.
#[derive(Debug, Clone, PartialEq)]
pub struct AsOfJoin {
    pub left: Box<Plan>,
    pub right: Box<Plan>,
    pub left_as_of: Expr,
    pub right_as_of: Expr,
    pub condition: Option<Expr>,
    pub using: Vec<String>,
    /// `inner` or `left`.
    pub join_type: String,
    pub tolerance: Option<Expr>,
    pub allow_exact_matches: bool,
    /// `backward`, `forward` or `nearest`.
    pub direction: String,
}

/// `df.nearestByJoin(other, rankingExpression, numResults, mode, direction, joinType)`: each
/// left row with the (at most) `num_results` right rows its ranking ranks best; right rows
/// ranked NULL are never matched.
#[derive(Debug, Clone, PartialEq)]
pub struct NearestByJoin {
    pub left: Box<Plan>,
    pub right: Box<Plan>,
    pub ranking: Expr,
    pub num_results: usize,
    /// `leftouter`: a left row without a match is kept once, the right columns NULL.
    pub left_outer: bool,
    /// `similarity`: the largest ranks are best; `distance`: the smallest.
    pub similarity: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    pub left: Box<Plan>,
    pub right: Box<Plan>,
    pub join_type: JoinType,
    pub condition: Option<Expr>,
    pub using: Vec<String>,
    /// NATURAL JOIN: USING the columns both sides have.
    pub natural: bool,
    /// `LATERAL` / `lateralJoin`: the right side may reference the left side's columns.
    pub lateral: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SetOperation {
    pub left: Box<Plan>,
    pub right: Box<Plan>,
    pub kind: SetOpKind,
    pub all: bool,
    pub by_name: bool,
    pub allow_missing_columns: bool,
}

/// A file source read (`spark.read.format(...).load(...)`).
#[derive(Debug, Clone, PartialEq)]
pub struct DataSource {
    pub format: Option<String>,
    pub schema: Option<String>,
    pub options: HashMap<String, String>,
    pub paths: Vec<String>,
}

/// Which version of a table a read sees: the table formats' own (`VERSION AS OF`, ...).
pub use ember_execution::formats::delta::TimeTravel;

#[derive(Debug, Clone, PartialEq)]
pub enum PlanNode {
    /// `spark.range` / `range()`: one `id` column of type bigint.
    Range {
        start: i64,
        end: i64,
        step: i64,
        num_partitions: Option<usize>,
    },
    LocalRelation {
        data: Option<Arc<LocalData>>,
        /// A DDL or JSON schema string the data must be renamed/cast to.
        schema: Option<String>,
    },
    /// `VALUES (..), (..)` (SQL).
    Values {
        rows: Vec<Vec<Expr>>,
    },
    /// A named table or view.
    Table {
        name: Vec<String>,
    },
    DataSource(DataSource),
    /// A table at an earlier version (`t VERSION AS OF 1`, `TIMESTAMP AS OF '...'`).
    TimeTravel {
        name: Vec<String>,
        at: TimeTravel,
    },
    /// A table-valued function in FROM (`range(10)`).
    TableFunction {
        name: String,
        args: Vec<Expr>,
    },
    /// A query with no FROM clause produces one row with no columns.
    OneRow,
    Project {
        input: Box<Plan>,
        exprs: Vec<Expr>,
    },
    Filter {
        input: Box<Plan>,
        condition: Expr,
    },
    Sort {
        input: Box<Plan>,
        order: Vec<SortOrder>,
        global: bool,
    },
    Limit {
        input: Box<Plan>,
        limit: usize,
    },
    Offset {
        input: Box<Plan>,
        offset: usize,
    },
    Tail {
        input: Box<Plan>,
        limit: usize,
    },
    Aggregate(Aggregate),
    Deduplicate {
        input: Box<Plan>,
        columns: Vec<String>,
        all_columns: bool,
        /// SQL's `SELECT DISTINCT` (Spark's `Distinct`), which, unlike a DataFrame's
        /// `distinct()`/`dropDuplicates()`, does not pass up columns its input dropped (see
        /// `resolve_with_extras`).
        sql: bool,
    },
    Join(Join),
    SetOperation(SetOperation),
    SubqueryAlias {
        input: Box<Plan>,
        alias: String,
        /// Column aliases `AS t(a, b)` (SQL).
        columns: Vec<String>,
    },
    ToDf {
        input: Box<Plan>,
        names: Vec<String>,
    },
    WithColumns {
        input: Box<Plan>,
        columns: Vec<(String, Expr)>,
    },
    WithColumnsRenamed {
        input: Box<Plan>,
        renames: Vec<(String, String)>,
    },
    Drop {
        input: Box<Plan>,
        exprs: Vec<Expr>,
        names: Vec<String>,
    },
    /// `df.na.fill`: one value, or one per column of `cols`.
    FillNa {
        input: Box<Plan>,
        cols: Vec<String>,
        values: Vec<ScalarValue>,
    },
    /// `df.na.drop`: rows with at least `min_non_nulls` values (default: all) in `cols`.
    DropNa {
        input: Box<Plan>,
        cols: Vec<String>,
        min_non_nulls: Option<usize>,
    },
    /// `df.na.replace`: (old, new) values in `cols` (default: all).
    ReplaceNa {
        input: Box<Plan>,
        cols: Vec<String>,
        replacements: Vec<(ScalarValue, ScalarValue)>,
    },
    /// `df.describe(cols)` / `df.summary(statistics)`.
    Describe {
        input: Box<Plan>,
        cols: Vec<String>,
        statistics: Vec<String>,
    },
    /// `df.sample(...)`, `df.randomSplit(...)`: the rows whose pseudo-random number in [0, 1)
    /// (from the seed and the row) is in [lower, upper).
    Sample {
        input: Box<Plan>,
        lower: f64,
        upper: f64,
        seed: i64,
        /// The splits of `randomSplit` (the client asks a deterministic order): each row's
        /// number comes from its values, so the splits partition the rows in every mode.
        by_row_values: bool,
        /// With replacement: each row kept a Poisson number of times of mean `upper - lower`.
        with_replacement: bool,
    },
    /// `df.sampleBy(col, fractions, seed)`: each stratum (a value of `col`) sampled with its
    /// fraction, other rows left out.
    SampleBy {
        input: Box<Plan>,
        col: Expr,
        fractions: Vec<(datafusion::common::ScalarValue, f64)>,
        seed: i64,
    },
    /// `df.approxQuantile(cols, probabilities, relativeError)`.
    ApproxQuantile {
        input: Box<Plan>,
        cols: Vec<String>,
        probabilities: Vec<f64>,
    },
    /// `df.cov(a, b)` / `df.corr(a, b)`.
    CovCorr {
        input: Box<Plan>,
        col1: String,
        col2: String,
        correlation: bool,
    },
    /// `df.freqItems(cols, support)`: one row, an array of frequent values per column.
    FreqItems {
        input: Box<Plan>,
        cols: Vec<String>,
        support: f64,
    },
    /// `df.observe(name, *metrics)`: the input's rows; the metrics (aggregates over the
    /// input) are sent to the client when the query finishes.
    CollectMetrics {
        input: Box<Plan>,
        name: String,
        metrics: Vec<Expr>,
    },
    /// `df.transpose(index)`: one row per non-index column, one column per index value.
    Transpose {
        input: Box<Plan>,
        /// `None`: the first column.
        index: Option<Expr>,
    },
    /// `df.show()`: one string column holding the rendered table.
    ShowString {
        input: Box<Plan>,
        num_rows: usize,
        truncate: usize,
        vertical: bool,
    },
    /// `spark.read.csv/json(df)`: the strings of a one-column relation parsed as records.
    Parse {
        input: Box<Plan>,
        /// `csv` or `json`.
        format: String,
        schema: Option<arrow::datatypes::SchemaRef>,
        options: Vec<(String, String)>,
    },
    AsOfJoin(Box<AsOfJoin>),
    NearestByJoin(Box<NearestByJoin>),
    /// `df.to(schema)`: the input's columns matched to the schema's fields by name, in the
    /// schema's order, cast to its types where Spark's store assignment allows.
    ToSchema {
        input: Box<Plan>,
        schema: arrow::datatypes::Fields,
    },
    /// A notebook's `_repr_html_`: one string column holding an HTML table.
    HtmlString {
        input: Box<Plan>,
        num_rows: usize,
        truncate: usize,
    },
    Repartition {
        input: Box<Plan>,
        num_partitions: Option<usize>,
        exprs: Vec<Expr>,
        shuffle: bool,
    },
    /// `LATERAL VIEW [OUTER] generator(...) alias AS columns`: the input's columns and the
    /// generator's, one row per generated row.
    Generate {
        input: Box<Plan>,
        generator: Box<super::FunctionCall>,
        outer: bool,
        alias: Option<String>,
        columns: Vec<String>,
    },
    /// `unpivot`/`melt`, SQL UNPIVOT: one row per (input row, value column), holding the id
    /// columns, the value column's name and its value.
    Unpivot {
        input: Box<Plan>,
        /// `None`: every column that is not a value column (SQL).
        ids: Option<Vec<Expr>>,
        /// Value columns with the name their rows get (`None`: the column's name); `None`:
        /// every column that is not an id column.
        values: Option<Vec<(Expr, Option<String>)>>,
        variable_column: String,
        value_column: String,
        include_nulls: bool,
    },
    /// Hints are accepted and ignored.
    Hint {
        input: Box<Plan>,
        name: String,
    },
    /// `WITH name AS (...) body` (SQL).
    With {
        ctes: Vec<(String, Plan)>,
        body: Box<Plan>,
    },
    /// The body of a CTE of `WITH RECURSIVE`: `anchor UNION [ALL] recursive`, where
    /// `recursive` may read `name` (the rows the previous step added); a body of another
    /// form is the anchor alone (which may not read `name`).
    RecursiveCte {
        name: String,
        anchor: Box<Plan>,
        recursive: Option<Box<Plan>>,
        all: bool,
    },
    /// `Relation.with_relations`: references by plan id used by subquery expressions.
    WithRelations {
        root: Box<Plan>,
        references: Vec<Plan>,
    },
    /// A reference to a relation registered in an enclosing `WithRelations`.
    PlanReference {
        plan_id: i64,
    },
    /// `mapInPandas` / `mapInArrow`: the function's arguments are the input's columns.
    MapPartitions {
        input: Box<Plan>,
        function: Box<super::PythonUdfCall>,
    },
    /// `groupBy(keys).applyInPandas` / `applyInArrow`: the function's arguments are the
    /// input's columns; it is called once per group.
    GroupMap {
        input: Box<Plan>,
        grouping: Vec<super::Expr>,
        function: Box<super::PythonUdfCall>,
    },
    /// `df1.groupBy(k).cogroup(df2.groupBy(k)).applyInPandas` / `applyInArrow`: the function
    /// is called once per key with both sides' rows of that key (all their columns).
    CoGroupMap {
        input: Box<Plan>,
        grouping: Vec<super::Expr>,
        other: Box<Plan>,
        other_grouping: Vec<super::Expr>,
        function: Box<super::PythonUdfCall>,
    },
}

impl PlanNode {
    /// Visit the direct input relations.
    pub fn for_each_input_mut(&mut self, f: &mut dyn FnMut(&mut Plan)) {
        match self {
            PlanNode::Range { .. }
            | PlanNode::LocalRelation { .. }
            | PlanNode::Values { .. }
            | PlanNode::Table { .. }
            | PlanNode::DataSource(_)
            | PlanNode::TimeTravel { .. }
            | PlanNode::TableFunction { .. }
            | PlanNode::OneRow
            | PlanNode::PlanReference { .. } => {}
            PlanNode::Project { input, .. }
            | PlanNode::Filter { input, .. }
            | PlanNode::Sort { input, .. }
            | PlanNode::Limit { input, .. }
            | PlanNode::Offset { input, .. }
            | PlanNode::Tail { input, .. }
            | PlanNode::Deduplicate { input, .. }
            | PlanNode::SubqueryAlias { input, .. }
            | PlanNode::ToDf { input, .. }
            | PlanNode::WithColumns { input, .. }
            | PlanNode::WithColumnsRenamed { input, .. }
            | PlanNode::Drop { input, .. }
            | PlanNode::FillNa { input, .. }
            | PlanNode::DropNa { input, .. }
            | PlanNode::ReplaceNa { input, .. }
            | PlanNode::Describe { input, .. }
            | PlanNode::CovCorr { input, .. }
            | PlanNode::Sample { input, .. }
            | PlanNode::SampleBy { input, .. }
            | PlanNode::ApproxQuantile { input, .. }
            | PlanNode::ShowString { input, .. }
            | PlanNode::HtmlString { input, .. }
            | PlanNode::Parse { input, .. }
            | PlanNode::FreqItems { input, .. }
            | PlanNode::CollectMetrics { input, .. }
            | PlanNode::Transpose { input, .. }
            | PlanNode::Repartition { input, .. }
            | PlanNode::Hint { input, .. }
            | PlanNode::Generate { input, .. }
            | PlanNode::Unpivot { input, .. }
            | PlanNode::ToSchema { input, .. }
            | PlanNode::MapPartitions { input, .. }
            | PlanNode::GroupMap { input, .. } => f(input),
            PlanNode::Aggregate(a) => f(&mut a.input),
            PlanNode::CoGroupMap { input, other, .. } => {
                f(input);
                f(other);
            }
            PlanNode::Join(j) => {
                f(&mut j.left);
                f(&mut j.right);
            }
            PlanNode::AsOfJoin(j) => {
                f(&mut j.left);
                f(&mut j.right);
            }
            PlanNode::NearestByJoin(j) => {
                f(&mut j.left);
                f(&mut j.right);
            }
            PlanNode::SetOperation(s) => {
                f(&mut s.left);
                f(&mut s.right);
            }
            PlanNode::With { ctes, body } => {
                for (_, p) in ctes.iter_mut() {
                    f(p);
                }
                f(body);
            }
            PlanNode::RecursiveCte {
                anchor, recursive, ..
            } => {
                f(anchor);
                if let Some(recursive) = recursive {
                    f(recursive);
                }
            }
            PlanNode::WithRelations { root, references } => {
                f(root);
                for p in references.iter_mut() {
                    f(p);
                }
            }
        }
    }
}
