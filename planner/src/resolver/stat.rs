//! `df.describe()`, `df.summary(...)`, `df.cov(a, b)` and `df.corr(a, b)` (Spark's
//! `StatFunctions`): one scan computing every statistic, shaped as Spark shapes the answer.
//! And `df.sample`/`df.randomSplit`.

use arrow::datatypes::DataType;
use datafusion::common::{DFSchema, UnnestOptions};
use datafusion::functions_aggregate::expr_fn::{avg, corr, count, covar_samp, max, min, stddev};
use datafusion::functions_nested::expr_fn::make_array;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder, TryCast, cast, lit};

use super::Resolver;
use super::names::Named;
use super::names::column_exprs;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::Plan;

/// The statistics `describe()` computes.
const DESCRIBE: [&str; 5] = ["count", "mean", "stddev", "min", "max"];

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// A column as a double for averages: strings that are not numbers are NULL, as Spark's
/// implicit cast makes them.
fn as_double(column: Expr) -> Expr {
    Expr::TryCast(TryCast::new(Box::new(column), DataType::Float64))
}

fn statistic(name: &str, column: Expr, t: &DataType) -> PlanResult<Expr> {
    let numeric = t.is_numeric();
    Ok(match name {
        "count" => count(column),
        // (A decimal's mean is a decimal, four digits finer, as Spark's average.)
        "mean" if matches!(t, DataType::Decimal128(..)) => {
            let DataType::Decimal128(p, s) = *t else {
                return Err(PlanError::InvalidPlan("a decimal mean".into()));
            };
            let wide = DataType::Decimal128((p + 10).min(38), s);
            let total = datafusion::functions_aggregate::expr_fn::sum(
                datafusion::logical_expr::cast(column.clone(), wide),
            );
            crate::functions::decimal_average(total, count(column), p, s, true)
        }
        "mean" if numeric || is_string(t) => avg(as_double(column)),
        "stddev" if numeric || is_string(t) => stddev(as_double(column)),
        "mean" | "stddev" => lit(datafusion::common::ScalarValue::Float64(None)),
        "min" => min(column),
        "max" => max(column),
        "count_distinct" | "approx_count_distinct" => {
            datafusion::functions_aggregate::expr_fn::count_distinct(column)
        }
        percent if percent.ends_with('%') => {
            let p = percent
                .trim_end_matches('%')
                .parse::<f64>()
                .ok()
                .filter(|p| (0.0..=100.0).contains(p))
                .ok_or_else(|| {
                    PlanError::from(SparkError::illegal_argument(
                        "",
                        format!("Unable to parse {percent} as a percentile"),
                    ))
                })?;
            if numeric {
                crate::functions::exact_percentile(column, lit(p / 100.0), None, false)?
            } else {
                lit(datafusion::common::ScalarValue::Float64(None))
            }
        }
        other => {
            return Err(SparkError::illegal_argument(
                "",
                format!("{other} is not a recognised statistic"),
            )
            .into());
        }
    })
}

