//! Generators: `explode`, `posexplode`, `inline` and their `_outer` forms, in a SELECT list,
//! in `LATERAL VIEW` and as table functions. Each becomes DataFusion's `Unnest` of a list
//! column the generator's argument is turned into: map entries for maps, `[NULL]` in place
//! of a null or empty array for the outer forms, and a parallel list of positions for
//! `posexplode`.

use arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{Column, DFSchema, ScalarValue, UnnestOptions};
use datafusion::functions::core::expr_fn::get_field;
use datafusion::functions_nested::expr_fn::{cardinality, make_array, map_entries, range};
use datafusion::logical_expr::{
    Expr, ExprSchemable, LogicalPlan, LogicalPlanBuilder, cast, lit, when,
};

use super::Resolver;
use super::names::Named;
use super::names::column_exprs;
use crate::error::{PlanResult, SparkError};
use crate::spec::{Expr as SExpr, FunctionCall};

pub const GENERATORS: [&str; 8] = [
    "stack",
    "json_tuple",
    "explode",
    "explode_outer",
    "posexplode",
    "posexplode_outer",
    "inline",
    "inline_outer",
];

/// A generator call in a SELECT item, with the names `AS (a, b)` gives its columns.
pub(crate) fn generator_of(e: &SExpr) -> Option<(&FunctionCall, Vec<String>)> {
    match e {
        SExpr::Function(call) if is_generator(&call.name) => Some((call, vec![])),
        SExpr::Alias { expr, names, .. } => match expr.as_ref() {
            SExpr::Function(call) if is_generator(&call.name) => Some((call, names.clone())),
            _ => None,
        },
        _ => None,
    }
}

pub(crate) fn is_generator(name: &str) -> bool {
    GENERATORS.iter().any(|g| g.eq_ignore_ascii_case(name))
}

/// What the generator's list holds.
enum Elements {
    Values,
    MapEntries,
    Structs(Fields),
}

