//! Higher-order functions with lambda functions, onto DataFusion's `array_transform`,
//! `array_filter` and `array_any_match`: `transform`, `filter` (also with the element's
//! index, `(x, i) -> ...`), `exists`, `forall` (`NOT exists(a, NOT p)`, which keeps Spark's
//! NULLs), `zip_with` (over the zipped arrays), `array_sort` with a comparator (over every
//! ordered pair), `map_filter`, `transform_keys` and `transform_values` (over the map's
//! entries). A lambda of several parameters becomes a
//! lambda of one DataFusion variable whose struct fields the parameters stand for. Lambda
//! variables are in scope while their body is resolved and shadow columns of the same name,
//! as in Spark.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::DFSchema;
use datafusion::functions::core::expr_fn::get_field;
use datafusion::functions_nested::{array_any_match, array_filter, array_transform};
use datafusion::logical_expr::expr::{HigherOrderFunction, Lambda, LambdaVariable};
use datafusion::logical_expr::{Expr, ExprSchemable, HigherOrderUDF, cast, lit};

use super::Resolver;
use super::names::Named;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::functions::df_udf;
use crate::spec::{self, Expr as SExpr};
use crate::types;

/// How the parameters of a lambda read its one DataFusion variable.
enum Binding {
    /// The variable itself (one parameter).
    Whole,
    /// Fields of the struct variable, one per parameter.
    Fields(Vec<&'static str>),
}

impl Resolver<'_> {
    /// A lambda variable in scope named `name`, innermost first.
    pub(crate) fn lambda_variable(&self, name: &[String]) -> Option<Named> {
        let [name] = name else {
            return None;
        };
        let (_, expr) = self
            .lambda_variables
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))?;
        Some((expr.clone(), "namedlambdavariable()".to_string()))
    }

    /// `name(inputs..., (params) -> body)`.
    pub(crate) fn higher_order_function(
        &mut self,
        name: &str,
        call: &spec::FunctionCall,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        if matches!(name, "aggregate" | "reduce") {
            return self.fold(name, call, schema);
        }
        let Some((
            SExpr::Lambda {
                function: body,
                args: params,
            },
            inputs,
        )) = call.args.split_last()
        else {
            return Err(PlanError::InvalidPlan(format!("{name} without a lambda")));
        };
        let mut resolved = Vec::with_capacity(inputs.len());
        for input in inputs {
            resolved.push(self.resolve_expr(input, schema)?);
        }
        // Spark's nullability of the functions that map their inputs: NULL only where an
        // input is.
        let mut inputs_nullable = false;
        for (e, _) in &resolved {
            inputs_nullable |= e.nullable(schema)?;
        }
        let input_names: Vec<String> = resolved.iter().map(|(_, n)| n.clone()).collect();
        let variables = vec!["namedlambdavariable()"; params.len()].join(", ");
        let display = |body_name: &str| {
            format!(
                "{name}({}, lambdafunction({body_name}, {variables}))",
                input_names.join(", ")
            )
        };
        let wrong_args = |expected: usize| -> PlanError {
            crate::functions::wrong_num_args(name, &expected.to_string(), call.args.len())
        };
        let (out, shown) = match (name, resolved.len(), params.len()) {
            ("transform" | "filter" | "exists" | "forall", 1, 1) => {
                let (array, array_name) = resolved.remove(0);
                let element = self.element_type(name, &array, &array_name, schema)?;
                let (lambda, body_name, _) =
                    self.lambda(&element, params, Binding::Whole, body, schema)?;
                let lambda = if name == "forall" {
                    negate_lambda(lambda)
                } else {
                    lambda
                };
                let function = match name {
                    "transform" => array_transform::array_transform_higher_order_function(),
                    "filter" => array_filter::array_filter_higher_order_function(),
                    _ => array_any_match::array_any_match_higher_order_function(),
                };
                let out = apply(function, array, lambda);
                let out = if name == "forall" {
                    Expr::Not(Box::new(out))
                } else {
                    out
                };
                Ok((out, display(&body_name)))
            }
            // (x, i) -> ...: over the elements zipped with their 0-based positions.
            ("transform" | "filter", 1, 2) => {
                let (array, array_name) = resolved.remove(0);
                let (_, item_nullable) = self.element_type(name, &array, &array_name, schema)?;
                let size = cast(
                    df_udf("array_length")?.call(vec![array.clone()]),
                    DataType::Int64,
                );
                let positions = cast(
                    df_udf("generate_series")?.call(vec![lit(0i64), size - lit(1i64)]),
                    types::list_type(DataType::Int32, false),
                );
                let zipped = df_udf("arrays_zip")?.call(vec![array, positions]);
                // (Spark's variables: the element NULL-able as the array's, its position
                // never NULL.)
                let zipped = with_struct_items(zipped, &[item_nullable, false], schema)?;
                let element = self.element_type(name, &zipped, &array_name, schema)?;
                let (lambda, body_name, _) = self.lambda(
                    &element,
                    params,
                    Binding::Fields(vec!["1", "2"]),
                    body,
                    schema,
                )?;
                let out = if name == "transform" {
                    apply(
                        array_transform::array_transform_higher_order_function(),
                        zipped,
                        lambda,
                    )
                } else {
                    let kept = apply(
                        array_filter::array_filter_higher_order_function(),
                        zipped,
                        lambda,
                    );
                    let first = self.lambda_field(&element, "1");
                    apply(
                        array_transform::array_transform_higher_order_function(),
                        kept,
                        first,
                    )
                };
                Ok((out, display(&body_name)))
            }
            // array_sort(a, (l, r) -> ...): the comparator over every ordered pair, then each
            // array sorted by its answers (see `native::array_sort`).
            ("array_sort", 1, 2) => {
                use crate::functions::native::{Native, NativeUdf};
                let (array, array_name) = resolved.remove(0);
                self.element_type(name, &array, &array_name, schema)?;
                let pairs = NativeUdf::udf(Native::ArrayPairs).call(vec![array.clone()]);
                let (answers, body_name) =
                    self.transform_pairs(name, pairs, &array_name, params, body, schema)?;
                // (Spark's comparator answers an INT, no other type.)
                if let DataType::List(answer) = answers.get_type(schema)?
                    && answer.data_type() != &DataType::Int32
                {
                    let shown = display(&body_name);
                    let actual = types::sql_name(answer.data_type());
                    return Err(SparkError::analysis(
                        "DATATYPE_MISMATCH.UNEXPECTED_RETURN_TYPE",
                        "42K09",
                        format!(
                            "Cannot resolve \"{shown}\" due to data type mismatch: The `lambdafunction` requires return \"INT\" type, but the actual is \"{actual}\" type."
                        ),
                    )
                    .into());
                }
                let out = NativeUdf::udf(Native::SortByComparisons).call(vec![array, answers]);
                Ok((out, display(&body_name)))
            }
            ("zip_with", 2, 2) => {
                require_inputs(name, &resolved, "ARRAY", schema)?;
                let any_null = crate::functions::any_null(resolved.iter().map(|(e, _)| e));
                let zipped =
                    df_udf("arrays_zip")?.call(resolved.iter().map(|(e, _)| e.clone()).collect());
                // NULL when either array is.
                let zipped = crate::functions::null_when(any_null, zipped);
                let (out, body_name) =
                    self.transform_pairs(name, zipped, &input_names[0], params, body, schema)?;
                Ok((out, display(&body_name)))
            }
            ("map_filter" | "transform_keys" | "transform_values", 1, 2) => {
                let (map, map_name) = resolved.remove(0);
                if !matches!(map.get_type(schema)?, DataType::Map(..)) {
                    return Err(SparkError::analysis(
                        "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                        "42K09",
                        format!(
                            "Cannot resolve \"{name}({map_name}, ...)\" due to data type mismatch: the first parameter requires the \"MAP\" type."
                        ),
                    )
                    .into());
                }
                // (DataFusion's map_entries states nullable values; their own types as they
                // are.)
                let map_type = map.get_type(schema)?;
                let loose =
                    crate::functions::nested_nullability::with_map_values_nullable(&map_type, true);
                let map = match loose == map_type {
                    true => map,
                    false => {
                        crate::functions::nested_nullability::NestedType::udf(loose).call(vec![map])
                    }
                };
                let entries = df_udf("map_entries")?.call(vec![map]);
                // (Spark's variables: the key never NULL, the value NULL-able as the map's.
                // The values of the map made: NULL-able as the input's where they are kept,
                // as the lambda's where it makes them.)
                let mut values =
                    crate::functions::nested_nullability::map_values_nullable_in(&map_type);
                let entries = with_struct_items(entries, &[false, values], schema)?;
                let element = self.element_type(name, &entries, &map_name, schema)?;
                let (lambda, body_name, variable) = self.lambda(
                    &element,
                    params,
                    Binding::Fields(vec!["key", "value"]),
                    body,
                    schema,
                )?;
                let out_entries = if name == "map_filter" {
                    apply(
                        array_filter::array_filter_higher_order_function(),
                        entries,
                        lambda,
                    )
                } else {
                    // The lambda's body becomes the new key (value) of each entry.
                    let Expr::Lambda(Lambda { params: vars, body }) = lambda else {
                        return Err(PlanError::InvalidPlan("a lambda".into()));
                    };
                    let (key, value) = if name == "transform_keys" {
                        (*body, get_field(variable, "value"))
                    } else {
                        values = body.nullable(schema)?;
                        (get_field(variable, "key"), *body)
                    };
                    let entry =
                        df_udf("named_struct")?.call(vec![lit("key"), key, lit("value"), value]);
                    apply(
                        array_transform::array_transform_higher_order_function(),
                        entries,
                        Expr::Lambda(Lambda::new(vars, entry)),
                    )
                };
                let map = crate::functions::sp_udf("map_from_entries")?.call(vec![out_entries]);
                let map = with_map_values(map, values, schema)?;
                Ok((map, display(&body_name)))
            }
            // Over the keys of both maps (the first's, then the second's others), each with
            // its value in either map (NULL where it has none).
            ("map_zip_with", 2, 3) => {
                require_inputs(name, &resolved, "MAP", schema)?;
                let (mut left, mut right) = (resolved[0].0.clone(), resolved[1].0.clone());
                let key_of = |t: &DataType| types::map_key_type(t).cloned();
                let types = (left.get_type(schema)?, right.get_type(schema)?);
                let (left_key, right_key) = (key_of(&types.0), key_of(&types.1));
                // `map()` (keys of no type, always empty) takes the other map's type.
                let empty_as = |map: &mut Expr, of: &DataType| *map = cast(map.clone(), of.clone());
                let key_type = match (left_key, right_key) {
                    (Some(l), Some(r)) if l == r => l,
                    (Some(DataType::Null), Some(r)) => {
                        empty_as(&mut left, &types.1);
                        r
                    }
                    (Some(l), Some(DataType::Null)) => {
                        empty_as(&mut right, &types.0);
                        l
                    }
                    (Some(l), Some(r)) if l.is_integer() && r.is_integer() => {
                        return Err(PlanError::Unsupported(
                            "map_zip_with of maps with different key types".into(),
                        ));
                    }
                    (Some(l), Some(r)) => {
                        return Err(SparkError::analysis(
                            "DATATYPE_MISMATCH.MAP_ZIP_WITH_DIFF_TYPES",
                            "42K09",
                            format!(
                                "Cannot resolve \"{}\" due to data type mismatch: Input to the `map_zip_with` should have been two maps with compatible key types, but it's [\"{}\", \"{}\"].",
                                display("..."),
                                types::sql_name(&l),
                                types::sql_name(&r)
                            ),
                        )
                        .into());
                    }
                    _ => return Err(PlanError::InvalidPlan("map_zip_with of maps".into())),
                };
                let left_keys = df_udf("map_keys")?.call(vec![left.clone()]);
                let right_keys = df_udf("map_keys")?.call(vec![right.clone()]);
                let (seen_internal, seen) = self.new_variable("k", &(key_type.clone(), true));
                let only_right = apply(
                    array_filter::array_filter_higher_order_function(),
                    right_keys,
                    Expr::Lambda(Lambda::new(
                        vec![seen_internal],
                        Expr::Not(Box::new(
                            df_udf("array_has")?.call(vec![left_keys.clone(), seen]),
                        )),
                    )),
                );
                let keys = df_udf("array_concat")?.call(vec![left_keys, only_right]);
                let (key_internal, key) = self.new_variable(&params[0], &(key_type, true));
                let value_in = |map: Expr| -> PlanResult<Expr> {
                    let found = df_udf("map_extract")?.call(vec![map, key.clone()]);
                    Ok(df_udf("array_element")?.call(vec![found, lit(1i64)]))
                };
                let scope = self.lambda_variables.len();
                self.lambda_variables.push((params[0].clone(), key.clone()));
                self.lambda_variables
                    .push((params[1].clone(), value_in(left.clone())?));
                self.lambda_variables
                    .push((params[2].clone(), value_in(right.clone())?));
                let body = self.resolve_expr(body, schema);
                self.lambda_variables.truncate(scope);
                let (body, body_name) = body?;
                let values = apply(
                    array_transform::array_transform_higher_order_function(),
                    keys.clone(),
                    Expr::Lambda(Lambda::new(vec![key_internal], body)),
                );
                // (Its values NULL-able as the lambda's, as Spark types them.)
                let values_nullable = match values.get_type(schema)? {
                    DataType::List(f) | DataType::LargeList(f) => f.is_nullable(),
                    _ => true,
                };
                let map = crate::functions::sp_udf("map_from_arrays")?.call(vec![keys, values]);
                let map = with_map_values(map, values_nullable, schema)?;
                let map = crate::functions::null_when(left.is_null().or(right.is_null()), map);
                Ok((map, display(&body_name)))
            }
            ("transform" | "filter" | "exists" | "forall" | "map_filter", n, _) if n != 1 => {
                Err(wrong_args(2))
            }
            ("zip_with", n, _) if n != 2 => Err(wrong_args(3)),
            // A lambda of another number of parameters than the function passes it.
            (other, _, n) if lambda_arguments(other).is_some_and(|given| given != n) => {
                let given = lambda_arguments(other).unwrap_or_default();
                Err(SparkError::new(
                    crate::error::ErrorKind::Analysis,
                    "INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH",
                    "42K0D",
                    format!(
                        "Invalid lambda function call. A higher order function expects {n} arguments, but got {given}."
                    ),
                    vec![
                        ("expectedNumArgs", n.to_string()),
                        ("actualNumArgs", given.to_string()),
                    ],
                )
                .into())
            }
            (other, _, n) => Err(PlanError::Unsupported(format!(
                "the higher-order function {other} with a lambda function of {n} arguments"
            ))),
        }?;
        let mapping = matches!(
            name,
            "transform"
                | "array_sort"
                | "filter"
                | "zip_with"
                | "map_filter"
                | "transform_keys"
                | "transform_values"
                | "map_zip_with"
        );
        if mapping {
            let out =
                crate::functions::nullability::with_nullability(out, inputs_nullable, schema)?;
            return Ok((out, shown));
        }
        Ok((out, shown))
    }

    /// `array_transform` of an array of `{1, 2}` structs by a lambda of two parameters that
    /// stand for the fields; the lambda's body's name.
    fn transform_pairs(
        &mut self,
        name: &str,
        array: Expr,
        array_name: &str,
        params: &[String],
        body: &SExpr,
        schema: &DFSchema,
    ) -> PlanResult<(Expr, String)> {
        let element = self.element_type(name, &array, array_name, schema)?;
        let (lambda, body_name, _) = self.lambda(
            &element,
            params,
            Binding::Fields(vec!["1", "2"]),
            body,
            schema,
        )?;
        let out = apply(
            array_transform::array_transform_higher_order_function(),
            array,
            lambda,
        );
        Ok((out, body_name))
    }

    /// `aggregate`/`reduce(array, zero, (acc, x) -> merge[, acc -> finish])`: DataFusion
    /// lambdas over `acc` and `x` folded by [`crate::functions::fold`]; the finish lambda's
    /// parameter stands for the fold itself.
    fn fold(
        &mut self,
        name: &str,
        call: &spec::FunctionCall,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let (array, zero, merge, finish) = match call.args.as_slice() {
            [array, zero, merge] => (array, zero, merge, None),
            [array, zero, merge, finish] => (array, zero, merge, Some(finish)),
            _ => {
                return Err(crate::functions::wrong_num_args(
                    name,
                    "[3, 4]",
                    call.args.len(),
                ));
            }
        };
        let lambda_of = |e: &SExpr, arity: usize| -> PlanResult<(SExpr, Vec<String>)> {
            match e {
                SExpr::Lambda { function, args } if args.len() == arity => {
                    Ok(((**function).clone(), args.clone()))
                }
                _ => Err(PlanError::Unsupported(format!(
                    "{name} without a lambda function of {arity} arguments"
                ))),
            }
        };
        let (merge_body, merge_params) = lambda_of(merge, 2)?;
        let (array, array_name) = self.resolve_expr(array, schema)?;
        let (zero, zero_name) = self.resolve_expr(zero, schema)?;
        let element = self.element_type(name, &array, &array_name, schema)?;
        // (The merge's value may be NULL inside where the start's is not: its nested fields
        // nullable.)
        let mut zero_type = zero.get_type(schema)?;
        let mut zero = [zero];
        crate::functions::nested_nullability::prepare_arguments(
            "aggregate",
            &mut zero,
            std::slice::from_mut(&mut zero_type),
        );
        let [zero] = zero;
        let (acc_internal, acc) = self.new_variable(&merge_params[0], &(zero_type.clone(), true));
        let (x_internal, x) = self.new_variable(&merge_params[1], &element);
        let scope = self.lambda_variables.len();
        self.lambda_variables.push((merge_params[0].clone(), acc));
        self.lambda_variables.push((merge_params[1].clone(), x));
        let merged = self.resolve_expr(&merge_body, schema);
        self.lambda_variables.truncate(scope);
        let (mut merged, merge_name) = merged?;
        let merged_type = merged.get_type(schema)?;
        let display_so_far = format!(
            "{name}({array_name}, {zero_name}, lambdafunction({merge_name}, namedlambdavariable(), namedlambdavariable())"
        );
        if merged_type != zero_type {
            // (Spark's accumulator: the start's type, NULL-able everywhere; a merge that
            // differs from it only in nested nullability is cast to it.)
            let relaxed = crate::functions::nested_nullability::relaxed;
            if merged_type.is_nested() && relaxed(&merged_type) == relaxed(&zero_type) {
                merged = cast(merged, zero_type.clone());
            } else {
                return Err(SparkError::analysis(
                    "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                    "42K09",
                    format!(
                        "Cannot resolve \"{display_so_far}, ...)\" due to data type mismatch: The third parameter requires the \"{}\" type, however \"lambdafunction({merge_name}, namedlambdavariable(), namedlambdavariable())\" has the type \"{}\".",
                        types::sql_name(&zero_type),
                        types::sql_name(&merged_type)
                    ),
                )
                .into());
            }
        }
        let folded = Expr::HigherOrderFunction(HigherOrderFunction::new(
            crate::functions::fold::array_fold(),
            vec![
                array,
                zero,
                Expr::Lambda(Lambda::new(vec![acc_internal, x_internal], merged)),
            ],
        ));
        let (out, finish_name) = match finish {
            None => (folded, "namedlambdavariable()".to_string()),
            Some(finish) => {
                let (finish_body, finish_params) = lambda_of(finish, 1)?;
                let scope = self.lambda_variables.len();
                self.lambda_variables
                    .push((finish_params[0].clone(), folded));
                let finished = self.resolve_expr(&finish_body, schema);
                self.lambda_variables.truncate(scope);
                finished?
            }
        };
        Ok((
            out,
            format!("{display_so_far}, lambdafunction({finish_name}, namedlambdavariable()))"),
        ))
    }

    /// The element type of a list argument, or Spark's type error.
    fn element_type(
        &self,
        name: &str,
        list: &Expr,
        list_name: &str,
        schema: &DFSchema,
    ) -> PlanResult<(DataType, bool)> {
        match list.get_type(schema)? {
            DataType::List(item) | DataType::LargeList(item) => {
                Ok((item.data_type().clone(), item.is_nullable()))
            }
            other => Err(SparkError::analysis(
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"{name}({list_name}, ...)\" due to data type mismatch: the first parameter requires the \"ARRAY\" type, however \"{list_name}\" has the type \"{}\".",
                    types::sql_name(&other)
                ),
            )
            .into()),
        }
    }

    /// A DataFusion lambda over elements of type `element`, `params` bound as `binding`
    /// says while `body` is resolved.
    fn lambda(
        &mut self,
        element: &(DataType, bool),
        params: &[String],
        binding: Binding,
        body: &SExpr,
        schema: &DFSchema,
    ) -> PlanResult<(Expr, String, Expr)> {
        let (internal, variable) = self.new_variable(&params.join("_"), element);
        let bound: Vec<Expr> = match &binding {
            Binding::Whole => vec![variable.clone()],
            Binding::Fields(fields) => fields
                .iter()
                .map(|f| get_field(variable.clone(), *f))
                .collect(),
        };
        if bound.len() != params.len() {
            return Err(PlanError::Unsupported(format!(
                "a lambda function of {} arguments here",
                params.len()
            )));
        }
        let scope = self.lambda_variables.len();
        for (p, e) in params.iter().zip(bound) {
            self.lambda_variables.push((p.clone(), e));
        }
        let resolved = self.resolve_expr(body, schema);
        self.lambda_variables.truncate(scope);
        let (body, body_name) = resolved?;
        Ok((
            Expr::Lambda(Lambda::new(vec![internal], body)),
            body_name,
            variable,
        ))
    }

    /// `z -> z.field` over struct elements.
    fn lambda_field(&mut self, element: &(DataType, bool), field: &str) -> Expr {
        let (internal, variable) = self.new_variable("z", element);
        Expr::Lambda(Lambda::new(vec![internal], get_field(variable, field)))
    }

    /// A DataFusion lambda variable over elements of type `element`, with a name of its own
    /// so that nested lambdas with the same parameter never clash.
    fn new_variable(&mut self, prefix: &str, element: &(DataType, bool)) -> (String, Expr) {
        self.next_id += 1;
        let internal = format!("{prefix}@{}", self.next_id);
        let field = Field::new(&internal, element.0.clone(), element.1);
        let variable =
            Expr::LambdaVariable(LambdaVariable::new(internal.clone(), Some(Arc::new(field))));
        (internal, variable)
    }
}

