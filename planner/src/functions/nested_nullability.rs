//! Spark's nullability inside the values its constructors make: `array(...)`'s elements may be
//! NULL only where an argument may (`containsNull`), `named_struct`/`struct` fields as their
//! values, `map(...)`'s values as its value arguments, `concat` of arrays as its arguments'
//! elements. DataFusion's
//! constructors call every nested field nullable; the call is wrapped in [`NestedType`], a
//! pass-through whose type states Spark's (the same buffers under the stricter type).

use std::sync::Arc;

use arrow::array::{ArrayData, make_array};
use arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::{DFSchema, Result, internal_err};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ExprSchemable, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};
use ember_execution::codec::{ArrowType, EncodedUdf, data_type_message, data_type_of};

/// `call` (the constructor `name` of `args`) with Spark's nested nullability.
pub fn apply(name: &str, args: &[Expr], call: Expr, schema: &DFSchema) -> Result<Expr> {
    let call = of_result(name, call, schema)?;
    let call = map_parts_exact(name, args, call, schema)?;
    let nullable = |e: &Expr| e.nullable(schema);
    if matches!(name, "concat" | "||") {
        return concat_arrays(args, call, schema);
    }
    if let Some(want) = array_result(name, args, &call, schema)? {
        let have = call.get_type(schema)?;
        return Ok(retyped(call, &have, want));
    }
    // (The items it keeps: never NULL.)
    if name == "array_compact"
        && let have @ DataType::List(f) = &call.get_type(schema)?
    {
        let want = DataType::List(Arc::new(f.as_ref().clone().with_nullable(false)));
        return Ok(retyped(call, have, want));
    }
    // (Java's split and BreakIterator's words: pieces, never NULL.)
    if matches!(name, "split" | "sentences") {
        let have = call.get_type(schema)?;
        let want = items_never_null(&have);
        return Ok(retyped(call, &have, want));
    }
    if let Some(values) = map_values_nullable(name, args, schema)? {
        let have = call.get_type(schema)?;
        let want = match (name, &have) {
            ("map_entries", DataType::List(entry)) => match entry.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => {
                    let kv = vec![
                        kv[0].as_ref().clone(),
                        kv[1].as_ref().clone().with_nullable(values),
                    ];
                    let entry = entry.as_ref().clone();
                    DataType::List(Arc::new(entry.with_data_type(DataType::Struct(kv.into()))))
                }
                _ => return Ok(call),
            },
            (_, t @ DataType::Map(..)) => with_map_values_nullable(t, values),
            _ => return Ok(call),
        };
        return Ok(retyped(call, &have, want));
    }
    let values: Vec<&Expr> = match name {
        "array" | "struct" => args.iter().collect(),
        "named_struct" | "map" => args.iter().skip(1).step_by(2).collect(),
        _ => return Ok(call),
    };
    let mut flags = Vec::with_capacity(values.len());
    for v in &values {
        flags.push(nullable(v)?);
    }
    let any = flags.iter().any(|n| *n);
    let have = call.get_type(schema)?;
    let want = match (&have, name) {
        (DataType::List(f), "array") => {
            DataType::List(Arc::new(f.as_ref().clone().with_nullable(any)))
        }
        (DataType::Struct(fields), "struct" | "named_struct") if fields.len() == flags.len() => {
            DataType::Struct(
                fields
                    .iter()
                    .zip(&flags)
                    .map(|(f, n)| f.as_ref().clone().with_nullable(*n))
                    .collect::<Fields>(),
            )
        }
        (t @ DataType::Map(..), "map") => with_map_values_nullable(t, any),
        _ => return Ok(call),
    };
    Ok(retyped(call, &have, want))
}

/// `map_keys`, `map_values` or `map_entries` of a map: their items of the map's exact key and
/// value types (a struct value's fields keep their nullability; DataFusion's answer from the
/// map's Arrow type, where they are all nullable). The items' own nullability is the caller's.
fn map_parts_exact(name: &str, args: &[Expr], call: Expr, schema: &DFSchema) -> Result<Expr> {
    let ([m], true) = (
        args,
        matches!(name, "map_keys" | "map_values" | "map_entries"),
    ) else {
        return Ok(call);
    };
    let DataType::Map(entries, _) = m.get_type(schema)? else {
        return Ok(call);
    };
    let DataType::Struct(kv) = entries.data_type() else {
        return Ok(call);
    };
    let have = call.get_type(schema)?;
    let (DataType::List(item), [key, value]) = (&have, kv.iter().as_slice()) else {
        return Ok(call);
    };
    let exact = match (name, item.data_type()) {
        ("map_keys", _) => key.data_type().clone(),
        ("map_values", _) => value.data_type().clone(),
        (_, DataType::Struct(fields)) if fields.len() == 2 => DataType::Struct(
            fields
                .iter()
                .zip([key, value])
                .map(|(f, exact)| f.as_ref().clone().with_data_type(exact.data_type().clone()))
                .collect::<Fields>(),
        ),
        _ => return Ok(call),
    };
    let want = DataType::List(Arc::new(item.as_ref().clone().with_data_type(exact)));
    Ok(retyped(call, &have, want))
}

