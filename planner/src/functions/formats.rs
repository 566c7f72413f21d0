//! Spark's functions over the text of data formats: `to_json`, `to_csv`, `to_xml` write a
//! value as a JSON, CSV or XML record; `from_json`, `from_csv`, `from_xml` read one with a
//! DDL schema; `schema_of_json`, `schema_of_csv`, `schema_of_xml` infer a literal record's
//! type as the data sources do. Each is named after its value only, as Spark names them.

use arrow::datatypes::{DataType, Field};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, lit};

use super::native::{Native, NativeUdf};
use super::{Naming, RegistryBuilder};
use crate::error::PlanResult;

pub fn register(b: &mut RegistryBuilder) {
    // to_json/to_csv/to_xml(value[, options]): Spark names them after the value only.
    b.scalar_named(&["to_json"], Naming::Custom(after_text), |f| {
        f.arity(1, 2)?;
        if f.types.first().is_some_and(crate::types::is_variant) {
            let v = f.args.into_iter().next();
            return v
                .map(|v| super::variant::variant_to_json(v, &f.config.time_zone))
                .ok_or_else(|| crate::error::PlanError::InvalidPlan("to_json".into()));
        }
        if let Some(t) = f.types.first()
            && !matches!(
                t,
                DataType::Struct(_)
                    | DataType::List(_)
                    | DataType::LargeList(_)
                    | DataType::Map(..)
                    | DataType::Null
            )
        {
            return Err(crate::error::SparkError::analysis(
                "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA",
                "42K09",
                format!(
                    "Cannot resolve \"{}\" due to data type mismatch: Input schema \"{}\" must be a struct, an array, a map or a variant.",
                    f.shown(),
                    crate::types::sql_name(t)
                ),
            )
            .into());
        }
        // Date and timestamp patterns are honoured; other options that change the text are
        // refused rather than ignored.
        let mut formats = super::native::JsonFormats::default();
        for (key, value) in literal_options(f.args.get(1), "to_json")? {
            let pattern = || super::pattern::chrono_pattern(&value).map(Some);
            match key.to_ascii_lowercase().as_str() {
                "dateformat" => formats.date = pattern()?,
                "timestampformat" => formats.timestamp = pattern()?,
                "timestampntzformat" => formats.timestamp_ntz = pattern()?,
                "pretty" if value.eq_ignore_ascii_case("false") => {}
                "ignorenullfields" if value.eq_ignore_ascii_case("true") => {}
                _ => {
                    return Err(crate::error::PlanError::Unsupported(format!(
                        "to_json option {key} = {value:?}"
                    )));
                }
            }
        }
        // (Spark's default `timestampFormat`: milliseconds always, `Z` for UTC.)
        if formats.timestamp.is_none() {
            formats.timestamp = Some(super::pattern::chrono_pattern(
                "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
            )?);
        }
        let value: Vec<Expr> = f.args.into_iter().take(1).collect();
        Ok(NativeUdf::udf(Native::ToJson { formats }).call(value))
    });
    b.scalar_named(&["to_csv"], Naming::Custom(after_text), |f| {
        f.arity(1, 2)?;
        if f.args.len() == 2 {
            check_options(&f, 1)?;
            return Err(crate::error::PlanError::Unsupported("to_csv options".into()));
        }
        // (An untyped NULL: a NULL string, as Spark's.)
        if matches!(f.types.first(), Some(DataType::Null)) {
            return Ok(Expr::Literal(datafusion::common::ScalarValue::Utf8(None), None));
        }
        if let Some(t) = f.types.first().filter(|t| !matches!(t, DataType::Struct(_))) {
            return Err(crate::error::SparkError::analysis(
                "DATATYPE_MISMATCH.UNSUPPORTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"to_csv\" due to data type mismatch: The input of `to_csv` can't be \"{}\" type data.",
                    crate::types::sql_name(t)
                ),
            )
            .into());
        }
        Ok(NativeUdf::udf(Native::ToCsv).call(f.args.clone()))
    });
    // from_json/from_csv(text, schema[, options]): Spark names them after the text only.
    b.scalar_named(&["from_json"], Naming::Custom(from_json_name), |f| {
        f.arity(2, 3)?;
        check_options(&f, 2)?;
        let (schema, _) = literal_schema(&f)?;
        let leniency = json_leniency(f.args.get(2), "from_json")?;
        let kind = Native::FromJson {
            schema,
            time_zone: f.config.time_zone.clone(),
            leniency,
        };
        Ok(NativeUdf::udf(kind).call(vec![f.args[0].clone()]))
    });
    b.scalar_named(&["from_csv"], Naming::Custom(after_text), |f| {
        f.arity(2, 3)?;
        check_options(&f, 2)?;
        let (schema, target) = literal_schema(&f)?;
        if !matches!(target, DataType::Struct(_)) {
            return Err(crate::error::PlanError::Unsupported(format!(
                "from_csv into {schema} (a struct schema is needed)"
            )));
        }
        let kind = Native::FromCsv {
            schema,
            time_zone: f.config.time_zone.clone(),
            options: Box::new(csv_function_options(f.args.get(2), "from_csv")?),
        };
        Ok(NativeUdf::udf(kind).call(vec![f.args[0].clone()]))
    });
    // from_xml(text, schema[, options]), schema_of_xml(literal), to_xml(struct): the row as
    // Spark's XML source reads and writes it (options are not supported).
    b.scalar_named(&["from_xml"], Naming::Custom(after_text), |f| {
        f.arity(2, 2)?;
        let (schema, target) = literal_schema(&f)?;
        if !matches!(target, DataType::Struct(_)) {
            return Err(crate::error::PlanError::Unsupported(format!(
                "from_xml into {schema} (a struct schema is needed)"
            )));
        }
        let kind = Native::FromXml {
            schema,
            time_zone: f.config.time_zone.clone(),
        };
        Ok(NativeUdf::udf(kind).call(vec![f.args[0].clone()]))
    });
    b.scalar_named(&["schema_of_xml"], Naming::Custom(after_text), |f| {
        f.arity(1, 1)?;
        let Expr::Literal(ScalarValue::Utf8(Some(text)), _) = &f.args[0] else {
            return Err(crate::error::PlanError::Unsupported(
                "schema_of_xml of a value that is not a literal string".into(),
            ));
        };
        Ok(lit(ScalarValue::Utf8(super::native::schema_of_xml(
            text,
            &f.config.time_zone,
        ))))
    });
    b.scalar_named(&["to_xml"], Naming::Custom(after_text), |f| {
        f.arity(1, 1)?;
        if let Some(t) = f.types.first().filter(|t| !matches!(t, DataType::Struct(_))) {
            return Err(crate::error::SparkError::analysis(
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"to_xml\" due to data type mismatch: The first parameter requires the \"STRUCT\" type, however the input has the type \"{}\".",
                    crate::types::sql_name(t)
                ),
            )
            .into());
        }
        Ok(NativeUdf::udf(Native::ToXml).call(f.args))
    });
    // schema_of_csv(literal[, options]): the types Spark infers for the record's values.
    b.scalar_named(&["schema_of_csv"], Naming::Custom(after_text), |f| {
        f.arity(1, 2)?;
        let text = match &f.args[0] {
            Expr::Literal(ScalarValue::Utf8(Some(s)), _) => s.clone(),
            e if super::is_null_constant(e) => return Err(unexpected_null(&f, "csv")),
            _ => {
                super::require_foldable(&f, 0, "csv", "STRING")?;
                return Err(crate::error::PlanError::Unsupported(
                    "schema_of_csv of a value that is not a literal string".into(),
                ));
            }
        };
        let options = csv_function_options(f.args.get(1), "schema_of_csv")?;
        let formats = ember_execution::formats::csv::infer::Formats {
            date: None,
            timestamp: None,
        };
        let timestamp = crate::types::timestamp_type(&f.config.time_zone);
        let fields: Vec<Field> = crate::datasource::csv::RecordReader::new(&options)
            .values(&text)
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let t = ember_execution::formats::csv::infer::infer_column_type(
                    v.as_deref().into_iter(),
                    &formats,
                    &timestamp,
                );
                Field::new(format!("_c{i}"), t, true)
            })
            .collect();
        Ok(lit(crate::types::sql_name(&DataType::Struct(
            fields.into(),
        ))))
    });
    // schema_of_json(literal): Spark's inferred type, in DDL.
    b.scalar_named(&["schema_of_json"], Naming::Custom(after_text), |f| {
        f.arity(1, 2)?;
        let text = match &f.args[0] {
            Expr::Literal(datafusion::common::ScalarValue::Utf8(Some(s)), _) => s.clone(),
            e if super::is_null_constant(e) => return Err(unexpected_null(&f, "json")),
            _ => {
                super::require_foldable(&f, 0, "json", "STRING")?;
                return Err(crate::error::PlanError::Unsupported(
                    "schema_of_json of a value that is not a literal string".into(),
                ));
            }
        };
        let leniency = json_leniency(f.args.get(1), "schema_of_json")?;
        // (No value at all: Spark's inference gives STRING.)
        if text.trim().is_empty() {
            return Ok(lit("STRING"));
        }
        let t = ember_execution::formats::json::records::infer_json_value_type(
            &leniency.strict(&text),
        )?;
        Ok(lit(crate::types::sql_name(&t)))
    });
}

