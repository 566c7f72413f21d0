//! Rewrites of calls before they are resolved (Spark's spellings that name the same
//! function differently, named arguments) and `withField`/`dropFields`.

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, lit};

use super::Resolver;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{self, Expr as SExpr};
use crate::types;

impl Resolver<'_> {
    /// `base` with the field at `path` set to `value` (added when missing) or dropped.
    /// The name Spark gives `base.withField(path, value)` (`value` None: `dropFields`): a
    /// chain of updates is one `update_fields(root, op, ...)` call, a later `withField` of a
    /// field replacing the earlier one in place; a nested path updates the field's struct as
    /// it is at that point (`update_fields(s, WithField(update_fields(s.w, WithField(5))))`).
    pub(super) fn update_fields_name(
        &mut self,
        chained: bool,
        base_name: String,
        path: &[String],
        value: Option<&str>,
    ) -> String {
        let fresh = || UpdateChain {
            root: base_name.clone(),
            ops: vec![],
        };
        let mut chain = match chained {
            true => self
                .update_names
                .get(&base_name)
                .cloned()
                .unwrap_or_else(fresh),
            false => fresh(),
        };
        let leaf = match value {
            Some(v) => format!("WithField({v})"),
            None => "dropfield()".to_string(),
        };
        let mut op = leaf;
        for depth in (1..path.len()).rev() {
            let prefix = std::iter::once(base_name.as_str())
                .chain(path[..depth].iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(".");
            op = format!("WithField(update_fields({prefix}, {op}))");
        }
        let field = path.first().cloned().unwrap_or_default();
        let with = value.is_some() || path.len() > 1;
        let replaced = chain
            .ops
            .iter_mut()
            .find(|o| with && o.with && self.names_equal(&o.field, &field));
        match replaced {
            Some(existing) => existing.shown = op,
            None => chain.ops.push(FieldOp {
                field,
                with,
                shown: op,
            }),
        }
        let shown: Vec<&str> = chain.ops.iter().map(|o| o.shown.as_str()).collect();
        let name = format!("update_fields({}, {})", chain.root, shown.join(", "));
        self.update_names.insert(name.clone(), chain);
        name
    }

    /// Spark's type of `update_fields` of a struct of type `dt` (`have`: the type the
    /// update was built with; `nullable`: whether the struct may be NULL): the fields it keeps
    /// as they were, the field `withField` sets as its value (`value_nullable`), a struct
    /// field updated below with its updated type, nullable where the field or the struct is
    /// (Spark's update of the field read from the struct).
    pub(super) fn updated_type(
        &self,
        have: &DataType,
        dt: &DataType,
        path: &[String],
        nullable: bool,
        value_nullable: bool,
    ) -> DataType {
        let (DataType::Struct(built), DataType::Struct(was), Some((head, rest))) =
            (have, dt, path.split_first())
        else {
            return have.clone();
        };
        let fields = built.iter().map(|h| {
            let original = was.iter().find(|f| f.name() == h.name());
            match original {
                Some(f) if self.names_equal(f.name(), head) && !rest.is_empty() => {
                    let read = nullable || f.is_nullable();
                    let inner =
                        self.updated_type(h.data_type(), f.data_type(), rest, read, value_nullable);
                    f.as_ref().clone().with_data_type(inner).with_nullable(read)
                }
                _ if self.names_equal(h.name(), head) && rest.is_empty() => {
                    h.as_ref().clone().with_nullable(value_nullable)
                }
                Some(f) => f.as_ref().clone(),
                None => h.as_ref().clone(),
            }
        });
        DataType::Struct(fields.collect())
    }

    pub(super) fn update_fields(
        &self,
        base: Expr,
        dt: &DataType,
        path: &[String],
        value: Option<Expr>,
    ) -> PlanResult<Expr> {
        let DataType::Struct(fields) = dt else {
            return Err(SparkError::analysis(
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot update fields of a value of the type \"{}\": it is not a struct.",
                    types::sql_name(dt)
                ),
            )
            .into());
        };
        let Some((head, rest)) = path.split_first() else {
            return Err(PlanError::InvalidPlan(
                "withField without a field name".into(),
            ));
        };
        let get = |name: &str| datafusion::functions::core::expr_fn::get_field(base.clone(), name);
        let mut args = Vec::with_capacity(fields.len() * 2 + 2);
        let mut found = false;
        for f in fields.iter() {
            if !self.names_equal(f.name(), head) {
                args.push(lit(f.name().as_str()));
                args.push(get(f.name()));
                continue;
            }
            found = true;
            if rest.is_empty() {
                if let Some(v) = &value {
                    args.push(lit(f.name().as_str()));
                    args.push(v.clone());
                }
            } else {
                let inner = get(f.name());
                let updated =
                    self.update_fields(inner.clone(), f.data_type(), rest, value.clone())?;
                args.push(lit(f.name().as_str()));
                args.push(crate::functions::null_if_null(inner, updated));
            }
        }
        if !found {
            match (&value, rest.is_empty()) {
                (Some(v), true) => {
                    args.push(lit(head.as_str()));
                    args.push(v.clone());
                }
                _ => {
                    return Err(SparkError::analysis(
                        "FIELD_NOT_FOUND",
                        "42704",
                        format!(
                            "No such struct field `{head}` in {}.",
                            fields
                                .iter()
                                .map(|f| format!("`{}`", f.name()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                    .into());
                }
            }
        }
        if args.is_empty() {
            return Err(SparkError::analysis(
                "DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS",
                "42K09",
                "Cannot drop all fields in struct.",
            )
            .into());
        }
        Ok(crate::functions::df_udf("named_struct")?.call(args))
    }
}

/// `timestampadd(HOUR, n, ts)` / `timestampdiff(DAY, a, b)` (also spelled `dateadd`,
/// `date_add`, `datediff`, `date_diff` with three arguments): the unit, an identifier in
/// SQL, as a string literal.
pub(super) fn unit_function(call: &spec::FunctionCall) -> Option<spec::FunctionCall> {
    if call.args.len() != 3 {
        return None;
    }
    let name = match call.name.to_ascii_lowercase().as_str() {
        "timestampadd" | "timestamp_add" | "dateadd" | "date_add" => "timestampadd",
        "timestampdiff" | "timestamp_diff" | "datediff" | "date_diff" => "timestampdiff",
        _ => return None,
    };
    // (`date_add(d, n, 1)` is the two-argument function called with three: WRONG_NUM_ARGS.)
    let alias = !call.name.to_ascii_lowercase().starts_with("timestamp");
    let unit_like = match &call.args[0] {
        SExpr::Attribute { name: parts, .. } => parts.len() == 1,
        SExpr::Literal(ScalarValue::Utf8(_)) => true,
        _ => false,
    };
    if alias && !unit_like {
        return None;
    }
    let mut args = call.args.clone();
    if let SExpr::Attribute { name: parts, .. } = &args[0]
        && let [unit] = parts.as_slice()
    {
        args[0] = SExpr::Literal(ScalarValue::Utf8(Some(unit.to_ascii_uppercase())));
    }
    Some(spec::FunctionCall {
        name: name.to_string(),
        args,
        ..call.clone()
    })
}

/// A call with named arguments (`mask(s, lowerChar => 'x')`) as the positional call it
/// stands for, omitted parameters given their defaults. Functions whose parameters Ember
/// does not know the names of refuse named arguments rather than misplace them.
pub(super) fn positional_call(call: &spec::FunctionCall) -> PlanResult<spec::FunctionCall> {
    let params: &[(&str, Option<&str>)] = match call.name.to_ascii_lowercase().as_str() {
        "mask" => &[
            ("input", None),
            ("upperchar", Some("X")),
            ("lowerchar", Some("x")),
            ("digitchar", Some("n")),
            ("otherchar", None),
        ],
        _ => {
            return Err(PlanError::Unsupported(format!(
                "named arguments of {}",
                call.name
            )));
        }
    };
    let mut slots: Vec<Option<SExpr>> = vec![None; params.len()];
    let mut next = 0;
    for a in &call.args {
        let at = match a {
            SExpr::NamedArgument { name, .. } => params
                .iter()
                .position(|(p, _)| p.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    PlanError::from(SparkError::analysis(
                        "UNRECOGNIZED_PARAMETER_NAME",
                        "4274K",
                        format!("Cannot invoke routine `{}` because the routine call included a named argument reference for the argument named `{name}`, but this routine does not include any signature containing an argument with this name.", call.name),
                    ))
                })?,
            _ => next,
        };
        let value = match a {
            SExpr::NamedArgument { value, .. } => value.as_ref().clone(),
            other => other.clone(),
        };
        match slots.get_mut(at) {
            Some(slot) => *slot = Some(value),
            None => {
                return Err(PlanError::Unsupported(format!(
                    "{} arguments to {}",
                    call.args.len(),
                    call.name
                )));
            }
        }
        next = at + 1;
    }
    let last = slots.iter().rposition(Option::is_some).unwrap_or(0);
    let mut args = Vec::with_capacity(last + 1);
    for (slot, (_, default)) in slots.into_iter().zip(params).take(last + 1) {
        args.push(match (slot, default) {
            (Some(v), _) => v,
            (None, Some(d)) => SExpr::Literal(ScalarValue::Utf8(Some(d.to_string()))),
            (None, None) => SExpr::Literal(ScalarValue::Utf8(None)),
        });
    }
    Ok(spec::FunctionCall {
        args,
        ..call.clone()
    })
}

/// A chain of `withField`/`dropFields` as Spark names it: `update_fields(root, op, ...)`.
#[derive(Debug, Clone)]
pub(super) struct UpdateChain {
    root: String,
    ops: Vec<FieldOp>,
}

#[derive(Debug, Clone)]
struct FieldOp {
    /// The top-level field the operation changes.
    field: String,
    /// `withField` (else `dropFields`).
    with: bool,
    /// `WithField(...)` / `dropfield()`.
    shown: String,
}