/// The `call` of the Spark function `name` with Spark's nested nullability: the list of
/// percentiles, quantiles or ranks an array of them gives holds no NULL (a group without
/// values has no list).
pub fn of_result(name: &str, call: Expr, schema: &DFSchema) -> Result<Expr> {
    let percentiles = matches!(
        name,
        "percentile"
            | "percentile_approx"
            | "approx_percentile"
            | "percentile_cont"
            | "percentile_disc"
    );
    let sketch =
        name.starts_with("kll_sketch_get_quantile_") || name.starts_with("kll_sketch_get_rank_");
    if !percentiles && !sketch {
        return Ok(call);
    }
    let have = call.get_type(schema)?;
    let want = items_never_null(&have);
    Ok(retyped(call, &have, want))
}

/// `call` (of type `have`) under `want`, a type that differs from it only in nested
/// nullability (wrapped in [`NestedType`] where they differ; left as it is where they differ
/// otherwise).
pub fn retyped(call: Expr, have: &DataType, want: DataType) -> Expr {
    if want == *have || merge(have, &want).is_none() {
        call
    } else {
        NestedType::udf(want).call(vec![call])
    }
}

/// The type Spark gives the array the function `name` of `args` makes (`call`), where its
/// items' nullability is Spark's own: `array_repeat(x, n)`'s items NULL where `x` may be;
/// `array_union`'s where either array's may, `array_intersect`'s where both, `array_except`'s
/// where the first's (its type the first's where they differ only in nested nullability);
/// `flatten`'s are its argument's inner arrays' items; `arrays_zip`'s structs are never NULL
/// and their fields always may be. None: another function, or arguments of other types.
fn array_result(
    name: &str,
    args: &[Expr],
    call: &Expr,
    schema: &DFSchema,
) -> Result<Option<DataType>> {
    let types = args
        .iter()
        .map(|a| a.get_type(schema))
        .collect::<Result<Vec<_>>>()?;
    let items = |t: &DataType| match t {
        DataType::List(f) | DataType::LargeList(f) => Some(f.is_nullable()),
        DataType::Null => Some(false),
        _ => None,
    };
    let have = call.get_type(schema)?;
    let DataType::List(item) = &have else {
        return Ok(None);
    };
    let with_items =
        |nullable: bool| DataType::List(Arc::new(item.as_ref().clone().with_nullable(nullable)));
    Ok(match (name, types.as_slice()) {
        ("array_repeat", [_, _]) => Some(with_items(args[0].nullable(schema)?)),
        ("array_union", [l, r]) => items(l).zip(items(r)).map(|(l, r)| with_items(l || r)),
        ("array_intersect", [l, r]) => items(l).zip(items(r)).map(|(l, r)| with_items(l && r)),
        // (Its first array's own type, where the two met only in nested nullability.)
        ("array_except", [l, _]) if relaxed(l) == relaxed(&have) => Some(l.clone()),
        ("array_except", [l, _]) => items(l).map(with_items),
        ("flatten", [DataType::List(outer)]) => match outer.data_type() {
            inner @ DataType::List(_) => Some(inner.clone()),
            _ => None,
        },
        ("arrays_zip", _) => match item.data_type() {
            DataType::Struct(fields) if fields.len() == types.len() => {
                let fields: Fields = fields
                    .iter()
                    .zip(&types)
                    .map(|(f, t)| {
                        let of = match t {
                            DataType::List(g) | DataType::LargeList(g) => g.data_type().clone(),
                            _ => f.data_type().clone(),
                        };
                        f.as_ref().clone().with_data_type(of).with_nullable(true)
                    })
                    .collect();
                let item = item
                    .as_ref()
                    .clone()
                    .with_data_type(DataType::Struct(fields));
                Some(DataType::List(Arc::new(item.with_nullable(false))))
            }
            _ => None,
        },
        _ => None,
    })
}