impl Resolver<'_> {
    /// Unnest `call` over `input`: the result has every input column followed by the
    /// generated ones (qualified by `qualifier`), which are also returned as items.
    pub(crate) fn resolve_generate(
        &mut self,
        input: LogicalPlan,
        call: &FunctionCall,
        aliases: &[String],
        qualifier: Vec<String>,
        outer: bool,
    ) -> PlanResult<(LogicalPlan, Vec<Named>)> {
        let lname = call.name.to_ascii_lowercase();
        if lname == "stack" || lname == "json_tuple" {
            let inline = if lname == "stack" {
                let schema: DFSchema = input.schema().as_ref().clone();
                self.check_stack(call, &schema)?
            } else {
                let schema: DFSchema = input.schema().as_ref().clone();
                self.check_json_tuple(call, &schema)?;
                json_tuple_as_inline(call)?
            };
            // (As an outer form: Spark calls their columns nullable, and their arrays are
            // never NULL nor empty, so no row is added.)
            return self.resolve_generate(input, &inline, aliases, qualifier, true);
        }
        let outer = outer || lname.ends_with("_outer");
        let base = lname.trim_end_matches("_outer");
        let schema: DFSchema = input.schema().as_ref().clone();
        let [arg] = call.args.as_slice() else {
            return Err(crate::functions::wrong_num_args(
                &lname,
                "1",
                call.args.len(),
            ));
        };
        let (value, arg_name) = self.resolve_expr(arg, &schema)?;
        let data_type = value.get_type(&schema)?;
        let mismatch = || -> crate::error::PlanError {
            let wanted = if base == "inline" {
                "\"ARRAY<STRUCT>\""
            } else {
                "(\"ARRAY\" or \"MAP\")"
            };
            SparkError::analysis(
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"{lname}({arg_name})\" due to data type mismatch: The first parameter requires the {wanted} type, however \"{arg_name}\" has the type \"{}\".",
                    crate::types::sql_name(&data_type)
                ),
            )
            .into()
        };
        let (list, element, elements) = match (&data_type, base) {
            (
                DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _),
                "explode" | "posexplode",
            ) => (value.clone(), f.as_ref().clone(), Elements::Values),
            (DataType::Map(entries, _), "explode" | "posexplode") => {
                let field = Field::new("item", entries.data_type().clone(), true);
                (
                    map_entries_of(value.clone(), &data_type),
                    field,
                    Elements::MapEntries,
                )
            }
            (
                DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _),
                "inline",
            ) => match f.data_type() {
                DataType::Struct(fields) => (
                    value.clone(),
                    f.as_ref().clone(),
                    Elements::Structs(fields.clone()),
                ),
                _ => return Err(mismatch()),
            },
            _ => return Err(mismatch()),
        };
        let list_type = DataType::List(element.clone().with_nullable(true).into());
        let list = cast(list, list_type.clone());
        // Outer forms keep a row (of NULLs) for a null or empty input.
        let nothing = value
            .clone()
            .is_null()
            .or(cardinality(list.clone()).eq(lit(0u64)));
        let one_null = |t: &DataType| -> PlanResult<Expr> {
            Ok(make_array(vec![Expr::Literal(
                ScalarValue::try_from(t)?,
                None,
            )]))
        };
        let list = if outer {
            when(
                nothing.clone(),
                cast(one_null(element.data_type())?, list_type),
            )
            .otherwise(list)?
        } else {
            list
        };
        let positions = if base == "posexplode" {
            let numbered = range(
                lit(0i64),
                cast(cardinality(list.clone()), DataType::Int64),
                lit(1i64),
            );
            Some(if outer {
                when(nothing, one_null(&DataType::Int64)?).otherwise(numbered)?
            } else {
                numbered
            })
        } else {
            None
        };

        let list_col = self.fresh("__generated", vec![]);
        let mut pre: Vec<Expr> = column_exprs(&schema);
        pre.push(list.alias(&list_col));
        let mut unnested = vec![Column::from_name(&list_col)];
        let pos_col = match positions {
            Some(p) => {
                let name = self.fresh("__position", vec![]);
                pre.push(p.alias(&name));
                unnested.push(Column::from_name(&name));
                Some(name)
            }
            None => None,
        };
        let plan = LogicalPlanBuilder::from(input)
            .project(pre)?
            .unnest_columns_with_options(unnested, UnnestOptions::new().with_preserve_nulls(false))?
            .build()?;

        let item = Self::column(&list_col);
        let mut outputs: Vec<(Expr, String)> = vec![];
        // Spark's nullability: a position or a map's key is NULL only in the row an outer
        // form adds, a value where the array (map) may hold NULLs too.
        let spark = |e: Expr, nullable: bool| {
            crate::functions::nullability::SparkNullability::udf(outer || nullable).call(vec![e])
        };
        if let Some(p) = &pos_col {
            outputs.push((
                spark(cast(Self::column(p), DataType::Int32), false),
                "pos".into(),
            ));
        }
        match elements {
            Elements::Values => outputs.push((spark(item, element.is_nullable()), "col".into())),
            Elements::MapEntries => {
                let values_nullable = match element.data_type() {
                    DataType::Struct(fields) => fields.get(1).is_none_or(|f| f.is_nullable()),
                    _ => true,
                };
                outputs.push((spark(get_field(item.clone(), "key"), false), "key".into()));
                outputs.push((
                    spark(get_field(item, "value"), values_nullable),
                    "value".into(),
                ));
            }
            // (A field as its own, and where the array may hold a NULL struct.)
            Elements::Structs(fields) => {
                for f in fields.iter() {
                    let value = get_field(item.clone(), f.name().as_str());
                    let nullable = f.is_nullable() || element.is_nullable();
                    outputs.push((spark(value, nullable), f.name().clone()));
                }
            }
        }
        if !aliases.is_empty() {
            if aliases.len() != outputs.len() {
                return Err(SparkError::analysis(
                    "UDTF_ALIAS_NUMBER_MISMATCH",
                    "42802",
                    format!(
                        "The number of aliases supplied in the AS clause does not match the number of columns output by the UDTF. Expected {} aliases, but got {}.",
                        outputs.len(),
                        aliases.join(", ")
                    ),
                )
                .into());
            }
            for (o, a) in outputs.iter_mut().zip(aliases) {
                o.1 = a.clone();
            }
        }
        let mut post: Vec<Expr> = column_exprs(&schema);
        let mut items = vec![];
        for (e, name) in outputs {
            let internal = self.fresh(&name, qualifier.clone());
            post.push(e.alias(&internal));
            items.push((Self::column(&internal), name));
        }
        let plan = LogicalPlanBuilder::from(plan).project(post)?.build()?;
        Ok((plan, items))
    }

    /// A SELECT list with generators: the other items are resolved on the input; each
    /// generator in turn multiplies the rows (as nested LATERAL VIEWs) and its columns take
    /// its place in the list.
    pub(crate) fn resolve_project_with_generators(
        &mut self,
        input: LogicalPlan,
        exprs: &[SExpr],
    ) -> PlanResult<LogicalPlan> {
        let schema = input.schema().clone();
        let mut plan = input;
        let mut items: Vec<Named> = vec![];
        for e in exprs {
            match generator_of(e) {
                Some((call, aliases)) => {
                    let (next, generated) =
                        self.resolve_generate(plan, call, &aliases, vec![], false)?;
                    plan = next;
                    items.extend(generated);
                }
                None => items.extend(self.resolve_items(std::slice::from_ref(e), &schema)?),
            }
        }
        self.finish_projection(plan, items)
    }
}

