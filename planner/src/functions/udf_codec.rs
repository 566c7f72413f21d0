//! The wire form of `udf.rs`'s functions for cluster workers (each an `EncodedUdf`; listed in
//! `functions::codec_parts`), the messages other functions share, and the part that marks
//! `datafusion-spark`'s functions.

use std::any::Any;
use std::sync::Arc;

use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::{AggregateUDF, HigherOrderUDF, ScalarUDF};
use ember_execution::codec::{CodecPart, EncodedUdf};
use ember_execution::values::interval::IntervalFields;

use super::fold::{FOLD_NAME, array_fold};
use super::{spark_aggregate, spark_scalar};

use super::udf::{
    ArithOp, ArrayIndex, CastToString, CheckedArithmetic, Divide, Division, RaiseError,
};

/// A function whose only setting is ANSI mode.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnsiMessage {
    #[prost(bool, tag = "1")]
    ansi: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ArithmeticMessage {
    /// 0 add, 1 subtract, 2 multiply.
    #[prost(uint32, tag = "1")]
    op: u32,
    #[prost(bool, tag = "2")]
    ansi: bool,
}

impl EncodedUdf for CheckedArithmetic {
    const NAME: &'static str = "checked_arithmetic";
    type Message = ArithmeticMessage;

    fn to_message(&self) -> Option<ArithmeticMessage> {
        let op = match self.op() {
            ArithOp::Add => 0,
            ArithOp::Subtract => 1,
            ArithOp::Multiply => 2,
        };
        Some(ArithmeticMessage {
            op,
            ansi: self.ansi(),
        })
    }

    fn from_message(_name: &str, m: ArithmeticMessage) -> Result<Arc<ScalarUDF>> {
        let op = match m.op {
            0 => ArithOp::Add,
            1 => ArithOp::Subtract,
            2 => ArithOp::Multiply,
            other => {
                return Err(DataFusionError::Internal(format!(
                    "bad arithmetic operator {other}"
                )));
            }
        };
        Ok(CheckedArithmetic::udf(op, m.ansi))
    }
}

impl<T: Division> EncodedUdf for Divide<T> {
    const NAME: &'static str = T::CODEC;
    type Message = AnsiMessage;

    fn to_message(&self) -> Option<AnsiMessage> {
        Some(AnsiMessage { ansi: self.ansi() })
    }