/// Whether the values of a map a map function makes may be NULL, as Spark says
/// (`map_concat`: where an argument's may; `map_from_arrays`: where the value array's
/// elements may; `map_from_entries`: where the entries' values may; `map_entries`: its
/// entries' values where the map's may). `None`: not such a function.
fn map_values_nullable(name: &str, args: &[Expr], schema: &DFSchema) -> Result<Option<bool>> {
    let types = args
        .iter()
        .map(|a| a.get_type(schema))
        .collect::<Result<Vec<_>>>()?;
    let of_map = |t: &DataType| match t {
        DataType::Map(..) => Some(map_values_nullable_in(t)),
        DataType::Null => Some(false),
        _ => None,
    };
    Ok(match (name, types.as_slice()) {
        ("map_concat", _) => {
            let mut any = false;
            for t in &types {
                match of_map(t) {
                    Some(n) => any |= n,
                    None => return Ok(None),
                }
            }
            Some(any)
        }
        ("map_entries", [m]) => of_map(m),
        ("map_from_arrays", [_, DataType::List(values)]) => Some(values.is_nullable()),
        ("map_from_entries", [DataType::List(entry)]) => match entry.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => Some(kv[1].is_nullable()),
            _ => None,
        },
        _ => None,
    })
}

/// Whether the values of the map type `t` may be NULL (true for other types).
pub fn map_values_nullable_in(t: &DataType) -> bool {
    match t {
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => kv[1].is_nullable(),
            _ => true,
        },
        _ => true,
    }
}

/// A map type `t` whose values are NULL-able as `nullable` says.
pub fn with_map_values_nullable(t: &DataType, nullable: bool) -> DataType {
    match t {
        DataType::Map(entries, sorted) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                let kv: Fields = vec![
                    kv[0].as_ref().clone(),
                    kv[1].as_ref().clone().with_nullable(nullable),
                ]
                .into();
                let entries = entries
                    .as_ref()
                    .clone()
                    .with_data_type(DataType::Struct(kv));
                DataType::Map(Arc::new(entries), *sorted)
            }
            _ => t.clone(),
        },
        _ => t.clone(),
    }
}

/// `concat` of arrays (`call`): its elements NULL only where an argument's may be.
fn concat_arrays(args: &[Expr], call: Expr, schema: &DFSchema) -> Result<Expr> {
    let have = call.get_type(schema)?;
    let DataType::List(f) = &have else {
        return Ok(call);
    };
    let mut any = false;
    for a in args {
        match a.get_type(schema)? {
            DataType::List(g) => any |= g.is_nullable(),
            DataType::Null => {}
            _ => return Ok(call),
        }
    }
    let want = DataType::List(Arc::new(f.as_ref().clone().with_nullable(any)));
    Ok(retyped(call, &have, want))
}

/// The arguments of the function `name` as its implementation may take them. DataFusion's
/// functions keep their argument's nested fields in their result while they may add NULLs
/// (`array_append(array(1), NULL)`), so only the constructors above see non-nullable nested
/// fields; the values of `if`/`coalesce`/`nvl`/`greatest`/... share their types with the
/// nullability merged (a field NULL in any of them is nullable, as Spark merges them); every
/// other argument has its nested fields nullable.
pub fn prepare_arguments(name: &str, args: &mut [Expr], types: &mut [DataType]) {
    let values = match name {
        // (Constructors, and functions that add no NULL to the values they keep.)
        "struct" | "named_struct" | "reverse" | "array_distinct" | "slice" | "array_remove"
        | "array_compact" | "sort_array" | "array_sort" | "shuffle" | "collect_union"
        | "map_from_arrays" => {
            return;
        }
        // (An array's elements share one type.)
        "array" => 0,
        "coalesce" | "nvl" | "ifnull" | "greatest" | "least" | "nullif" | "concat" | "||" => 0,
        // (Of two arrays' elements: one type.)
        "array_union" | "array_intersect" | "array_except" => 0,
        // (Maps' keys and values: one type; DataFusion's entries state NULL-able values.)
        "map_concat" => {
            merge_values(args, types);
            for (a, t) in args.iter_mut().zip(types.iter_mut()) {
                let want = with_map_values_nullable(t, true);
                retype_expr(a, t, want);
            }
            return;
        }
        // (Keys share one type, values another.)
        "map" => {
            let n = args.len().min(types.len());
            for parity in 0..2 {
                let at: Vec<usize> = (parity..n).step_by(2).collect();
                let mut vs: Vec<Expr> = at.iter().map(|&i| args[i].clone()).collect();
                let mut ts: Vec<DataType> = at.iter().map(|&i| types[i].clone()).collect();
                merge_values(&mut vs, &mut ts);
                for ((i, v), t) in at.into_iter().zip(vs).zip(ts) {
                    args[i] = v;
                    types[i] = t;
                }
            }
            return;
        }
        "if" | "iff" | "nvl2" => 1,
        _ => {
            for (a, t) in args.iter_mut().zip(types.iter_mut()) {
                let loose = relaxed(t);
                retype_expr(a, t, loose);
            }
            return;
        }
    };
    let from = values.min(args.len()).min(types.len());
    merge_values(&mut args[from..], &mut types[from..]);
}

