//! Arrays, maps and structs.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::{
    FunctionInput, Naming, RegistryBuilder, add_df, add_spark, df_udf, null_if_null, null_when,
    when,
};
use crate::error::{PlanError, PlanResult, SparkError};

/// DataFusion's `map_keys`, `map_values` or `map_entries`; of an untyped NULL, a NULL array of
/// `element` (VOID, or entries of VOID), Spark's answer (DataFusion's refuse the NULL type).
fn map_part(b: &mut RegistryBuilder, name: &'static str, element: DataType) {
    let of_null = DataType::List(std::sync::Arc::new(
        arrow::datatypes::Field::new_list_field(element, true),
    ));
    b.scalar(&[name], move |f| {
        f.arity(1, 1)?;
        if matches!(f.types.first(), Some(DataType::Null)) {
            return Ok(Expr::Literal(ScalarValue::try_from(&of_null)?, None));
        }
        Ok(df_udf(name)?.call(f.args))
    });
}

pub fn register(b: &mut RegistryBuilder) {
    // Generators are listed like other functions; the resolver plans them as unnests
    // (`resolver::generate`) before the registry is asked.
    b.add(
        &crate::resolver::GENERATORS,
        super::FunctionKind::Generator,
        Naming::Call,
        std::sync::Arc::new(|f: FunctionInput| {
            Err(crate::error::PlanError::InvalidPlan(format!(
                "the generator {} outside a SELECT list",
                f.name
            )))
        }),
    );
    // Higher-order functions take a lambda (`resolver::lambda` plans them); listed here so
    // that the catalog shows them.
    b.scalar(
        &[
            "transform",
            "filter",
            "exists",
            "forall",
            "zip_with",
            "map_filter",
            "transform_keys",
            "transform_values",
            "aggregate",
            "reduce",
            "map_zip_with",
        ],
        |f| {
            Err(PlanError::Unsupported(format!(
                "{} without a lambda function",
                f.name
            )))
        },
    );
    b.scalar(&["array"], |f| Ok(df_udf("make_array")?.call(f.args)));
    b.scalar(&["map"], |f| {
        if f.args.len() % 2 != 0 {
            return Err(super::wrong_num_args("map", "2n (n > 0)", f.args.len()));
        }
        let (keys, values): (Vec<Expr>, Vec<Expr>) = f
            .args
            .chunks(2)
            .map(|kv| (kv[0].clone(), kv[1].clone()))
            .unzip();
        let make = df_udf("make_array")?;
        // (datafusion-spark's map_from_arrays keeps the last of duplicate keys when the
        // session's policy is LAST_WIN; DataFusion's map raises DUPLICATED_MAP_KEY.)
        let build = if f.config.map_key_last_win {
            super::sp_udf("map_from_arrays")?
        } else {
            df_udf("map")?
        };
        Ok(build.call(vec![make.call(keys), make.call(values)]))
    });
    b.scalar(&["named_struct"], named_struct);
    b.scalar_named(&["struct"], Naming::Call, build_struct);
    // size(NULL) is -1 only without ANSI (spark.sql.legacy.sizeOfNull).
    b.scalar(&["size", "cardinality"], |f| {
        f.arity(1, 1)?;
        let ansi = f.config.ansi;
        let x = f.args[0].clone();
        let size = super::sp_udf("size")?.call(f.args);
        Ok(if ansi { null_if_null(x, size) } else { size })
    });
    b.scalar(&["array_size"], |f| {
        let x = super::operators::one(f)?;
        Ok(cast(df_udf("array_length")?.call(vec![x]), DataType::Int32))
    });
    b.scalar(&["array_append"], |f| {
        let (a, e) = super::operators::two(f)?;
        Ok(null_if_null(
            a.clone(),
            df_udf("array_append")?.call(vec![a, e]),
        ))
    });
    b.scalar(&["array_prepend"], |f| {
        let (a, e) = super::operators::two(f)?;
        Ok(null_if_null(
            a.clone(),
            df_udf("array_prepend")?.call(vec![e, a]),
        ))
    });
    add_df(b, &["array_compact"], "array_compact", 1, 1);
    // map_concat(m1, m2, ...): the entries of all, NULL when one map is.
    b.scalar(&["map_concat"], |mut f| {
        f.arity(1, usize::MAX)?;
        if f.types.iter().any(|t| !matches!(t, DataType::Map(..))) {
            let types: Vec<String> = f
                .types
                .iter()
                .map(|t| format!("\"{}\"", crate::types::sql_name(t)))
                .collect();
            return Err(mismatch(
                &f,
                "MAP_CONCAT_DIFF_TYPES",
                format!(
                    "The `map_concat` should all be of type map, but it's [{}].",
                    types.join(", ")
                ),
            ));
        }
        // `map()` (a map of NULL type, always empty) adds nothing, and has no type to unify.
        let untyped = |t: &DataType| crate::types::map_key_type(t) == Some(&DataType::Null);
        if f.types.iter().any(|t| !untyped(t)) {
            let keep: Vec<bool> = f.types.iter().map(|t| !untyped(t)).collect();
            let mut keep = keep.into_iter();
            f.args.retain(|_| keep.next().unwrap_or(true));
        }
        let any_null = super::any_null(&f.args);
        let entries = f
            .args
            .into_iter()
            .map(|m| df_udf("map_entries").map(|u| u.call(vec![m])))
            .collect::<PlanResult<Vec<_>>>()?;
        let all = df_udf("array_concat")?.call(entries);
        let map = super::sp_udf("map_from_entries")?.call(vec![all]);
        Ok(null_when(any_null, map))
    });
    // array_insert(a, pos, v): 1-based; negative positions count from the end (-1 appends).
    // A position past either end pads with NULLs, as Spark does: inserting at 5 into
    // [a, b, c] gives [a, b, c, NULL, v], at -5 gives [v, NULL, a, b, c].
    b.scalar(&["array_insert"], |f| {
        f.arity(3, 3)?;
        let (a, pos, v) = (f.args[0].clone(), f.args[1].clone(), f.args[2].clone());
        let element = match f.types.first() {
            Some(DataType::List(field) | DataType::LargeList(field)) => field.data_type().clone(),
            _ => DataType::Null,
        };
        let size = cast(
            df_udf("array_length")?.call(vec![a.clone()]),
            DataType::Int64,
        );
        let pos = cast(pos, DataType::Int64);
        let pos_arg = pos.clone();
        // The 1-based slot the value takes, counted from the front.
        let at = when(
            pos.clone().lt(lit(0i64)),
            size.clone() + lit(2i64) + pos.clone(),
            Some(pos),
        );
        let nulls = |n: Expr| -> PlanResult<Expr> {
            let null = cast(lit(ScalarValue::Null), element.clone());
            let n = df_udf("greatest")?.call(vec![n, lit(0i64)]);
            Ok(df_udf("array_repeat")?.call(vec![null, n]))
        };
        let slice = df_udf("array_slice")?;
        let concat = df_udf("array_concat")?;
        let one = df_udf("make_array")?.call(vec![v]);
        let inside = concat.call(vec![
            slice.call(vec![a.clone(), lit(1i64), at.clone() - lit(1i64)]),
            nulls(at.clone() - lit(1i64) - size.clone())?,
            one.clone(),
            slice.call(vec![a.clone(), at.clone(), size]),
        ]);
        let before_start = concat.call(vec![one, nulls(lit(1i64) - at.clone())?, a.clone()]);
        let joined = when(at.lt(lit(1i64)), before_start, Some(inside));
        let joined = super::native::fail_when(
            pos_arg.clone().eq(lit(0i64)),
            super::native::Failure::IndexOfZero,
            vec![pos_arg.clone()],
            joined,
        );
        Ok(null_when(a.is_null().or(pos_arg.is_null()), joined))
    });
    // arrays_zip: struct fields named after the argument columns, else their positions.
    b.scalar(&["arrays_zip"], |f| {
        if f.args.is_empty() {
            // `arrays_zip()`: an empty array of empty structs.
            let element = DataType::Struct(arrow::datatypes::Fields::empty());
            return Ok(lit(ScalarValue::List(ScalarValue::new_list_nullable(
                &[],
                &element,
            ))));
        }
        let mut fields = Vec::with_capacity(f.types.len());
        for (i, (t, name)) in f.types.iter().zip(f.field_names.iter()).enumerate() {
            let element = match t {
                DataType::List(field) | DataType::LargeList(field) => field.data_type().clone(),
                DataType::Null => DataType::Null,
                other => {
                    return Err(PlanError::Unsupported(format!("arrays_zip of {other}")));
                }
            };
            let name = name.clone().unwrap_or_else(|| i.to_string());
            fields.push(arrow::datatypes::Field::new(name, element, true));
        }
        // An untyped NULL array: NULL, its field of no type (`arrays_zip(NULL, array(1))`).
        if f.types.contains(&DataType::Null) {
            let element = DataType::Struct(fields.into());
            let list = crate::types::list_type(element, false);
            return Ok(lit(ScalarValue::try_from(&list)?));
        }
        // NULL when any array is (DataFusion's zips a NULL array as NULLs).
        let any_null = super::any_null(&f.args);
        let zipped = df_udf("arrays_zip")?.call(f.args);
        let names = fields.iter().map(|f| f.name().clone()).collect();
        let renamed = super::native::NativeUdf::udf(super::native::Native::RenameFields { names })
            .call(vec![zipped]);
        Ok(null_when(any_null, renamed))
    });
    map_part(b, "map_entries", {
        let entry = arrow::datatypes::Fields::from(vec![
            arrow::datatypes::Field::new("key", DataType::Null, true),
            arrow::datatypes::Field::new("value", DataType::Null, true),
        ]);
        DataType::Struct(entry)
    });
    add_spark(b, &["shuffle"], "shuffle", 1, 2);
    // Java patterns as delimiters; Spark names the call with its default delimiters.
    b.scalar_named(
        &["str_to_map"],
        Naming::Custom(|_, a, _| {
            let defaults = [",", ":"];
            let mut args = a.to_vec();
            for d in defaults.iter().skip(args.len().saturating_sub(1)) {
                args.push(d.to_string());
            }
            format!("str_to_map({})", args.join(", "))
        }),
        |f| {
            f.arity(1, 3)?;
            let kind = super::native::Native::StrToMap {
                last_win: f.config.map_key_last_win,
            };
            Ok(super::native::NativeUdf::udf(kind).call(f.args))
        },
    );
    b.scalar(&["map_contains_key"], |f| {
        f.arity(2, 2)?;
        // (Spark's wider type without string promotion: numbers with numbers, datetimes with
        // datetimes, else the same type.)
        let comparable = |a: &DataType, b: &DataType| {
            let datetime = |t: &DataType| matches!(t, DataType::Date32 | DataType::Timestamp(..));
            a == b
                || (a.is_numeric() && b.is_numeric())
                || (datetime(a) && datetime(b))
                || *a == DataType::Null
                || *b == DataType::Null
        };
        let key = crate::types::map_key_type(&f.types[0]).cloned();
        if !key.as_ref().is_some_and(|k| comparable(k, &f.types[1])) {
            let types = format!(
                "[\"{}\", \"{}\"]",
                crate::types::sql_name(&f.types[0]),
                crate::types::sql_name(&f.types[1])
            );
            return Err(mismatch(
                &f,
                "MAP_FUNCTION_DIFF_TYPES",
                format!("Input to `map_contains_key` should have been \"MAP\" followed by a value with same key type, but it's {types}."),
            ));
        }
        if f.types[1] == DataType::Null {
            return Err(mismatch(
                &f,
                "NULL_TYPE",
                "Null typed values cannot be used as arguments of `map_contains_key`.".into(),
            ));
        }
        let (m, k) = super::operators::two(f)?;
        if key == Some(DataType::Null) {
            // `map()`: always empty.
            return Ok(null_if_null(m, lit(false)));
        }
        Ok(df_udf("array_has")?.call(vec![df_udf("map_keys")?.call(vec![m]), k]))
    });
    // array_sort(a): ascending, NULLs last (the comparator form is a lambda). Spark names it
    // with the default comparator its analyzer adds.
    b.scalar_named(
        &["array_sort"],
        Naming::Custom(|w, a, _| {
            format!(
                "{}({}, {ARRAY_SORT_DEFAULT_COMPARATOR})",
                w.to_lowercase(),
                a.join(", ")
            )
        }),
        |f| {
            let a = super::operators::one(f)?;
            Ok(df_udf("array_sort")?.call(vec![a, lit("ASC"), lit("NULLS LAST")]))
        },
    );
    // sequence(start, stop[, step]): the step defaults to 1 or -1 (a day for dates).
    b.scalar(&["sequence"], |f| {
        f.arity(2, 3)?;
        check_sequence_types(&f)?;
        let mut args = f.args;
        // Integers: the widest of the arguments' types (an untyped NULL takes the others').
        let rank = |t: &DataType| match t {
            DataType::Int8 => 1,
            DataType::Int16 => 2,
            DataType::Int32 => 3,
            DataType::Int64 => 4,
            _ => 0,
        };
        // (Text is read as the integers' type.)
        let integers = f.types.iter().all(|t| {
            t.is_integer()
                || matches!(
                    t,
                    DataType::Null | DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                )
        }) && f.types.iter().any(|t| t.is_integer());
        let element = f.types.iter().max_by_key(|t| rank(t)).cloned();
        if args.len() == 2 {
            let up = args[1].clone().gt_eq(args[0].clone());
            let (forward, back) = if integers {
                (lit(1i64), lit(-1i64))
            } else {
                // Dates and timestamps: a day.
                let day = |d: i32| {
                    lit(ScalarValue::IntervalMonthDayNano(Some(
                        arrow::datatypes::IntervalMonthDayNano::new(0, d, 0),
                    )))
                };
                (day(1), day(-1))
            };
            args.push(when(up, forward, Some(back)));
        }
        if let Some(element) = element.filter(|_| integers) {
            let args: Vec<Expr> = args.into_iter().map(|a| cast(a, DataType::Int64)).collect();
            let (start, stop, step) = (args[0].clone(), args[1].clone(), args[2].clone());
            // Spark's `require`: a step that leads from start to stop.
            let legal = (step
                .clone()
                .gt(lit(0i64))
                .and(start.clone().lt_eq(stop.clone())))
            .or(step
                .clone()
                .lt(lit(0i64))
                .and(start.clone().gt_eq(stop.clone())))
            .or(step
                .clone()
                .eq(lit(0i64))
                .and(start.clone().eq(stop.clone())));
            let series = df_udf("generate_series")?.call(args);
            let series = super::native::fail_when(
                Expr::Not(Box::new(legal)),
                super::native::Failure::IllegalSequenceBoundaries,
                vec![start, stop, step],
                series,
            );
            return Ok(cast(series, crate::types::list_type(element, false)));
        }
        // Dates and timestamps: the step as DataFusion's interval, the elements of the
        // bounds' type (DataFusion makes nanosecond timestamps).
        let element = f
            .types
            .iter()
            .take(2)
            .find(|t| **t != DataType::Null)
            .cloned()
            .unwrap_or(DataType::Date32);
        if element == DataType::Date32
            && f.types
                .get(2)
                .is_some_and(|t| matches!(t, DataType::Duration(_)))
        {
            // (A day-time step over dates: DataFusion steps dates by whole days only, so the
            // dates step as midnights.)
            let midnight = DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, None);
            for bound in args.iter_mut().take(2) {
                *bound = cast(bound.clone(), midnight.clone());
            }
        }
        if let Some(step) = args.get_mut(2) {
            let interval = DataType::Interval(arrow::datatypes::IntervalUnit::MonthDayNano);
            *step = cast(step.clone(), interval);
        }
        let series = df_udf("generate_series")?.call(args);
        Ok(cast(series, crate::types::list_type(element, false)))
    });
    // array_contains(array, value): numbers of different types meet in Spark's wider type
    // (`array_contains(array(1), 1.5BD)` compares as DECIMAL(11, 1)).
    b.scalar(&["array_contains"], |mut f| {
        f.arity(2, 2)?;
        if let (Some(DataType::List(field)), Some(v)) = (f.types.first(), f.types.get(1)) {
            let e = field.data_type();
            let wider = (e != v && e.is_numeric() && v.is_numeric())
                .then(|| crate::resolver::common_type(&[e.clone(), v.clone()]))
                .flatten();
            if let Some(wider) = wider {
                let list = crate::types::list_type(wider.clone(), field.is_nullable());
                f.args[0] = cast(f.args[0].clone(), list);
                f.args[1] = cast(f.args[1].clone(), wider);
            }
        }
        match super::spark_scalar("array_contains") {
            Some(udf) => Ok(udf.call(f.args)),
            None => Err(crate::error::PlanError::Unsupported(
                "array_contains".into(),
            )),
        }
    });
    add_df(b, &["array_distinct"], "array_distinct", 1, 1);
    // The delimiter and the NULL replacement are texts.
    b.scalar(&["array_join"], |f| {
        f.arity(2, 3)?;
        for i in 1..f.args.len() {
            super::check_type(&f, i, &["STRING"], |t| {
                matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
            })?;
        }
        // (A NULL array is a NULL text.)
        if f.types.first() == Some(&DataType::Null) {
            return Ok(lit(ScalarValue::Utf8(None)));
        }
        // (A NULL replacement makes the whole value NULL, as in Spark.)
        let replacement = f.args.get(2).cloned();
        let joined = df_udf("array_to_string")?.call(f.args);
        Ok(match replacement {
            Some(r) => super::null_if_null(r, joined),
            None => joined,
        })
    });
    b.scalar(&["array_position"], |f| {
        f.arity(2, 2)?;
        // NULL for a NULL array or value.
        let absent = super::any_null(&f.args);
        let p = df_udf("array_position")?.call(f.args);
        // 0 when absent, as a bigint.
        Ok(super::null_when(
            absent,
            cast(
                df_udf("coalesce")?.call(vec![p, lit(0u64)]),
                DataType::Int64,
            ),
        ))
    });
    add_df(b, &["array_remove"], "array_remove_all", 2, 2);
    add_df(b, &["array_union"], "array_union", 2, 2);
    add_df(b, &["array_intersect"], "array_intersect", 2, 2);
    add_df(b, &["array_except"], "array_except", 2, 2);
    // arrays_overlap(a, b): true when a non-NULL element is in both; else NULL when both are
    // non-empty and either holds a NULL (it might have matched), else false.
    b.scalar(&["arrays_overlap"], |f| {
        let (a, b2) = super::operators::two(f)?;
        let compact = df_udf("array_compact")?;
        let length = df_udf("array_length")?;
        let has_nulls = |x: &Expr| {
            length
                .call(vec![compact.call(vec![x.clone()])])
                .lt(length.call(vec![x.clone()]))
        };
        let non_empty = |x: &Expr| length.call(vec![x.clone()]).gt(lit(0u64));
        let overlap = df_udf("array_has_any")?.call(vec![
            compact.call(vec![a.clone()]),
            compact.call(vec![b2.clone()]),
        ]);
        let maybe = non_empty(&a)
            .and(non_empty(&b2))
            .and(has_nulls(&a).or(has_nulls(&b2)));
        let answer = Expr::Case(datafusion::logical_expr::expr::Case::new(
            None,
            vec![
                (Box::new(overlap), Box::new(lit(true))),
                (Box::new(maybe), Box::new(lit(ScalarValue::Boolean(None)))),
            ],
            Some(Box::new(lit(false))),
        ));
        Ok(null_when(a.is_null().or(b2.is_null()), answer))
    });
    // flatten: NULL when one of the arrays is NULL.
    // (Spark takes no NULL and no array of VOID: neither is an array of arrays.)
    b.scalar(&["flatten"], |f| {
        super::require_type(&f, 0, &["ARRAY\" of \"ARRAY"], |t| match t {
            DataType::List(e) | DataType::LargeList(e) => {
                matches!(e.data_type(), DataType::List(_) | DataType::LargeList(_))
            }
            _ => false,
        })?;
        let a = super::operators::one(f)?;
        // array_length counts the outer elements (cardinality counts the nested ones).
        let card = df_udf("array_length")?;
        let has_null = card
            .call(vec![a.clone()])
            .not_eq(card.call(vec![df_udf("array_compact")?.call(vec![a.clone()])]));
        Ok(null_when(has_null, df_udf("flatten")?.call(vec![a])))
    });
    add_df(b, &["array_max"], "array_max", 1, 1);
    add_df(b, &["array_min"], "array_min", 1, 1);
    map_part(b, "map_keys", DataType::Null);
    map_part(b, "map_values", DataType::Null);
    add_spark(b, &["map_from_arrays"], "map_from_arrays", 2, 2);
    add_spark(b, &["map_from_entries"], "map_from_entries", 1, 1);
    b.scalar(&["slice"], |f| {
        f.arity(3, 3)?;
        // datafusion-spark's slice computes the last index as `start + length - 1` in the
        // list's offset type, which Int.MaxValue bounds overflow (an internal error where Spark
        // answers). No array holds 2^30 elements, so bounds past that slice the same.
        let mut args = f.args;
        for arg in args.iter_mut().skip(1) {
            let wide = cast(arg.clone(), DataType::Int64);
            *arg = super::when(
                wide.clone().gt(lit(SLICE_BOUND)),
                lit(SLICE_BOUND),
                Some(wide),
            );
        }
        Ok(super::sp_udf("slice")?.call(args))
    });
    add_spark(b, &["array_repeat"], "array_repeat", 2, 2);
    b.scalar(&["element_at"], |f| {
        f.arity(2, 2)?;
        match f.types.first() {
            Some(arrow::datatypes::DataType::Map(..)) => map_value(f.args, f.types.first()),
            _ => Ok(crate::functions::udf::ArrayIndex::udf(true, f.config.ansi).call(f.args)),
        }
    });
    b.scalar(&["try_element_at"], |f| {
        f.arity(2, 2)?;
        match f.types.first() {
            Some(arrow::datatypes::DataType::Map(..)) => map_value(f.args, f.types.first()),
            _ => Ok(crate::functions::udf::ArrayIndex::udf(true, false).call(f.args)),
        }
    });
    b.scalar(&["get"], |f| {
        f.arity(2, 2)?;
        Ok(crate::functions::udf::ArrayIndex::udf(false, false).call(f.args))
    });
    b.scalar_named(
        &["sort_array"],
        Naming::Custom(|w, a, _| super::aggregate::default_arg(w, a, 1, "true")),
        |f| {
            f.arity(1, 2)?;
            // (A NULL order: NULL.)
            let null_order = f.args.get(1).is_some_and(super::is_null_constant);
            let asc = match f.args.get(1) {
                None => true,
                Some(_) if null_order => true,
                Some(Expr::Literal(ScalarValue::Boolean(Some(b)), _)) => *b,
                Some(_) => {
                    super::require_foldable(&f, 1, "ascendingOrder", "BOOLEAN")?;
                    return Err(PlanError::Unsupported(
                        "sort_array with a non-literal order".into(),
                    ));
                }
            };
            let mut args = f.args;
            args.truncate(1);
            // Spark sorts nulls first ascending, last descending.
            args.push(lit(if asc { "ASC" } else { "DESC" }));
            args.push(lit(if asc { "NULLS FIRST" } else { "NULLS LAST" }));
            let sorted = df_udf("array_sort")?.call(args);
            Ok(if null_order {
                super::null_when(lit(true), sorted)
            } else {
                sorted
            })
        },
    );
    // collect_union(arrays): the distinct elements of a group's arrays.
    b.aggregate(&["collect_union"], |f| {
        f.arity(1, 1)?;
        super::require_type(&f, 0, &["ARRAY"], |t| matches!(t, DataType::List(_)))?;
        if let Some(DataType::List(element)) = f.types.first()
            && matches!(element.data_type(), DataType::Map(..))
        {
            return Err(SparkError::analysis(
                "DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"collect_union({})\" due to data type mismatch: The input of `collect_union` can't be \"MAP\" or \"COLLATED STRING\" type data.",
                    f.field_names.first().cloned().flatten().unwrap_or_default()
                ),
            )
            .into());
        }
        let respect_nulls = f.ignore_nulls == Some(false);
        let arrays = super::aggregate::call_values(f)?;
        Ok(super::native::NativeUdf::udf(super::native::Native::CollectUnion { respect_nulls })
            .call(vec![arrays]))
    });
}

