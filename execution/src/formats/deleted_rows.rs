//! The scan of data files that have merge-on-read deletes (Iceberg's position and equality
//! delete files, Delta's deletion vectors): each file is read whole, in order, by arrow-rs's
//! parquet reader (its columns found by Iceberg field id, or by name in files without ids, and
//! cast to the table's types; columns a file does not store, such as Delta's partition
//! columns, take the file's constant values), and the rows its deletes remove are left out:
//! deleted positions, and rows whose equality columns equal a row of an equality delete file.
//! Files without deletes keep DataFusion's parquet scan; this node only holds the files with
//! deletes, so row positions are exact (no pruning, no splitting). The deletes travel in the
//! node (positions, and rows as Arrow IPC), so the scan runs on cluster workers like any other.
use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch, new_null_array};
use arrow::datatypes::{Schema, SchemaRef};
use arrow::row::{RowConverter, SortField};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use datafusion_common_runtime::SpawnedTask;
use tokio::sync::mpsc;

use crate::codec::{EncodedNode, NodeDecoder, NodeEncoder};

/// The parquet field metadata key of a column's Iceberg field id.
const FIELD_ID: &str = "PARQUET:field_id";

/// Rows of an equality delete file: its equality columns (by field id) and their values.
#[derive(Debug, Clone)]
pub struct EqualityDeletes {
    pub field_ids: Vec<i64>,
    pub rows: RecordBatch,
}

/// A data file and the deletes that apply to it.
#[derive(Debug, Clone)]
pub struct FileDeletes {
    pub path: String,
    /// Positions (row numbers from 0) deleted, sorted.
    pub positions: Vec<i64>,
    pub equality: Vec<EqualityDeletes>,
    /// Values of columns the file does not store (one row, columns named as the table's).
    pub constants: Option<RecordBatch>,
}

/// Scans `files` (spread over `partitions`), giving the table's columns `schema` (field ids
/// `field_ids`) without their deleted rows.
#[derive(Debug)]
pub struct DeletedRowsScanExec {
    schema: SchemaRef,
    field_ids: Vec<i64>,
    files: Vec<FileDeletes>,
    properties: Arc<PlanProperties>,
}

impl DeletedRowsScanExec {
    pub fn new(
        schema: SchemaRef,
        field_ids: Vec<i64>,
        files: Vec<FileDeletes>,
        partitions: usize,
    ) -> Self {
        let partitions = partitions.clamp(1, files.len().max(1));
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(partitions),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        Self {
            schema,
            field_ids,
            files,
            properties,
        }
    }
}

impl DisplayAs for DeletedRowsScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let positions: usize = self.files.iter().map(|f| f.positions.len()).sum();
        let equality: usize = self
            .files
            .iter()
            .flat_map(|f| &f.equality)
            .map(|e| e.rows.num_rows())
            .sum();
        write!(
            f,
            "DeletedRowsScan: files={}, deleted positions={positions}, equality delete rows={equality}",
            self.files.len()
        )
    }
}

impl ExecutionPlan for DeletedRowsScanExec {
    fn name(&self) -> &str {
        "DeletedRowsScan"
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
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let runtime = context.runtime_env();
        let partitions = self.properties.partitioning.partition_count();
        let files: Vec<FileDeletes> = self
            .files
            .iter()
            .enumerate()
            .filter(|(i, _)| i % partitions == partition)
            .map(|(_, f)| f.clone())
            .collect();
        let schema = self.schema.clone();
        let ids = self.field_ids.clone();
        // Read on a blocking thread, a batch at a time: the channel holds two batches, so a
        // slow consumer stops the reader rather than letting a file's rows pile up.
        let (tx, rx) = mpsc::channel::<Result<RecordBatch>>(2);
        let reader = SpawnedTask::spawn_blocking(move || {
            for file in &files {
                match read_file(file, &schema, &ids, &runtime, &tx) {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(e) => {
                        let _ = tx.blocking_send(Err(e));
                        return;
                    }
                }
            }
        });
        let stream = crate::panic::channel_stream(rx, reader);
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            stream,
        )))
    }
}

