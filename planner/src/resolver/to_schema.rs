//! `df.to(schema)` (Spark Connect's ToSchema), as Spark's `Project.matchSchema` does it: each
//! field of the schema takes the input column (or struct field) of its name, matched by
//! `spark.sql.caseSensitive`; a missing nullable field is NULL, a missing non-nullable one
//! an error; struct fields are matched the same way, recursively, also inside arrays and maps
//! (through `transform`); other values are cast where Spark's ANSI store assignment allows
//! (ANSI casts: a value out of range fails), and a nullable value never fills a
//! non-nullable field. The result is one projection, built as Spark expressions.

use std::collections::BTreeMap;

use arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::ScalarValue;
use datafusion::common::metadata::FieldMetadata;
use datafusion::logical_expr::{LogicalPlan, LogicalPlanBuilder};

use super::Resolver;
use crate::error::{PlanResult, SparkError, quote_identifier};
use crate::spec::{CastMode, Expr as SExpr, FunctionCall, Plan};
use crate::types;

/// A value the schema's fields are matched against: its name, how to read it, its type.
struct Source {
    name: String,
    expr: SExpr,
    field: Field,
}

/// The name the input's columns stand under while the projection is resolved.
const COLUMN: &str = "__ember_to_schema_column";
/// The name of the lambda variable of a `transform` at a depth.
const ELEMENT: &str = "__ember_to_schema_element";