/// The value of a map's key (NULL without it): a literal key by field access, a computed one
/// (`element_at(m, k)` with `k` a column) through `map_extract`.
fn map_value(args: Vec<Expr>, map: Option<&DataType>) -> PlanResult<Expr> {
    let field = |i: usize| match map {
        Some(DataType::Map(entries, _)) => match entries.data_type() {
            DataType::Struct(fields) => fields.get(i).map(|f| f.data_type().clone()),
            _ => None,
        },
        _ => None,
    };
    // (No key is NULL: a NULL key finds nothing; nor does any key in `map()`, whose keys are
    // of no type.)
    if args.get(1).is_some_and(super::is_null_constant) || field(0) == Some(DataType::Null) {
        let value = field(1);
        return Ok(lit(ScalarValue::try_from(
            &value.unwrap_or(DataType::Null),
        )?));
    }
    if matches!(args.get(1), Some(Expr::Literal(..))) {
        return Ok(datafusion::functions::core::get_field().call(args));
    }
    let values = df_udf("map_extract")?.call(args);
    Ok(df_udf("array_element")?.call(vec![values, lit(1i64)]))
}

/// `struct(a, b)`: fields named after the columns they come from, else `colN`.
fn build_struct(f: FunctionInput) -> PlanResult<Expr> {
    let mut args = Vec::with_capacity(f.args.len() * 2);
    for (i, (e, name)) in f.args.into_iter().zip(f.field_names.iter()).enumerate() {
        let name = name.clone().unwrap_or_else(|| format!("col{}", i + 1));
        args.push(lit(name));
        args.push(e);
    }
    if args.is_empty() {
        return Err(PlanError::Unsupported("struct() without fields".into()));
    }
    Ok(df_udf("named_struct")?.call(args))
}