/// `values` (of `types`) with one type: the nested nullability of all of them merged (where
/// they differ only in it; otherwise relaxed).
pub fn merge_values(values: &mut [Expr], types: &mut [DataType]) {
    // (An untyped NULL takes the others' type.)
    let mut typed = types.iter().filter(|t| **t != DataType::Null);
    let first = typed.next().cloned();
    let merged = typed
        .try_fold(first, |acc, t| match acc {
            Some(a) => Ok(merge(&a, t)),
            None => Err(()),
        })
        .ok()
        .flatten();
    for (v, t) in values.iter_mut().zip(types.iter_mut()) {
        if *t == DataType::Null {
            continue;
        }
        let want = match &merged {
            Some(m) => m.clone(),
            None => relaxed(t),
        };
        retype_expr(v, t, want);
    }
}

fn retype_expr(e: &mut Expr, have: &mut DataType, want: DataType) {
    if *have != want {
        let inner = std::mem::replace(
            e,
            Expr::Literal(datafusion::common::ScalarValue::Null, None),
        );
        *e = NestedType::udf(want.clone()).call(vec![inner]);
        *have = want;
    }
}

/// `a` and `b` (types equal but for nested nullability) with every nested field nullable
/// where it is in either; None when they differ otherwise.
fn merge(a: &DataType, b: &DataType) -> Option<DataType> {
    let field = |x: &FieldRef, y: &FieldRef| -> Option<Field> {
        (x.name() == y.name()).then_some(())?;
        Some(
            x.as_ref()
                .clone()
                .with_data_type(merge(x.data_type(), y.data_type())?)
                .with_nullable(x.is_nullable() || y.is_nullable()),
        )
    };
    Some(match (a, b) {
        (DataType::Null, other) | (other, DataType::Null) => other.clone(),
        (DataType::List(x), DataType::List(y)) => DataType::List(Arc::new(field(x, y)?)),
        (DataType::LargeList(x), DataType::LargeList(y)) => {
            DataType::LargeList(Arc::new(field(x, y)?))
        }
        (DataType::Map(x, s), DataType::Map(y, _)) => DataType::Map(Arc::new(field(x, y)?), *s),
        (DataType::Struct(xs), DataType::Struct(ys)) if xs.len() == ys.len() => DataType::Struct(
            xs.iter()
                .zip(ys.iter())
                .map(|(x, y)| field(x, y))
                .collect::<Option<Fields>>()?,
        ),
        (x, y) if x == y => x.clone(),
        _ => return None,
    })
}

/// `t` with its lists' items never NULL, at every level of lists.
fn items_never_null(t: &DataType) -> DataType {
    match t {
        DataType::List(f) => DataType::List(Arc::new(
            f.as_ref()
                .clone()
                .with_data_type(items_never_null(f.data_type()))
                .with_nullable(false),
        )),
        other => other.clone(),
    }
}

/// `t` with every nested field nullable (map keys stay non-nullable).
pub fn relaxed(t: &DataType) -> DataType {
    let field = |f: &FieldRef| f.as_ref().clone().with_data_type(relaxed(f.data_type()));
    match t {
        // (VARIANT and spatial values are structs whose fields say what they are.)
        d if crate::types::is_variant(d) || crate::types::spatial_of(d).is_some() => d.clone(),
        DataType::List(f) => DataType::List(Arc::new(field(f).with_nullable(true))),
        DataType::LargeList(f) => DataType::LargeList(Arc::new(field(f).with_nullable(true))),
        DataType::FixedSizeList(f, n) => {
            DataType::FixedSizeList(Arc::new(field(f).with_nullable(true)), *n)
        }
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| field(f).with_nullable(true))
                .collect(),
        ),
        DataType::Map(entries, sorted) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                let kv: Fields = vec![field(&kv[0]), field(&kv[1]).with_nullable(true)].into();
                let entries = entries
                    .as_ref()
                    .clone()
                    .with_data_type(DataType::Struct(kv));
                DataType::Map(Arc::new(entries), *sorted)
            }
            _ => t.clone(),
        },
        other => other.clone(),
    }
}