/// Spark's INVALID_OPTIONS unless argument `i` (the options), if given, is a `map()` of
/// strings to strings.
fn check_options(f: &super::FunctionInput, i: usize) -> PlanResult<()> {
    let (Some(arg), Some(t)) = (f.args.get(i), f.types.get(i)) else {
        return Ok(());
    };
    let invalid = |sub: &str, detail: String, parameters: Vec<(&str, String)>| {
        Err(crate::error::SparkError::new(
            crate::error::ErrorKind::Analysis,
            &format!("INVALID_OPTIONS.{sub}"),
            "42K06",
            format!("Invalid options: {detail}"),
            parameters,
        )
        .into())
    };
    let is_map = matches!(
        super::nullability::unwrapped(arg),
        Expr::ScalarFunction(map) if map.name() == "map"
    );
    if !is_map {
        return invalid(
            "NON_MAP_FUNCTION",
            "Must use the `map()` function for options.".into(),
            vec![],
        );
    }
    let text =
        |t: &DataType| matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
    let strings = match t {
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(fields) => fields.iter().all(|f| text(f.data_type())),
            _ => false,
        },
        _ => false,
    };
    if !strings {
        let shown = format!("\"{}\"", crate::types::sql_name(t));
        return invalid(
            "NON_STRING_TYPE",
            format!("A type of keys and values in `map()` must be string, but got {shown}."),
            vec![("mapType", shown.clone())],
        );
    }
    Ok(())
}