impl Resolver<'_> {
    /// The column named `name`, which must be numeric: else Spark's `require` failure (an
    /// IllegalArgumentException without an error class) with `message(type)`.
    fn numeric_column(
        &self,
        schema: &DFSchema,
        name: &str,
        message: impl FnOnce(String) -> String,
    ) -> PlanResult<String> {
        let internal = self.existing_column(schema, name)?;
        let t = schema.field_with_unqualified_name(&internal)?.data_type();
        if !t.is_numeric() {
            let shown = crate::types::simple_string(t);
            return Err(SparkError::illegal_argument(
                "",
                format!("requirement failed: {}", message(shown)),
            )
            .into());
        }
        Ok(internal)
    }

    /// `describe(cols)` (numeric and string columns when none are named) and
    /// `summary(statistics)`: a `summary` column naming the statistic, then one string
    /// column per input column.
    pub(crate) fn resolve_describe(
        &mut self,
        input: &Plan,
        cols: &[String],
        statistics: &[String],
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        let schema: DFSchema = input.schema().as_ref().clone();
        let columns: Vec<(String, DataType)> = if cols.is_empty() {
            schema
                .fields()
                .iter()
                .filter(|f| f.data_type().is_numeric() || is_string(f.data_type()))
                .map(|f| (f.name().clone(), f.data_type().clone()))
                .collect()
        } else {
            let mut out = vec![];
            for name in cols {
                let internal = &self.existing_column(&schema, name)?;
                let t = schema
                    .field_with_unqualified_name(internal)?
                    .data_type()
                    .clone();
                out.push((internal.clone(), t));
            }
            out
        };
        let statistics: Vec<String> = if statistics.is_empty() {
            DESCRIBE.iter().map(|s| s.to_string()).collect()
        } else {
            statistics.to_vec()
        };
        // One row of every statistic of every column...
        let mut aggregates = vec![];
        for (i, (column, t)) in columns.iter().enumerate() {
            for (j, s) in statistics.iter().enumerate() {
                let value = statistic(s, Self::column(column), t)?;
                aggregates.push(value.alias(format!("s{i}_{j}")));
            }
        }
        let one_row = LogicalPlanBuilder::from(input)
            .aggregate(Vec::<Expr>::new(), aggregates)?
            .build()?;
        // ... turned into one row per statistic: arrays of strings, unnested together.
        let mut arrays =
            vec![make_array(statistics.iter().map(|s| lit(s.clone())).collect()).alias("summary")];
        for (i, _) in columns.iter().enumerate() {
            let values = (0..statistics.len())
                .map(|j| cast(Self::column(&format!("s{i}_{j}")), DataType::Utf8))
                .collect();
            arrays.push(make_array(values).alias(format!("c{i}")));
        }
        let unnested: Vec<datafusion::common::Column> = std::iter::once("summary".to_string())
            .chain((0..columns.len()).map(|i| format!("c{i}")))
            .map(|n| datafusion::common::Column::from_name(&n))
            .collect();
        let rows = LogicalPlanBuilder::from(one_row)
            .project(arrays)?
            .unnest_columns_with_options(unnested, UnnestOptions::new().with_preserve_nulls(true))?
            .build()?;
        let mut items: Vec<Named> = vec![(Self::column("summary"), "summary".to_string())];
        for (i, (column, _)) in columns.iter().enumerate() {
            items.push((Self::column(&format!("c{i}")), self.info(column).name));
        }
        self.project_items(rows, items)
    }

    /// `df.cov(a, b)` / `df.corr(a, b)`: one row with the sample covariance or Pearson
    /// correlation of two numeric columns, NULLs counting as 0.0 as in Spark.
    pub(crate) fn resolve_cov_corr(
        &mut self,
        input: &Plan,
        col1: &str,
        col2: &str,
        correlation: bool,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        let schema: DFSchema = input.schema().as_ref().clone();
        let mut args = vec![];
        for name in [col1, col2] {
            let what = if correlation {
                "correlation"
            } else {
                "covariance"
            };
            let internal = &self.numeric_column(&schema, name, |t| {
                format!("Currently {what} calculation for columns with dataType {t} not supported.")
            })?;
            // Spark's DataFrame cov/corr read a NULL as 0.0 (unlike the SQL aggregates).
            args.push(datafusion::functions::core::expr_fn::coalesce(vec![
                cast(Self::column(internal), DataType::Float64),
                lit(0.0f64),
            ]));
        }
        let [a, b] = <[Expr; 2]>::try_from(args)
            .map_err(|_| PlanError::InvalidPlan("two columns".into()))?;
        let (value, name) = if correlation {
            (corr(a, b), "corr")
        } else {
            (covar_samp(a, b), "cov")
        };
        let plan = LogicalPlanBuilder::from(input)
            .aggregate(Vec::<Expr>::new(), vec![value.alias("v")])?
            .build()?;
        self.project_items(plan, vec![(Self::column("v"), name.to_string())])
    }
}

