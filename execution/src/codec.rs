//! Plans on the wire: DataFusion's `datafusion-proto` with Ember's extensions.
//!
//! Ember's plan nodes and functions are encoded by [`CodecPart`]s, which [`EmberCodec`]
//! composes into DataFusion's `PhysicalExtensionCodec`: each extension is written as an
//! `ExtensionEnvelope` (the part's name and its payload), and decoded by the part of that
//! name. A plan node serializes itself: its module implements [`EncodedNode`] (a protobuf
//! message of its settings) or, for a file format's scan, [`EncodedFileSource`], and the node
//! is listed once, one line, in the list of parts of its crate (`plan::codec::parts` here, the
//! planner's `datasource::codec_parts` and `functions::codec_parts`); Ember's functions do the
//! same with [`EncodedUdf`] and [`EncodedUdaf`]. Built-in DataFusion functions are written by
//! name and found again in the worker's registry.
//! Compressed file scans are wrapped in [`CompressedScanExec`](crate::plan::CompressedScanExec)
//! before encoding, so that their compression survives the trip.

use std::any::Any;
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

use arrow::datatypes::{DataType, Schema};
use datafusion::common::{DataFusionError, Result, internal_err};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, AggregateUDFImpl, HigherOrderUDF, ScalarUDF, ScalarUDFImpl, WindowUDF,
};
use datafusion::physical_expr::{LexOrdering, PhysicalExpr};
use datafusion::physical_plan::{ExecutionPlan, Partitioning};
use datafusion_proto::physical_plan::from_proto::{
    parse_physical_exprs, parse_physical_sort_exprs, parse_protobuf_file_scan_config,
    parse_protobuf_partitioning,
};
use datafusion_proto::physical_plan::to_proto::{
    serialize_file_scan_config, serialize_partitioning, serialize_physical_exprs,
    serialize_physical_sort_exprs,
};
use datafusion_proto::physical_plan::{
    AsExecutionPlan, PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalPlanNodeExt,
    PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf::{self, PhysicalPlanNode};
pub use datafusion_proto::protobuf::{ArrowType, PhysicalExprNode};
use ember_protos::ember::worker::ExtensionEnvelope;
use prost::Message;

/// Lets a part encode what its node holds of DataFusion's own (expressions, partitioning).
pub struct NodeEncoder<'a> {
    codec: &'a dyn PhysicalExtensionCodec,
    converter: &'a dyn PhysicalProtoConverterExtension,
}

impl NodeEncoder<'_> {
    pub fn partitioning(&self, partitioning: &Partitioning) -> Result<protobuf::Partitioning> {
        serialize_partitioning(partitioning, self.codec, self.converter)
    }

    /// The files, schema and projection of a scan of a file source DataFusion does not
    /// know (the node encodes its source's own settings).
    pub fn file_scan(&self, config: &FileScanConfig) -> Result<Vec<u8>> {
        Ok(serialize_file_scan_config(config, self.codec, self.converter)?.encode_to_vec())
    }

    /// A whole plan, as a part of a node (for nodes that wrap others).
    pub fn plan(&self, plan: Arc<dyn ExecutionPlan>) -> Result<Vec<u8>> {
        Ok(PhysicalPlanNode::try_from_physical_plan_with_converter(
            plan,
            self.codec,
            self.converter,
        )?
        .encode_to_vec())
    }

    /// Expressions over the node's input.
    pub fn exprs(
        &self,
        exprs: &[Arc<dyn PhysicalExpr>],
    ) -> Result<Vec<protobuf::PhysicalExprNode>> {
        serialize_physical_exprs(exprs, self.codec, self.converter)
    }

    pub fn sort_exprs(
        &self,
        ordering: Option<&LexOrdering>,
    ) -> Result<Vec<protobuf::PhysicalSortExprNode>> {
        match ordering {
            Some(o) => serialize_physical_sort_exprs(o.iter().cloned(), self.codec, self.converter),
            None => Ok(vec![]),
        }
    }
}

/// The decoding side of [`NodeEncoder`].
pub struct NodeDecoder<'a> {
    context: PhysicalPlanDecodeContext<'a>,
    converter: &'a dyn PhysicalProtoConverterExtension,
}

