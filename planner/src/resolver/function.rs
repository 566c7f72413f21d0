//! Function calls: a spec call resolved through the function registry, with Spark's
//! argument coercions, names (`upper(s.n)`, `ts + INTERVAL ...`), cast functions
//! (`double(x)`), typed literals (`DATE '...'`) and the checks on aggregates of
//! non-deterministic values.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::expr::Case;
use datafusion::logical_expr::{Expr, ExprSchemable, cast, lit, try_cast};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::functions::{FunctionInput, FunctionKind, registry};
use crate::interval::IntervalFields;
use crate::spec::{self, CastMode, Expr as SExpr};
use crate::{literal, types};

impl Resolver<'_> {
    /// The name of a call's argument: a nested field by its path from the column (`upper(s.n)`),
    /// where a top-level reference is named by its last part.
    pub(super) fn argument_name(&self, a: &SExpr, name: String, schema: &DFSchema) -> String {
        match a {
            SExpr::Attribute {
                name: parts,
                plan_id,
            } if parts.len() > 1 => self.nested_path(parts, *plan_id, schema).unwrap_or(name),
            _ => name,
        }
    }

    pub(crate) fn resolve_function(
        &mut self,
        call: &spec::FunctionCall,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let unit_call;
        let call = match super::calls::unit_function(call) {
            Some(c) => {
                unit_call = c;
                &unit_call
            }
            None => call,
        };
        let lname = call.name.to_ascii_lowercase();
        // Higher-order functions take their inputs and a lambda (WRONG_NUM_ARGS otherwise,
        // with or without a lambda).
        let lambda_form: Option<&[usize]> = match lname.as_str() {
            "transform" | "filter" | "exists" | "forall" | "map_filter" | "transform_keys"
            | "transform_values" => Some(&[2]),
            "zip_with" | "map_zip_with" => Some(&[3]),
            "aggregate" | "reduce" => Some(&[3, 4]),
            "array_sort" if call.args.len() >= 2 => Some(&[1, 2]),
            _ => None,
        };
        if let Some(counts) = lambda_form
            && !counts.contains(&call.args.len())
        {
            let expected = match counts {
                [n] => n.to_string(),
                _ => format!(
                    "[{}]",
                    counts
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            return Err(crate::functions::wrong_num_args(
                &lname,
                &expected,
                call.args.len(),
            ));
        }
        if lname == "decode" && call.args.len() > 2 {
            return self.decode_case(call, schema);
        }
        if lambda_form.is_some() {
            let call = super::lambda::with_constant_lambdas(&lname, call);
            if matches!(call.args.last(), Some(SExpr::Lambda { .. })) {
                return self.higher_order_function(&lname, &call, schema);
            }
        }
        if matches!(call.args.last(), Some(SExpr::Lambda { .. })) {
            return self.higher_order_function(&lname, call, schema);
        }
        match lname.as_str() {
            "__typed_literal" => return self.typed_literal(&call.args),
            "__interval_literal" => return self.interval_literal(&call.args, schema),
            "__interval_units" => return self.interval_units(&call.args),
            crate::spec::QUANTIFIED_LIKE => return self.quantified_like(&call.args, schema),
            name if name.starts_with(crate::spec::PARTITION_TRANSFORM) => {
                let transform = &name[crate::spec::PARTITION_TRANSFORM.len()..];
                let mut args = vec![];
                for a in &call.args {
                    args.push(self.resolve_expr(a, schema)?.1);
                }
                let shown = format!("{transform}({})", args.join(", "));
                return Err(SparkError::new(
                    crate::error::ErrorKind::Spark,
                    "PARTITION_TRANSFORM_EXPRESSION_NOT_IN_PARTITIONED_BY",
                    "42S23",
                    format!("The expression \"{shown}\" must be inside 'partitionedBy'."),
                    vec![("expression", format!("\"{shown}\""))],
                )
                .into());
            }
            name if super::generate::is_generator(name) => {
                return Err(SparkError::analysis(
                    "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS",
                    "42K0E",
                    format!("The generator is not supported: nested in expressions \"{name}\"."),
                )
                .into());
            }
            // The session's catalog state, as literals.
            "current_database" | "current_schema" if call.args.is_empty() => {
                let db = self.catalog().current_database();
                return Ok((lit(db), "current_schema()".to_string()));
            }
            // The SQL path: built-in functions, temporary ones, then the current schema.
            "current_path" if call.args.is_empty() => {
                let path = format!(
                    "system.builtin,system.session,{}.{}",
                    crate::catalog::SESSION_CATALOG,
                    self.catalog().current_database()
                );
                return Ok((lit(path), "current_path()".to_string()));
            }
            "current_catalog" if call.args.is_empty() => {
                return Ok((
                    lit(crate::catalog::SESSION_CATALOG),
                    "current_catalog()".to_string(),
                ));
            }
            _ => {}
        }
        // The session's temporary (Python) functions come before the built-in ones.
        if let Some(udf) = self.catalog().python_function(&lname) {
            if call.filter.is_some() {
                return Err(super::python::filter_not_supported(
                    super::python::python_kind_name(&udf),
                ));
            }
            let call = spec::PythonUdfCall {
                udf,
                args: call.args.clone(),
            };
            return self.resolve_python_udf(&call, schema);
        }
        let Some(def) = registry().get(&lname).cloned() else {
            if let ([arg], Some(to)) = (call.args.as_slice(), self.cast_function_type(&lname)) {
                // Spark's cast functions (`double(x)`, `int(x)`, ...) are casts named after
                // their argument.
                let (inner, name) = self.resolve_expr(arg, schema)?;
                let shown = format!("CAST({name} AS {})", types::sql_name(&to));
                if let Some(null) =
                    self.check_cast(&inner, &to, CastMode::Default, &shown, schema)?
                {
                    return Ok((null, name));
                }
                // (Nullable as `CAST(x AS ...)`.)
                let (from, inner_nullable) = (inner.get_type(schema)?, inner.nullable(schema)?);
                let out = self.cast_to(inner, &to, CastMode::Default, schema)?;
                let out = crate::functions::nullability::cast(
                    out,
                    &from,
                    inner_nullable,
                    self.legacy_casts(),
                    schema,
                )?;
                return Ok((out, name));
            }
            return Err(SparkError::unresolved_routine(&call.name).into());
        };
        let named_call;
        let call = if call
            .args
            .iter()
            .any(|a| matches!(a, SExpr::NamedArgument { .. }))
        {
            named_call = super::calls::positional_call(call)?;
            &named_call
        } else {
            call
        };
        // `... WITHIN GROUP (ORDER BY x)` arrives as trailing sort orders.
        let mut within_group = Vec::new();
        let sorted_call;
        let call = if matches!(call.args.last(), Some(SExpr::SortOrder(_))) {
            let mut args = call.args.clone();
            while let Some(SExpr::SortOrder(o)) = args.last() {
                within_group.insert(0, self.resolve_sort_order(o, schema)?);
                args.pop();
            }
            sorted_call = spec::FunctionCall {
                args,
                ..call.clone()
            };
            &sorted_call
        } else {
            call
        };
        // count(*) is count(1).
        let star_arg = matches!(call.args.as_slice(), [SExpr::Star { target: None, .. }]);
        let mut args = Vec::with_capacity(call.args.len());
        let mut names = Vec::with_capacity(call.args.len());
        let mut field_names = Vec::with_capacity(call.args.len());
        if star_arg && lname == "count" {
            args.push(lit(1i32));
            names.push("1".to_string());
        } else {
            for a in &call.args {
                let a = match a {
                    SExpr::NamedArgument { value, .. } => value.as_ref(),
                    other => other,
                };
                if let SExpr::Star { target, plan_id } = a {
                    // f(*) and f(t.*) pass every column.
                    for (e, n) in self.expand_star(target.as_deref(), *plan_id, schema)? {
                        args.push(e);
                        field_names.push(Some(n.clone()));
                        names.push(n);
                    }
                    continue;
                }
                // An aliased argument names a struct's field; Spark shows it as `x AS y`.
                if let SExpr::Alias {
                    expr: inner,
                    names: alias,
                    metadata: None,
                } = a
                    && let [alias] = alias.as_slice()
                {
                    let (e, inner_name) = self.resolve_expr(inner, schema)?;
                    let inner_name = self.argument_name(inner, inner_name, schema);
                    field_names.push(Some(alias.clone()));
                    args.push(e);
                    names.push(format!("{inner_name} AS {alias}"));
                    continue;
                }
                let (e, n) = self.resolve_expr(a, schema)?;
                let named_field = n.clone();
                let n = self.argument_name(a, n, schema);
                let named = matches!(
                    a,
                    SExpr::Attribute { .. } | SExpr::Alias { .. } | SExpr::ExtractValue { .. }
                );
                field_names.push(named.then_some(named_field));
                args.push(e);
                names.push(n);
            }
        }
        // assert_true(c)'s default message names c as Spark shows it, and so does the call.
        if lname == "assert_true"
            && let [shown] = names.as_slice()
        {
            let message = format!("'{shown}' is not true!");
            args.push(lit(message.clone()));
            names.push(message);
            field_names.push(None);
        }
        let filter = match &call.filter {
            Some(f) => Some(self.resolve_expr(f, schema)?),
            None => None,
        };
        if filter.is_some() && def.kind != FunctionKind::Aggregate {
            return Err(super::python::filter_not_supported(&lname));
        }
        let mut types = args
            .iter()
            .map(|a| a.get_type(schema))
            .collect::<Result<Vec<_>, _>>()?;
        let shown = def.display(&call.name, &names, call.distinct);
        self.coerce_arguments(&lname, &shown, &mut args, &mut types, schema)?;
        // (Spark's nullability of the call sees its arguments before the implicit casts, but
        // for those that may make a NULL.)
        let before_casts = args.clone();
        let may_null =
            self.implicit_casts(&lname, &shown, &names, &mut args, &mut types, schema)?;
        self.date_plus_time_as_timestamp(&lname, &mut args, &mut types, schema)?;
        crate::functions::nested_nullability::prepare_arguments(&lname, &mut args, &mut types);
        // Spark names an ordered `string_agg(..) WITHIN GROUP (..)` by its canonical name.
        let written = match lname.as_str() {
            "string_agg" if !within_group.is_empty() => "listagg",
            _ => call.name.as_str(),
        };
        let mut name = datetime_arithmetic_name(&lname, &names, &types)
            .unwrap_or_else(|| def.display_typed(written, &names, &types, call.distinct));
        if def.kind == FunctionKind::Aggregate && !self.in_window {
            check_deterministic_aggregate(call, &name, filter.as_ref().map(|(_, n)| n.as_str()))?;
        }
        if !within_group.is_empty() {
            if def.kind != FunctionKind::Aggregate {
                return Err(PlanError::Unsupported(format!(
                    "WITHIN GROUP of {}",
                    call.name
                )));
            }
            let mut order: Vec<String> = within_group.iter().map(|(_, n)| n.clone()).collect();
            // The ordered-set aggregates show their ordering without the default null
            // ordering, and `mode()`'s reversed (`mode(x, true)` is Spark's
            // `mode() WITHIN GROUP (ORDER BY x DESC)`, the least value among ties).
            if matches!(
                lname.as_str(),
                "percentile_cont" | "percentile_disc" | "mode"
            ) {
                order = order
                    .into_iter()
                    .map(|o| {
                        let (x, descending) = match (
                            o.strip_suffix(" ASC NULLS FIRST"),
                            o.strip_suffix(" DESC NULLS LAST"),
                        ) {
                            (Some(x), _) => (x.to_string(), false),
                            (_, Some(x)) => (x.to_string(), true),
                            _ => return o,
                        };
                        if descending != (lname == "mode") {
                            format!("{x} DESC")
                        } else {
                            x
                        }
                    })
                    .collect();
            }
            name.push_str(&format!(" WITHIN GROUP (ORDER BY {})", order.join(", ")));
        }
        if let Some((_, fname)) = &filter {
            name.push_str(&format!(" FILTER (WHERE {fname})"));
        }
        // typeof names an interval's fields, which its argument's field carries.
        if let ("typeof", [arg]) = (lname.as_str(), args.as_slice()) {
            let (_, field) = arg.to_field(schema)?;
            let t = lit(types::field_simple_string(&field));
            // (The type of an aggregate keeps the aggregate in the plan: one row.)
            let aggregate = datafusion::common::tree_node::TreeNode::exists(arg, |e| {
                Ok(matches!(
                    e,
                    Expr::AggregateFunction(_) | Expr::WindowFunction(_)
                ))
            })?;
            if aggregate {
                let case = Case::new(
                    None,
                    vec![(Box::new(arg.clone().is_null()), Box::new(t.clone()))],
                    Some(Box::new(t)),
                );
                return Ok((Expr::Case(case), name));
            }
            return Ok((t, name));
        }
        if crate::functions::native::input_file::InputFileField::of(&lname).is_some() {
            self.input_file_calls += 1;
        }
        // (An interval's fields, which the call's value may keep; see `call_interval`.)
        let interval = if types
            .iter()
            .any(|t| IntervalFields::default_of(t).is_some())
        {
            let fields = args
                .iter()
                .map(|a| a.to_field(schema).map(|(_, f)| f))
                .collect::<Result<Vec<_>, _>>()?;
            super::intervals::call_interval(&lname, &fields)
        } else {
            None
        };
        // (The arguments, for Spark's nullability of the call.)
        let nullability_args = (def.kind == FunctionKind::Scalar
            && crate::functions::nullability::rule(&lname).is_some())
        .then(|| {
            let mut seen = before_casts;
            for i in may_null {
                if let (Some(s), Some(a)) = (seen.get_mut(i), args.get(i)) {
                    *s = a.clone();
                }
            }
            seen
        });
        // (nullif, nullifzero and zeroifnull of text are rewritten as Spark does.)
        let rewritten = self.text_null_functions(&lname, &args, &types, schema)?;
        let expr = match rewritten {
            Some(e) => e,
            None => (def.build)(FunctionInput {
                name: &lname,
                args,
                types,
                distinct: call.distinct,
                filter: filter.map(|(e, _)| e),
                ignore_nulls: call.ignore_nulls,
                config: self.config,
                field_names,
                shown: shown.clone(),
                arg_names: names.clone(),
                order_by: within_group.into_iter().map(|(s, _)| s).collect(),
                // (A window over an aggregation's groups does not see its input's rows.)
                partition_ids: schema
                    .has_column_with_unqualified_name(crate::logical::partition_ids::PARTITION_ID)
                    && !(self.in_window && self.in_aggregation),
            })?,
        };
        let expr = match nullability_args {
            Some(args) => {
                crate::functions::nullability::apply(&lname, &args, expr, schema, self.config.ansi)?
            }
            None => crate::functions::nested_nullability::of_result(&lname, expr, schema)?,
        };
        if let Some(q) = interval {
            let dt = expr.get_type(schema)?;
            if IntervalFields::default_of(&dt).is_some_and(|d| d.year_month == q.year_month) {
                return Ok((super::intervals::retype_interval(expr, &dt, q), name));
            }
            if let Some(to) = super::intervals::list_with_interval(&dt, q) {
                let field = std::sync::Arc::new(arrow::datatypes::Field::new("interval", to, true));
                let cast =
                    datafusion::logical_expr::expr::Cast::new_from_field(Box::new(expr), field);
                return Ok((Expr::Cast(cast), name));
            }
        }
        Ok((expr, name))
    }

    /// Spark's verdict on `CAST(inner AS to)` where Arrow's would differ (see
    /// [`super::cast_rules`]): the error of a cast Spark refuses, or the NULL it answers.
    pub(super) fn check_cast(
        &self,
        inner: &Expr,
        to: &DataType,
        mode: CastMode,
        shown: &str,
        schema: &DFSchema,
    ) -> PlanResult<Option<Expr>> {
        let ansi = match mode {
            CastMode::Default => self.config.ansi,
            CastMode::Ansi | CastMode::Try => true,
            CastMode::Legacy => false,
        };
        let to = self.in_session_zone(to.clone());
        crate::functions::timestamp_nanos::check_allowed(self.config, &to)?;
        let from = inner.get_type(schema)?;
        Ok(
            match super::cast_rules::cast_rule(&from, &to, ansi, shown) {
                None => None,
                Some(super::cast_rules::CastRule::Refused(e)) => return Err(e.into()),
                Some(super::cast_rules::CastRule::Null) => {
                    Some(Expr::Literal(ScalarValue::try_from(&to)?, None))
                }
            },
        )
    }

    /// `CAST(inner AS to)` with Spark's rules: TRY semantics outside ANSI mode, the session's
    /// zone for timestamps, Spark's spelling of values cast to strings.
    pub(super) fn cast_to(
        &self,
        inner: Expr,
        to: &DataType,
        mode: CastMode,
        schema: &DFSchema,
    ) -> PlanResult<Expr> {
        let to = self.in_session_zone(to.clone());
        let legacy = matches!(mode, CastMode::Default | CastMode::Legacy) && !self.config.ansi;
        let try_mode = matches!(mode, CastMode::Try) || legacy;
        {
            use crate::functions::variant;
            let from = inner.get_type(schema)?;
            let tz = &self.config.time_zone;
            if types::is_variant(&to) {
                return variant::to_variant(inner, &from, false);
            }
            let time = DataType::Time64(arrow::datatypes::TimeUnit::Microsecond);
            let text = matches!(
                from,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            );
            if to == time && text {
                return Ok(crate::functions::time::text_to_time(inner, !try_mode));
            }
            // Spatial values cast only to their own type, and nothing casts to them.
            if types::spatial_of(&from).is_some() || types::spatial_of(&to).is_some() {
                if from == to {
                    return Ok(inner);
                }
                return Err(SparkError::analysis(
                    "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
                    "42K09",
                    format!(
                        "Cannot resolve \"CAST\" due to data type mismatch: cannot cast \"{}\" to \"{}\".",
                        types::sql_name(&from),
                        types::sql_name(&to)
                    ),
                )
                .into());
            }
            if types::is_variant(&from) {
                let path = datafusion::logical_expr::lit("$");
                return Ok(variant::variant_get(
                    inner,
                    path,
                    Some(&to),
                    !try_mode,
                    "variant_get",
                    tz,
                ));
            }
        }
        {
            let from = inner.get_type(schema)?;
            if let Some(e) =
                super::cast_rules::number_to_timestamp(inner.clone(), &from, &to, try_mode, legacy)
            {
                return Ok(e);
            }
            if let Some((seconds, _)) =
                super::cast_rules::timestamp_to_seconds(inner.clone(), &from, &to)
            {
                return self.cast_to(seconds, &to, mode, schema);
            }
        }
        // Structs cast field by field in order (arrow's cast matches names): the fields take
        // the target's names first.
        let inner = match (&inner.get_type(schema)?, &to) {
            (DataType::Struct(f), DataType::Struct(t))
                if f.len() == t.len()
                    && f.iter().zip(t.iter()).any(|(a, b)| a.name() != b.name()) =>
            {
                use crate::functions::native::{Native, NativeUdf};
                let names = t.iter().map(|f| f.name().clone()).collect();
                NativeUdf::udf(Native::RenameFields { names }).call(vec![inner])
            }
            _ => inner,
        };
        let spark_string = to == DataType::Utf8
            && crate::functions::udf::CastToString::needed_for(&inner.get_type(schema)?);
        let from = inner.get_type(schema)?;
        let text = matches!(
            from,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        );
        let text_to_instant = text && matches!(to, DataType::Timestamp(_, Some(_)));
        // (A local date-time is read as the instant it names in UTC, then the zone dropped.)
        let text_to_local = text && matches!(to, DataType::Timestamp(_, None));
        // Between instants and local date-times: through the session time zone.
        let shift = match (&from, &to) {
            (DataType::Timestamp(_, Some(_)), DataType::Timestamp(_, None)) => Some(true),
            (DataType::Timestamp(_, None), DataType::Timestamp(_, Some(_))) => Some(false),
            _ => None,
        };
        Ok(if let Some(to_local) = shift {
            use crate::functions::native::{Native, NativeUdf};
            let shifted = NativeUdf::udf(Native::ShiftZone {
                time_zone: self.config.time_zone.clone(),
                to_local,
            })
            .call(vec![inner]);
            // (Between microsecond and nanosecond timestamps too.)
            match (&from, &to) {
                (DataType::Timestamp(a, _), DataType::Timestamp(b, _)) if a != b => {
                    cast(shifted, to.clone())
                }
                _ => shifted,
            }
        } else if spark_string {
            // (An interval's fields are fixed here: a worker's plan may not carry them.)
            let (_, field) = inner.to_field(schema)?;
            crate::functions::udf::CastToString::of_interval(
                &self.config.time_zone,
                crate::interval::IntervalFields::of_field(&field),
            )
            .call(vec![inner])
        } else if text && to == DataType::Date32 {
            use crate::functions::native::{Native, NativeUdf};
            NativeUdf::udf(Native::TextToDate { fail: !try_mode }).call(vec![inner])
        } else if text_to_instant || text_to_local {
            use crate::functions::native::{Native, NativeUdf};
            let time_zone = if text_to_local {
                "UTC".to_string()
            } else {
                self.config.time_zone.clone()
            };
            let instant = NativeUdf::udf(Native::TextToTimestamp {
                time_zone,
                fail: !try_mode,
                nanos: matches!(to, DataType::Timestamp(TimeUnit::Nanosecond, _)),
                local: text_to_local,
            })
            .call(vec![inner]);
            if text_to_local {
                cast(instant, to)
            } else {
                instant
            }
        } else if try_mode
            && !matches!(mode, CastMode::Try)
            && crate::functions::native::legacy_cast::applies(&from, &to)
        {
            // Outside ANSI mode a number out of an integer type's range wraps or saturates,
            // as Java converts it.
            use crate::functions::native::{Native, NativeUdf};
            NativeUdf::udf(Native::LegacyIntegerCast {
                to: types::sql_name(&to),
            })
            .call(vec![inner])
        } else if try_mode && !super::cast_rules::total_legacy_cast(&from, &to) {
            try_cast(inner, to)
        } else if try_mode {
            // (A cast that cannot fail keeps its value's nullability, as Spark's.)
            cast(inner, to)
        } else if narrowing_to_integer(&from, &to) {
            // Spark's CAST_OVERFLOW for numbers out of the integer type's range.
            use crate::functions::native::{Native, NativeUdf};
            NativeUdf::udf(Native::CheckedIntegerCast {
                from: types::sql_name(&from),
                to: types::sql_name(&to),
                unit: 1,
                arithmetic: false,
            })
            .call(vec![inner])
        } else {
            cast(super::coercion::deferred_if_failing(inner, &to), to)
        })
    }

    /// The target type of Spark's cast function `name` (`double(x)` is `CAST(x AS DOUBLE)`).
    fn cast_function_type(&self, name: &str) -> Option<DataType> {
        Some(match name {
            "boolean" => DataType::Boolean,
            "tinyint" => DataType::Int8,
            "smallint" => DataType::Int16,
            "int" => DataType::Int32,
            "bigint" => DataType::Int64,
            "float" => DataType::Float32,
            "double" => DataType::Float64,
            "decimal" => DataType::Decimal128(10, 0),
            "string" => DataType::Utf8,
            "binary" => DataType::Binary,
            "date" => DataType::Date32,
            "timestamp" => types::timestamp_type(&self.config.time_zone),
            _ => return None,
        })
    }

    /// `DATE '...'`, `TIMESTAMP '...'`, `TIMESTAMP_NTZ '...'` in the session time zone.
    fn typed_literal(&self, args: &[SExpr]) -> PlanResult<Named> {
        let (
            Some(SExpr::Literal(ScalarValue::Utf8(Some(kind)))),
            Some(SExpr::Literal(ScalarValue::Utf8(Some(text)))),
        ) = (args.first(), args.get(1))
        else {
            return Err(PlanError::InvalidPlan("typed literal".into()));
        };
        if let Some(v) = crate::functions::timestamp_nanos::typed_literal(self.config, kind, text)?
        {
            let display = literal::display(&v);
            return Ok((lit(v), display));
        }
        let invalid = || PlanError::from(SparkError::invalid_typed_literal(kind, text));
        if kind == "TIMESTAMP" || kind == "TIMESTAMP_NTZ" {
            let local = kind == "TIMESTAMP_NTZ";
            let value =
                crate::functions::native::timestamp_literal(text, &self.config.time_zone, local)
                    .ok_or_else(invalid)?;
            let display = literal::display(&value);
            return Ok((lit(value), display));
        }
        let target = match kind.as_str() {
            "DATE" => DataType::Date32,
            "TIME" => DataType::Time64(TimeUnit::Microsecond),
            _ => return Err(PlanError::InvalidPlan(format!("typed literal {kind}"))),
        };
        let text_value = ScalarValue::Utf8(Some(text.trim().to_string()));
        let value = text_value.cast_to(&target).map_err(|_| invalid())?;
        if value.is_null() {
            return Err(invalid());
        }
        let display = match &value {
            ScalarValue::Time64Microsecond(Some(t)) => {
                format!("TIME '{}'", crate::functions::native::time_text(*t))
            }
            v => literal::display(v),
        };
        Ok((lit(value), display))
    }
}

/// Whether a cast of a `from` number to `to` can overflow (to a narrower integer type, or
/// from a fractional number to an integer).
fn narrowing_to_integer(from: &DataType, to: &DataType) -> bool {
    let rank = |t: &DataType| match t {
        DataType::Int8 => Some(1),
        DataType::Int16 => Some(2),
        DataType::Int32 => Some(3),
        DataType::Int64 => Some(4),
        _ => None,
    };
    let Some(to_rank) = rank(to) else {
        return false;
    };
    match rank(from) {
        Some(from_rank) => from_rank > to_rank,
        None => matches!(
            from,
            DataType::Float32 | DataType::Float64 | DataType::Decimal128(..)
        ),
    }
}

/// How Spark names `+`/`-` of a date or timestamp: `ts + INTERVAL '01' HOUR` (no
/// parentheses), `date_add(d, 1)` for days added to a date.
fn datetime_arithmetic_name(op: &str, names: &[String], types: &[DataType]) -> Option<String> {
    let ([l, r], [lt, rt]) = (names, types) else {
        return None;
    };
    if !matches!(op, "+" | "-") {
        return None;
    }
    let interval = matches!(rt, DataType::Duration(_) | DataType::Interval(_));
    // Spark names `interval + date` as `date + interval`.
    let datetime = matches!(rt, DataType::Timestamp(..) | DataType::Date32);
    if op == "+" && datetime && matches!(lt, DataType::Duration(_) | DataType::Interval(_)) {
        let swapped = [r.clone(), l.clone()];
        return datetime_arithmetic_name(op, &swapped, &[rt.clone(), lt.clone()]);
    }
    match lt {
        DataType::Timestamp(..) if interval => Some(format!("{l} {op} {r}")),
        DataType::Date32 if matches!(rt, DataType::Interval(_)) => Some(format!("{l} {op} {r}")),
        DataType::Date32 if op == "+" && matches!(rt, DataType::Duration(_)) => {
            Some(format!("date_add({l}, extractansiintervaldays({r}))"))
        }
        // (An untyped NULL added to a date is read as an interval.)
        DataType::Date32 if op == "+" && rt == &DataType::Null => Some(format!("{l} + {r}")),
        DataType::Null if op == "+" && rt == &DataType::Date32 => Some(format!("{r} + {l}")),
        DataType::Date32 if rt.is_integer() => Some(if op == "+" {
            format!("date_add({l}, {r})")
        } else {
            format!("date_sub({l}, {r})")
        }),
        _ => None,
    }
}

/// Spark's functions whose values are not determined by their arguments (random values,
/// row positions, the file being read).
const NONDETERMINISTIC: &[&str] = &[
    "rand",
    "random",
    "randn",
    "uniform",
    "randstr",
    "uuid",
    "shuffle",
    "reflect",
    "java_method",
    "try_reflect",
    "monotonically_increasing_id",
    "spark_partition_id",
    "input_file_name",
    "input_file_block_start",
    "input_file_block_length",
];

/// Spark refuses an aggregate (outside a window) over such values, or filtered by them.
fn check_deterministic_aggregate(
    call: &spec::FunctionCall,
    name: &str,
    filter: Option<&str>,
) -> PlanResult<()> {
    let nondeterministic = |e: &SExpr| NONDETERMINISTIC.iter().any(|f| e.calls(f));
    if call.args.iter().any(nondeterministic) {
        return Err(SparkError::analysis(
            "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION",
            "42845",
            format!(
                "Non-deterministic expression \"{name}\" should not appear in the arguments of an aggregate function."
            ),
        )
        .into());
    }
    if let (Some(f), Some(shown)) = (&call.filter, filter)
        && nondeterministic(f)
    {
        return Err(SparkError::analysis(
            "INVALID_AGGREGATE_FILTER.NON_DETERMINISTIC",
            "42903",
            format!(
                "The FILTER expression \"{shown}\" in an aggregate function is invalid. Expected a FILTER expression without non-deterministic expressions."
            ),
        )
        .into());
    }
    Ok(())
}
