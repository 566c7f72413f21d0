//! `stack(n, v1, v2, ...)`: the values in `n` rows of `ceil(count / n)` columns `col0`, `col1`,
//! ... (NULL where the values run out), as `inline` of an array of structs, after Spark's
//! checks of its arguments (`Stack.checkInputDataTypes`): `n` an INT literal of at least 1, and
//! the values of each column of one type. The checks come before any row is made, so that
//! `stack(2147483647, 1, 'a')` is refused at once, as Spark refuses it.

use arrow::datatypes::DataType;
use datafusion::common::{DFSchema, ScalarValue};
use datafusion::logical_expr::{Expr, ExprSchemable};

use super::Resolver;
use crate::error::{PlanError, PlanResult, SparkError};
use crate::spec::{Expr as SExpr, FunctionCall};

/// The most rows Ember makes a `stack` of (each is a struct in the plan).
const MAX_ROWS: i64 = 100_000;

impl Resolver<'_> {
    /// `call` (a `stack`) as `inline` of its rows, or Spark's error for its arguments.
    pub(super) fn check_stack(
        &mut self,
        call: &FunctionCall,
        schema: &DFSchema,
    ) -> PlanResult<FunctionCall> {
        let mut resolved = Vec::with_capacity(call.args.len());
        for a in &call.args {
            resolved.push(self.resolve_expr(a, schema)?);
        }
        let names: Vec<String> = resolved.iter().map(|(_, n)| n.clone()).collect();
        let shown = format!("stack({})", names.join(", "));
        let mismatch = |class: &str, detail: String| -> PlanError {
            SparkError::analysis(
                &format!("DATATYPE_MISMATCH.{class}"),
                "42K09",
                format!("Cannot resolve \"{shown}\" due to data type mismatch: {detail}"),
            )
            .into()
        };
        if call.args.len() <= 1 {
            return Err(crate::functions::wrong_num_args(
                "stack",
                "> 1",
                call.args.len(),
            ));
        }
        let (first, first_name) = &resolved[0];
        let first_type = first.get_type(schema)?;
        if first_type != DataType::Int32 {
            return Err(mismatch(
                "UNEXPECTED_INPUT_TYPE",
                format!(
                    "The first parameter requires the \"INT\" type, however \"{first_name}\" has the type \"{}\".",
                    crate::types::sql_name(&first_type)
                ),
            ));
        }
        // (A constant expression is folded first: `stack(1 + 1, ...)`; NULL is 0.)
        let folded = if first.column_refs().is_empty() {
            super::fold_constants(first.clone())?
        } else {
            first.clone()
        };
        let rows = match folded {
            Expr::Literal(ScalarValue::Int32(n), _) => n.map_or(0, i64::from),
            _ => {
                return Err(mismatch(
                    "NON_FOLDABLE_INPUT",
                    "the input `n` should be a foldable \"INT\" expression; however, got \
                     a column or an expression that is not constant."
                        .replace("`n`", &format!("`{first_name}`")),
                ));
            }
        };
        if rows < 1 {
            return Err(mismatch(
                "VALUE_OUT_OF_RANGE",
                format!("The `n` must be between (0, 2147483647] (current value = {rows})."),
            ));
        }
        let values = &resolved[1..];
        let columns = values
            .len()
            .div_ceil(usize::try_from(rows).unwrap_or(usize::MAX));
        // Each column's type: that of its first value that is not an untyped NULL.
        let mut column_types: Vec<Option<(DataType, usize)>> = vec![None; columns];
        for (i, (e, _)) in values.iter().enumerate() {
            let t = e.get_type(schema)?;
            if t == DataType::Null {
                continue;
            }
            match &column_types[i % columns] {
                None => column_types[i % columns] = Some((t, i + 1)),
                Some((want, at)) if *want != t => {
                    return Err(mismatch(
                        "STACK_COLUMN_DIFF_TYPES",
                        format!(
                            "The data type of the column ({}) do not have the same type: \"{}\" ({}) <> \"{}\" ({}).",
                            i % columns,
                            crate::types::sql_name(want),
                            at,
                            crate::types::sql_name(&t),
                            i + 1
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        if rows > MAX_ROWS {
            return Err(PlanError::Unsupported(format!(
                "stack of more than {MAX_ROWS} rows"
            )));
        }
        // (A column of NULLs only is a STRING one, as in Spark.)
        let column_types: Vec<DataType> = column_types
            .into_iter()
            .map(|t| t.map_or(DataType::Utf8, |(t, _)| t))
            .collect();
        let null_values: Vec<bool> = values
            .iter()
            .map(|(e, _)| e.get_type(schema).map(|t| t == DataType::Null))
            .collect::<Result<_, _>>()?;
        stack_as_inline(call, rows as usize, &column_types, &null_values)
    }
}

/// The rows of `stack` as `inline` of an array of structs; NULLs (untyped ones among the
/// values, and the padding of the last row) are cast to their column's type.
fn stack_as_inline(
    call: &FunctionCall,
    rows: usize,
    column_types: &[DataType],
    null_values: &[bool],
) -> PlanResult<FunctionCall> {
    let values = &call.args[1..];
    let columns = values.len().div_ceil(rows);
    let typed_null = |c: usize, value: SExpr| -> SExpr {
        let to = column_types.get(c).cloned().unwrap_or(DataType::Utf8);
        SExpr::Cast {
            expr: Box::new(value),
            type_name: crate::types::sql_name(&to),
            to,
            mode: crate::spec::CastMode::Default,
        }
    };
    let mut structs = Vec::with_capacity(rows);
    for r in 0..rows {
        let mut fields = Vec::with_capacity(columns * 2);
        for c in 0..columns {
            fields.push(SExpr::Literal(ScalarValue::Utf8(Some(format!("col{c}")))));
            let i = r * columns + c;
            fields.push(match values.get(i) {
                Some(v) if null_values.get(i) == Some(&true) => typed_null(c, v.clone()),
                Some(v) => v.clone(),
                None => typed_null(c, SExpr::Literal(ScalarValue::Null)),
            });
        }
        structs.push(SExpr::function("named_struct", fields));
    }
    Ok(FunctionCall::new(
        "inline",
        vec![SExpr::function("array", structs)],
    ))
}