impl Resolver<'_> {
    /// Unpivot: every row becomes one row per value column, built as the unnest of an array
    /// of `(name, value)` structs; values are cast to their least common type.
    pub(crate) fn resolve_unpivot(
        &mut self,
        input: LogicalPlan,
        ids: Option<&[SExpr]>,
        values: Option<&[(SExpr, Option<String>)]>,
        variable_column: &str,
        value_column: &str,
        include_nulls: bool,
    ) -> PlanResult<LogicalPlan> {
        let schema: DFSchema = input.schema().as_ref().clone();
        let all: Vec<Named> = schema
            .columns()
            .into_iter()
            .map(|c| {
                let name = self.info(&c.name).name;
                (Expr::Column(c), name)
            })
            .collect();
        let resolved_ids: Option<Vec<Named>> = match ids {
            Some(ids) => Some(self.resolve_items(ids, &schema)?),
            None => None,
        };
        let resolved_values: Vec<(Expr, String)> = match values {
            Some(values) => values
                .iter()
                .map(|(e, alias)| {
                    let (r, n) = self.resolve_expr(e, &schema)?;
                    Ok((r, alias.clone().unwrap_or(n)))
                })
                .collect::<PlanResult<_>>()?,
            None => {
                let ids = resolved_ids.as_deref().unwrap_or(&[]);
                all.iter()
                    .filter(|(e, _)| !ids.iter().any(|(i, _)| i == e))
                    .cloned()
                    .collect()
            }
        };
        // (Spark's schema: the names are never NULL, the values where one of them may be.)
        let mut values_nullable = false;
        for (e, _) in &resolved_values {
            values_nullable |= e.nullable(&schema)?;
        }
        let ids: Vec<Named> = match resolved_ids {
            Some(ids) => ids,
            None => all
                .into_iter()
                .filter(|(e, _)| {
                    let refs = e.column_refs();
                    !resolved_values
                        .iter()
                        .any(|(v, _)| v.column_refs().iter().any(|c| refs.contains(c)))
                })
                .collect(),
        };
        if resolved_values.is_empty() {
            return Err(SparkError::analysis(
                "UNPIVOT_REQUIRES_VALUE_COLUMNS",
                "42K0A",
                "At least one value column needs to be specified for UNPIVOT, all columns specified as ids.",
            )
            .into());
        }
        // The least common type of the values.
        let types: Vec<DataType> = resolved_values
            .iter()
            .map(|(e, _)| e.get_type(&schema))
            .collect::<datafusion::common::Result<_>>()?;
        let stringy =
            |t: &DataType| matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
        let mut common = types[0].clone();
        let mut incompatible = false;
        for t in &types[1..] {
            if stringy(t) != stringy(&common) {
                incompatible = true;
                break;
            }
            match datafusion::logical_expr::type_coercion::binary::comparison_coercion(&common, t) {
                Some(c) => common = c,
                None => {
                    incompatible = true;
                    break;
                }
            }
        }
        if incompatible {
            let mut by_type: Vec<(String, Vec<String>)> = vec![];
            for ((_, n), t) in resolved_values.iter().zip(&types) {
                let t = crate::types::sql_name(t);
                match by_type.iter_mut().find(|(x, _)| x == &t) {
                    Some((_, names)) => names.push(format!("`{n}`")),
                    None => by_type.push((t, vec![format!("`{n}`")])),
                }
            }
            let shown: Vec<String> = by_type
                .iter()
                .map(|(t, names)| format!("\"{t}\" ({})", names.join(", ")))
                .collect();
            return Err(SparkError::analysis(
                "UNPIVOT_VALUE_DATA_TYPE_MISMATCH",
                "42K09",
                format!("Unpivot value columns must share a least common type, some types do not: [{}].", shown.join(", ")),
            )
            .into());
        }
        let pairs: Vec<Expr> = resolved_values
            .iter()
            .map(|(e, n)| {
                datafusion::functions::core::expr_fn::named_struct(vec![
                    lit("n"),
                    lit(n.clone()),
                    lit("v"),
                    cast(e.clone(), common.clone()),
                ])
            })
            .collect();
        let list_col = self.fresh("__unpivot", vec![]);
        let mut pre: Vec<Expr> = column_exprs(&schema);
        pre.push(make_array(pairs).alias(&list_col));
        let plan = LogicalPlanBuilder::from(input)
            .project(pre)?
            .unnest_columns_with_options(
                vec![Column::from_name(&list_col)],
                UnnestOptions::new().with_preserve_nulls(false),
            )?
            .build()?;
        let item = Self::column(&list_col);
        let mut items = ids;
        let spark_nullability = |e: Expr, nullable: bool| {
            crate::functions::nullability::SparkNullability::udf(nullable).call(vec![e])
        };
        items.push((
            spark_nullability(get_field(item.clone(), "n"), false),
            variable_column.to_string(),
        ));
        items.push((
            spark_nullability(get_field(item.clone(), "v"), values_nullable),
            value_column.to_string(),
        ));
        let plan = if include_nulls {
            plan
        } else {
            LogicalPlanBuilder::from(plan)
                .filter(get_field(item, "v").is_not_null())?
                .build()?
        };
        self.project_items(plan, items)
    }
}

