//! Grouped-aggregate Python UDFs (`pandas_udf` with a `Series -> scalar` signature, eval type
//! 202, and the aggregate `arrow_udf`, 252) as a DataFusion aggregate: each group's argument
//! values are gathered (the partial state is the list of values, so the aggregate can be
//! split over stages), and the group's answer is one call of the function in a Python worker.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, ListArray, RecordBatch};
use arrow::datatypes::{DataType, Field, FieldRef, Schema};
use datafusion::common::{Result, ScalarValue, internal_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Signature, TypeSignature, Volatility,
};
use ember_execution::python::{self, PythonFunction};

use super::python::{EncodedPython, PythonUdfMessage, python_error};
use crate::error::to_datafusion;
use ember_execution::codec::EncodedUdaf;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PythonAggUdf {
    name: String,
    function: PythonFunction,
    return_type: DataType,
    python: Option<String>,
    signature: Signature,
}

impl PythonAggUdf {
    pub fn new(
        name: String,
        function: PythonFunction,
        return_type: DataType,
        python: Option<String>,
    ) -> Self {
        Self {
            name,
            function,
            return_type,
            python,
            signature: Signature::one_of(
                vec![TypeSignature::Nullary, TypeSignature::VariadicAny],
                Volatility::Immutable,
            ),
        }
    }

    pub fn udaf(self) -> Arc<AggregateUDF> {
        Arc::new(AggregateUDF::from(self))
    }
}

impl EncodedUdaf for PythonAggUdf {
    const NAME: &'static str = "python_udaf";
    type Message = PythonUdfMessage;

    fn to_message(&self) -> Option<PythonUdfMessage> {
        EncodedPython {
            name: self.name.clone(),
            function: self.function.clone(),
            return_type: self.return_type.clone(),
            python: self.python.clone(),
            batch_size: 0,
            deterministic: true,
            keywords: vec![],
        }
        .to_message()
    }

    fn from_message(_name: &str, m: PythonUdfMessage) -> Result<Arc<AggregateUDF>> {
        let p = EncodedPython::from_message(m)?;
        Ok(Self::new(p.name, p.function, p.return_type, p.python).udaf())
    }
}

impl AggregateUDFImpl for PythonAggUdf {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.return_type.clone())
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(args
            .input_fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                Arc::new(Field::new_list(
                    format!("{}[{i}]", args.name),
                    Field::new_list_field(f.data_type().clone(), true),
                    true,
                ))
            })
            .collect())
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(PythonAccumulator {
            udf: self.clone(),
            types: args
                .expr_fields
                .iter()
                .map(|f| f.data_type().clone())
                .collect(),
            values: vec![Vec::new(); args.expr_fields.len()],
            rows: 0,
        }))
    }
}

#[derive(Debug)]
struct PythonAccumulator {
    udf: PythonAggUdf,
    types: Vec<DataType>,
    /// Each argument's values so far.
    values: Vec<Vec<ArrayRef>>,
    rows: usize,
}

impl PythonAccumulator {
    fn column(&self, i: usize) -> Result<ArrayRef> {
        let parts: Vec<&dyn Array> = self.values[i].iter().map(|a| a.as_ref()).collect();
        Ok(match parts.as_slice() {
            [] => arrow::array::new_empty_array(&self.types[i]),
            _ => arrow::compute::concat(&parts)?,
        })
    }
}

impl Accumulator for PythonAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        for (i, v) in values.iter().enumerate().take(self.values.len()) {
            self.values[i].push(v.clone());
        }
        self.rows += values.first().map_or(0, |v| v.len());
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for (i, state) in states.iter().enumerate().take(self.values.len()) {
            let Some(lists) = state.as_any().downcast_ref::<ListArray>() else {
                return internal_err!("a Python aggregate's state is not a list");
            };
            for row in 0..lists.len() {
                if lists.is_valid(row) {
                    let values = lists.value(row);
                    if i == 0 {
                        self.rows += values.len();
                    }
                    self.values[i].push(values);
                }
            }
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        (0..self.values.len())
            .map(|i| {
                let column = self.column(i)?;
                Ok(ScalarValue::List(Arc::new(
                    ScalarValue::new_list_from_iter(
                        (0..column.len())
                            .map(|r| ScalarValue::try_from_array(&column, r))
                            .collect::<Result<Vec<_>>>()?
                            .into_iter(),
                        &self.types[i],
                        true,
                    )
                    .as_ref()
                    .clone(),
                )))
            })
            .collect()
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let columns = (0..self.values.len())
            .map(|i| self.column(i))
            .collect::<Result<Vec<_>>>()?;
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("_{i}"), c.data_type().clone(), true))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(self.rows)),
        )?;
        let out = Arc::new(Schema::new(vec![Field::new(
            "result",
            self.udf.return_type.clone(),
            true,
        )]));
        let executable = python::python_executable(self.udf.python.as_deref());
        let answer = python::run(&self.udf.function, &executable, &schema, &[batch], &out)
            .map_err(|e| to_datafusion(python_error(e)))?;
        match answer.first().and_then(|b| b.columns().first()) {
            Some(c) if !c.is_empty() => ScalarValue::try_from_array(c, 0),
            _ => ScalarValue::try_from(&self.udf.return_type),
        }
    }

    fn supports_retract_batch(&self) -> bool {
        true
    }

    /// A sliding window's rows leave in the order they came.
    fn retract_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let n = values.first().map_or(0, |v| v.len());
        for i in 0..self.values.len() {
            let column = self.column(i)?;
            let n = n.min(column.len());
            self.values[i] = vec![column.slice(n, column.len() - n)];
        }
        self.rows = self.rows.saturating_sub(n);
        Ok(())
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self)
            + self
                .values
                .iter()
                .flatten()
                .map(|a| a.get_array_memory_size())
                .sum::<usize>()
    }
}