impl Resolver<'_> {
    /// `df.sample(fraction, seed)`: a row is kept when its draw of `rand(seed)` is in [lower,
    /// upper), as Spark's Bernoulli sampler draws them (XORShiftRandom per partition, in row
    /// order: Spark's rows where the partitioning is Spark's). The splits of `randomSplit`
    /// (`by_row_values`) take each row's number from a hash of the seed and its values, so
    /// that splits with adjacent bounds partition the rows in every mode (equal rows go to
    /// the same split; the rows differ from Spark's).
    pub(crate) fn resolve_sample(
        &mut self,
        input: &Plan,
        lower: f64,
        upper: f64,
        seed: i64,
        by_row_values: bool,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        self.sample_resolved(input, lower, upper, seed, by_row_values)
    }

    /// `sample` (without replacement) of an already resolved input.
    pub(crate) fn sample_resolved(
        &mut self,
        input: LogicalPlan,
        lower: f64,
        upper: f64,
        seed: i64,
        by_row_values: bool,
    ) -> PlanResult<LogicalPlan> {
        if by_row_values {
            let x = row_fraction(&input, seed);
            let keep = x.clone().gt_eq(lit(lower)).and(x.lt(lit(upper)));
            return Ok(LogicalPlanBuilder::from(input).filter(keep)?.build()?);
        }
        self.filter_by_draw(input, seed, |x| {
            x.clone().gt_eq(lit(lower)).and(x.lt(lit(upper)))
        })
    }

    /// `sample(withReplacement=True, mean, seed)`: each row of `input` as many times as a
    /// Poisson count of mean `mean` drawn from its `rand(seed)` number (in Spark's partitions
    /// and row order, as `sample` draws).
    pub(crate) fn sample_with_replacement(
        &mut self,
        input: LogicalPlan,
        mean: f64,
        seed: i64,
    ) -> PlanResult<LogicalPlan> {
        let columns: Vec<Expr> = column_exprs(input.schema());
        let draw = crate::spec::Expr::Function(Box::new(crate::spec::FunctionCall::new(
            "rand",
            vec![crate::spec::Expr::Literal(
                datafusion::common::ScalarValue::Int64(Some(seed)),
            )],
        )));
        let input = self.with_partition_ids(input, std::iter::once(&draw))?;
        let schema = input.schema().as_ref().clone();
        let (x, _) = self.resolve_expr(&draw, &schema)?;
        let (copies, repeat) = ("__ember_copies", "__ember_copy");
        let count = crate::functions::native::NativeUdf::udf(
            crate::functions::native::Native::PoissonCount {
                mean_bits: mean.to_bits(),
            },
        )
        .call(vec![x]);
        let mut projected = columns.clone();
        projected.push(count.alias(copies));
        let plan = LogicalPlanBuilder::from(input)
            .project(projected)?
            .filter(Self::column(copies).gt(lit(0i64)))?
            .build()?;
        // One row per copy: the list 0..k unnested.
        let mut with_list = columns.clone();
        with_list.push(
            crate::functions::df_udf("range")?
                .call(vec![Self::column(copies)])
                .alias(repeat),
        );
        Ok(LogicalPlanBuilder::from(plan)
            .project(with_list)?
            .unnest_column(repeat)?
            .project(columns)?
            .build()?)
    }

    /// Rows of `input` whose draw of `rand(seed)` satisfies `keep`: the draws computed in a
    /// projection (where they follow Spark's partitions and row order), then filtered.
    fn filter_by_draw(
        &mut self,
        input: LogicalPlan,
        seed: i64,
        keep: impl FnOnce(Expr) -> Expr,
    ) -> PlanResult<LogicalPlan> {
        let columns: Vec<Expr> = column_exprs(input.schema());
        let draw = crate::spec::Expr::Function(Box::new(crate::spec::FunctionCall {
            name: "rand".into(),
            args: vec![crate::spec::Expr::Literal(
                datafusion::common::ScalarValue::Int64(Some(seed)),
            )],
            distinct: false,
            filter: None,
            ignore_nulls: None,
            is_operator: false,
        }));
        let input = self.with_partition_ids(input, std::iter::once(&draw))?;
        let schema = input.schema().as_ref().clone();
        let (x, _) = self.resolve_expr(&draw, &schema)?;
        let drawn = "__ember_draw";
        let mut projected = columns.clone();
        projected.push(x.alias(drawn));
        Ok(LogicalPlanBuilder::from(input)
            .project(projected)?
            .filter(keep(Self::column(drawn)))?
            .project(columns)?
            .build()?)
    }

    /// `sampleBy`: a row is kept when its draw of `rand(seed)` is below its stratum's
    /// fraction (strata not named have none), as Spark's filter with a UDF does.
    pub(crate) fn resolve_sample_by(
        &mut self,
        input: &Plan,
        col: &crate::spec::Expr,
        fractions: &[(datafusion::common::ScalarValue, f64)],
        seed: i64,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        let schema = input.schema().as_ref().clone();
        let (stratum, _) = self.resolve_expr(col, &schema)?;
        let when_then = fractions
            .iter()
            .map(|(value, f)| {
                (
                    Box::new(stratum.clone().eq(lit(value.clone()))),
                    Box::new(lit(*f)),
                )
            })
            .collect::<Vec<_>>();
        if when_then.is_empty() {
            return Ok(LogicalPlanBuilder::from(input)
                .filter(lit(false))?
                .build()?);
        }
        let fraction = Expr::Case(datafusion::logical_expr::expr::Case::new(
            None,
            when_then,
            Some(Box::new(lit(0.0f64))),
        ));
        // (Spark: filter(x < fraction(stratum)) with x = rand(seed).)
        self.filter_by_draw(input, seed, |x| x.lt(fraction))
    }
}