/// `list`, a list of structs, with its structs never NULL and their fields NULL-able as
/// `fields` says.
fn with_struct_items(list: Expr, fields: &[bool], schema: &DFSchema) -> PlanResult<Expr> {
    let have = list.get_type(schema)?;
    let DataType::List(item) = &have else {
        return Ok(list);
    };
    let DataType::Struct(members) = item.data_type() else {
        return Ok(list);
    };
    if members.len() != fields.len() {
        return Ok(list);
    }
    let members: Fields = members
        .iter()
        .zip(fields)
        .map(|(f, n)| f.as_ref().clone().with_nullable(*n))
        .collect();
    let item = item
        .as_ref()
        .clone()
        .with_data_type(DataType::Struct(members));
    let want = DataType::List(Arc::new(item.with_nullable(false)));
    Ok(crate::functions::nested_nullability::retyped(
        list, &have, want,
    ))
}

/// `map` with its values NULL-able as `nullable` says.
fn with_map_values(map: Expr, nullable: bool, schema: &DFSchema) -> PlanResult<Expr> {
    use crate::functions::nested_nullability as nested;
    let have = map.get_type(schema)?;
    let want = nested::with_map_values_nullable(&have, nullable);
    Ok(nested::retyped(map, &have, want))
}

fn apply(function: Arc<HigherOrderUDF>, list: Expr, lambda: Expr) -> Expr {
    Expr::HigherOrderFunction(HigherOrderFunction::new(function, vec![list, lambda]))
}