impl Resolver<'_> {
    /// Spark's NON_STRING_TYPE unless every argument of `json_tuple` is a string.
    fn check_json_tuple(&mut self, call: &FunctionCall, schema: &DFSchema) -> PlanResult<()> {
        let mut names = Vec::with_capacity(call.args.len());
        let mut strings = true;
        for a in &call.args {
            let (e, n) = self.resolve_expr(a, schema)?;
            strings &= matches!(
                e.get_type(schema)?,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            );
            names.push(n);
        }
        if strings || call.args.len() < 2 {
            return Ok(());
        }
        Err(SparkError::analysis(
            "DATATYPE_MISMATCH.NON_STRING_TYPE",
            "42K09",
            format!(
                "Cannot resolve \"json_tuple({})\" due to data type mismatch: all arguments of the function `json_tuple` must be strings.",
                names.join(", ")
            ),
        )
        .into())
    }
}

/// `json_tuple(json, k1, ..., kn)`: one row of the top-level fields `k1..kn` of the JSON
/// object as strings, in columns `c0..`, as `inline` of one struct.
fn json_tuple_as_inline(call: &FunctionCall) -> PlanResult<FunctionCall> {
    let Some((json, keys)) = call.args.split_first().filter(|(_, k)| !k.is_empty()) else {
        return Err(crate::functions::wrong_num_args(
            "json_tuple",
            "> 1",
            call.args.len(),
        ));
    };
    let text = |s: &str| SExpr::Literal(datafusion::common::ScalarValue::Utf8(Some(s.into())));
    let mut fields = Vec::with_capacity(keys.len() * 2);
    for (i, key) in keys.iter().enumerate() {
        let path = SExpr::function("concat", vec![text("$['"), key.clone(), text("']")]);
        fields.push(text(&format!("c{i}")));
        fields.push(SExpr::function("get_json_object", vec![json.clone(), path]));
    }
    Ok(FunctionCall::new(
        "inline",
        vec![SExpr::function(
            "array",
            vec![SExpr::function("named_struct", fields)],
        )],
    ))
}

/// `map_entries(map)` with the map's own nested nullability (DataFusion's states nullable
/// values, and refuses a map whose values are not).
fn map_entries_of(map: Expr, map_type: &DataType) -> Expr {
    use crate::functions::nested_nullability::{NestedType, relaxed};
    let loose = relaxed(map_type);
    if &loose == map_type {
        return map_entries(map);
    }
    let DataType::Map(entries, _) = map_type else {
        return map_entries(map);
    };
    let entries_of = map_entries(NestedType::udf(loose).call(vec![map]));
    let want = DataType::List(std::sync::Arc::new(Field::new(
        "item",
        entries.data_type().clone(),
        true,
    )));
    NestedType::udf(want).call(vec![entries_of])
}
