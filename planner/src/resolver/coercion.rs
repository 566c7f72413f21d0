//! Spark's common types where DataFusion's differ: values of a function's arguments that must
//! share a type (`array`, `coalesce`, `greatest`, `if`, `map`'s keys and values, CASE's
//! branches, the columns of a UNION). Dates and timestamps meet as timestamps, a zoned
//! TIMESTAMP wins over a TIMESTAMP_NTZ, and strings take the date's or timestamp's type (ANSI
//! string promotion); the values are cast by Spark's cast rules (the session time zone).

use arrow::datatypes::DataType;
use datafusion::common::DFSchema;
use datafusion::logical_expr::{Expr, LogicalPlan, LogicalPlanBuilder};

use super::Resolver;
use crate::error::PlanResult;

/// Spark's common type of `a` and `b` where DataFusion would choose another (or none);
/// `None`: leave them to DataFusion.
fn datetime_common(a: &DataType, b: &DataType) -> Option<DataType> {
    use DataType::*;
    match (a, b) {
        (a, b) if a == b => Some(a.clone()),
        (Null, t) | (t, Null) => Some(t.clone()),
        (Date32, t @ Timestamp(..)) | (t @ Timestamp(..), Date32) => Some(t.clone()),
        (Timestamp(_, None), t @ Timestamp(_, Some(_)))
        | (t @ Timestamp(_, Some(_)), Timestamp(_, None)) => Some(t.clone()),
        (Utf8 | LargeUtf8 | Utf8View, t @ (Date32 | Timestamp(..)))
        | (t @ (Date32 | Timestamp(..)), Utf8 | LargeUtf8 | Utf8View) => Some(t.clone()),
        _ => None,
    }
}

/// The type values of `types` share under Spark's rules, when it is not DataFusion's.
pub(super) fn common_type(types: &[DataType]) -> Option<DataType> {
    let mut out: Option<DataType> = None;
    for t in types {
        out = Some(match &out {
            None => t.clone(),
            Some(o) => datetime_common(o, t)?,
        });
    }
    out.filter(|t| types.iter().any(|x| x != t && x != &DataType::Null))
}

/// The argument positions of a function whose values must share one type.
pub(super) fn same_type_groups(function: &str, arity: usize) -> Vec<Vec<usize>> {
    match function {
        "array" | "coalesce" | "nvl" | "ifnull" | "greatest" | "least" => {
            vec![(0..arity).collect()]
        }
        "if" | "iff" | "nvl2" if arity == 3 => vec![vec![1, 2]],
        "map" => vec![
            (0..arity).step_by(2).collect(),
            (1..arity).step_by(2).collect(),
        ],
        _ => vec![],
    }
}

impl Resolver<'_> {
    /// The arguments of `function` cast to the Spark common type of each group of them that
    /// must share one (see [`same_type_groups`]).
    pub(super) fn coerce_arguments(
        &self,
        function: &str,
        args: &mut [Expr],
        types: &mut [DataType],
        schema: &DFSchema,
    ) -> PlanResult<()> {
        for group in same_type_groups(function, args.len()) {
            let mut exprs: Vec<Expr> = group.iter().map(|&i| args[i].clone()).collect();
            let mut group_types: Vec<DataType> = group.iter().map(|&i| types[i].clone()).collect();
            self.coerce_together(&mut exprs, &mut group_types, schema)?;
            for ((i, e), t) in group.iter().zip(exprs).zip(group_types) {
                args[*i] = e;
                types[*i] = t;
            }
        }
        Ok(())
    }

    /// The two sides of a UNION, INTERSECT or EXCEPT with their columns cast to the Spark
    /// common type of each pair where it is not DataFusion's.
    pub(super) fn coerce_set_operands(
        &self,
        left: LogicalPlan,
        right: LogicalPlan,
    ) -> PlanResult<(LogicalPlan, LogicalPlan)> {
        let targets: Vec<Option<DataType>> = left
            .schema()
            .fields()
            .iter()
            .zip(right.schema().fields())
            .map(|(l, r)| common_type(&[l.data_type().clone(), r.data_type().clone()]))
            .collect();
        if targets.iter().all(Option::is_none) {
            return Ok((left, right));
        }
        Ok((
            self.cast_columns(left, &targets)?,
            self.cast_columns(right, &targets)?,
        ))
    }

    fn cast_columns(
        &self,
        plan: LogicalPlan,
        targets: &[Option<DataType>],
    ) -> PlanResult<LogicalPlan> {
        let schema = plan.schema().clone();
        let mut exprs = Vec::with_capacity(targets.len());
        for ((column, field), target) in schema
            .columns()
            .into_iter()
            .zip(schema.fields())
            .zip(targets)
        {
            let name = column.name.clone();
            let e = Expr::Column(column);
            exprs.push(match target {
                Some(t) if field.data_type() != t && field.data_type() != &DataType::Null => self
                    .cast_to(e, t, crate::spec::CastMode::Default, &schema)?
                    .alias(name),
                _ => e,
            });
        }
        Ok(LogicalPlanBuilder::from(plan).project(exprs)?.build()?)
    }

    /// `exprs` (of `types`) cast to their Spark common type where it is not DataFusion's.
    pub(super) fn coerce_together(
        &self,
        exprs: &mut [Expr],
        types: &mut [DataType],
        schema: &DFSchema,
    ) -> PlanResult<()> {
        let Some(target) = common_type(types) else {
            return Ok(());
        };
        for (e, t) in exprs.iter_mut().zip(types.iter_mut()) {
            if *t != target && *t != DataType::Null {
                let inner = std::mem::replace(
                    e,
                    Expr::Literal(datafusion::common::ScalarValue::Null, None),
                );
                *e = self.cast_to(inner, &target, crate::spec::CastMode::Default, schema)?;
                *t = target.clone();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use arrow::datatypes::{DataType, TimeUnit};

    use super::common_type;

    #[test]
    fn datetimes_meet_as_spark_says() {
        let ltz = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        let ntz = DataType::Timestamp(TimeUnit::Microsecond, None);
        assert_eq!(
            common_type(&[DataType::Date32, ltz.clone()]),
            Some(ltz.clone())
        );
        assert_eq!(
            common_type(&[DataType::Date32, DataType::Null, ntz.clone()]),
            Some(ntz.clone())
        );
        assert_eq!(common_type(&[ntz.clone(), ltz.clone()]), Some(ltz.clone()));
        assert_eq!(
            common_type(&[DataType::Utf8, DataType::Date32]),
            Some(DataType::Date32)
        );
        // Same types, or types DataFusion unifies as Spark does, are left alone.
        assert_eq!(common_type(&[ltz.clone(), ltz]), None);
        assert_eq!(common_type(&[DataType::Int32, DataType::Int64]), None);
        assert_eq!(common_type(&[DataType::Utf8, DataType::Int32]), None);
    }
}