fn negate_lambda(lambda: Expr) -> Expr {
    match lambda {
        Expr::Lambda(Lambda { params, body }) => Expr::Lambda(Lambda::new(params, Expr::Not(body))),
        other => other,
    }
}

/// How many arguments a higher-order function passes its lambda (the shortest form where it
/// has two, as Spark reports a mismatch).
fn lambda_arguments(function: &str) -> Option<usize> {
    Some(match function {
        "transform" | "filter" | "exists" | "forall" => 1,
        "zip_with" | "map_filter" | "transform_keys" | "transform_values" => 2,
        "map_zip_with" => 3,
        _ => return None,
    })
}

/// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE unless each of `inputs` is an `wanted` ("ARRAY" or
/// "MAP"; a NULL of no type is neither).
fn require_inputs(
    name: &str,
    inputs: &[(Expr, String)],
    wanted: &str,
    schema: &DFSchema,
) -> PlanResult<()> {
    let names: Vec<&str> = inputs.iter().map(|(_, n)| n.as_str()).collect();
    for (i, (e, n)) in inputs.iter().enumerate() {
        let t = e.get_type(schema)?;
        let fine = match wanted {
            "MAP" => matches!(t, DataType::Map(..)),
            _ => matches!(t, DataType::List(_) | DataType::LargeList(_)),
        };
        if !fine {
            return Err(SparkError::analysis(
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"{name}({}, ...)\" due to data type mismatch: The {} parameter requires the \"{wanted}\" type, however \"{n}\" has the type \"{}\".",
                    names.join(", "),
                    crate::error::ordinal_number(i),
                    types::sql_name(&t)
                ),
            )
            .into());
        }
    }
    Ok(())
}