impl NodeDecoder<'_> {
    pub fn partitioning(
        &self,
        partitioning: &protobuf::Partitioning,
        schema: &Schema,
    ) -> Result<Partitioning> {
        parse_protobuf_partitioning(Some(partitioning), &self.context, schema, self.converter)?
            .ok_or_else(|| DataFusionError::Internal("empty partitioning".into()))
    }

    /// The decoding side of [`NodeEncoder::plan`].
    /// A scan written by [`NodeEncoder::file_scan`], reading through the source `source`
    /// makes for the scan's table schema.
    pub fn file_scan(
        &self,
        bytes: &[u8],
        source: impl FnOnce(TableSchema) -> Result<Arc<dyn FileSource>>,
    ) -> Result<FileScanConfig> {
        let proto = protobuf::FileScanExecConf::decode(bytes)
            .map_err(|e| DataFusionError::Internal(format!("bad file scan: {e}")))?;
        let source = source(FileScanConfig::parse_table_schema_from_proto(&proto)?)?;
        parse_protobuf_file_scan_config(&proto, &self.context, self.converter, source)
    }

    pub fn plan(&self, bytes: &[u8]) -> Result<Arc<dyn ExecutionPlan>> {
        let node = PhysicalPlanNode::decode(bytes)
            .map_err(|e| DataFusionError::Internal(format!("bad plan: {e}")))?;
        node.try_into_physical_plan_with_context(&self.context, self.converter)
    }

    /// The decoding side of [`NodeEncoder::exprs`], over an input of `schema`.
    pub fn exprs(
        &self,
        exprs: &[protobuf::PhysicalExprNode],
        schema: &Schema,
    ) -> Result<Vec<Arc<dyn PhysicalExpr>>> {
        parse_physical_exprs(exprs, &self.context, schema, self.converter)
    }

    pub fn sort_exprs(
        &self,
        exprs: &[protobuf::PhysicalSortExprNode],
        schema: &Schema,
    ) -> Result<Option<LexOrdering>> {
        let exprs = parse_physical_sort_exprs(exprs, &self.context, schema, self.converter)?;
        Ok(LexOrdering::new(exprs))
    }
}

/// Encodes the plan nodes and functions of one module.
pub trait CodecPart: Debug + Send + Sync {
    /// A stable name written into serialized plans.
    fn name(&self) -> &'static str;

    /// `Some(payload)` if this part owns the node.
    fn encode_node(
        &self,
        _node: &Arc<dyn ExecutionPlan>,
        _encoder: &NodeEncoder,
    ) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }

    fn decode_node(
        &self,
        _payload: &[u8],
        _inputs: &[Arc<dyn ExecutionPlan>],
        _decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        internal_err!("{} encodes no plan nodes", self.name())
    }

    /// `Some(payload)` if this part owns the function (it must then decode it).
    fn encode_udf(&self, _udf: &ScalarUDF) -> Option<Vec<u8>> {
        None
    }

    fn decode_udf(&self, name: &str, _payload: &[u8]) -> Result<Arc<ScalarUDF>> {
        internal_err!("{} cannot decode function {name}", self.name())
    }

    fn encode_udaf(&self, _udaf: &AggregateUDF) -> Option<Vec<u8>> {
        None
    }

    fn decode_udaf(&self, name: &str, _payload: &[u8]) -> Result<Arc<AggregateUDF>> {
        internal_err!("{} cannot decode aggregate {name}", self.name())
    }

    fn encode_higher_order(&self, _function: &HigherOrderUDF) -> Option<Vec<u8>> {
        None
    }

    fn decode_higher_order(&self, name: &str, _payload: &[u8]) -> Result<Arc<HigherOrderUDF>> {
        internal_err!("{} cannot decode higher-order function {name}", self.name())
    }
}

/// A plan node that writes itself into serialized plans: implemented in the node's module,
/// listed once with [`node_part`].
pub trait EncodedNode: ExecutionPlan + Sized + 'static {
    /// The stable name written into serialized plans.
    const NAME: &'static str;
    /// The node's settings on the wire.
    type Message: Message + Default;

    fn to_message(&self, encoder: &NodeEncoder) -> Result<Self::Message>;

    fn from_message(
        message: Self::Message,
        inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>>;
}

/// A file format's scan (a `DataSourceExec` of a `FileScanConfig` with this source), written
/// as the scan DataFusion knows plus the source's own options.
pub trait EncodedFileSource: FileSource + Sized + 'static {
    /// The stable name written into serialized plans.
    const NAME: &'static str;

    /// The source's own settings.
    fn options(&self) -> Result<Vec<u8>>;

    fn from_options(options: &[u8], schema: TableSchema) -> Result<Arc<dyn FileSource>>;
}

/// The part of one [`EncodedNode`].
pub fn node_part<T: EncodedNode>() -> Arc<dyn CodecPart> {
    Arc::new(NodePart::<T>(PhantomData))
}

/// The part of one [`EncodedFileSource`].
pub fn file_source_part<T: EncodedFileSource>() -> Arc<dyn CodecPart> {
    Arc::new(FileSourcePart::<T>(PhantomData))
}

/// The single input of a node that takes one.
pub fn one_input(inputs: &[Arc<dyn ExecutionPlan>]) -> Result<Arc<dyn ExecutionPlan>> {
    match inputs {
        [input] => Ok(input.clone()),
        _ => internal_err!("expected one input, got {}", inputs.len()),
    }
}

