//! `input_file_name()`, `input_file_block_start()`, `input_file_block_length()`.
//!
//! Spark evaluates them from the file its task is reading: a row's file when the expression
//! runs in the stage that scans it, `''`/-1 after an exchange (an aggregation, a sort, a
//! limit) or where no file is read. The resolver leaves a marker per call
//! (`Native::InputFile`) and, once the node holding it is built, replaces the marker by what
//! the node's input gives: literals, or DataFusion's `input_file_name()`, which DataFusion's
//! optimizer moves into the file scan below and the scan turns into each file's location.

use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::source_as_provider;
use datafusion::logical_expr::{Expr, LogicalPlan, lit};

use crate::datasource::unfinished::FinishingCommits;
use crate::error::{PlanError, PlanResult};
use crate::functions::native::input_file::{self, InputFileField};
use crate::functions::native::{Native, NativeUdf};

/// What a node's input says about the files its rows come from.
#[derive(Debug, Clone, PartialEq)]
enum Files {
    /// No file is being read where the node runs.
    None,
    /// Rows straight from a file scan of the object store at this URL (`file:///`).
    Scan(String),
    /// Rows that Ember cannot trace to their files here.
    Unsupported(String),
}

/// The field of an `input_file_*` marker.
fn marker(e: &Expr) -> Option<InputFileField> {
    let Expr::ScalarFunction(f) = e else {
        return None;
    };
    match f.func.inner().downcast_ref::<NativeUdf>()?.kind() {
        Native::InputFile { field } => Some(*field),
        _ => None,
    }
}

/// `plan` with the markers of its nodes replaced; `Ok(n)` counts the replaced ones.
pub(super) fn resolve_input_files(plan: LogicalPlan) -> PlanResult<(LogicalPlan, usize)> {
    let mut replaced = 0;
    let mut failure = None;
    let out = plan.transform_up(|node| {
        let mut holds = false;
        node.apply_expressions(|e| {
            holds = e.exists(|e| Ok(marker(e).is_some()))?;
            Ok(if holds {
                TreeNodeRecursion::Stop
            } else {
                TreeNodeRecursion::Continue
            })
        })?;
        if !holds {
            return Ok(Transformed::no(node));
        }
        let files = input_files(&node);
        let rewritten = node.map_expressions(|e| {
            e.transform_up(|e| {
                let Some(field) = marker(&e) else {
                    return Ok(Transformed::no(e));
                };
                replaced += 1;
                match replacement(field, &files) {
                    Ok(e) => Ok(Transformed::yes(e)),
                    Err(error) => {
                        failure.get_or_insert(error);
                        Ok(Transformed::no(e))
                    }
                }
            })
        })?;
        // The node's schema follows its new expressions (their nullability).
        rewritten.map_data(|p| p.recompute_schema())
    })?;
    match failure {
        Some(error) => Err(error),
        None => Ok((out.data, replaced)),
    }
}

fn replacement(field: InputFileField, files: &Files) -> PlanResult<Expr> {
    let location = || datafusion::functions::core::expr_fn::input_file_name();
    Ok(match (files, field) {
        (Files::None, InputFileField::Name) => lit(""),
        (Files::None, _) => lit(-1i64),
        (Files::Scan(store), InputFileField::Name) => NativeUdf::udf(Native::FileUri {
            prefix: store.clone(),
        })
        .call(vec![location()]),
        // Ember reads a file's rows as one block.
        (Files::Scan(_), InputFileField::BlockStart) => lit(0i64),
        (Files::Scan(store), InputFileField::BlockLength) if store == input_file::LOCAL => {
            NativeUdf::udf(Native::LocalFileSize).call(vec![location()])
        }
        (Files::Scan(store), InputFileField::BlockLength) => {
            return Err(PlanError::Unsupported(format!(
                "input_file_block_length() of files in {store}"
            )));
        }
        (Files::Unsupported(what), _) => {
            return Err(PlanError::Unsupported(format!("{}() {what}", field.name())));
        }
    })
}