/// A number in [0, 1) for each row, from a hash of the seed and the row's values: the same
/// rows for the same seed in every mode.
fn row_fraction(input: &LogicalPlan, seed: i64) -> Expr {
    let hashable = |t: &DataType| {
        t.is_numeric()
            || matches!(
                t,
                DataType::Utf8
                    | DataType::LargeUtf8
                    | DataType::Utf8View
                    | DataType::Binary
                    | DataType::Boolean
                    | DataType::Date32
                    | DataType::Timestamp(_, _)
            )
    };
    let mut args = vec![lit(seed)];
    for f in input.schema().fields() {
        if hashable(f.data_type()) {
            args.push(Resolver::column(f.name()));
        }
    }
    let hash = datafusion_spark::function::hash::xxhash64().call(args);
    // The low 53 bits, as a fraction of 2^53.
    const MANTISSA: i64 = (1 << 53) - 1;
    let bits = Expr::BinaryExpr(datafusion::logical_expr::BinaryExpr::new(
        Box::new(hash),
        datafusion::logical_expr::Operator::BitwiseAnd,
        Box::new(lit(MANTISSA)),
    ));
    cast(bits, DataType::Float64) / lit((MANTISSA + 1) as f64)
}

impl Resolver<'_> {
    /// `df.approxQuantile(cols, probabilities, relativeError)`: one row holding, per column,
    /// the values at the probabilities. The answer is exact (always within any relative
    /// error): the smallest value whose rank reaches `ceil(p * n)`, NULLs and NaN left out,
    /// from the column's sorted values (held in memory, unlike Spark's sketch).
    pub(crate) fn resolve_approx_quantile(
        &mut self,
        input: &Plan,
        cols: &[String],
        probabilities: &[f64],
    ) -> PlanResult<LogicalPlan> {
        use datafusion::functions::core::expr_fn::greatest;
        use datafusion::functions::math::expr_fn::{ceil, isnan};
        use datafusion::functions_aggregate::expr_fn::array_agg;
        use datafusion::functions_nested::expr_fn::{array_element, cardinality};
        use datafusion::logical_expr::ExprFunctionExt;

        let input = self.resolve(input)?;
        let schema: DFSchema = input.schema().as_ref().clone();
        let mut aggregates = vec![];
        for (i, name) in cols.iter().enumerate() {
            let internal = &self.numeric_column(&schema, name, |t| {
                format!(
                    "Quantile calculation for column {name} with data type {t} is not supported."
                )
            })?;
            let v = cast(Self::column(internal), DataType::Float64);
            let sorted = array_agg(v.clone())
                .order_by(vec![v.clone().sort(true, false)])
                .filter(v.clone().is_not_null().and(!isnan(v)))
                .build()?;
            aggregates.push(sorted.alias(format!("q{i}")));
        }
        let sorted = LogicalPlanBuilder::from(input)
            .aggregate(Vec::<Expr>::new(), aggregates)?
            .build()?;
        let per_column = (0..cols.len())
            .map(|i| {
                let values = Self::column(&format!("q{i}"));
                let n = cast(cardinality(values.clone()), DataType::Float64);
                make_array(
                    probabilities
                        .iter()
                        .map(|p| {
                            let rank = cast(ceil(lit(*p) * n.clone()), DataType::Int64);
                            array_element(values.clone(), greatest(vec![rank, lit(1i64)]))
                        })
                        .collect(),
                )
            })
            .collect();
        let plan = LogicalPlanBuilder::from(sorted)
            .project(vec![make_array(per_column).alias("approx_quantile")])?
            .build()?;
        self.project_items(
            plan,
            vec![(
                Self::column("approx_quantile"),
                "approx_quantile".to_string(),
            )],
        )
    }
}

