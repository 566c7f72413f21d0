//! AnalyzePlan: schema, explain, tree string, ... of a relation without running it.

use std::hash::{Hash, Hasher};

use arrow::datatypes::DataType;
use ember_planner::proto::convert_relation;
use ember_planner::spec::{self, ExplainMode, PlanNode};
use ember_planner::types;
use ember_protos::spark::connect as pb;
use ember_protos::spark::connect::analyze_plan_request::Analyze;
use ember_protos::spark::connect::analyze_plan_response::{self as resp, Result as R};
use tonic::Status;

use crate::error::{ServerError, ServerResult};
use crate::explain;
use crate::state::RequestContext;

/// The Spark version Ember's protocol and behaviour follow: what `spark.version` answers unless
/// `--spark-version` says otherwise.
pub const SPARK_VERSION: &str = ember_planner::resolver::SPARK_VERSION;

/// A `--spark-version`: `MAJOR.MINOR.PATCH`, optionally with a suffix (`4.1.0-SNAPSHOT`), as
/// PySpark compares versions by their numbers.
pub fn parse_spark_version(s: &str) -> Result<String, String> {
    let numbers = s.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = numbers.split('.').collect();
    if parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        Ok(s.to_string())
    } else {
        Err(format!("expected a Spark version such as 4.3.0, got {s:?}"))
    }
}

pub async fn analyze(ctx: &RequestContext, analyze: Analyze) -> ServerResult<R> {
    Ok(match analyze {
        Analyze::SparkVersion(_) => R::SparkVersion(resp::SparkVersion {
            version: ctx.state.spark_version.clone(),
        }),
        Analyze::Schema(s) => {
            let plan = relation(ctx, s.plan)?;
            let q = ctx.resolve(&plan)?;
            R::Schema(resp::Schema {
                schema: Some(types::schema_to_proto(&output_schema(&q), &q.names)?),
            })
        }
        Analyze::TreeString(t) => {
            let plan = relation(ctx, t.plan)?;
            let q = ctx.resolve(&plan)?;
            let level = t.level.filter(|l| *l > 0).map(|l| l as usize);
            R::TreeString(resp::TreeString {
                tree_string: tree_string(&output_schema(&q), &q.names, level),
            })
        }
        Analyze::Explain(e) => {
            use pb::analyze_plan_request::explain::ExplainMode as M;
            let mode = match M::try_from(e.explain_mode).unwrap_or(M::Unspecified) {
                M::Extended => ExplainMode::Extended,
                M::Codegen => ExplainMode::Codegen,
                M::Cost => ExplainMode::Cost,
                M::Formatted => ExplainMode::Formatted,
                M::Simple | M::Unspecified => ExplainMode::Simple,
            };
            let plan = relation(ctx, e.plan)?;
            let q = ctx.resolve(&plan)?;
            R::Explain(resp::Explain {
                explain_string: explain::explain(ctx, &q, mode).await?,
            })
        }
        Analyze::IsLocal(l) => {
            let plan = relation(ctx, l.plan)?;
            R::IsLocal(resp::IsLocal {
                is_local: matches!(plan.node, PlanNode::LocalRelation { .. }),
            })
        }
        Analyze::IsStreaming(s) => {
            relation(ctx, s.plan)?;
            R::IsStreaming(resp::IsStreaming {
                is_streaming: false,
            })
        }
        Analyze::InputFiles(f) => {
            relation(ctx, f.plan)?;
            R::InputFiles(resp::InputFiles { files: vec![] })
        }
        // Spark's DataType.fromDDL: a type (`int` is IntegerType), else a field list (a struct).
        Analyze::DdlParse(d) => {
            let parsed = types::parse_data_type(&d.ddl_string, &ctx.session.conf.time_zone())?;
            R::DdlParse(resp::DdlParse {
                parsed: Some(types::to_proto(&parsed)?),
            })
        }
        Analyze::SameSemantics(s) => {
            let a = relation(ctx, s.target_plan)?;
            let b = relation(ctx, s.other_plan)?;
            R::SameSemantics(resp::SameSemantics {
                result: semantic_key(a) == semantic_key(b),
            })
        }
        Analyze::SemanticHash(h) => {
            let plan = relation(ctx, h.plan)?;
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            semantic_key(plan).hash(&mut hasher);
            R::SemanticHash(resp::SemanticHash {
                result: hasher.finish() as i32,
            })
        }
        // Cached relations are recomputed on use (caching changes no answer); the session
        // remembers what was cached at which level, as Spark reports it.
        Analyze::Persist(p) => {
            let plan = relation_of(ctx, p.relation)?;
            ctx.resolve(&plan)?;
            ctx.session
                .cache
                .cache(&ctx.session.catalog, &plan, p.storage_level);
            R::Persist(resp::Persist {})
        }
        Analyze::Unpersist(u) => {
            let plan = relation_of(ctx, u.relation)?;
            ctx.session.cache.uncache(&ctx.session.catalog, &plan);
            R::Unpersist(resp::Unpersist {})
        }
        Analyze::GetStorageLevel(g) => {
            let plan = relation_of(ctx, g.relation)?;
            R::GetStorageLevel(resp::GetStorageLevel {
                storage_level: Some(ctx.session.cache.level(&ctx.session.catalog, &plan)),
            })
        }
        Analyze::JsonToDdl(j) => {
            let schema = types::parse_schema(&j.json_string, &ctx.session.conf.time_zone())?;
            let ddl = schema
                .fields()
                .iter()
                .map(|f| {
                    let nn = if f.is_nullable() { "" } else { " NOT NULL" };
                    format!("{} {}{nn}", f.name(), types::sql_name(f.data_type()))
                })
                .collect::<Vec<_>>()
                .join(",");
            R::JsonToDdl(resp::JsonToDdl { ddl_string: ddl })
        }
    })
}