/// The CSV options of `from_csv`/`schema_of_csv`: a map of literal strings (PySpark sends
/// `map(...)` of its dict), read as `spark.read.csv`'s options.
fn csv_function_options(
    arg: Option<&Expr>,
    function: &str,
) -> PlanResult<crate::datasource::csv::CsvOptions> {
    let options = literal_options(arg, function)?;
    Ok(crate::datasource::csv::csv_options(
        &options,
        datafusion::datasource::file_format::file_compression_type::FileCompressionType::UNCOMPRESSED,
    )?)
}

/// The JSON options of `from_json`/`schema_of_json` that Ember reads: `allowSingleQuotes`
/// (on by default, as in Spark), `allowUnquotedFieldNames`, and `mode` PERMISSIVE; any other
/// is refused rather than ignored.
fn json_leniency(arg: Option<&Expr>, function: &str) -> PlanResult<super::native::Leniency> {
    let mut leniency = super::native::Leniency::default();
    for (key, value) in literal_options(arg, function)? {
        let flag = || -> PlanResult<bool> {
            match value.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(crate::error::PlanError::Unsupported(format!(
                    "{function} option {key} = {value:?}"
                ))),
            }
        };
        match key.to_ascii_lowercase().as_str() {
            "allowsinglequotes" => leniency.single_quotes = flag()?,
            "allowunquotedfieldnames" => leniency.unquoted_names = flag()?,
            "mode" if value.eq_ignore_ascii_case("PERMISSIVE") => {}
            _ => {
                return Err(crate::error::PlanError::Unsupported(format!(
                    "{function} option {key} = {value:?}"
                )));
            }
        }
    }
    Ok(leniency)
}