/// How Spark shows `array_sort`'s default comparator (NULLs last, then ascending).
/// The largest bound `slice` passes on (see its registration).
const SLICE_BOUND: i64 = 1 << 30;

const ARRAY_SORT_DEFAULT_COMPARATOR: &str = "lambdafunction((IF(((namedlambdavariable() IS NULL) \
AND (namedlambdavariable() IS NULL)), 0, (IF((namedlambdavariable() IS NULL), 1, \
(IF((namedlambdavariable() IS NULL), -1, (IF((namedlambdavariable() < namedlambdavariable()), -1, \
(IF((namedlambdavariable() > namedlambdavariable()), 1, 0)))))))))), namedlambdavariable(), \
namedlambdavariable())";

/// DATATYPE_MISMATCH.`class` of call `f`.
fn mismatch(f: &FunctionInput, class: &str, why: String) -> PlanError {
    SparkError::analysis(
        &format!("DATATYPE_MISMATCH.{class}"),
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: {why}",
            f.shown()
        ),
    )
    .into()
}

/// Spark's `Sequence.checkInputDataTypes` after its implicit casts: start and stop of one
/// integral type, or dates or timestamps (the step then an interval); text is read as a
/// number only in ANSI mode.
fn check_sequence_types(f: &FunctionInput) -> PlanResult<()> {
    let text = crate::types::is_text;
    let integral =
        |t: &DataType| t.is_integer() || *t == DataType::Null || (f.config.ansi && text(t));
    let datetime = |t: &DataType| {
        matches!(
            t,
            DataType::Date32 | DataType::Timestamp(..) | DataType::Null
        )
    };
    let interval = |t: &DataType| matches!(t, DataType::Interval(_) | DataType::Duration(_));
    let (bounds, step) = (&f.types[..2], f.types.get(2));
    let fine = (bounds.iter().all(integral)
        && bounds.iter().chain(step).any(|t| t.is_integer())
        && step.is_none_or(integral))
        || (bounds.iter().all(datetime)
            && bounds.iter().any(|t| *t != DataType::Null)
            && step.is_none_or(|t| interval(t) || *t == DataType::Null));
    if fine {
        return Ok(());
    }
    Err(mismatch(
        f,
        "SEQUENCE_WRONG_INPUT_TYPES",
        "`sequence` uses the wrong parameter type. The parameter type must conform to:\n1. The start and stop expressions must resolve to the same type.\n2. If start and stop expressions resolve to the (\"TIMESTAMP\" or \"TIMESTAMP_NTZ\" or \"DATE\") type, then the step expression must resolve to the (\"INTERVAL\" or \"INTERVAL YEAR TO MONTH\" or \"INTERVAL DAY TO SECOND\") type.\n3. Otherwise, if start and stop expressions resolve to the \"INTEGRAL\" type, then the step expression must resolve to the same type.".into(),
    ))
}