fn relation(ctx: &RequestContext, plan: Option<pb::Plan>) -> ServerResult<spec::Plan> {
    let rel = match plan.and_then(|p| p.op_type) {
        Some(pb::plan::OpType::Root(r)) => r,
        _ => {
            return Err(ServerError::Status(Status::invalid_argument(
                "AnalyzePlan needs a relation",
            )));
        }
    };
    Ok(convert_relation(&ctx.proto_context(), &rel)?)
}

fn relation_of(ctx: &RequestContext, rel: Option<pb::Relation>) -> ServerResult<spec::Plan> {
    match rel {
        Some(r) => Ok(convert_relation(&ctx.proto_context(), &r)?),
        None => Err(ServerError::Status(Status::invalid_argument(
            "missing relation",
        ))),
    }
}

fn output_schema(q: &ember_planner::ResolvedQuery) -> arrow::datatypes::Schema {
    match q.post {
        ember_planner::PostProcess::ShowString { .. } => {
            arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new(
                "show_string",
                DataType::Utf8,
                false,
            )])
        }
        ember_planner::PostProcess::HtmlString { .. } => {
            arrow::datatypes::Schema::new(vec![arrow::datatypes::Field::new(
                "html_string",
                DataType::Utf8,
                false,
            )])
        }
        _ => q.plan.schema().as_arrow().clone(),
    }
}

/// A plan's identity for sameSemantics/semanticHash: its structure without plan ids.
fn semantic_key(mut plan: spec::Plan) -> String {
    plan.strip_plan_ids();
    format!("{plan:?}")
}

/// `df.printSchema()`: `root\n |-- id: long (nullable = false)\n`.
pub fn tree_string(
    schema: &arrow::datatypes::Schema,
    names: &[String],
    level: Option<usize>,
) -> String {
    let mut out = String::from("root\n");
    for (f, name) in schema.fields().iter().zip(names) {
        field_line(&mut out, name, f.data_type(), f.is_nullable(), 1, level);
    }
    out
}

fn field_line(
    out: &mut String,
    name: &str,
    dt: &DataType,
    nullable: bool,
    depth: usize,
    level: Option<usize>,
) {
    if level.is_some_and(|l| depth > l) {
        return;
    }
    let prefix = " |   ".repeat(depth - 1);
    out.push_str(&format!(
        "{prefix} |-- {name}: {} (nullable = {nullable})\n",
        type_word(dt)
    ));
    nested_lines(out, dt, depth, level);
}

fn nested_lines(out: &mut String, dt: &DataType, depth: usize, level: Option<usize>) {
    match dt {
        DataType::Struct(fields) => {
            for f in fields {
                field_line(
                    out,
                    f.name(),
                    f.data_type(),
                    f.is_nullable(),
                    depth + 1,
                    level,
                );
            }
        }
        DataType::List(f) | DataType::LargeList(f) => {
            if level.is_some_and(|l| depth + 1 > l) {
                return;
            }
            let prefix = " |   ".repeat(depth);
            out.push_str(&format!(
                "{prefix} |-- element: {} (containsNull = {})\n",
                type_word(f.data_type()),
                f.is_nullable()
            ));
            nested_lines(out, f.data_type(), depth + 1, level);
        }
        DataType::Map(entries, _) => {
            if let DataType::Struct(kv) = entries.data_type()
                && kv.len() == 2
                && level.is_none_or(|l| depth < l)
            {
                let prefix = " |   ".repeat(depth);
                out.push_str(&format!(
                    "{prefix} |-- key: {}\n",
                    type_word(kv[0].data_type())
                ));
                nested_lines(out, kv[0].data_type(), depth + 1, level);
                out.push_str(&format!(
                    "{prefix} |-- value: {} (valueContainsNull = {})\n",
                    type_word(kv[1].data_type()),
                    kv[1].is_nullable()
                ));
                nested_lines(out, kv[1].data_type(), depth + 1, level);
            }
        }
        _ => {}
    }
}

/// The type word printSchema uses (Spark's `typeName`): `long`, `integer`, `string`, ...
fn type_word(dt: &DataType) -> String {
    match dt {
        DataType::Int8 => "byte".into(),
        DataType::Int16 => "short".into(),
        DataType::Int32 => "integer".into(),
        DataType::Int64 => "long".into(),
        DataType::Struct(_) => "struct".into(),
        DataType::List(_) | DataType::LargeList(_) => "array".into(),
        DataType::Map(..) => "map".into(),
        DataType::Null => "void".into(),
        other => types::simple_string(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{Field, Schema};

    #[test]
    fn prints_schema_like_spark() {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("xs", types::list_type(DataType::Utf8, true), true),
        ]);
        let s = tree_string(&schema, &["id".into(), "xs".into()], None);
        assert_eq!(
            s,
            "root\n |-- id: long (nullable = false)\n |-- xs: array (nullable = true)\n |    |-- element: string (containsNull = true)\n"
        );
    }

    #[test]
    fn spark_versions_are_numbers() {
        for ok in ["4.3.0", "3.5.9", "4.1.0-SNAPSHOT"] {
            assert_eq!(parse_spark_version(ok), Ok(ok.to_string()));
        }
        for bad in ["", "4", "4.3", "4.x.0", "v4.3.0", "4.3.0.1"] {
            assert!(parse_spark_version(bad).is_err(), "{bad}");
        }
    }
}