impl Resolver<'_> {
    /// `df.freqItems(cols, support)`: one row holding, per column, an array of its values
    /// that may be frequent. Spark keeps at most `k = 1 / support` candidates per column
    /// (Karp et al.'s counting): every value when a column has at most `k` distinct values
    /// (NULL too), else the values more frequent than `rows / (k + 1)` and, depending on
    /// the order rows arrive in, possibly others. Ember answers the order-independent part:
    /// all values, or exactly those more frequent than `rows / (k + 1)`.
    pub(crate) fn resolve_freq_items(
        &mut self,
        input: &Plan,
        cols: &[String],
        support: f64,
    ) -> PlanResult<LogicalPlan> {
        use datafusion::functions_aggregate::expr_fn::array_agg;
        let input = self.resolve(input)?;
        let schema: DFSchema = input.schema().as_ref().clone();
        let size = (1.0 / support) as usize;
        let mut result: Option<LogicalPlan> = None;
        let mut items: Vec<Named> = vec![];
        for (i, name) in cols.iter().enumerate() {
            let internal = self.existing_column(&schema, name)?;
            let value = Self::column(&internal);
            let element_type = schema
                .field_with_unqualified_name(&internal)?
                .data_type()
                .clone();
            let rows = Self::column("__rows");
            let whole = |f: std::sync::Arc<datafusion::logical_expr::AggregateUDF>, name: &str| {
                Expr::WindowFunction(Box::new(
                    datafusion::logical_expr::expr::WindowFunction::new(
                        datafusion::logical_expr::WindowFunctionDefinition::AggregateUDF(f),
                        vec![rows.clone()],
                    ),
                ))
                .alias(name)
            };
            let k = size as i64;
            let kept = Self::column("__distinct")
                .lt_eq(lit(k))
                .or((rows.clone() * lit(k + 1)).gt(Self::column("__total")));
            let frequent = LogicalPlanBuilder::from(input.clone())
                .aggregate(vec![value.clone()], vec![count(lit(1)).alias("__rows")])?
                .window(vec![
                    whole(datafusion::functions_aggregate::sum::sum_udaf(), "__total"),
                    whole(
                        datafusion::functions_aggregate::count::count_udaf(),
                        "__distinct",
                    ),
                ])?
                .filter(kept)?
                .aggregate(Vec::<Expr>::new(), vec![array_agg(value).alias("__values")])?
                .project(vec![
                    datafusion::functions::expr_fn::coalesce(vec![
                        Self::column("__values"),
                        lit(crate::literal::list_scalar(vec![], Some(element_type))?),
                    ])
                    .alias(format!("f{i}")),
                ])?
                .build()?;
            result = Some(match result {
                None => frequent,
                Some(left) => LogicalPlanBuilder::from(left)
                    .cross_join(frequent)?
                    .build()?,
            });
            items.push((
                Self::column(&format!("f{i}")),
                format!("{}_freqItems", self.info(&internal).name),
            ));
        }
        let Some(plan) = result else {
            return Err(PlanError::InvalidPlan("freqItems without columns".into()));
        };
        self.project_items(plan, items)
    }
}
