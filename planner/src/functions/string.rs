//! String functions (1-based positions, Spark's null handling).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast, lit};

use super::native::charset::Charset;
use super::native::{BytesOp, Native, NativeUdf, XpathResult};
use super::operators::two;
use super::{Naming, RegistryBuilder, add_df, add_df_named, add_spark};
use crate::error::{PlanResult, SparkError};
use crate::types::is_binary;

pub fn register(b: &mut RegistryBuilder) {
    add_df(b, &["upper", "ucase"], "upper", 1, 1);
    add_df(b, &["lower", "lcase"], "lower", 1, 1);
    // Of text or bytes (numbers, dates and booleans are cast to their text first), not of
    // arrays or maps.
    if let Some(length) = super::spark_scalar("length") {
        b.scalar(
            &["length", "char_length", "character_length", "len"],
            move |f| {
                f.arity(1, 1)?;
                super::check_type(&f, 0, &["STRING", "BINARY"], |t| {
                    !matches!(
                        t,
                        DataType::List(_)
                            | DataType::LargeList(_)
                            | DataType::FixedSizeList(..)
                            | DataType::Map(..)
                            | DataType::Struct(_)
                    )
                })?;
                Ok(length.call(f.args))
            },
        );
    }
    add_df(b, &["btrim"], "btrim", 1, 2);
    // trim/ltrim/rtrim([trimStr, ]str): the trim string comes first, as in Spark's
    // `TRIM(BOTH trimStr FROM str)`, which is how Spark names the two-argument calls.
    for (name, df_name) in [("trim", "btrim"), ("ltrim", "ltrim"), ("rtrim", "rtrim")] {
        b.scalar_named(&[name], Naming::Custom(trim_name), move |mut f| {
            f.arity(1, 2)?;
            f.args.reverse();
            super::df_udf(df_name).map(|u| u.call(f.args))
        });
    }
    b.scalar(&["concat"], concat);
    b.scalar_named(&["||"], Naming::Fixed("concat"), concat);
    add_spark(b, &["concat_ws"], "concat_ws", 1, usize::MAX);
    b.scalar_named(
        &["substring", "substr"],
        Naming::Defaults {
            from: 2,
            values: &["2147483647"],
        },
        |f| {
            f.arity(2, 3)?;
            match text_prefix_args(&f) {
                Some(args) => super::df_udf("substr").map(|u| u.call(args)),
                None => super::sp_udf("substring").map(|u| u.call(f.args)),
            }
        },
    );
    b.scalar(&["replace"], |mut f| {
        f.arity(2, 3)?;
        if f.args.len() == 2 {
            f.args.push(lit(""));
        }
        super::df_udf("replace").map(|u| u.call(f.args))
    });
    b.scalar(&["reverse"], |f| {
        let list = matches!(
            f.types.first(),
            Some(arrow::datatypes::DataType::List(_) | arrow::datatypes::DataType::LargeList(_))
        );
        if f.types.first().is_some_and(is_binary) {
            let x = super::operators::one(f)?;
            return Ok(NativeUdf::udf(Native::Bytes {
                op: BytesOp::Reverse,
            })
            .call(vec![x]));
        }
        let x = super::operators::one(f)?;
        let name = if list { "array_reverse" } else { "reverse" };
        Ok(super::df_udf(name)?.call(vec![x]))
    });
    add_df(b, &["repeat"], "repeat", 2, 2);
    let pad = Naming::Defaults {
        from: 2,
        values: &[" "],
    };
    // Of BINARY (and a BINARY pad, by default a zero byte): bytes (Spark's BinaryPad).
    for (name, op) in [("lpad", BytesOp::LeftPad), ("rpad", BytesOp::RightPad)] {
        b.scalar_named(&[name], pad.clone(), move |f| {
            f.arity(2, 3)?;
            let bytes =
                f.types.first().is_some_and(is_binary) && f.types.get(2).is_none_or(is_binary);
            if bytes {
                let mut args = f.args;
                if args.len() == 2 {
                    args.push(lit(ScalarValue::Binary(Some(vec![0]))));
                }
                return Ok(NativeUdf::udf(Native::Bytes { op }).call(args));
            }
            let mut args = f.args;
            for (arg, t) in args.iter_mut().zip(&f.types) {
                if is_binary(t) {
                    *arg = cast(arg.clone(), DataType::Utf8);
                }
            }
            super::df_udf(name).map(|u| u.call(args))
        });
    }
    native(b, &["initcap"], 1, 1, || Native::Initcap);
    native_named(b, &["split"], defaults(2, &["-1"]), 2, 3, || Native::Split);
    native(b, &["regexp_extract"], 2, 3, || Native::RegexpExtract {
        all: false,
    });
    native_named(
        b,
        &["regexp_extract_all"],
        defaults(2, &["1"]),
        2,
        3,
        || Native::RegexpExtract { all: true },
    );
    native(b, &["regexp_substr"], 2, 2, || Native::RegexpSubstr);
    native_named(b, &["regexp_instr"], defaults(2, &["0"]), 2, 3, || {
        Native::RegexpInstr
    });
    native(b, &["hash"], 1, usize::MAX, || Native::Murmur3);
    native(b, &["conv"], 3, 3, || Native::Conv);
    b.scalar(&["current_user", "user", "session_user"], |f| {
        f.arity(0, 0)?;
        Ok(lit(std::env::var("USER").unwrap_or_else(|_| "ember".into())))
    });
    b.scalar(&["version"], |f| {
        f.arity(0, 0)?;
        // Spark answers "<version> <git revision>"; Ember's revision is its own version.
        let version = &f.config.spark_version;
        Ok(lit(format!(
            "{version} ember-{}",
            env!("CARGO_PKG_VERSION")
        )))
    });
    native_named(
        b,
        &["mask"],
        defaults(1, &["X", "x", "n", "NULL"]),
        1,
        5,
        || Native::Mask,
    );
    b.scalar(&["format_number"], |f| {
        f.arity(2, 2)?;
        let format = match &f.args[1] {
            e if super::is_null_constant(e) => return Ok(lit(ScalarValue::Utf8(None))),
            // A negative number of decimals gives NULL, as in Spark.
            Expr::Literal(v, _) if v.data_type().is_integer() => {
                match v.to_string().parse::<usize>() {
                    Ok(d) => super::native::NumberFormat::decimals(d),
                    Err(_) => return Ok(lit(ScalarValue::Utf8(None))),
                }
            }
            Expr::Literal(ScalarValue::Utf8(Some(p)), _) => super::native::NumberFormat::pattern(p)
                .ok_or_else(|| {
                    crate::error::PlanError::Unsupported(format!(
                        "format_number with the pattern '{p}'"
                    ))
                })?,
            // A format read from a column (or computed), row by row.
            _ => {
                return Ok(NativeUdf::udf(Native::FormatNumberPerRow).call(f.args.clone()));
            }
        };
        Ok(NativeUdf::udf(Native::FormatNumber { format }).call(vec![f.args[0].clone()]))
    });
    native(b, &["get_json_object"], 2, 2, || Native::GetJsonObject);
    native(b, &["json_array_length"], 1, 1, || Native::JsonArrayLength);
    native(b, &["json_object_keys"], 1, 1, || Native::JsonObjectKeys);
    add_spark(b, &["ascii"], "ascii", 1, 1);
    // Of BINARY values these match bytes (DataFusion's take text only).
    for (name, df_name, op) in [
        ("startswith", "starts_with", BytesOp::StartsWith),
        ("endswith", "ends_with", BytesOp::EndsWith),
        ("contains", "contains", BytesOp::Contains),
    ] {
        b.scalar(&[name], move |f| {
            f.arity(2, 2)?;
            if f.types.iter().any(is_binary) {
                return Ok(NativeUdf::udf(Native::Bytes { op }).call(f.args));
            }
            Ok(super::df_udf(df_name)?.call(f.args))
        });
    }
    // left(binary, n) is the first n bytes (Spark's Substring(x, 1, n)).
    b.scalar(&["left"], |f| {
        f.arity(2, 2)?;
        if f.types.first().is_some_and(is_binary) {
            let mut args = f.args;
            args.insert(1, lit(1i32));
            return super::sp_udf("substring").map(|u| u.call(args));
        }
        super::df_udf("left").map(|u| u.call(f.args))
    });
    add_df(b, &["right"], "right", 2, 2);
    add_df(b, &["translate"], "translate", 3, 3);
    add_df(b, &["md5"], "md5", 1, 1);
    add_spark(b, &["sha1", "sha"], "sha1", 1, 1);
    add_spark(b, &["sha2"], "sha2", 2, 2);
    add_spark(b, &["crc32"], "crc32", 1, 1);
    add_spark(b, &["xxhash64"], "xxhash64", 1, usize::MAX);
    add_spark(b, &["base64"], "base64", 1, 1);
    // unbase64(text) as Java's MIME decoder reads it (Spark's): characters outside the
    // alphabet are skipped, the text ends at the first `=`, the last group may be short.
    b.scalar(&["unbase64"], |f| {
        let x = super::operators::one(f)?;
        let format = super::native::BinaryFormat::MimeBase64;
        Ok(NativeUdf::udf(Native::ToBinary { format, fail: true }).call(vec![x]))
    });
    b.scalar(&["hex"], |f| {
        f.arity(1, 1)?;
        if f.types.first() == Some(&DataType::Null) {
            return Ok(lit(ScalarValue::Utf8(None)));
        }
        super::sp_udf("hex").map(|u| u.call(f.args))
    });
    add_spark(b, &["unhex"], "unhex", 1, 1);
    super::format_string::register(b);
    // (datafusion-spark's char refuses a NULL constant, which an argument may also become
    // once folded: text that is no number, outside ANSI mode. It never sees one: NULL stands
    // for NULL.)
    b.scalar(&["char", "chr"], |f| {
        f.arity(1, 1)?;
        let [code] = <[Expr; 1]>::try_from(f.args)
            .map_err(|_| crate::error::PlanError::InvalidPlan("char takes one argument".into()))?;
        if super::is_null_constant(&code) {
            return Ok(lit(ScalarValue::Utf8(None)));
        }
        let never_null = super::df_udf("coalesce")?.call(vec![code.clone(), lit(0i64)]);
        let char = super::sp_udf("char")?.call(vec![never_null]);
        Ok(super::null_if_null(code, char))
    });
    add_spark(b, &["space"], "space", 1, 1);
    add_spark(b, &["soundex"], "soundex", 1, 1);
    // levenshtein(l, r[, threshold]): -1 when the distance is beyond the threshold; a NULL
    // threshold read from a column (or text that is no number) counts as 0, as Spark's generated
    // code reads it; a NULL literal threshold makes the value NULL (Spark's folding).
    b.scalar(&["levenshtein"], |mut f| {
        f.arity(2, 3)?;
        let threshold = (f.args.len() == 3)
            .then(|| f.args.pop())
            .flatten()
            .map(|t| cast(t, DataType::Int32));
        let distance = super::df_udf("levenshtein")?.call(f.args);
        Ok(match threshold {
            Some(t) if super::is_null_constant(&t) => lit(ScalarValue::Int32(None)),
            Some(t) => super::when(
                distance.clone().is_null(),
                lit(ScalarValue::Int32(None)),
                Some(super::when(
                    distance
                        .clone()
                        .gt(super::df_udf("coalesce")?.call(vec![t, lit(0i32)])),
                    lit(-1i32),
                    Some(distance),
                )),
            ),
            None => distance,
        })
    });
    // Java's patterns and replacement strings (`$1`, `${name}`, `\$`), from a position.
    b.scalar_named(
        &["regexp_replace"],
        Naming::Custom(|w, a, _| super::aggregate::default_arg(w, a, 3, "1")),
        |f| {
            f.arity(3, 4)?;
            regexp_replace_position(&f)?;
            Ok(NativeUdf::udf(Native::RegexpReplace).call(f.args))
        },
    );
    native(b, &["regexp_count"], 2, 2, || Native::RegexpCount);
    // Of text (DataFusion's), or of bytes (their number, Spark's `length`).
    for (name, bits) in [("bit_length", true), ("octet_length", false)] {
        b.scalar(&[name], move |f| {
            f.arity(1, 1)?;
            let bytes = f.types.first().is_some_and(crate::types::is_binary);
            if !bytes {
                return super::df_udf(name).map(|u| u.call(f.args));
            }
            let length = super::spark_scalar("length")
                .ok_or_else(|| crate::error::PlanError::Unsupported(format!("{name} of BINARY")))?
                .call(f.args);
            Ok(if bits { length * lit(8) } else { length })
        });
    }
    add_df_named(b, &["split_part"], Naming::Call, "split_part", 3, 3);
    // instr(str, substr) and locate(substr, str[, pos]) are 1-based, 0 when absent.
    // instr(str, substr[, position[, occurrence]]): the occurrence defaults to 1 when a
    // position is given (and is shown then).
    b.scalar_named(
        &["instr"],
        Naming::Custom(|_, a, _| match a {
            [s, sub, pos] => format!("instr({s}, {sub}, {pos}, 1)"),
            args => format!("instr({})", args.join(", ")),
        }),
        |mut f| {
            f.arity(2, 4)?;
            if f.args.len() == 2 {
                let (s, sub) = two(f)?;
                return super::df_udf("strpos").map(|u| u.call(vec![s, sub]));
            }
            if f.args.len() == 3 {
                f.args.push(lit(1i32));
            }
            let mut args = f.args;
            for a in &mut args[2..] {
                *a = cast(a.clone(), DataType::Int32);
            }
            Ok(NativeUdf::udf(Native::Instr).call(args))
        },
    );
    b.scalar_named(&["locate", "position"], defaults(2, &["1"]), |f| {
        f.arity(2, 3)?;
        let strpos = super::df_udf("strpos")?;
        if f.args.len() == 3 {
            // locate(sub, str, pos): the first match at or after pos; 0 for pos < 1.
            let mut args = f.args.into_iter();
            let (Some(sub), Some(s), Some(pos)) = (args.next(), args.next(), args.next()) else {
                return Err(crate::error::PlanError::InvalidPlan("locate".into()));
            };
            let pos = cast(pos, DataType::Int32);
            let tail = super::df_udf("substr")?.call(vec![s.clone(), pos.clone()]);
            let found = strpos.call(vec![tail, sub.clone()]);
            // (As Spark's: 0 for a NULL position, whatever the strings; an empty one is found
            // at once.)
            return Ok(Expr::Case(datafusion::logical_expr::expr::Case::new(
                None,
                vec![
                    (Box::new(pos.clone().is_null()), Box::new(lit(0))),
                    (
                        Box::new(sub.clone().is_null().or(s.is_null())),
                        Box::new(lit(ScalarValue::Int32(None))),
                    ),
                    (Box::new(pos.clone().lt(lit(1))), Box::new(lit(0))),
                    (Box::new(sub.eq(lit(""))), Box::new(lit(1))),
                    (Box::new(found.clone().eq(lit(0))), Box::new(lit(0))),
                ],
                Some(Box::new(cast(found + pos - lit(1), DataType::Int32))),
            )));
        }
        let (sub, s) = two(f)?;
        Ok(strpos.call(vec![s, sub]))
    });
    add_df(b, &["find_in_set"], "find_in_set", 2, 2);
    add_df(b, &["substring_index"], "substr_index", 3, 3);
    b.scalar(&["elt"], |f| {
        f.arity(2, usize::MAX)?;
        let ansi = f.config.ansi;
        let count = (f.args.len() - 1) as i64;
        let index = f.args[0].clone();
        let value = super::sp_udf("elt")?.call(f.args);
        if !ansi {
            return Ok(value);
        }
        // Beyond the arguments: INVALID_ARRAY_INDEX under ANSI (NULL otherwise).
        let outside = index
            .clone()
            .lt(datafusion::logical_expr::lit(1i64))
            .or(index.clone().gt(datafusion::logical_expr::lit(count)));
        Ok(super::native::fail_when(
            outside,
            super::native::Failure::InvalidArrayIndex,
            vec![index, datafusion::logical_expr::lit(count)],
            value,
        ))
    });
    add_spark(b, &["parse_url"], "parse_url", 2, 3);
    add_spark(b, &["try_parse_url"], "try_parse_url", 2, 3);
    add_spark(b, &["url_encode"], "url_encode", 1, 1);
    add_spark(b, &["url_decode"], "url_decode", 1, 1);
    add_spark(b, &["try_url_decode"], "try_url_decode", 1, 1);
    add_spark(b, &["is_valid_utf8"], "is_valid_utf8", 1, 1);
    add_spark(b, &["make_valid_utf8"], "make_valid_utf8", 1, 1);
    add_spark(b, &["luhn_check"], "luhn_check", 1, 1);
    add_spark(b, &["quote"], "quote", 1, 1);
    add_df(b, &["uuid"], "uuid", 0, 0);
    // Columns a PartitionIds node below the projection adds (`resolver::partition_ids`).
    b.scalar_named(
        &["spark_partition_id"],
        Naming::Custom(|_, _, _| "SPARK_PARTITION_ID()".to_string()),
        |f| {
            f.arity(0, 0)?;
            Ok(crate::logical::partition_ids::spark_partition_id())
        },
    );
    // The file each row was read from: the resolver replaces these (`resolver::input_file`).
    for name in [
        "input_file_name",
        "input_file_block_start",
        "input_file_block_length",
    ] {
        if let Some(field) = super::native::input_file::InputFileField::of(name) {
            native(b, &[name], 0, 0, move || Native::InputFile { field });
        }
    }
    // Arrow strings are valid UTF-8 already.
    b.scalar(
        &["validate_utf8", "try_validate_utf8"],
        super::operators::one,
    );
    // to_binary(str[, format]): hex (the default), base64 or the UTF-8 bytes.
    for (name, result) in [
        ("xpath", XpathResult::Strings),
        ("xpath_string", XpathResult::String),
        ("xpath_boolean", XpathResult::Boolean),
        ("xpath_short", XpathResult::Short),
        ("xpath_int", XpathResult::Int),
        ("xpath_long", XpathResult::Long),
        ("xpath_float", XpathResult::Float),
        ("xpath_double", XpathResult::Double),
        ("xpath_number", XpathResult::Double),
    ] {
        native(b, &[name], 2, 2, move || Native::Xpath { result });
    }
    for (name, fail) in [("to_number", true), ("try_to_number", false)] {
        b.scalar(&[name], move |f| {
            f.arity(2, 2)?;
            let pattern = match super::to_char::number_format(&f)? {
                Some(p) => super::native::NumberPattern::parse(&p)?,
                // (A NULL format: NULL, of Spark's default decimal type.)
                None => return Ok(cast(lit(ScalarValue::Null), DataType::Decimal128(10, 0))),
            };
            let kind = Native::ToNumber { pattern, fail };
            Ok(NativeUdf::udf(kind).call(vec![f.args[0].clone()]))
        });
    }
    // Strings have Spark's default collation; others are not supported.
    b.scalar(&["collation"], |f| {
        f.arity(1, 1)?;
        // (Of a string, or a NULL, which Spark reads as one.)
        super::check_type(&f, 0, &["STRING"], |t| {
            matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
        })?;
        Ok(lit("SYSTEM.BUILTIN.UTF8_BINARY"))
    });
    b.scalar(&["collate"], |f| {
        f.arity(2, 2)?;
        match &f.args[1] {
            Expr::Literal(ScalarValue::Utf8(Some(c)), _)
                if c.eq_ignore_ascii_case("UTF8_BINARY")
                    || c.eq_ignore_ascii_case("SYSTEM.BUILTIN.UTF8_BINARY") =>
            {
                Ok(f.args[0].clone())
            }
            other => Err(crate::error::PlanError::Unsupported(format!(
                "collation {other} (strings compare as UTF8_BINARY)"
            ))),
        }
    });
    // A bitmap position's bit (0 to 32767) and bucket (Spark's 32768-bit bitmaps).
    b.scalar(&["bitmap_bit_position"], |f| {
        f.arity(1, 1)?;
        let x = cast(f.args[0].clone(), DataType::Int64);
        let bits = lit(32768i64);
        Ok(datafusion::logical_expr::when(
            x.clone().gt(lit(0i64)),
            (x.clone() - lit(1i64)) % bits.clone(),
        )
        .otherwise((-x) % bits)?)
    });
    b.scalar(&["bitmap_bucket_number"], |f| {
        f.arity(1, 1)?;
        let x = cast(f.args[0].clone(), DataType::Int64);
        let bits = lit(32768i64);
        Ok(datafusion::logical_expr::when(
            x.clone().gt(lit(0i64)),
            lit(1i64) + (x.clone() - lit(1i64)) / bits.clone(),
        )
        .otherwise(x / bits)?)
    });
    b.scalar(&["bitmap_count"], |f| {
        f.arity(1, 1)?;
        let op = super::native::BitmapOp::Count;
        Ok(NativeUdf::udf(Native::Bitmap { op }).call(f.args.clone()))
    });
    native_named(b, &["sentences"], defaults(1, &["", ""]), 1, 3, || {
        Native::Sentences
    });
    // Named with the defaults of the mode, padding, IV and AAD.
    let encrypt = defaults(2, &["GCM", "DEFAULT", "", ""]);
    let decrypt = defaults(2, &["GCM", "DEFAULT", ""]);
    native_named(b, &["aes_encrypt"], encrypt, 2, 6, || Native::Aes {
        encrypt: true,
        fail: true,
    });
    native_named(b, &["aes_decrypt"], decrypt.clone(), 2, 5, || Native::Aes {
        encrypt: false,
        fail: true,
    });
    native_named(b, &["try_aes_decrypt"], decrypt, 2, 5, || Native::Aes {
        encrypt: false,
        fail: false,
    });
    // make_ym_interval([years[, months]]).
    b.scalar(&["make_ym_interval"], |mut f| {
        f.arity(0, 2)?;
        while f.args.len() < 2 {
            f.args.push(lit(0));
        }
        Ok(NativeUdf::udf(Native::MakeYmInterval).call(f.args))
    });
    b.scalar(&["monotonically_increasing_id"], |f| {
        f.arity(0, 0)?;
        Ok(crate::logical::partition_ids::monotonically_increasing_id())
    });
    // overlay(str PLACING rep FROM pos [FOR len]): a negative length (the client's default,
    // -1) replaces as many characters as `rep` has, as Spark.
    b.scalar_named(
        &["overlay"],
        Naming::Custom(|_, a, _| match a {
            [s, r, p] => format!("overlay({s}, {r}, {p}, -1)"),
            args => format!("overlay({})", args.join(", ")),
        }),
        |mut f| {
            f.arity(3, 4)?;
            if f.types.first().is_some_and(is_binary) {
                return overlay_bytes(f.args);
            }
            if f.args.len() == 4 {
                let len = f.args[3].clone();
                let rep_len = super::df_udf("character_length")?.call(vec![f.args[1].clone()]);
                f.args[3] = datafusion::logical_expr::when(len.clone().lt(lit(0)), rep_len)
                    .otherwise(len)?;
            }
            Ok(super::df_udf("overlay")?.call(f.args))
        },
    );
    // encode(str, charset) / decode(bin, charset): text as bytes in a charset and back
    // (UTF-8 text is its bytes).
    b.scalar(&["encode"], |f| {
        let (s, charset) = two(f)?;
        if super::is_null_constant(&charset) {
            return Ok(lit(ScalarValue::Binary(None)));
        }
        match known_charset(&charset, "encode")? {
            None => {
                Ok(NativeUdf::udf(Native::CharsetPerRow { encode: true }).call(vec![s, charset]))
            }
            Some(Charset::Utf8) => Ok(cast(s, DataType::Binary)),
            Some(charset) => Ok(NativeUdf::udf(Native::Charset {
                charset,
                encode: true,
            })
            .call(vec![s])),
        }
    });
    // (`decode(value, search, result...)`, Spark's CASE form, is the resolver's.)
    b.scalar(&["decode"], |f| {
        let (s, charset) = two(f)?;
        if super::is_null_constant(&charset) {
            return Ok(lit(ScalarValue::Utf8(None)));
        }
        match known_charset(&charset, "decode")? {
            None => {
                Ok(NativeUdf::udf(Native::CharsetPerRow { encode: false }).call(vec![s, charset]))
            }
            Some(charset) => Ok(NativeUdf::udf(Native::Charset {
                charset,
                encode: false,
            })
            .call(vec![s])),
        }
    });
    let _: fn(Expr) -> Expr = |e| e;
    let _ = lit(0);
}