impl Resolver<'_> {
    pub(crate) fn resolve_to_schema(
        &mut self,
        input: &Plan,
        schema: &Fields,
    ) -> PlanResult<LogicalPlan> {
        let input = self.resolve(input)?;
        let mut sources = vec![];
        let mut variables = vec![];
        for (i, f) in input.schema().fields().iter().enumerate() {
            if super::is_hidden(f.name()) {
                continue;
            }
            let variable = format!("{COLUMN}_{i}");
            variables.push((variable.clone(), Self::column(f.name())));
            sources.push(Source {
                name: self.info(f.name()).name,
                expr: SExpr::LambdaVariable(vec![variable]),
                field: f.as_ref().clone(),
            });
        }
        let fields = self.schema_fields(&sources, schema, &[])?;
        // Each column's Spark metadata: its source's, updated by the schema field's.
        let metadata: Vec<_> = schema
            .iter()
            .map(|f| {
                let mut merged = sources
                    .iter()
                    .find(|s| self.names_equal(&s.name, f.name()))
                    .map(|s| types::spark_metadata(&s.field))
                    .unwrap_or_default();
                merged.extend(types::spark_metadata(f));
                (!merged.is_empty()).then(|| {
                    FieldMetadata::from(BTreeMap::from([(
                        types::SPARK_METADATA_KEY.to_string(),
                        serde_json::Value::Object(merged).to_string(),
                    )]))
                })
            })
            .collect();
        let scope = self.lambda_variables.len();
        self.lambda_variables.extend(variables);
        let resolved = fields
            .into_iter()
            .zip(metadata)
            .map(|((name, e), metadata)| {
                let (e, _) = self.resolve_expr(&e, input.schema())?;
                let fresh = self.fresh(&name, vec![]);
                Ok(e.alias_with_metadata(fresh, metadata))
            })
            .collect::<PlanResult<Vec<_>>>();
        self.lambda_variables.truncate(scope);
        Ok(LogicalPlanBuilder::from(input)
            .project(resolved?)?
            .build()?)
    }

    /// The expression of each expected field, from the sources of its name.
    fn schema_fields(
        &self,
        sources: &[Source],
        expected: &Fields,
        path: &[String],
    ) -> PlanResult<Vec<(String, SExpr)>> {
        expected
            .iter()
            .map(|f| {
                let matched: Vec<&Source> = sources
                    .iter()
                    .filter(|s| self.names_equal(&s.name, f.name()))
                    .collect();
                let e = match matched.as_slice() {
                    [] if f.is_nullable() => SExpr::Literal(ScalarValue::try_from(f.data_type())?),
                    [] => return Err(missing(f.name(), sources, path)),
                    [one] => {
                        let mut path = path.to_vec();
                        path.push(one.name.clone());
                        self.schema_value(one.expr.clone(), &path, &one.field, f)?
                    }
                    many => {
                        let mut path = path.to_vec();
                        path.push(f.name().clone());
                        return Err(SparkError::analysis(
                            "AMBIGUOUS_COLUMN_OR_FIELD",
                            "42702",
                            format!(
                                "Column or field {} is ambiguous and has {} matches.",
                                quote_path(&path),
                                many.len()
                            ),
                        )
                        .into());
                    }
                };
                Ok((f.name().clone(), e))
            })
            .collect()
    }

    /// `value` (at `path`, of `from`'s type) as a value of `to`'s type.
    fn schema_value(
        &self,
        value: SExpr,
        path: &[String],
        from: &Field,
        to: &Field,
    ) -> PlanResult<SExpr> {
        if from.is_nullable() && !to.is_nullable() {
            return Err(SparkError::analysis(
                "NULLABLE_COLUMN_OR_FIELD",
                "42000",
                format!(
                    "Column or field {} is nullable while it's required to be non-nullable.",
                    quote_path(path)
                ),
            )
            .into());
        }
        let (a, b) = (from.data_type(), to.data_type());
        if a == b {
            return Ok(value);
        }
        let special = |t: &DataType| types::is_variant(t) || types::spatial_of(t).is_some();
        Ok(match (a, b) {
            (DataType::Struct(fields), DataType::Struct(expected))
                if !special(a) && !special(b) =>
            {
                let sources: Vec<Source> = fields
                    .iter()
                    .map(|f| Source {
                        name: f.name().clone(),
                        expr: SExpr::ExtractValue {
                            child: Box::new(value.clone()),
                            extraction: Box::new(SExpr::Literal(ScalarValue::Utf8(Some(
                                f.name().clone(),
                            )))),
                        },
                        field: f.as_ref().clone(),
                    })
                    .collect();
                let mut args = vec![];
                for (name, e) in self.schema_fields(&sources, expected, path)? {
                    args.push(SExpr::Literal(ScalarValue::Utf8(Some(name))));
                    args.push(e);
                }
                let built = call("named_struct", args);
                if from.is_nullable() {
                    // A NULL struct stays NULL.
                    SExpr::Case {
                        operand: None,
                        branches: vec![(
                            call("isnull", vec![value]),
                            SExpr::Literal(ScalarValue::try_from(b)?),
                        )],
                        otherwise: Some(Box::new(built)),
                    }
                } else {
                    built
                }
            }
            (DataType::List(element), DataType::List(expected)) => {
                if element.is_nullable() && !expected.is_nullable() {
                    return Err(not_null_violation(
                        "ARRAY_ELEMENT",
                        "array",
                        "elements",
                        path,
                    ));
                }
                self.schema_elements(value, path, "element", element, expected)?
            }
            (DataType::Map(entries, _), DataType::Map(expected, _)) => {
                let (Some((key, val)), Some((to_key, to_val))) =
                    (map_fields(entries), map_fields(expected))
                else {
                    return Err(invalid_type(path, a, b));
                };
                if val.is_nullable() && !to_val.is_nullable() {
                    return Err(not_null_violation("MAP_VALUE", "map", "values", path));
                }
                let keys = call("map_keys", vec![value.clone()]);
                let mut values = call("map_values", vec![value]);
                if !val.is_nullable() {
                    // (`map_values` calls its items nullable, as Spark's; these never are, and
                    // a struct read from a nullable item would be nullable in every field.)
                    values = call("array_compact", vec![values]);
                }
                call(
                    "map_from_arrays",
                    vec![
                        self.schema_elements(keys, path, "key", key, to_key)?,
                        self.schema_elements(values, path, "value", val, to_val)?,
                    ],
                )
            }
            _ if same_leaf(a, b) => value,
            _ if store_assignable(a, b) => SExpr::Cast {
                expr: Box::new(value),
                to: b.clone(),
                mode: CastMode::Ansi,
                type_name: types::sql_name(b).to_lowercase(),
            },
            _ => return Err(invalid_type(path, a, b)),
        })
    }

    /// `transform(array, x -> x as to)`, the element at `path` + `part`.
    fn schema_elements(
        &self,
        array: SExpr,
        path: &[String],
        part: &str,
        from: &Field,
        to: &Field,
    ) -> PlanResult<SExpr> {
        if from.data_type() == to.data_type() {
            return Ok(array);
        }
        let mut path = path.to_vec();
        path.push(part.to_string());
        let variable = format!("{ELEMENT}_{}", path.len());
        // (An element keeps its own nullability, as Spark's: a nullable one may fill only a
        // nullable one, checked above for the container.)
        let element = Field::new("", from.data_type().clone(), from.is_nullable());
        let body = self.schema_value(
            SExpr::LambdaVariable(vec![variable.clone()]),
            &path,
            &element,
            to,
        )?;
        Ok(call(
            "transform",
            vec![
                array,
                SExpr::Lambda {
                    function: Box::new(body),
                    args: vec![variable],
                },
            ],
        ))
    }
}

