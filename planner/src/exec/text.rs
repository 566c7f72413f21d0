//! `spark.read.text`: every line of the files is a row of one string column, `value` (lines
//! end with `\n` or `\r\n`; a last line without one counts, as in Spark). Files are local
//! paths, read on a blocking thread per partition, decompressed by their suffix.

use std::fmt;
use std::io::BufRead;
use std::sync::Arc;

use arrow::array::{RecordBatch, RecordBatchOptions, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::datasource::TableType;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use datafusion_common_runtime::SpawnedTask;
use tokio::sync::mpsc;

pub fn text_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("value", DataType::Utf8, true)]))
}

/// The text files a read covers.
#[derive(Debug)]
pub struct TextTable {
    files: Vec<String>,
}

impl TextTable {
    pub fn new(files: Vec<String>) -> Self {
        Self { files }
    }
}

#[async_trait]
impl TableProvider for TextTable {
    fn schema(&self) -> SchemaRef {
        text_schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let partitions = state
            .config()
            .target_partitions()
            .clamp(1, self.files.len().max(1));
        let mut groups = vec![Vec::new(); partitions];
        for (i, f) in self.files.iter().enumerate() {
            groups[i % partitions].push(f.clone());
        }
        let with_value = projection.is_none_or(|p| !p.is_empty());
        Ok(Arc::new(TextScanExec::new(groups, with_value)))
    }
}

#[derive(Debug)]
pub struct TextScanExec {
    groups: Vec<Vec<String>>,
    /// `false` produces batches without columns (only row counts, for `count(*)`).
    with_value: bool,
    properties: Arc<PlanProperties>,
}

impl TextScanExec {
    pub fn new(groups: Vec<Vec<String>>, with_value: bool) -> Self {
        let schema = if with_value {
            text_schema()
        } else {
            Arc::new(Schema::empty())
        };
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema),
            Partitioning::UnknownPartitioning(groups.len().max(1)),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Self {
            groups,
            with_value,
            properties,
        }
    }

    pub fn groups(&self) -> &[Vec<String>] {
        &self.groups
    }

    pub fn with_value(&self) -> bool {
        self.with_value
    }
}

impl DisplayAs for TextScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let files: usize = self.groups.iter().map(Vec::len).sum();
        write!(
            f,
            "TextScanExec: files={files}, partitions={}",
            self.groups.len()
        )
    }
}

impl ExecutionPlan for TextScanExec {
    fn name(&self) -> &str {
        "TextScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if children.is_empty() {
            Ok(self)
        } else {
            internal_err!("TextScanExec has no children")
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let files = self.groups.get(partition).cloned().unwrap_or_default();
        let schema = self.properties.eq_properties.schema().clone();
        let batch_size = context.session_config().batch_size();
        let (tx, mut rx) = mpsc::channel::<Result<RecordBatch>>(2);
        let out = schema.clone();
        let with_value = self.with_value;
        let reader = SpawnedTask::spawn_blocking(move || {
            if let Err(e) = read_lines(&files, batch_size, with_value, &out, &tx) {
                let _ = tx.blocking_send(Err(e));
            }
        });
        let stream = futures::stream::poll_fn(move |cx| {
            // The reader lives as long as the stream: dropping the stream aborts it.
            let _ = &reader;
            rx.poll_recv(cx)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, stream)))
    }
}

fn read_lines(
    files: &[String],
    batch_size: usize,
    with_value: bool,
    schema: &SchemaRef,
    tx: &mpsc::Sender<Result<RecordBatch>>,
) -> Result<()> {
    let mut lines = StringBuilder::new();
    let mut count = 0usize;
    let flush = |lines: &mut StringBuilder, count: &mut usize| -> Result<bool> {
        let batch = if with_value {
            RecordBatch::try_new(schema.clone(), vec![Arc::new(lines.finish())])?
        } else {
            RecordBatch::try_new_with_options(
                schema.clone(),
                vec![],
                &RecordBatchOptions::new().with_row_count(Some(*count)),
            )?
        };
        *count = 0;
        Ok(tx.blocking_send(Ok(batch)).is_ok())
    };
    for file in files {
        let path = std::path::Path::new(file);
        let opened = std::fs::File::open(path)
            .map_err(|e| DataFusionError::Execution(format!("cannot read {file}: {e}")))?;
        let compression = crate::datasource::compression_of(file);
        let mut reader = std::io::BufReader::new(compression.convert_read(opened)?);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| DataFusionError::Execution(format!("cannot read {file}: {e}")))?;
            if n == 0 {
                break;
            }
            if line.last() == Some(&b'\n') {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
            }
            if with_value {
                lines.append_value(String::from_utf8_lossy(&line));
            }
            count += 1;
            if count == batch_size && !flush(&mut lines, &mut count)? {
                return Ok(());
            }
        }
    }
    if count > 0 {
        flush(&mut lines, &mut count)?;
    }
    Ok(())
}
