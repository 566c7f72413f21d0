//! Spark's GEOMETRY and GEOGRAPHY values (`st_geomfromwkb`, `st_geogfromwkb`, `st_asbinary`,
//! `st_srid`, `st_setsrid`): a struct of the SRID and the well-known binary, as PySpark reads
//! them (see `types::spatial_type`). WKB is read as Spark reads it (byte order, the seven
//! geometry types with Z, M and ZM variants) and kept in little-endian ISO form, bytes after
//! the geometry dropped.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder, Int32Array, StructArray};
use arrow::datatypes::{DataType, Int32Type};
use datafusion::common::{Result, internal_err};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, SparkError, to_datafusion};
use crate::types::{Spatial, spatial_type};

/// The SRIDs Spark supports: (srid, geographic).
const SRIDS: [(i32, bool); 3] = [(0, false), (3857, false), (4326, true)];

/// Whether `srid` is a valid SRID of the family.
pub fn valid_srid(family: Spatial, srid: i32) -> bool {
    SRIDS
        .iter()
        .any(|(s, geographic)| *s == srid && (family == Spatial::Geometry || *geographic))
}

pub fn invalid_srid(srid: i64) -> SparkError {
    SparkError::new(
        ErrorKind::IllegalArgument,
        "ST_INVALID_SRID_VALUE",
        "22023",
        format!("Invalid or unsupported SRID (spatial reference identifier) value: {srid}."),
        vec![("srid", srid.to_string())],
    )
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum SpatialOp {
    /// `st_geomfromwkb(wkb[, srid])` / `st_geogfromwkb(wkb)`: the value of the given type.
    FromWkb { family: Spatial, srid: i32 },
    /// `st_asbinary(g[, endianness])`: the WKB, big-endian for 'XDR'.
    AsBinary { big_endian: bool },
    /// `st_srid(g)`.
    Srid,
    /// `st_setsrid(g, srid)`; `srid` fixed when the argument is a constant (else the type's
    /// SRID is mixed and each row's is checked).
    SetSrid { family: Spatial, srid: Option<i32> },
}

impl SpatialOp {
    pub fn return_type(&self) -> DataType {
        match self {
            SpatialOp::FromWkb { family, srid } => spatial_type(*family, *srid),
            SpatialOp::AsBinary { .. } => DataType::Binary,
            SpatialOp::Srid => DataType::Int32,
            SpatialOp::SetSrid { family, srid } => spatial_type(*family, srid.unwrap_or(-1)),
        }
    }
}

fn parse_error(message: String) -> datafusion::error::DataFusionError {
    to_datafusion(SparkError::new(
        ErrorKind::IllegalArgument,
        "WKB_PARSE_ERROR",
        "22023",
        format!("Error parsing WKB: {message}"),
        vec![("parseError", message.clone())],
    ))
}

/// Reads WKB, checking it as Spark does, and writes it back in one byte order.
struct Wkb<'a> {
    bytes: &'a [u8],
    pos: usize,
    big_endian: bool,
    /// Geography: longitudes within [-180, 180], latitudes within [-90, 90].
    geographic: bool,
    out_big_endian: bool,
    out: Vec<u8>,
}