/// The column of each wanted field id in a parquet file's top-level fields (by field id; by
/// name when the file has no ids).
fn file_columns(file: &Schema, ids: &[i64], names: &Schema) -> Vec<Option<usize>> {
    let with_ids = file
        .fields()
        .iter()
        .any(|f| f.metadata().contains_key(FIELD_ID));
    ids.iter()
        .zip(names.fields())
        .map(|(id, field)| {
            file.fields().iter().position(|f| match with_ids {
                true => f.metadata().get(FIELD_ID) == Some(&id.to_string()),
                false => f.name() == field.name(),
            })
        })
        .collect()
}

/// Where a parquet file's bytes come from: a local file, bytes in memory, or an object store
/// read range by range (from a blocking thread: each range waits on the runtime).
pub enum Chunks {
    File(std::fs::File),
    Bytes(bytes::Bytes),
    Store {
        store: Arc<dyn object_store::ObjectStore>,
        location: object_store::path::Path,
        size: u64,
        runtime: tokio::runtime::Handle,
    },
}

impl Chunks {
    /// The file at `path`: a local path, or `s3a://bucket/key` (any URL `runtime`'s stores
    /// know), its key as written.
    pub fn open(
        path: &str,
        runtime: &datafusion::execution::runtime_env::RuntimeEnv,
    ) -> Result<Self> {
        if !crate::formats::storage::is_object_store_path(path) {
            let local = path
                .strip_prefix("file://")
                .or_else(|| path.strip_prefix("file:"));
            let local = local.unwrap_or(path);
            return std::fs::File::open(local)
                .map(Chunks::File)
                .map_err(|e| DataFusionError::Execution(format!("cannot read {path}: {e}")));
        }
        let (store_url, location) = crate::formats::storage::object_key(path)?;
        let store = runtime.object_store(&store_url)?;
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|e| DataFusionError::Execution(format!("no runtime to read {path}: {e}")))?;
        let head = {
            let (store, location) = (store.clone(), location.clone());
            std::thread::scope(|s| {
                s.spawn(|| {
                    use object_store::ObjectStoreExt;
                    runtime.block_on(async move { store.head(&location).await })
                })
                .join()
            })
            .map_err(|_| DataFusionError::Execution(format!("cannot read {path}")))?
            .map_err(|e| DataFusionError::Execution(format!("cannot read {path}: {e}")))?
        };
        Ok(Chunks::Store {
            store,
            location,
            size: head.size,
            runtime,
        })
    }
}

impl datafusion::parquet::file::reader::Length for Chunks {
    fn len(&self) -> u64 {
        match self {
            Chunks::File(f) => f.len(),
            Chunks::Bytes(b) => b.len() as u64,
            Chunks::Store { size, .. } => *size,
        }
    }
}

impl datafusion::parquet::file::reader::ChunkReader for Chunks {
    type T = Box<dyn std::io::Read + Send>;

    fn get_read(&self, start: u64) -> datafusion::parquet::errors::Result<Self::T> {
        match self {
            Chunks::File(f) => Ok(Box::new(f.get_read(start)?)),
            Chunks::Bytes(b) => Ok(Box::new(b.get_read(start)?)),
            // (The reader asks for a reader at each page to read its header: the object is
            // fetched lazily, 64 KiB at a time, not to its end.)
            Chunks::Store {
                store,
                location,
                size,
                runtime,
            } => Ok(Box::new(RangeReader {
                store: store.clone(),
                location: location.clone(),
                runtime: runtime.clone(),
                position: start,
                end: *size,
                buffer: bytes::Bytes::new(),
            })),
        }
    }

    fn get_bytes(
        &self,
        start: u64,
        length: usize,
    ) -> datafusion::parquet::errors::Result<bytes::Bytes> {
        use object_store::ObjectStoreExt;
        match self {
            Chunks::File(f) => f.get_bytes(start, length),
            Chunks::Bytes(b) => b.get_bytes(start, length),
            Chunks::Store {
                store,
                location,
                runtime,
                ..
            } => runtime
                .block_on(store.get_range(location, start..start + length as u64))
                .map_err(|e| datafusion::parquet::errors::ParquetError::External(Box::new(e))),
        }
    }
}

