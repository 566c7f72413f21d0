//! Spark's spatial functions on GEOMETRY and GEOGRAPHY values (`native::spatial`).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Cast, Expr};

use super::native::spatial::{SpatialOp, invalid_srid, valid_srid};
use super::native::{Native, NativeUdf};
use super::{FunctionInput, Naming, RegistryBuilder};
use crate::error::{PlanError, PlanResult, SparkError};
use crate::types::{Spatial, spatial_of, sql_name};

fn call(op: SpatialOp, args: Vec<Expr>) -> Expr {
    NativeUdf::udf(Native::Spatial { op }).call(args)
}

/// An SRID argument: `Some` when it is a constant (checked against the family).
fn constant_srid(f: &FunctionInput, i: usize, family: Spatial) -> PlanResult<Option<i32>> {
    let srid = match f.args.get(i) {
        Some(Expr::Literal(v, _)) => match v {
            ScalarValue::Int8(Some(n)) => *n as i64,
            ScalarValue::Int16(Some(n)) => *n as i64,
            ScalarValue::Int32(Some(n)) => *n as i64,
            ScalarValue::Int64(Some(n)) => *n,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    match i32::try_from(srid) {
        Ok(s) if valid_srid(family, s) => Ok(Some(s)),
        _ => Err(invalid_srid(srid).into()),
    }
}

/// The family of a spatial argument, or DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE.
fn spatial_argument(f: &FunctionInput) -> PlanResult<Option<Spatial>> {
    match f.types.first() {
        Some(DataType::Null) | None => Ok(None),
        Some(t) => match spatial_of(t) {
            Some((family, _)) => Ok(Some(family)),
            None => Err(SparkError::analysis(
                "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                "42K09",
                format!(
                    "Cannot resolve \"{}\" due to data type mismatch: The first parameter requires the (\"GEOGRAPHY\" or \"GEOMETRY\") type, however the input has the type \"{}\".",
                    f.name,
                    sql_name(t)
                ),
            )
            .into()),
        },
    }
}

/// WKB as BINARY (strings by their bytes, as Spark's implicit cast).
fn wkb_argument(f: &mut FunctionInput) -> Expr {
    let wkb = f.args.remove(0);
    match f.types.first() {
        Some(DataType::Binary | DataType::LargeBinary | DataType::BinaryView) => wkb,
        _ => Expr::Cast(Cast::new(Box::new(wkb), DataType::Binary)),
    }
}

pub fn register(b: &mut RegistryBuilder) {
    b.scalar_named(
        &["st_geomfromwkb"],
        Naming::Custom(|w, a, _| super::aggregate::default_arg(w, a, 1, "0")),
        |mut f| {
            f.arity(1, 2)?;
            let srid = if f.args.len() == 2 {
                constant_srid(&f, 1, Spatial::Geometry)?.ok_or_else(|| {
                    PlanError::Unsupported("st_geomfromwkb with a computed SRID".into())
                })?
            } else {
                0
            };
            let wkb = wkb_argument(&mut f);
            let op = SpatialOp::FromWkb {
                family: Spatial::Geometry,
                srid,
            };
            Ok(call(op, vec![wkb]))
        },
    );
    b.scalar(&["st_geogfromwkb"], |mut f| {
        f.arity(1, 1)?;
        let wkb = wkb_argument(&mut f);
        let op = SpatialOp::FromWkb {
            family: Spatial::Geography,
            srid: 4326,
        };
        Ok(call(op, vec![wkb]))
    });
    b.scalar(&["st_srid"], |f| {
        f.arity(1, 1)?;
        spatial_argument(&f)?;
        Ok(call(SpatialOp::Srid, f.args))
    });
    b.scalar_named(
        &["st_asbinary"],
        Naming::Custom(|w, a, _| super::aggregate::default_arg(w, a, 1, "NDR")),
        |mut f| {
            f.arity(1, 2)?;
            spatial_argument(&f)?;
            let big_endian = match f.args.get(1) {
                None => false,
                Some(Expr::Literal(ScalarValue::Utf8(Some(e)) | ScalarValue::Utf8View(Some(e)), _)) => {
                    match e.to_ascii_uppercase().as_str() {
                        "NDR" => false,
                        "XDR" => true,
                        _ => {
                            return Err(SparkError::new(
                                crate::error::ErrorKind::IllegalArgument,
                                "ST_INVALID_ENDIANNESS_VALUE",
                                "22023",
                                format!("Endianness '{e}' must be either 'NDR' (little-endian) or 'XDR' (big-endian)."),
                                vec![("endianness", e.clone())],
                            )
                            .into());
                        }
                    }
                }
                Some(_) => {
                    return Err(PlanError::Unsupported(
                        "st_asbinary with a computed endianness".into(),
                    ));
                }
            };
            f.args.truncate(1);
            Ok(call(SpatialOp::AsBinary { big_endian }, f.args))
        },
    );
    b.scalar(&["st_setsrid"], |f| {
        f.arity(2, 2)?;
        let family = spatial_argument(&f)?.unwrap_or(Spatial::Geometry);
        let srid = constant_srid(&f, 1, family)?;
        Ok(call(SpatialOp::SetSrid { family, srid }, f.args))
    });
}