/// The charset a constant names (Spark's INVALID_PARAMETER_VALUE.CHARSET for others); `None`
/// for a column of charsets.
fn known_charset(charset: &Expr, function: &str) -> crate::error::PlanResult<Option<Charset>> {
    if !charset.column_refs().is_empty() {
        return Ok(None);
    }
    let Expr::Literal(v, _) = crate::resolver::fold_constants(charset.clone())? else {
        return Ok(None);
    };
    let name = match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => s.clone(),
        other => other.to_string(),
    };
    match Charset::named(&name) {
        Some(c) => Ok(Some(c)),
        None => Err(super::native::charset::unknown_charset(function, &name).into()),
    }
}

/// A function computed by one of Ember's native kinds.
fn native(
    b: &mut RegistryBuilder,
    names: &[&str],
    min: usize,
    max: usize,
    kind: impl Fn() -> Native + Send + Sync + 'static,
) {
    native_named(b, names, Naming::Call, min, max, kind);
}

fn native_named(
    b: &mut RegistryBuilder,
    names: &[&str],
    naming: Naming,
    min: usize,
    max: usize,
    kind: impl Fn() -> Native + Send + Sync + 'static,
) {
    b.scalar_named(names, naming, move |f| {
        f.arity(min, max)?;
        Ok(NativeUdf::udf(kind()).call(f.args))
    });
}