/// A function's options argument: a `map()` of literal strings (PySpark sends `map(...)` of
/// its dict), as key/value pairs.
fn literal_options(
    arg: Option<&Expr>,
    function: &str,
) -> PlanResult<std::collections::HashMap<String, String>> {
    let mut options = std::collections::HashMap::new();
    if let Some(arg) = arg {
        let literal = |e: &Expr| match e {
            Expr::Literal(ScalarValue::Utf8(Some(s)), _) => Some(s.clone()),
            _ => None,
        };
        let pairs = match super::nullability::unwrapped(arg) {
            Expr::ScalarFunction(map) if matches!(map.name(), "map" | "map_from_arrays") => {
                match map.args.as_slice() {
                    [Expr::ScalarFunction(keys), Expr::ScalarFunction(values)] => keys
                        .args
                        .iter()
                        .map(literal)
                        .zip(values.args.iter().map(literal))
                        .map(|(k, v)| Some((k?, v?)))
                        .collect::<Option<Vec<_>>>(),
                    _ => None,
                }
            }
            // (Spark takes options only from a `map(...)` call.)
            Expr::Literal(ScalarValue::Map(_), _) => None,
            _ => {
                return Err(crate::error::SparkError::new(
                    crate::error::ErrorKind::Analysis,
                    "INVALID_OPTIONS.NON_MAP_FUNCTION",
                    "42K06",
                    "Invalid options: Must use the `map()` function for options.",
                    vec![],
                )
                .into());
            }
        };
        let Some(pairs) = pairs else {
            return Err(crate::error::PlanError::Unsupported(format!(
                "{function} options that are not a map of literal strings"
            )));
        };
        options.extend(pairs);
    }
    Ok(options)
}

/// `name(text)`: the name of a parsing function (`from_json`, `from_csv`).
fn after_text(written: &str, args: &[String], _distinct: bool) -> String {
    format!(
        "{}({})",
        written.to_lowercase(),
        args.first().cloned().unwrap_or_default()
    )
}

/// `from_json(text)`, or `entries` for a map schema (Spark names the map's column so).
fn from_json_name(written: &str, args: &[String], distinct: bool) -> String {
    let schema = args.get(1).map(|s| crate::types::parse_data_type(s, "UTC"));
    if let Some(Ok(DataType::Map(..))) = schema {
        return "entries".to_string();
    }
    after_text(written, args, distinct)
}

/// The DDL schema a parsing function's second argument gives, with its type; a bad schema
/// is the parse error Spark raises, when planned.
fn literal_schema(f: &super::FunctionInput) -> PlanResult<(String, DataType)> {
    // (A constant expression is its value, as Spark evaluates a foldable schema.)
    let folded = match f.args.get(1) {
        Some(e) if e.column_refs().is_empty() => crate::resolver::fold_constants(e.clone()).ok(),
        _ => None,
    };
    let Some(Expr::Literal(ScalarValue::Utf8(Some(schema)), _)) = folded else {
        return Err(crate::error::SparkError::new(
            crate::error::ErrorKind::Analysis,
            "INVALID_SCHEMA.NON_STRING_LITERAL",
            "42K07",
            format!(
                "The input schema \"{}\" is not a valid schema string. The input expression must be string literal and not null.",
                f.arg_name(1)
            ),
            vec![],
        )
        .into());
    };
    if schema.trim().is_empty() {
        // (An AnalysisException in Spark, as the schema's other parse errors.)
        return Err(crate::error::SparkError::new(
            crate::error::ErrorKind::Analysis,
            "PARSE_EMPTY_STATEMENT",
            "42617",
            "Syntax error, unexpected empty statement.",
            vec![],
        )
        .into());
    }
    let target = crate::types::parse_data_type(&schema, &f.config.time_zone).map_err(|e| {
        let mut e = crate::error::SparkError::parse_syntax(&e.to_string(), "");
        e.kind = crate::error::ErrorKind::Analysis;
        e
    })?;
    Ok((schema, target))
}

/// Spark's DATATYPE_MISMATCH.UNEXPECTED_NULL for a NULL where `schema_of_csv` and
/// `schema_of_json` want their text.
fn unexpected_null(f: &super::FunctionInput, input: &str) -> crate::error::PlanError {
    crate::error::SparkError::analysis(
        "DATATYPE_MISMATCH.UNEXPECTED_NULL",
        "42K09",
        format!(
            "Cannot resolve \"{}\" due to data type mismatch: The `{input}` must not be null.",
            f.shown()
        ),
    )
    .into()
}