impl Wkb<'_> {
    fn take(&mut self, n: usize) -> std::result::Result<&[u8], String> {
        if self.pos + n > self.bytes.len() {
            return Err(format!(
                "Unexpected end of WKB buffer at position {}",
                self.pos
            ));
        }
        let slice = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    fn u32(&mut self) -> std::result::Result<u32, String> {
        let big = self.big_endian;
        let b: [u8; 4] = self.take(4)?.try_into().map_err(|_| "short".to_string())?;
        Ok(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }

    fn write_u32(&mut self, n: u32) {
        if self.out_big_endian {
            self.out.extend(n.to_be_bytes());
        } else {
            self.out.extend(n.to_le_bytes());
        }
    }

    /// A count, and the position it was read at.
    fn count(&mut self) -> std::result::Result<(u32, usize), String> {
        let at = self.pos;
        let n = self.u32()?;
        self.write_u32(n);
        Ok((n, at))
    }

    /// One point's coordinates.
    fn point(&mut self, dims: usize) -> std::result::Result<Vec<f64>, String> {
        let mut point = Vec::with_capacity(dims);
        for d in 0..dims {
            let at = self.pos;
            let big = self.big_endian;
            let b: [u8; 8] = self.take(8)?.try_into().map_err(|_| "short".to_string())?;
            let v = if big {
                f64::from_be_bytes(b)
            } else {
                f64::from_le_bytes(b)
            };
            let limit = match d {
                0 => 180.0,
                1 => 90.0,
                _ => f64::INFINITY,
            };
            if v.is_infinite() || (self.geographic && v.abs() > limit) {
                return Err(format!("Invalid coordinate value found at position {at}"));
            }
            if self.out_big_endian {
                self.out.extend(v.to_be_bytes());
            } else {
                self.out.extend(v.to_le_bytes());
            }
            point.push(v);
        }
        Ok(point)
    }

    fn geometry(&mut self) -> std::result::Result<u32, String> {
        let order = self.take(1)?[0];
        self.big_endian = match order {
            0 => true,
            1 => false,
            other => {
                return Err(format!(
                    "Invalid byte order {other} at position {}",
                    self.pos - 1
                ));
            }
        };
        let at = self.pos;
        let code = self.u32()?;
        let (base, dims) = match (code % 1000, code / 1000) {
            (base @ 1..=7, extra @ 0..=3) => (base, 2 + [0, 1, 1, 2][extra as usize]),
            _ => {
                return Err(format!(
                    "Invalid or unsupported type {code} at position {at}"
                ));
            }
        };
        self.out.push(if self.out_big_endian { 0 } else { 1 });
        self.write_u32(code);
        match base {
            1 => self.point(dims).map(|_| ()),
            2 => {
                let (n, at) = self.count()?;
                if n == 1 {
                    return Err(format!("Too few points in linestring at position {at}"));
                }
                (0..n).try_for_each(|_| self.point(dims).map(|_| ()))
            }
            3 => {
                let (rings, _) = self.count()?;
                for _ in 0..rings {
                    let (n, at) = self.count()?;
                    if (1..4).contains(&n) {
                        return Err(format!("Too few points in ring at position {at}"));
                    }
                    let mut first = None;
                    let mut last = None;
                    for _ in 0..n {
                        let p = self.point(dims)?;
                        first.get_or_insert_with(|| p.clone());
                        last = Some(p);
                    }
                    let same = |a: &[f64], b: &[f64]| {
                        a.iter()
                            .zip(b)
                            .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
                    };
                    if let (Some(a), Some(b)) = (&first, &last)
                        && !same(a, b)
                    {
                        return Err(format!("Ring is not closed at position {at}"));
                    }
                }
                Ok(())
            }
            _ => {
                let (n, _) = self.count()?;
                for _ in 0..n {
                    let member = self.geometry()? % 1000;
                    let expected = match base {
                        4 => Some((1, "Point", "MultiPoint")),
                        5 => Some((2, "LineString", "MultiLineString")),
                        6 => Some((3, "Polygon", "MultiPolygon")),
                        _ => None,
                    };
                    if let Some((want, what, within)) = expected
                        && member != want
                    {
                        return Err(format!(
                            "Expected {what} in {within} at position {}",
                            self.pos
                        ));
                    }
                }
                Ok(())
            }
        }?;
        Ok(code)
    }
}

/// `bytes` as ISO WKB in one byte order (little-endian unless `big_endian`), or Spark's
/// parse error.
pub fn normalize_wkb(bytes: &[u8], geographic: bool, big_endian: bool) -> Result<Vec<u8>> {
    // Spark reads the byte order and the type together: shorter input ends at position 0.
    if bytes.len() < 5 {
        return Err(parse_error(
            "Unexpected end of WKB buffer at position 0".into(),
        ));
    }
    let mut wkb = Wkb {
        bytes,
        pos: 0,
        big_endian: false,
        geographic,
        out_big_endian: big_endian,
        out: Vec::with_capacity(bytes.len()),
    };
    wkb.geometry().map_err(parse_error)?;
    Ok(wkb.out)
}

fn binaries(array: &ArrayRef) -> Result<Vec<Option<&[u8]>>> {
    Ok(match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().iter().collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().collect(),
        DataType::BinaryView => array.as_binary_view().iter().collect(),
        DataType::Null => vec![None; array.len()],
        other => return internal_err!("WKB of {other}"),
    })
}