/// Named as written, with the defaults of omitted trailing parameters from `from` shown.
fn defaults(from: usize, values: &'static [&'static str]) -> Naming {
    Naming::Defaults { from, values }
}

/// `trim(s)`, and `TRIM(BOTH t FROM s)` (LEADING for ltrim, TRAILING for rtrim) with a trim
/// string, which comes first.
fn trim_name(written: &str, args: &[String], _distinct: bool) -> String {
    let written = written.to_lowercase();
    match args {
        [trim, s] => {
            let side = match written.as_str() {
                "ltrim" => "LEADING",
                "rtrim" => "TRAILING",
                _ => "BOTH",
            };
            format!("TRIM({side} {trim} FROM {s})")
        }
        _ => format!("{written}({})", args.join(", ")),
    }
}

/// `regexp_replace`'s position: a constant above 0, as Spark checks it.
fn regexp_replace_position(f: &super::FunctionInput) -> PlanResult<()> {
    let Some(position) = f.args.get(3) else {
        return Ok(());
    };
    let value = match position {
        Expr::Literal(v, _) if v.is_null() => return Ok(()),
        Expr::Literal(v, _) if v.data_type().is_integer() => v.to_string().parse::<i64>().ok(),
        _ => None,
    };
    let mismatch = |detail: String| {
        SparkError::analysis(
            if value.is_some() {
                "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE"
            } else {
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT"
            },
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: {detail}.",
                f.name
            ),
        )
    };
    match value {
        Some(v) if v > 0 => Ok(()),
        Some(v) => Err(mismatch(format!(
            "The position must be between (0, 2147483647] (current value = {v})"
        ))
        .into()),
        None => {
            let arg = f.field_names.get(3).cloned().flatten().unwrap_or_default();
            Err(mismatch(format!(
                "the input `position` should be a foldable \"INT\" expression; however, got \"{arg}\""
            ))
            .into())
        }
    }
}

