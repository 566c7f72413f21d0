//! Compressed CSV and JSON file scans on the wire. `datafusion-proto` does not carry a file
//! scan's compression, so a worker would read gzip bytes as text. Before a plan is encoded,
//! such scans are wrapped in a [`CompressedScanExec`], which the execution codec writes as the
//! scan plus its compression; decoding gives back the scan with its compression restored.

use std::fmt;
use std::sync::Arc;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder};
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, internal_err};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties};

#[derive(Debug)]
pub struct CompressedScanExec {
    scan: Arc<dyn ExecutionPlan>,
    compression: FileCompressionType,
}

/// The file scan's configuration, if `plan` is a file scan.
fn file_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<&FileScanConfig> {
    plan.downcast_ref::<DataSourceExec>()?
        .data_source()
        .downcast_ref::<FileScanConfig>()
}

impl CompressedScanExec {
    /// Wrap every compressed file scan of `plan` (for encoding).
    pub fn wrap_all(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(plan
            .transform_up(|p| match file_scan(&p).map(|c| c.file_compression_type) {
                Some(c) if c.is_compressed() => Ok(Transformed::yes(Arc::new(Self {
                    scan: p,
                    compression: c,
                })
                    as Arc<dyn ExecutionPlan>)),
                _ => Ok(Transformed::no(p)),
            })?
            .data)
    }

    pub fn scan(&self) -> &Arc<dyn ExecutionPlan> {
        &self.scan
    }

    pub fn compression(&self) -> FileCompressionType {
        self.compression
    }

    /// The decoded scan with its compression restored.
    pub fn restore(
        scan: Arc<dyn ExecutionPlan>,
        compression: FileCompressionType,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(config) = file_scan(&scan) else {
            return internal_err!("a compressed scan that is not a file scan");
        };
        let mut config = config.clone();
        config.file_compression_type = compression;
        Ok(DataSourceExec::from_data_source(config))
    }
}

impl DisplayAs for CompressedScanExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "CompressedScanExec: {:?} ",
            self.compression.get_variant()
        )?;
        self.scan.fmt_as(t, f)
    }
}

impl ExecutionPlan for CompressedScanExec {
    fn name(&self) -> &str {
        "CompressedScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.scan.properties()
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
            internal_err!("CompressedScanExec has no children")
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        self.scan.execute(partition, context)
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CompressedScanMessage {
    #[prost(bytes = "vec", tag = "1")]
    scan: Vec<u8>,
    /// DataFusion's name of the compression (`gzip`, `zstd`, ...).
    #[prost(string, tag = "2")]
    compression: String,
}

impl EncodedNode for CompressedScanExec {
    const NAME: &'static str = "compressed_scan";
    type Message = CompressedScanMessage;

    fn to_message(&self, encoder: &NodeEncoder) -> Result<CompressedScanMessage> {
        Ok(CompressedScanMessage {
            scan: encoder.plan(self.scan().clone())?,
            compression: self.compression().get_variant().to_string(),
        })
    }

    fn from_message(
        c: CompressedScanMessage,
        _inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let compression = c
            .compression
            .parse::<datafusion::common::parsers::CompressionTypeVariant>()?;
        CompressedScanExec::restore(decoder.plan(&c.scan)?, compression.into())
    }
}
