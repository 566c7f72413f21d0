//! Name resolution: attributes (`a`, `t.a`, `s.field`, `df.a` by plan id), stars and regexes.

use arrow::datatypes::DataType;
use datafusion::common::{Column, DFSchema, ScalarValue};
use datafusion::logical_expr::{Expr, ExprSchemable};

use super::Resolver;
use crate::error::{PlanError, PlanResult, SparkError};

/// What Spark knows about a column: the name it shows and the qualifiers that reach it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldInfo {
    pub name: String,
    pub qualifier: Vec<String>,
}

/// A resolved expression with the column name Spark would give it.
pub type Named = (Expr, String);

impl Resolver<'_> {
    /// Candidate fields of `schema` for a reference, optionally restricted to a plan id.
    fn candidates(&self, schema: &DFSchema, plan_id: Option<i64>) -> Vec<(String, FieldInfo)> {
        self.candidates_named(schema, plan_id, |_| true)
    }

    /// The candidates whose Spark name `wanted` keeps, without copying the others' names (a
    /// reference resolves against every column of a wide join: TPC-DS q64's schema spent a
    /// fifth of its planning copying them).
    fn candidates_named(
        &self,
        schema: &DFSchema,
        plan_id: Option<i64>,
        wanted: impl Fn(&str) -> bool,
    ) -> Vec<(String, FieldInfo)> {
        let restrict = plan_id.and_then(|id| self.plan_outputs.get(&id));
        let visible = || {
            schema
                .fields()
                .iter()
                .map(|f| f.name())
                .filter(|n| !super::is_hidden(n))
        };
        let named = |keep: &dyn Fn(&str) -> bool| -> Vec<(String, FieldInfo)> {
            visible()
                .filter(|n| keep(n) && wanted(self.spark_name(n)))
                .map(|n| (n.clone(), self.info(n)))
                .collect()
        };
        match restrict {
            Some(allowed) => {
                let filtered = named(&|n| self.plan_ids.stands_for_any(n, allowed));
                // (No column of the DataFrame is here: Spark's missing-reference rule or its
                // errors, never another DataFrame's column of the same name.)
                if filtered.is_empty()
                    && self.in_stored_plan
                    && !visible().any(|n| self.plan_ids.stands_for_any(n, allowed))
                {
                    named(&|_| true)
                } else {
                    filtered
                }
            }
            None => named(&|_| true),
        }
    }

    /// The Spark name of the column named `internal`.
    fn spark_name<'a>(&'a self, internal: &'a str) -> &'a str {
        self.fields
            .get(internal)
            .map_or(internal, |info| info.name.as_str())
    }

    fn qualifier_matches(&self, field_qualifier: &[String], wanted: &[String]) -> bool {
        if wanted.len() > field_qualifier.len() {
            return false;
        }
        let offset = field_qualifier.len() - wanted.len();
        field_qualifier[offset..]
            .iter()
            .zip(wanted)
            .all(|(a, b)| self.names_equal(a, b))
    }

    /// Resolve name parts against one schema. `Ok(None)` means "not found here".
    pub(crate) fn lookup_attribute(
        &self,
        parts: &[String],
        plan_id: Option<i64>,
        schema: &DFSchema,
    ) -> PlanResult<Option<Named>> {
        match self.locate_attribute(parts, plan_id, schema)? {
            Some((internal, start)) => self
                .nested(
                    Self::column(&internal),
                    &parts[start],
                    &parts[start + 1..],
                    schema,
                )
                .map(Some),
            None => Ok(None),
        }
    }

    /// The column `parts` name (its internal name) and the index of its part: qualified
    /// interpretations first (`t.a`, `db.t.a`), then `a` with nested fields.
    fn locate_attribute(
        &self,
        parts: &[String],
        plan_id: Option<i64>,
        schema: &DFSchema,
    ) -> PlanResult<Option<(String, usize)>> {
        let cands = self.candidates_named(schema, plan_id, |name| {
            parts.iter().any(|p| self.names_equal(name, p))
        });
        for k in (1..parts.len()).rev() {
            let (qualifier, rest) = parts.split_at(k);
            let matches: Vec<&(String, FieldInfo)> = cands
                .iter()
                .filter(|(_, info)| {
                    self.names_equal(&info.name, &rest[0])
                        && self.qualifier_matches(&info.qualifier, qualifier)
                })
                .collect();
            match matches.as_slice() {
                [] => continue,
                [(internal, _)] => return Ok(Some((internal.clone(), k))),
                many => return Err(self.ambiguous(parts, plan_id, many)),
            }
        }
        let Some(first) = parts.first() else {
            return Ok(None);
        };
        let matches: Vec<&(String, FieldInfo)> = cands
            .iter()
            .filter(|(_, info)| self.names_equal(&info.name, first))
            .collect();
        let mut distinct: Vec<&(String, FieldInfo)> = Vec::new();
        for m in matches {
            if !distinct.iter().any(|d| d.0 == m.0) {
                distinct.push(m);
            }
        }
        match distinct.as_slice() {
            [] => Ok(None),
            [(internal, _)] => Ok(Some((internal.clone(), 0))),
            many => {
                // (A sort key over a select list: a column read by its qualifier from a USING
                // join's left-out key yields to the one of the same name, as in Spark.)
                let unrestricted: Vec<&&(String, FieldInfo)> = match self.in_sort_keys {
                    true => many
                        .iter()
                        .filter(|(internal, _)| !self.qualified_only.contains(internal))
                        .collect(),
                    false => vec![],
                };
                match unrestricted.as_slice() {
                    [(internal, _)] => Ok(Some((internal.clone(), 0))),
                    _ => Err(self.ambiguous(parts, plan_id, many)),
                }
            }
        }
    }

    /// How Spark names a nested field reference inside a call: its path from the column
    /// (`s.n`, a map's key in brackets: `m[k]`, without a table qualifier); `None` for a
    /// column itself.
    pub(crate) fn nested_path(
        &self,
        parts: &[String],
        plan_id: Option<i64>,
        schema: &DFSchema,
    ) -> Option<String> {
        let (internal, start) = self
            .locate_attribute(parts, plan_id, schema)
            .ok()
            .flatten()?;
        if parts.len() - start <= 1 {
            return None;
        }
        let mut dt = schema
            .fields()
            .iter()
            .find(|f| f.name() == &internal)
            .map(|f| f.data_type().clone());
        let mut path = parts[start].clone();
        for part in &parts[start + 1..] {
            dt = match dt {
                Some(DataType::Map(entries, _)) => {
                    path.push_str(&format!("[{part}]"));
                    match entries.data_type() {
                        DataType::Struct(kv) => kv.get(1).map(|v| v.data_type().clone()),
                        _ => None,
                    }
                }
                Some(DataType::Struct(fields)) => {
                    path.push('.');
                    path.push_str(part);
                    fields
                        .iter()
                        .find(|f| self.names_equal(f.name(), part))
                        .map(|f| f.data_type().clone())
                }
                _ => {
                    path.push('.');
                    path.push_str(part);
                    None
                }
            };
        }
        Some(path)
    }

    fn ambiguous(
        &self,
        parts: &[String],
        plan_id: Option<i64>,
        many: &[&(String, FieldInfo)],
    ) -> PlanError {
        let names: Vec<String> = many
            .iter()
            .map(|(_, i)| {
                let mut p: Vec<String> = i.qualifier.iter().map(|q| format!("`{q}`")).collect();
                p.push(format!("`{}`", i.name));
                p.join(".")
            })
            .collect();
        let internals: Vec<&String> = many.iter().map(|(internal, _)| internal).collect();
        let other = SparkError::ambiguous_reference(&parts.join("."), &names).into();
        self.ambiguous_dataframe_column(parts, plan_id, &internals, other)
    }

    /// Follow struct fields `a.b.c` (case-insensitively). The column name is the last part.
    fn nested(
        &self,
        base: Expr,
        base_name: &str,
        rest: &[String],
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        let mut expr = base;
        let mut name = base_name.to_string();
        for part in rest {
            let dt = expr.get_type(schema)?;
            expr = self.struct_field(expr, &dt, part, schema)?;
            name = part.clone();
        }
        Ok((expr, name))
    }

    /// `base.field` for a struct (or `base[key]` for a map with a string key).
    pub(crate) fn struct_field(
        &self,
        base: Expr,
        dt: &DataType,
        field: &str,
        schema: &DFSchema,
    ) -> PlanResult<Expr> {
        match dt {
            DataType::Struct(fields) => {
                let found: Vec<_> = fields.iter().filter(|f| self.names_equal(f.name(), field)).collect();
                match found.as_slice() {
                    // A field of a NULL struct is NULL (DataFusion reads the child as is); of a
                    // struct never NULL, as NULL-able as the field.
                    [f] if !base.nullable(schema)? => {
                        Ok(datafusion::functions::core::expr_fn::get_field(base, f.name().as_str()))
                    }
                    [f] => Ok(crate::functions::null_if_null(
                        base.clone(),
                        datafusion::functions::core::expr_fn::get_field(base, f.name().as_str()),
                    )),
                    [] => Err(SparkError::analysis(
                        "FIELD_NOT_FOUND",
                        "42704",
                        format!(
                            "No such struct field `{field}` in {}.",
                            fields.iter().map(|f| format!("`{}`", f.name())).collect::<Vec<_>>().join(", ")
                        ),
                    )
                    .into()),
                    _ => Err(SparkError::analysis(
                        "AMBIGUOUS_REFERENCE_TO_FIELDS",
                        "42000",
                        format!("Ambiguous reference to the field `{field}`."),
                    )
                    .into()),
                }
            }
            DataType::Map(..) => Ok(datafusion::functions::core::expr_fn::get_field(
                base,
                ScalarValue::Utf8(Some(field.to_string())),
            )),
            other => Err(SparkError::analysis(
                "INVALID_EXTRACT_BASE_FIELD_TYPE",
                "42000",
                format!(
                    "Can't extract a value from {}. Need a complex type [STRUCT, ARRAY, MAP] but got \"{}\".",
                    field,
                    crate::types::sql_name(other)
                ),
            )
            .into()),
        }
    }

    /// Resolve an attribute in the current scope, then in enclosing query scopes.
    pub(crate) fn resolve_attribute(
        &self,
        parts: &[String],
        plan_id: Option<i64>,
        schema: &DFSchema,
    ) -> PlanResult<Named> {
        if let Some(id) = plan_id
            && !self.plan_outputs.contains_key(&id)
        {
            self.check_plan_id(parts, plan_id)?;
        }
        if let Some(found) = self.lookup_attribute(parts, plan_id, schema)? {
            return Ok(found);
        }
        for outer in self.outer.iter().rev() {
            if let Some((expr, name)) = self.lookup_attribute(parts, plan_id, outer)? {
                if let Expr::Column(c) = &expr {
                    let field = outer.field_with_unqualified_name(&c.name)?.clone();
                    return Ok((Expr::OuterReferenceColumn(field, c.clone()), name));
                }
                return Err(PlanError::Unsupported(
                    "nested field of an outer reference".into(),
                ));
            }
        }
        self.check_plan_id(parts, plan_id)?;
        if let Some(dropped) = self.dropped_dataframe_column(parts, plan_id) {
            return Err(dropped);
        }
        let mut candidates = self.output_names(schema);
        candidates
            .sort_by_key(|c| strsim_distance(c, parts.last().map(|s| s.as_str()).unwrap_or("")));
        Err(SparkError::unresolved_column(&parts.join("."), &candidates).into())
    }

    /// A DataFrame's column (`df.a`, by plan id) must name a column of that DataFrame, and the
    /// DataFrame must be part of the query: else Spark's CANNOT_RESOLVE_DATAFRAME_COLUMN
    /// (`df1.select(df2.a)`). (A column of the DataFrame that the query cannot reach where it
    /// is used is `dropped_dataframe_column`'s.)
    pub(crate) fn check_plan_id(&self, parts: &[String], plan_id: Option<i64>) -> PlanResult<()> {
        let Some(id) = plan_id else {
            return Ok(());
        };
        if self.references.contains_key(&id) || self.in_stored_plan {
            return Ok(());
        }
        let known = self.plan_outputs.get(&id).is_some_and(|outputs| {
            parts.first().is_none_or(|first| {
                outputs
                    .iter()
                    .any(|internal| self.names_equal(&self.info(internal).name, first))
            })
        });
        if known {
            return Ok(());
        }
        Err(super::plan_ids::cannot_resolve_dataframe_column(parts))
    }

    /// Expand `*`, `t.*`, `struct.*` or `df["*"]` into named columns.
    pub(crate) fn expand_star(
        &self,
        target: Option<&[String]>,
        plan_id: Option<i64>,
        schema: &DFSchema,
    ) -> PlanResult<Vec<Named>> {
        let cands = self.candidates(schema, plan_id);
        match target {
            None => Ok(cands
                .into_iter()
                .map(|(internal, info)| (Self::column(&internal), info.name))
                .collect()),
            Some(target) => {
                let matching: Vec<Named> = cands
                    .iter()
                    .filter(|(_, info)| self.qualifier_matches(&info.qualifier, target))
                    .map(|(internal, info)| (Self::column(internal), info.name.clone()))
                    .collect();
                if !matching.is_empty() {
                    return Ok(matching);
                }
                // `s.*` on a struct column expands its fields.
                if let Some((expr, _)) = self.lookup_attribute(target, plan_id, schema)?
                    && let DataType::Struct(fields) = expr.get_type(schema)?
                {
                    return fields
                        .iter()
                        .map(|f| {
                            Ok((
                                datafusion::functions::core::expr_fn::get_field(
                                    expr.clone(),
                                    f.name().as_str(),
                                ),
                                f.name().clone(),
                            ))
                        })
                        .collect();
                }
                Err(SparkError::analysis(
                    "CANNOT_RESOLVE_STAR_EXPAND",
                    "42704",
                    format!(
                        "Cannot resolve `{}`.* given input columns {}.",
                        target.join("."),
                        self.output_names(schema)
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .into())
            }
        }
    }

    /// Columns whose names match a Java-style regex (`colRegex`).
    pub(crate) fn expand_regex(
        &self,
        pattern: &str,
        plan_id: Option<i64>,
        schema: &DFSchema,
    ) -> PlanResult<Vec<Named>> {
        let pattern = pattern.trim_matches('`');
        // Java's `String.matches`, case-insensitive unless spark.sql.caseSensitive, as Spark.
        let java = if self.config.case_sensitive {
            pattern.to_string()
        } else {
            format!("(?i){pattern}")
        };
        let re = crate::functions::java_regex::full_match(&java).map_err(|e| match e {
            crate::functions::java_regex::JavaRegexError::Unsupported(what) => {
                PlanError::Unsupported(format!("{what} in the column regex '{pattern}'"))
            }
            syntax => PlanError::from(SparkError::new(
                crate::error::ErrorKind::IllegalArgument,
                "",
                "",
                format!("{syntax}\n{java}"),
                vec![],
            )),
        })?;
        Ok(self
            .candidates(schema, plan_id)
            .into_iter()
            .filter(|(_, info)| re.is_match(&info.name))
            .map(|(internal, info)| (Self::column(&internal), info.name))
            .collect())
    }

    /// Find a column by its Spark name (case rules apply); used by drop/rename/withColumn.
    /// The columns named `name` (a plain column name, as DataFrame statistics take them),
    /// or UNRESOLVED_COLUMN with the closest names.
    pub(crate) fn existing_columns(
        &self,
        schema: &DFSchema,
        name: &str,
    ) -> PlanResult<Vec<String>> {
        let found = self.columns_named(schema, name);
        if found.is_empty() {
            let mut candidates = self.output_names(schema);
            candidates.sort_by_key(|c| strsim_distance(c, name));
            return Err(SparkError::unresolved_column(name, &candidates).into());
        }
        Ok(found)
    }

    /// The first column named `name`, or UNRESOLVED_COLUMN.
    pub(crate) fn existing_column(&self, schema: &DFSchema, name: &str) -> PlanResult<String> {
        self.existing_columns(schema, name)?
            .into_iter()
            .next()
            .ok_or_else(|| SparkError::unresolved_column(name, &[]).into())
    }

    pub(crate) fn columns_named(&self, schema: &DFSchema, name: &str) -> Vec<String> {
        schema
            .fields()
            .iter()
            .filter(|f| self.names_equal(&self.info(f.name()).name, name))
            .map(|f| f.name().clone())
            .collect()
    }
}

/// Cheap similarity for "did you mean" lists: common prefix length, then length difference.
fn strsim_distance(a: &str, b: &str) -> usize {
    let a = a.to_ascii_lowercase();
    let b = b.to_ascii_lowercase();
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    (a.len().max(b.len()) - common) * 10 + a.len().abs_diff(b.len())
}

#[allow(dead_code)]
fn unqualified(c: &Column) -> &str {
    &c.name
}

/// Every column of `schema`, as the expressions a projection keeps them by.
pub(crate) fn column_exprs(schema: &DFSchema) -> Vec<Expr> {
    schema.columns().into_iter().map(Expr::Column).collect()
}