/// A scalar function that writes itself into serialized plans: implemented in the function's
/// module, listed once with [`udf_part`].
pub trait EncodedUdf: ScalarUDFImpl + Sized + 'static {
    /// The stable name written into serialized plans.
    const NAME: &'static str;
    /// The function's settings on the wire.
    type Message: Message + Default;

    /// `None` when this instance is not Ember's to encode (a built-in found by name).
    fn to_message(&self) -> Option<Self::Message>;

    fn from_message(name: &str, message: Self::Message) -> Result<Arc<ScalarUDF>>;
}

/// [`EncodedUdf`] for aggregate functions ([`udaf_part`]).
pub trait EncodedUdaf: AggregateUDFImpl + Sized + 'static {
    const NAME: &'static str;
    type Message: Message + Default;

    fn to_message(&self) -> Option<Self::Message>;

    fn from_message(name: &str, message: Self::Message) -> Result<Arc<AggregateUDF>>;
}

/// The part of one [`EncodedUdf`].
pub fn udf_part<T: EncodedUdf>() -> Arc<dyn CodecPart> {
    Arc::new(UdfPart::<T>(PhantomData))
}

/// The part of one [`EncodedUdaf`].
pub fn udaf_part<T: EncodedUdaf>() -> Arc<dyn CodecPart> {
    Arc::new(UdafPart::<T>(PhantomData))
}

/// A data type in a function's message.
pub fn data_type_message(data_type: &DataType) -> Option<ArrowType> {
    ArrowType::try_from(data_type).ok()
}

/// The data type a [`data_type_message`] wrote.
pub fn data_type_of(message: Option<&ArrowType>) -> Result<DataType> {
    match message {
        Some(m) => Ok(DataType::try_from(m)?),
        None => internal_err!("a function message without its data type"),
    }
}

fn bad_message(what: &str, e: prost::DecodeError) -> DataFusionError {
    DataFusionError::Internal(format!("bad {what}: {e}"))
}

struct UdfPart<T>(PhantomData<fn() -> T>);

impl<T> Debug for UdfPart<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UdfPart({})", std::any::type_name::<T>())
    }
}

impl<T: EncodedUdf> CodecPart for UdfPart<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn encode_udf(&self, udf: &ScalarUDF) -> Option<Vec<u8>> {
        let inner: &dyn Any = udf.inner().as_ref();
        Some(inner.downcast_ref::<T>()?.to_message()?.encode_to_vec())
    }

    fn decode_udf(&self, name: &str, payload: &[u8]) -> Result<Arc<ScalarUDF>> {
        let message = T::Message::decode(payload).map_err(|e| bad_message(T::NAME, e))?;
        T::from_message(name, message)
    }
}

struct UdafPart<T>(PhantomData<fn() -> T>);

impl<T> Debug for UdafPart<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UdafPart({})", std::any::type_name::<T>())
    }
}

impl<T: EncodedUdaf> CodecPart for UdafPart<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn encode_udaf(&self, udaf: &AggregateUDF) -> Option<Vec<u8>> {
        let inner: &dyn Any = udaf.inner().as_ref();
        Some(inner.downcast_ref::<T>()?.to_message()?.encode_to_vec())
    }

    fn decode_udaf(&self, name: &str, payload: &[u8]) -> Result<Arc<AggregateUDF>> {
        let message = T::Message::decode(payload).map_err(|e| bad_message(T::NAME, e))?;
        T::from_message(name, message)
    }
}

struct NodePart<T>(PhantomData<fn() -> T>);

impl<T> Debug for NodePart<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NodePart({})", std::any::type_name::<T>())
    }
}

impl<T: EncodedNode> CodecPart for NodePart<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn encode_node(
        &self,
        node: &Arc<dyn ExecutionPlan>,
        encoder: &NodeEncoder,
    ) -> Result<Option<Vec<u8>>> {
        match node.downcast_ref::<T>() {
            Some(node) => Ok(Some(node.to_message(encoder)?.encode_to_vec())),
            None => Ok(None),
        }
    }

    fn decode_node(
        &self,
        payload: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let message = T::Message::decode(payload)
            .map_err(|e| DataFusionError::Internal(format!("bad {}: {e}", T::NAME)))?;
        T::from_message(message, inputs, decoder)
    }
}

/// A file scan on the wire: DataFusion's scan configuration and the source's options.
#[derive(Clone, PartialEq, prost::Message)]
struct FileScanNode {
    #[prost(bytes = "vec", tag = "1")]
    scan: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    options: Vec<u8>,
}

struct FileSourcePart<T>(PhantomData<fn() -> T>);

impl<T> Debug for FileSourcePart<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FileSourcePart({})", std::any::type_name::<T>())
    }
}