/// Build values of `data_type` from per-row (srid, wkb).
fn values(data_type: &DataType, rows: Vec<Option<(i32, Vec<u8>)>>) -> Result<ArrayRef> {
    let DataType::Struct(fields) = data_type else {
        return internal_err!("spatial value of {data_type}");
    };
    let nulls: Vec<bool> = rows.iter().map(Option::is_some).collect();
    let srids = Int32Array::from_iter_values(rows.iter().map(|r| r.as_ref().map_or(0, |r| r.0)));
    let mut wkb = BinaryBuilder::new();
    for row in &rows {
        wkb.append_value(row.as_ref().map_or(&[][..], |r| &r.1));
    }
    Ok(Arc::new(StructArray::try_new(
        fields.clone(),
        vec![Arc::new(srids), Arc::new(wkb.finish())],
        Some(nulls.into()),
    )?))
}

pub fn evaluate(op: &SpatialOp, args: &[ArrayRef]) -> Result<ArrayRef> {
    let Some(first) = args.first() else {
        return internal_err!("spatial function without arguments");
    };
    match op {
        SpatialOp::FromWkb { family, srid } => {
            let geographic = *family == Spatial::Geography;
            let rows = binaries(first)?
                .into_iter()
                .map(|b| {
                    b.map(|b| normalize_wkb(b, geographic, false).map(|w| (*srid, w)))
                        .transpose()
                })
                .collect::<Result<Vec<_>>>()?;
            values(&op.return_type(), rows)
        }
        SpatialOp::AsBinary { big_endian: true } => {
            let Some(s) = first.as_struct_opt() else {
                return Ok(arrow::array::new_null_array(&DataType::Binary, first.len()));
            };
            let wkb = binaries(s.column(1))?;
            let mut out = BinaryBuilder::new();
            for (i, w) in wkb.into_iter().enumerate() {
                match w.filter(|_| s.is_valid(i)) {
                    Some(w) => out.append_value(normalize_wkb(w, false, true)?),
                    None => out.append_null(),
                }
            }
            Ok(Arc::new(out.finish()))
        }
        SpatialOp::AsBinary { .. } | SpatialOp::Srid => {
            let Some(s) = first.as_struct_opt() else {
                return Ok(arrow::array::new_null_array(&op.return_type(), first.len()));
            };
            let column = match op {
                SpatialOp::Srid => s.column(0).clone(),
                _ => s.column(1).clone(),
            };
            Ok(match s.logical_nulls() {
                Some(nulls) => arrow::compute::nullif(
                    &column,
                    &arrow::array::BooleanArray::new(!nulls.inner(), None),
                )?,
                None => column,
            })
        }
        SpatialOp::SetSrid { family, .. } => {
            let Some(s) = first.as_struct_opt() else {
                return Ok(arrow::array::new_null_array(&op.return_type(), first.len()));
            };
            let Some(srids) = args.get(1) else {
                return internal_err!("st_setsrid without an SRID");
            };
            let srids = arrow::compute::cast(srids, &DataType::Int32)?;
            let srids = srids.as_primitive::<Int32Type>();
            let wkb = binaries(s.column(1))?;
            let rows = (0..s.len())
                .map(|i| {
                    if s.is_null(i) || srids.is_null(i) {
                        return Ok(None);
                    }
                    let srid = srids.value(i);
                    if !valid_srid(*family, srid) {
                        return Err(to_datafusion(invalid_srid(srid as i64)));
                    }
                    Ok(wkb[i].map(|w| (srid, w.to_vec())))
                })
                .collect::<Result<Vec<_>>>()?;
            values(&op.return_type(), rows)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn wkb_is_kept_little_endian() {
        let le = hex("0101000000000000000000F03F0000000000000040");
        let be = hex("00000000013FF00000000000004000000000000000");
        assert_eq!(normalize_wkb(&be, false, false).unwrap(), le);
        assert_eq!(normalize_wkb(&le, false, true).unwrap(), be);
        // Bytes after the geometry are dropped; too short a buffer fails at position 0.
        let mut longer = le.clone();
        longer.push(0);
        assert_eq!(normalize_wkb(&longer, false, false).unwrap(), le);
        assert!(normalize_wkb(&le[..4], false, false).is_err());
    }
}