/// A part of an object read from `position` on, fetched as it is read.
struct RangeReader {
    store: Arc<dyn object_store::ObjectStore>,
    location: object_store::path::Path,
    runtime: tokio::runtime::Handle,
    position: u64,
    end: u64,
    buffer: bytes::Bytes,
}

impl std::io::Read for RangeReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use object_store::ObjectStoreExt;
        if self.buffer.is_empty() {
            if self.position >= self.end {
                return Ok(0);
            }
            let until = self.end.min(self.position + 64 * 1024);
            self.buffer = self
                .runtime
                .block_on(self.store.get_range(&self.location, self.position..until))
                .map_err(std::io::Error::other)?;
            self.position = until;
        }
        let n = out.len().min(self.buffer.len());
        out[..n].copy_from_slice(&self.buffer[..n]);
        self.buffer = self.buffer.slice(n..);
        Ok(n)
    }
}

/// Columns `ids` (typed as `schema`) of the parquet file `chunks`, whole, in order, a batch
/// at a time.
pub fn read_columns(
    chunks: Chunks,
    schema: &Schema,
    ids: &[i64],
) -> Result<impl Iterator<Item = Result<RecordBatch>>> {
    use datafusion::parquet::arrow::ProjectionMask;
    use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let builder = ParquetRecordBatchReaderBuilder::try_new(chunks)?;
    let columns = file_columns(builder.schema(), ids, schema);
    let mut read: Vec<usize> = columns.iter().flatten().copied().collect();
    read.sort_unstable();
    read.dedup();
    let mask = ProjectionMask::roots(builder.parquet_schema(), read.iter().copied());
    let reader = builder.with_projection(mask).build()?;
    let schema = Arc::new(schema.clone());
    Ok(reader.map(move |batch| {
        let batch = batch?;
        let rows = batch.num_rows();
        let mut arrays: Vec<ArrayRef> = vec![];
        for (i, field) in schema.fields().iter().enumerate() {
            let array = match columns[i] {
                Some(c) => {
                    let at = read.iter().position(|r| *r == c).unwrap_or(0);
                    let a = batch.column(at);
                    if a.data_type() == field.data_type() {
                        a.clone()
                    } else {
                        arrow::compute::cast(a, field.data_type())?
                    }
                }
                None => new_null_array(field.data_type(), rows),
            };
            arrays.push(array);
        }
        let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(RecordBatch::try_new_with_options(
            schema.clone(),
            arrays,
            &options,
        )?)
    }))
}

/// An equality delete file's rows as a file's read compares them: the columns of the read
/// that hold its equality columns, and its rows' bytes in the converter's row format.
struct EqualitySet {
    columns: Vec<usize>,
    converter: RowConverter,
    rows: HashSet<Box<[u8]>>,
}