/// Its argument under `data_type`: the same values with other nested nullability.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct NestedType {
    data_type: DataType,
    signature: Signature,
}

impl NestedType {
    pub fn udf(data_type: DataType) -> Arc<ScalarUDF> {
        Arc::new(ScalarUDF::from(Self {
            data_type,
            signature: Signature::any(1, Volatility::Immutable),
        }))
    }

    pub fn data_type(&self) -> &DataType {
        &self.data_type
    }
}

impl ScalarUDFImpl for NestedType {
    fn name(&self) -> &str {
        "ember_nested_type"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.data_type.clone())
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        match args.arg_fields.first() {
            Some(f) => Ok(Arc::new(
                Field::new(f.name(), self.data_type.clone(), f.is_nullable())
                    .with_metadata(f.metadata().clone()),
            )),
            None => internal_err!("ember_nested_type takes one argument"),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let Some(value) = args.args.into_iter().next() else {
            return internal_err!("ember_nested_type takes one argument");
        };
        let array = value.to_array(args.number_rows)?;
        let out = match retype(array.to_data(), &self.data_type) {
            Ok(data) => make_array(data),
            // (A nested NULL of no type takes the merged type's: a cast.)
            Err(_) => arrow::compute::cast(&array, &self.data_type)?,
        };
        Ok(match value {
            ColumnarValue::Scalar(_) => {
                ColumnarValue::Scalar(datafusion::common::ScalarValue::try_from_array(&out, 0)?)
            }
            ColumnarValue::Array(_) => ColumnarValue::Array(out),
        })
    }
}

/// `data` under `to` (a type that differs from its own only in nested nullability); Arrow
/// checks that a field made non-nullable holds no NULL.
fn retype(data: ArrayData, to: &DataType) -> Result<ArrayData> {
    let children = match to {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => match data.child_data().first() {
            Some(c) => vec![retype(c.clone(), f.data_type())?],
            None => return internal_err!("a list without its values"),
        },
        DataType::Struct(fields) => data
            .child_data()
            .iter()
            .zip(fields.iter())
            .map(|(c, f)| retype(c.clone(), f.data_type()))
            .collect::<Result<Vec<_>>>()?,
        _ => data.child_data().to_vec(),
    };
    Ok(data
        .into_builder()
        .data_type(to.clone())
        .child_data(children)
        .build()?)
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct NestedTypeMessage {
    #[prost(message, optional, tag = "1")]
    data_type: Option<ArrowType>,
}

impl EncodedUdf for NestedType {
    const NAME: &'static str = "nested_type";
    type Message = NestedTypeMessage;

    fn to_message(&self) -> Option<NestedTypeMessage> {
        Some(NestedTypeMessage {
            data_type: Some(data_type_message(&self.data_type)?),
        })
    }

    fn from_message(_name: &str, m: NestedTypeMessage) -> Result<Arc<ScalarUDF>> {
        Ok(Self::udf(data_type_of(m.data_type.as_ref())?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, ListArray};
    use arrow::datatypes::Int32Type;

    #[test]
    fn states_non_null_elements() {
        let list =
            ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1), Some(2)])]);
        let to = DataType::List(Arc::new(Field::new_list_field(DataType::Int32, false)));
        let out = make_array(retype(list.to_data(), &to).unwrap());
        assert_eq!(out.data_type(), &to);
        let with_null =
            ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1), None])]);
        assert!(retype(with_null.to_data(), &to).is_err());
        let udf = NestedType::udf(to.clone());
        let inner = udf.inner().as_ref() as &dyn std::any::Any;
        let message = inner
            .downcast_ref::<NestedType>()
            .and_then(EncodedUdf::to_message);
        let back = message.map(|m| <NestedType as EncodedUdf>::from_message("t", m).unwrap());
        let back = back
            .as_ref()
            .map(|u| u.inner().as_ref() as &dyn std::any::Any);
        let back = back.and_then(|b| b.downcast_ref::<NestedType>());
        assert_eq!(back.map(NestedType::data_type), Some(&to));
    }
}