/// `named_struct(name, value, ...)`: Spark's checks of the names (constant texts, not NULL),
/// and empty names, which DataFusion's `named_struct` refuses (built under stand-in names,
/// then given the real ones).
fn named_struct(f: FunctionInput) -> PlanResult<Expr> {
    if !f.args.len().is_multiple_of(2) {
        return Err(super::wrong_num_args(
            "named_struct",
            "2n (n > 0)",
            f.args.len(),
        ));
    }
    let text = crate::types::is_text;
    let names: Vec<usize> = (0..f.args.len()).step_by(2).collect();
    let not_constant: Vec<String> = names
        .iter()
        .filter(|&&i| !text(&f.types[i]) || !f.args[i].column_refs().is_empty())
        .map(|&i| format!("\"{}\"", f.arg_name(i)))
        .collect();
    if !not_constant.is_empty() {
        return Err(mismatch(
            &f,
            "CREATE_NAMED_STRUCT_WITHOUT_FOLDABLE_STRING",
            format!(
                "Only foldable `STRING` expressions are allowed to appear at odd position, but they are [{}].",
                not_constant.join(", ")
            ),
        ));
    }
    if names.iter().any(|&i| super::is_null_constant(&f.args[i])) {
        let shown: Vec<String> = names
            .iter()
            .map(|&i| format!("\"{}\"", f.arg_name(i)))
            .collect();
        return Err(mismatch(
            &f,
            "UNEXPECTED_NULL",
            format!("The [{}] must not be null.", shown.join(", ")),
        ));
    }
    let empty =
        |e: &Expr| matches!(e, Expr::Literal(ScalarValue::Utf8(Some(n)), _) if n.is_empty());
    if !names.iter().any(|&i| empty(&f.args[i])) {
        return Ok(df_udf("named_struct")?.call(f.args));
    }
    // (The fields nullable: the values' nullability is not known here.)
    let to = DataType::Struct(
        names
            .iter()
            .map(|&i| {
                let name = match &f.args[i] {
                    Expr::Literal(ScalarValue::Utf8(Some(n)), _) => n.clone(),
                    _ => String::new(),
                };
                arrow::datatypes::Field::new(name, f.types[i + 1].clone(), true)
            })
            .collect::<Vec<_>>()
            .into(),
    );
    let mut args = f.args;
    for (k, &i) in names.iter().enumerate() {
        args[i] = lit(format!("_{k}"));
    }
    let built = df_udf("named_struct")?.call(args);
    Ok(super::nested_nullability::NestedType::udf(to).call(vec![built]))
}