    fn from_message(_name: &str, m: AnsiMessage) -> Result<Arc<ScalarUDF>> {
        Ok(Self::udf(m.ansi))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrayIndexMessage {
    #[prost(bool, tag = "1")]
    one_based: bool,
    #[prost(bool, tag = "2")]
    ansi: bool,
}

impl EncodedUdf for ArrayIndex {
    const NAME: &'static str = "array_index";
    type Message = ArrayIndexMessage;

    fn to_message(&self) -> Option<ArrayIndexMessage> {
        Some(ArrayIndexMessage {
            one_based: self.one_based(),
            ansi: self.ansi(),
        })
    }

    fn from_message(_name: &str, m: ArrayIndexMessage) -> Result<Arc<ScalarUDF>> {
        Ok(ArrayIndex::udf(m.one_based, m.ansi))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct NoSettings {}

impl EncodedUdf for RaiseError {
    const NAME: &'static str = "raise_error";
    type Message = NoSettings;

    fn to_message(&self) -> Option<NoSettings> {
        Some(NoSettings {})
    }

    fn from_message(_name: &str, _m: NoSettings) -> Result<Arc<ScalarUDF>> {
        Ok(RaiseError::udf())
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CastToStringMessage {
    #[prost(string, tag = "1")]
    time_zone: String,
    /// The interval's fields, when not its Arrow type's default.
    #[prost(message, optional, tag = "2")]
    interval: Option<IntervalFieldsMessage>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct IntervalFieldsMessage {
    #[prost(bool, tag = "1")]
    year_month: bool,
    #[prost(uint32, tag = "2")]
    start: u32,
    #[prost(uint32, tag = "3")]
    end: u32,
}

impl EncodedUdf for CastToString {
    const NAME: &'static str = "cast_to_string";
    type Message = CastToStringMessage;

    fn to_message(&self) -> Option<CastToStringMessage> {
        Some(CastToStringMessage {
            time_zone: self.time_zone().to_string(),
            interval: self.interval().map(|f| IntervalFieldsMessage {
                year_month: f.year_month,
                start: f.start.into(),
                end: f.end.into(),
            }),
        })
    }

    fn from_message(_name: &str, m: CastToStringMessage) -> Result<Arc<ScalarUDF>> {
        let interval = match m.interval {
            Some(f) => {
                let (Ok(start), Ok(end)) = (u8::try_from(f.start), u8::try_from(f.end)) else {
                    return Err(DataFusionError::Internal("bad interval of a cast".into()));
                };
                Some(IntervalFields {
                    year_month: f.year_month,
                    start,
                    end,
                })
            }
            None => None,
        };
        Ok(CastToString::of_interval(&m.time_zone, interval))
    }
}

/// Settings that are a serde value already (a function's kind), as JSON.
#[derive(Clone, PartialEq, prost::Message)]
pub struct JsonMessage {
    #[prost(string, tag = "1")]
    pub json: String,
}

impl JsonMessage {
    pub fn of(value: &impl serde::Serialize) -> Option<Self> {
        Some(Self {
            json: serde_json::to_string(value).ok()?,
        })
    }

    pub fn value<T: serde::de::DeserializeOwned>(&self, what: &str) -> Result<T> {
        serde_json::from_str(&self.json)
            .map_err(|e| DataFusionError::Internal(format!("bad {what}: {e}")))
    }
}

/// `datafusion-spark`'s functions (their names clash with DataFusion's, so they are marked as
/// Spark's and found again by name) and the array fold.
pub fn spark_functions_part() -> Arc<dyn CodecPart> {
    Arc::new(SparkFunctions)
}

#[derive(Debug)]
struct SparkFunctions;

fn same_impl(a: &dyn Any, b: &dyn Any) -> bool {
    a.type_id() == b.type_id()
}

impl CodecPart for SparkFunctions {
    fn name(&self) -> &'static str {
        "spark_functions"
    }

    fn encode_udf(&self, udf: &ScalarUDF) -> Option<Vec<u8>> {
        let spark = spark_scalar(udf.name())?;
        same_impl(spark.inner().as_ref(), udf.inner().as_ref()).then(Vec::new)
    }

    fn decode_udf(&self, name: &str, _payload: &[u8]) -> Result<Arc<ScalarUDF>> {
        spark_scalar(name)
            .ok_or_else(|| DataFusionError::Internal(format!("no Spark function {name}")))
    }

    fn encode_udaf(&self, udaf: &AggregateUDF) -> Option<Vec<u8>> {
        let spark = spark_aggregate(udaf.name())?;
        same_impl(spark.inner().as_ref(), udaf.inner().as_ref()).then(Vec::new)
    }

    fn decode_udaf(&self, name: &str, _payload: &[u8]) -> Result<Arc<AggregateUDF>> {
        spark_aggregate(name)
            .ok_or_else(|| DataFusionError::Internal(format!("no Spark aggregate {name}")))
    }

    fn encode_higher_order(&self, function: &HigherOrderUDF) -> Option<Vec<u8>> {
        (function.name() == FOLD_NAME).then(Vec::new)
    }

    fn decode_higher_order(&self, name: &str, _payload: &[u8]) -> Result<Arc<HigherOrderUDF>> {
        match name {
            FOLD_NAME => Ok(array_fold()),
            other => Err(DataFusionError::Internal(format!(
                "no higher-order function {other}"
            ))),
        }
    }
}