/// One data file without its deleted rows, sent batch by batch through `tx`. False: the
/// stream was dropped (stop reading).
fn read_file(
    file: &FileDeletes,
    schema: &SchemaRef,
    ids: &[i64],
    runtime: &datafusion::execution::runtime_env::RuntimeEnv,
    tx: &mpsc::Sender<Result<RecordBatch>>,
) -> Result<bool> {
    // Equality deletes need their columns read too: read them with the wanted ones.
    let mut read_ids = ids.to_vec();
    let mut read_fields: Vec<arrow::datatypes::FieldRef> =
        schema.fields().iter().cloned().collect();
    for e in &file.equality {
        for (id, f) in e.field_ids.iter().zip(e.rows.schema().fields()) {
            if !read_ids.contains(id) {
                read_ids.push(*id);
                read_fields.push(f.clone());
            }
        }
    }
    let read_schema = Schema::new(read_fields);
    // Each equality delete file's rows in Arrow's row format: a data row whose key has the
    // same bytes (same converter) is deleted.
    let sets: Vec<EqualitySet> = file
        .equality
        .iter()
        .map(|e| {
            let converter = RowConverter::new(
                e.rows
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| SortField::new(f.data_type().clone()))
                    .collect(),
            )?;
            let rows = converter.convert_columns(e.rows.columns())?;
            let set = rows.iter().map(|r| Box::from(r.as_ref())).collect();
            let at = e
                .field_ids
                .iter()
                .map(|id| read_ids.iter().position(|r| r == id).unwrap_or(0))
                .collect();
            Ok(EqualitySet {
                columns: at,
                converter,
                rows: set,
            })
        })
        .collect::<Result<_>>()?;
    let mut offset: i64 = 0;
    let mut next_delete = file.positions.partition_point(|p| *p < 0);
    let chunks = Chunks::open(&file.path, runtime)?;
    for batch in read_columns(chunks, &read_schema, &read_ids)? {
        let batch = batch?;
        let rows = batch.num_rows();
        let mut keep = vec![true; rows];
        while next_delete < file.positions.len()
            && file.positions[next_delete] < offset + rows as i64
        {
            keep[(file.positions[next_delete] - offset) as usize] = false;
            next_delete += 1;
        }
        for set in &sets {
            let columns: Vec<ArrayRef> = set
                .columns
                .iter()
                .map(|i| batch.column(*i).clone())
                .collect();
            let keys = set.converter.convert_columns(&columns)?;
            for (row, k) in keep.iter_mut().zip(keys.iter()) {
                if *row && set.rows.contains(k.as_ref()) {
                    *row = false;
                }
            }
        }
        offset += rows as i64;
        let kept = arrow::compute::filter_record_batch(&batch, &BooleanArray::from(keep))?;
        let kept = kept.project(&(0..schema.fields().len()).collect::<Vec<_>>())?;
        if tx
            .blocking_send(with_constants(kept, file.constants.as_ref()))
            .is_err()
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `batch` with the columns `constants` has replaced by its values.
fn with_constants(batch: RecordBatch, constants: Option<&RecordBatch>) -> Result<RecordBatch> {
    let Some(constants) = constants else {
        return Ok(batch);
    };
    let rows = batch.num_rows();
    let schema = batch.schema();
    let mut columns = batch.columns().to_vec();
    for (i, field) in schema.fields().iter().enumerate() {
        if let Some(value) = constants.column_by_name(field.name()) {
            let repeated = arrow::compute::take(
                value,
                &arrow::array::UInt32Array::from(vec![0u32; rows]),
                None,
            )?;
            columns[i] = arrow::compute::cast(&repeated, field.data_type())?;
        }
    }
    let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        schema, columns, &options,
    )?)
}

fn ipc(batch: &RecordBatch) -> Result<Vec<u8>> {
    let mut out = vec![];
    {
        let mut writer = arrow::ipc::writer::StreamWriter::try_new(&mut out, &batch.schema())?;
        writer.write(batch)?;
        writer.finish()?;
    }
    Ok(out)
}