fn call(name: &str, args: Vec<SExpr>) -> SExpr {
    SExpr::Function(Box::new(FunctionCall::new(name, args)))
}

/// The key and value fields of a map's entries.
fn map_fields(entries: &Field) -> Option<(&Field, &Field)> {
    match entries.data_type() {
        DataType::Struct(kv) if kv.len() == 2 => Some((kv[0].as_ref(), kv[1].as_ref())),
        _ => None,
    }
}

/// `` `a`.`b` ``.
fn quote_path(path: &[String]) -> String {
    path.iter()
        .map(|p| quote_identifier(p))
        .collect::<Vec<_>>()
        .join(".")
}

/// A non-nullable expected field no source has.
fn missing(name: &str, sources: &[Source], path: &[String]) -> crate::error::PlanError {
    let candidates: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
    if path.is_empty() {
        return SparkError::unresolved_column(name, &candidates).into();
    }
    let proposal = candidates
        .iter()
        .map(|c| quote_identifier(c))
        .collect::<Vec<_>>()
        .join(", ");
    SparkError::analysis(
        "UNRESOLVED_FIELD.WITH_SUGGESTION",
        "42703",
        format!(
            "A field with name {} cannot be resolved with the struct-type column {}. Did you mean one of the following? [{proposal}].",
            quote_identifier(name),
            quote_path(path)
        ),
    )
    .into()
}

fn not_null_violation(
    sub_class: &str,
    kind: &str,
    what: &str,
    path: &[String],
) -> crate::error::PlanError {
    SparkError::analysis(
        &format!("NOT_NULL_CONSTRAINT_VIOLATION.{sub_class}"),
        "42000",
        format!(
            "Assigning a NULL is not allowed here. The {kind} {} is defined to contain only {what} that are NOT NULL.",
            quote_path(path)
        ),
    )
    .into()
}

fn invalid_type(path: &[String], from: &DataType, to: &DataType) -> crate::error::PlanError {
    SparkError::analysis(
        "INVALID_COLUMN_OR_FIELD_DATA_TYPE",
        "42000",
        format!(
            "Column or field {} is of type \"{}\" while it's required to be \"{}\".",
            quote_path(path),
            types::sql_name(from),
            types::sql_name(to)
        ),
    )
    .into()
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn is_numeric(t: &DataType) -> bool {
    t.is_numeric()
}

fn is_datetime(t: &DataType) -> bool {
    matches!(t, DataType::Date32 | DataType::Timestamp(..))
}

/// Leaf types that hold the same values (strings of any Arrow layout, instants in any zone).
fn same_leaf(a: &DataType, b: &DataType) -> bool {
    (is_string(a) && is_string(b))
        || matches!(
            (a, b),
            (DataType::Timestamp(x, Some(_)), DataType::Timestamp(y, Some(_))) if x == y
        )
        || matches!((a, b), (DataType::Duration(_), DataType::Duration(_)))
}

/// Spark's `Cast.canANSIStoreAssign` for values that are not structs, arrays or maps.
fn store_assignable(from: &DataType, to: &DataType) -> bool {
    let composite = |t: &DataType| {
        matches!(t, DataType::List(_) | DataType::Map(..))
            || (matches!(t, DataType::Struct(_)) && !types::is_variant(t))
    };
    match (from, to) {
        (DataType::Null, _) => true,
        (a, b) if is_numeric(a) && is_numeric(b) => true,
        (a, b) if is_string(b) => !composite(a) && types::spatial_of(a).is_none(),
        (a, b) => is_datetime(a) && is_datetime(b),
    }
}