/// A higher-order function's call where each argument that stands for a function and is no
/// lambda becomes a lambda of the function's parameters that does not read them, as Spark's
/// analyzer makes one (`transform(a, 3)` is `transform(a, x -> 3)`, `aggregate(a, 0, f, 1)`
/// finishes with `acc -> 1`). The parameters' names are no name a query can write, so the
/// body still reads an outer lambda's variables.
pub(super) fn with_constant_lambdas(name: &str, call: &spec::FunctionCall) -> spec::FunctionCall {
    let functions: &[(usize, usize)] = match (name, call.args.len()) {
        ("transform" | "filter" | "exists" | "forall", 2) => &[(1, 1)],
        ("map_filter" | "transform_keys" | "transform_values" | "array_sort", 2) => &[(1, 2)],
        ("zip_with", 3) => &[(2, 2)],
        ("map_zip_with", 3) => &[(2, 3)],
        ("aggregate" | "reduce", 3) => &[(2, 2)],
        ("aggregate" | "reduce", 4) => &[(2, 2), (3, 1)],
        _ => &[],
    };
    let mut call = call.clone();
    for &(position, arity) in functions {
        if let Some(arg) = call.args.get_mut(position)
            && !matches!(arg, SExpr::Lambda { .. })
        {
            let body = std::mem::replace(arg, SExpr::LambdaVariable(vec![]));
            *arg = SExpr::Lambda {
                function: Box::new(body),
                args: (0..arity)
                    .map(|i| format!("`constant lambda {i}`"))
                    .collect(),
            };
        }
    }
    call
}