impl<T: EncodedFileSource> CodecPart for FileSourcePart<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn encode_node(
        &self,
        node: &Arc<dyn ExecutionPlan>,
        encoder: &NodeEncoder,
    ) -> Result<Option<Vec<u8>>> {
        let Some(config) = node
            .downcast_ref::<DataSourceExec>()
            .and_then(|d| d.data_source().downcast_ref::<FileScanConfig>())
        else {
            return Ok(None);
        };
        let Some(source) = config.file_source().downcast_ref::<T>() else {
            return Ok(None);
        };
        let node = FileScanNode {
            scan: encoder.file_scan(config)?,
            options: source.options()?,
        };
        Ok(Some(node.encode_to_vec()))
    }

    fn decode_node(
        &self,
        payload: &[u8],
        _inputs: &[Arc<dyn ExecutionPlan>],
        decoder: &NodeDecoder,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let node = FileScanNode::decode(payload)
            .map_err(|e| DataFusionError::Internal(format!("bad {} scan: {e}", T::NAME)))?;
        let config =
            decoder.file_scan(&node.scan, |schema| T::from_options(&node.options, schema))?;
        Ok(DataSourceExec::from_data_source(config))
    }
}

/// The extension codec made of every module's part.
#[derive(Debug, Clone)]
pub struct EmberCodec {
    parts: Vec<Arc<dyn CodecPart>>,
}

impl EmberCodec {
    pub fn new(parts: Vec<Arc<dyn CodecPart>>) -> Self {
        Self { parts }
    }

    fn part(&self, name: &str) -> Result<&Arc<dyn CodecPart>> {
        self.parts
            .iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| DataFusionError::Internal(format!("no codec part named {name}")))
    }

    fn envelope(part: &str, payload: Vec<u8>, buf: &mut Vec<u8>) -> Result<()> {
        ExtensionEnvelope {
            part: part.to_string(),
            payload,
        }
        .encode(buf)
        .map_err(|e| DataFusionError::Internal(format!("cannot encode extension: {e}")))
    }

    fn open(buf: &[u8]) -> Result<ExtensionEnvelope> {
        ExtensionEnvelope::decode(buf)
            .map_err(|e| DataFusionError::Internal(format!("bad extension payload: {e}")))
    }

    /// Serialize a physical plan.
    pub fn encode_plan(&self, plan: Arc<dyn ExecutionPlan>) -> Result<Vec<u8>> {
        let plan = crate::plan::CompressedScanExec::wrap_all(plan)?;
        let node = PhysicalPlanNode::try_from_physical_plan(plan, self)?;
        Ok(node.encode_to_vec())
    }

    /// Deserialize a physical plan for execution in `context`.
    pub fn decode_plan(
        &self,
        bytes: &[u8],
        context: &TaskContext,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let node = PhysicalPlanNode::decode(bytes)
            .map_err(|e| DataFusionError::Internal(format!("bad plan: {e}")))?;
        node.try_into_physical_plan(context, self)
    }
}

impl PhysicalExtensionCodec for EmberCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let envelope = Self::open(buf)?;
        let decoder = NodeDecoder {
            context: PhysicalPlanDecodeContext::new(ctx, self),
            converter,
        };
        self.part(&envelope.part)?
            .decode_node(&envelope.payload, inputs, &decoder)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let encoder = NodeEncoder {
            codec: self,
            converter,
        };
        for part in &self.parts {
            if let Some(payload) = part.encode_node(&node, &encoder)? {
                return Self::envelope(part.name(), payload, buf);
            }
        }
        datafusion::common::not_impl_err!("no codec for plan node {}", node.name())
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        let envelope = Self::open(buf)?;
        self.part(&envelope.part)?
            .decode_udf(name, &envelope.payload)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        for part in &self.parts {
            if let Some(payload) = part.encode_udf(node) {
                return Self::envelope(part.name(), payload, buf);
            }
        }
        Ok(()) // a built-in: found by name on decode
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        let envelope = Self::open(buf)?;
        self.part(&envelope.part)?
            .decode_udaf(name, &envelope.payload)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        for part in &self.parts {
            if let Some(payload) = part.encode_udaf(node) {
                return Self::envelope(part.name(), payload, buf);
            }
        }
        Ok(())
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        let envelope = Self::open(buf)?;
        self.part(&envelope.part)?
            .decode_higher_order(name, &envelope.payload)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        for part in &self.parts {
            if let Some(payload) = part.encode_higher_order(node) {
                return Self::envelope(part.name(), payload, buf);
            }
        }
        Ok(()) // a built-in: found by name on decode
    }

    fn try_decode_udwf(&self, name: &str, _buf: &[u8]) -> Result<Arc<WindowUDF>> {
        datafusion::common::not_impl_err!("window function {name} is not an extension")
    }
}