/// `overlay` of BINARY values, Spark's `Overlay.calculate` on bytes: the bytes before `pos`,
/// then `rep`, then the bytes from `pos + len` on (`len` negative or left out: `rep`'s length).
fn overlay_bytes(args: Vec<Expr>) -> PlanResult<Expr> {
    let (s, rep, pos, len) = match <[Expr; 4]>::try_from(args) {
        Ok([s, rep, pos, len]) => (s, rep, pos, Some(len)),
        Err(args) => match <[Expr; 3]>::try_from(args) {
            Ok([s, rep, pos]) => (s, rep, pos, None),
            Err(_) => return Err(crate::error::PlanError::InvalidPlan("overlay".into())),
        },
    };
    let rep_len = super::spark_scalar("length")
        .ok_or_else(|| crate::error::PlanError::Unsupported("overlay of BINARY".into()))?
        .call(vec![rep.clone()]);
    let len = match len {
        Some(len) => {
            datafusion::logical_expr::when(len.clone().lt(lit(0)), rep_len).otherwise(len)?
        }
        None => rep_len,
    };
    let substring = super::sp_udf("substring")?;
    let head = substring.call(vec![s.clone(), lit(1i32), pos.clone() - lit(1i32)]);
    let tail = substring.call(vec![s, pos + len, lit(i32::MAX)]);
    super::sp_udf("concat").map(|u| u.call(vec![head, rep, tail]))
}