impl Resolver<'_> {
    /// `decode(value, search, result[, search, result]...[, default])`: Spark's CASE WHEN
    /// `value <=> search` THEN `result`... ELSE `default`, the default a NULL STRING when there
    /// is none (so `decode(1, 2, 1)` is a BIGINT under ANSI, a STRING otherwise, as in Spark).
    pub(super) fn decode_case(
        &mut self,
        call: &spec::FunctionCall,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let Some((value, rest)) = call.args.split_first() else {
            return Err(PlanError::InvalidPlan("decode without arguments".into()));
        };
        let mut pairs = rest.chunks_exact(2);
        let branches: Vec<(SExpr, SExpr)> = pairs
            .by_ref()
            .filter_map(|pair| match pair {
                [search, result] => Some((
                    SExpr::operator("<=>", vec![value.clone(), search.clone()]),
                    result.clone(),
                )),
                _ => None,
            })
            .collect();
        let otherwise = match pairs.remainder() {
            [default] => default.clone(),
            _ => SExpr::Cast {
                expr: Box::new(SExpr::Literal(datafusion::common::ScalarValue::Null)),
                to: DataType::Utf8,
                mode: spec::CastMode::Default,
                type_name: "STRING".into(),
            },
        };
        let case = SExpr::Case {
            operand: None,
            branches,
            otherwise: Some(Box::new(otherwise)),
        };
        let (out, _) = self.resolve_expr(&case, schema)?;
        let mut names = Vec::with_capacity(call.args.len());
        for a in &call.args {
            names.push(self.resolve_expr(a, schema)?.1);
        }
        Ok((out, format!("decode({})", names.join(", "))))
    }
}