fn from_ipc(bytes: &[u8]) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let reader = arrow::ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)?;
    let schema = reader.schema();
    let batches = reader.collect::<std::result::Result<Vec<_>, _>>()?;
    Ok((schema, batches))
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct EqualityMessage {
    #[prost(int64, repeated, tag = "1")]
    field_ids: Vec<i64>,
    /// The rows, as an Arrow IPC stream.
    #[prost(bytes = "vec", tag = "2")]
    rows: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct FileDeletesMessage {
    #[prost(string, tag = "1")]
    path: String,
    #[prost(int64, repeated, tag = "2")]
    positions: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    equality: Vec<EqualityMessage>,
    /// The constant columns (one row), as an Arrow IPC stream; empty: none.
    #[prost(bytes = "vec", tag = "4")]
    constants: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DeletedRowsScanMessage {
    /// The output schema, as an Arrow IPC stream without batches.
    #[prost(bytes = "vec", tag = "1")]
    schema: Vec<u8>,
    #[prost(int64, repeated, tag = "2")]
    field_ids: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    files: Vec<FileDeletesMessage>,
    #[prost(uint64, tag = "4")]
    partitions: u64,
}

impl EncodedNode for DeletedRowsScanExec {
    const NAME: &'static str = "deleted_rows_scan";
    type Message = DeletedRowsScanMessage;

    fn to_message(&self, _encoder: &NodeEncoder) -> Result<DeletedRowsScanMessage> {
        let files = self
            .files
            .iter()
            .map(|f| {
                Ok(FileDeletesMessage {
                    path: f.path.clone(),
                    positions: f.positions.clone(),
                    equality: f
                        .equality
                        .iter()
                        .map(|e| {
                            Ok(EqualityMessage {
                                field_ids: e.field_ids.clone(),
                                rows: ipc(&e.rows)?,
                            })
                        })
                        .collect::<Result<_>>()?,
                    constants: match &f.constants {
                        Some(c) => ipc(c)?,
                        None => vec![],
                    },
                })
            })
            .collect::<Result<_>>()?;
        Ok(DeletedRowsScanMessage {
            schema: ipc(&RecordBatch::new_empty(self.schema.clone()))?,
            field_ids: self.field_ids.clone(),
            files,
            partitions: self.properties.partitioning.partition_count() as u64,
        })
    }

    fn from_message(
        m: DeletedRowsScanMessage,
        _inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let (schema, _) = from_ipc(&m.schema)?;
        if schema.fields().len() != m.field_ids.len() {
            return Err(DataFusionError::Internal(
                "an Iceberg deleted-rows scan whose columns and field ids differ".into(),
            ));
        }
        let files = m
            .files
            .into_iter()
            .map(|f| {
                let constants = match f.constants.is_empty() {
                    true => None,
                    false => {
                        let (schema, batches) = from_ipc(&f.constants)?;
                        Some(arrow::compute::concat_batches(&schema, &batches)?)
                    }
                };
                Ok(FileDeletes {
                    path: f.path,
                    positions: f.positions,
                    constants,
                    equality: f
                        .equality
                        .into_iter()
                        .map(|e| {
                            let (schema, batches) = from_ipc(&e.rows)?;
                            Ok(EqualityDeletes {
                                field_ids: e.field_ids,
                                rows: arrow::compute::concat_batches(&schema, &batches)?,
                            })
                        })
                        .collect::<Result<_>>()?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Arc::new(DeletedRowsScanExec::new(
            schema,
            m.field_ids,
            files,
            m.partitions as usize,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::EmberCodec;
    use arrow::array::Int64Array;
    use arrow::datatypes::{DataType, Field};
    use datafusion::physical_plan::displayable;
    use datafusion::prelude::SessionContext;

    #[test]
    fn a_deleted_rows_scan_crosses_processes() {
        let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
        let rows = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(vec![Some(2), None]))],
        )
        .unwrap();
        let files = vec![FileDeletes {
            path: "/t/data/a.parquet".into(),
            positions: vec![0, 5],
            equality: vec![EqualityDeletes {
                field_ids: vec![1],
                rows: rows.clone(),
            }],
            constants: Some(rows),
        }];
        let plan: Arc<dyn ExecutionPlan> =
            Arc::new(DeletedRowsScanExec::new(schema, vec![1], files, 4));
        let codec = EmberCodec::new(crate::formats::codec_parts());
        let bytes = codec.encode_plan(plan.clone()).unwrap();
        let back = codec
            .decode_plan(&bytes, &SessionContext::new().task_ctx())
            .unwrap();
        let shown = |p: &Arc<dyn ExecutionPlan>| displayable(p.as_ref()).indent(true).to_string();
        assert_eq!(shown(&back), shown(&plan));
        let back = back.downcast_ref::<DeletedRowsScanExec>().unwrap();
        assert_eq!(back.files[0].positions, vec![0, 5]);
        assert_eq!(back.files[0].equality[0].rows.num_rows(), 2);
        assert_eq!(back.files[0].constants.as_ref().unwrap().num_rows(), 2);
        assert_eq!(back.schema().fields().len(), 1);
    }
}
