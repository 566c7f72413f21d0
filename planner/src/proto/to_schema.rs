//! Spark Connect's `ToSchema` (`df.to(schema)`): the schema a relation is conformed to, with
//! each field's Spark metadata; CHAR/VARCHAR refused as Spark refuses them.

use std::sync::Arc;

use arrow::datatypes::DataType;
use ember_protos::spark::connect as pb;

use super::ProtoContext;
use super::relation::input;
use crate::error::{PlanResult, SparkError, invalid};
use crate::spec::PlanNode;
use crate::types;

pub(super) fn convert(ctx: &ProtoContext, t: &pb::ToSchema) -> PlanResult<PlanNode> {
    let Some(dt) = &t.schema else {
        return invalid("toSchema without a schema");
    };
    if has_char_or_varchar(dt) {
        return Err(SparkError::analysis(
            "UNSUPPORTED_CHAR_OR_VARCHAR_AS_STRING",
            "",
            "The char/varchar type can't be used in the table schema.",
        )
        .into());
    }
    let (DataType::Struct(schema), Some(pb::data_type::Kind::Struct(proto))) =
        (types::from_proto(dt, &ctx.time_zone)?, &dt.kind)
    else {
        return invalid("toSchema with a schema that is not a struct");
    };
    // (The fields' Spark metadata, which the columns take.)
    let schema =
        schema
            .iter()
            .zip(&proto.fields)
            .map(|(f, p)| match p.metadata.as_deref() {
                Some(m) if !m.is_empty() => Arc::new(f.as_ref().clone().with_metadata(
                    [(types::SPARK_METADATA_KEY.to_string(), m.to_string())].into(),
                )),
                _ => f.clone(),
            })
            .collect();
    Ok(PlanNode::ToSchema {
        input: input(ctx, &t.input)?,
        schema,
    })
}

/// Whether a type is or holds CHAR/VARCHAR, which `df.to(schema)` refuses.
fn has_char_or_varchar(dt: &pb::DataType) -> bool {
    use pb::data_type::Kind;
    match &dt.kind {
        Some(Kind::Char(_) | Kind::VarChar(_)) => true,
        Some(Kind::Array(a)) => a.element_type.as_deref().is_some_and(has_char_or_varchar),
        Some(Kind::Map(m)) => [&m.key_type, &m.value_type]
            .into_iter()
            .any(|t| t.as_deref().is_some_and(has_char_or_varchar)),
        Some(Kind::Struct(s)) => s
            .fields
            .iter()
            .any(|f| f.data_type.as_ref().is_some_and(has_char_or_varchar)),
        _ => false,
    }
}