/// The files of the rows a node evaluates its expressions on.
fn input_files(node: &LogicalPlan) -> Files {
    let inputs = node.inputs();
    // DataFusion moves the call into the scan from projections, filters, sorts, aggregations
    // and joins, not from a window function's arguments.
    if matches!(node, LogicalPlan::Window(_))
        && !matches!(union(inputs.iter().map(|i| files_of(i))), Files::None)
    {
        return Files::Unsupported("in a window function over files".into());
    }
    if matches!(node, LogicalPlan::Join(_)) {
        return joined(&inputs);
    }
    union(inputs.into_iter().map(files_of))
}

/// The table a read scans (a read that finishes a crashed commit first wraps it).
fn read_table(provider: &Arc<dyn TableProvider>) -> &dyn TableProvider {
    match provider.downcast_ref::<FinishingCommits>() {
        Some(finishing) => finishing.inner().as_ref(),
        None => provider.as_ref(),
    }
}

/// The files of the rows `plan` gives.
fn files_of(plan: &LogicalPlan) -> Files {
    match plan {
        LogicalPlan::TableScan(scan) => match source_as_provider(&scan.source) {
            Ok(provider) => match read_table(&provider).downcast_ref::<ListingTable>() {
                Some(table) => match table.table_paths().first() {
                    Some(url) => Files::Scan(url.object_store().as_str().to_string()),
                    None => Files::None,
                },
                None if read_table(&provider)
                    .downcast_ref::<crate::datasource::text::TextTable>()
                    .is_some() =>
                {
                    Files::Unsupported("of text files".into())
                }
                None => Files::None,
            },
            Err(_) => Files::None,
        },
        LogicalPlan::Projection(_) | LogicalPlan::Filter(_) | LogicalPlan::SubqueryAlias(_) => {
            union(plan.inputs().into_iter().map(files_of))
        }
        LogicalPlan::Union(u) => union(u.inputs.iter().map(|i| files_of(i))),
        // Numbering the rows keeps them where they are.
        LogicalPlan::Extension(e)
            if e.node
                .as_any()
                .is::<crate::logical::partition_ids::PartitionIdsNode>() =>
        {
            union(plan.inputs().into_iter().map(files_of))
        }
        // Spark reads these rows after an exchange (or computes them): no file.
        LogicalPlan::Aggregate(_)
        | LogicalPlan::Sort(_)
        | LogicalPlan::Limit(_)
        | LogicalPlan::Distinct(_)
        | LogicalPlan::Window(_)
        | LogicalPlan::Repartition(_)
        | LogicalPlan::EmptyRelation(_)
        | LogicalPlan::Values(_) => Files::None,
        LogicalPlan::Join(_) => joined(&plan.inputs()),
        other => match union(other.inputs().into_iter().map(files_of)) {
            Files::None => Files::None,
            _ => Files::Unsupported(format!("over {}", node_name(other))),
        },
    }
}

/// Rows of a join: Spark's answer depends on its join strategy.
fn joined(inputs: &[&LogicalPlan]) -> Files {
    match union(inputs.iter().map(|i| files_of(i))) {
        Files::None => Files::None,
        _ => Files::Unsupported("over a join of files".into()),
    }
}

/// Rows from several inputs: all from one object store's files, or none from files.
fn union(files: impl Iterator<Item = Files>) -> Files {
    let mut out: Option<Files> = None;
    for f in files {
        out = Some(match (out, f) {
            (_, Files::Unsupported(w)) | (Some(Files::Unsupported(w)), _) => {
                return Files::Unsupported(w);
            }
            (None, f) => f,
            (Some(Files::None), Files::None) => Files::None,
            (Some(Files::Scan(a)), Files::Scan(b)) if a == b => Files::Scan(a),
            (Some(Files::Scan(_)), Files::Scan(_)) => {
                return Files::Unsupported("of files in different stores together".into());
            }
            (Some(_), _) => {
                return Files::Unsupported("of files and other rows together".into());
            }
        });
    }
    out.unwrap_or(Files::None)
}

fn node_name(plan: &LogicalPlan) -> String {
    match plan {
        LogicalPlan::Extension(e) => e.node.name().to_string(),
        other => other
            .display()
            .to_string()
            .split(':')
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}