/// `concat(...)` / `a || b`: of arrays their concatenation, else of texts (numbers and other
/// values cast to their text). Arrays mix neither with texts nor with an untyped NULL
/// (Spark's DATA_DIFF_TYPES).
fn concat(f: super::FunctionInput) -> PlanResult<Expr> {
    let is_array = |t: &DataType| matches!(t, DataType::List(_) | DataType::LargeList(_));
    let arrays = f.types.iter().filter(|t| is_array(t)).count();
    // (A NULL is a STRING here, as Spark types an untyped NULL among texts.)
    if arrays > 0 && arrays < f.types.len() {
        let listed: Vec<String> = f
            .types
            .iter()
            .map(|t| match t {
                t if is_array(t) || matches!(t, DataType::Binary) => {
                    format!("\"{}\"", crate::types::sql_name(t))
                }
                _ => "\"STRING\"".to_string(),
            })
            .collect();
        let listed = format!("({})", listed.join(" or "));
        return Err(SparkError::new(
            crate::error::ErrorKind::Analysis,
            "DATATYPE_MISMATCH.DATA_DIFF_TYPES",
            "42K09",
            format!(
                "Cannot resolve \"{}\" due to data type mismatch: Input to `concat` should all be the same type, but it's {listed}.",
                f.name
            ),
            vec![("functionName", "`concat`".to_string()), ("dataType", listed.clone())],
        )
        .into());
    }
    if arrays > 0 {
        // NULL when any array is (DataFusion's skips NULL arrays).
        let any_null = super::any_null(&f.args);
        let joined = super::df_udf("array_concat")?.call(f.args);
        return Ok(super::null_when(any_null, joined));
    }
    // Binary values among texts (or an untyped NULL) are read as text: the result is a STRING
    // unless every argument is BINARY.
    let mut args = f.args;
    if f.types.iter().any(is_binary) && !f.types.iter().all(is_binary) {
        for (arg, t) in args.iter_mut().zip(&f.types) {
            if is_binary(t) {
                *arg = datafusion::logical_expr::cast(arg.clone(), DataType::Utf8);
            }
        }
    }
    super::sp_udf("concat").map(|u| u.call(args))
}

/// `substring(text, pos, len)` with constant `pos >= 0` and `len >= 0`, as DataFusion's
/// `substr` arguments (a position of 0 is Spark's 1): the same piece, found by decoding the
/// text only up to its end (datafusion-spark's counts every character of every value for the
/// negative positions these are not).
fn text_prefix_args(f: &super::FunctionInput) -> Option<Vec<Expr>> {
    let int = |e: &Expr| match e {
        Expr::Literal(ScalarValue::Int32(Some(n)), _) => Some(i64::from(*n)),
        Expr::Literal(ScalarValue::Int64(Some(n)), _) => Some(*n),
        _ => None,
    };
    if !matches!(f.types.first(), Some(DataType::Utf8 | DataType::LargeUtf8)) {
        return None;
    }
    let pos = int(f.args.get(1)?).filter(|p| *p >= 0)?;
    let mut args = vec![f.args.first()?.clone(), lit(pos.max(1))];
    if let Some(len) = f.args.get(2) {
        args.push(lit(int(len).filter(|n| *n >= 0)?));
    }
    Some(args)
}
