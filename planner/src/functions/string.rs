//! String functions (1-based positions, Spark's null handling).

use datafusion::logical_expr::{Expr, lit};

use super::operators::two;
use super::{Naming, RegistryBuilder, add_df, add_df_named, add_spark, add_spark_named};

pub fn register(b: &mut RegistryBuilder) {
    add_df(b, &["upper", "ucase"], "upper", 1, 1);
    add_df(b, &["lower", "lcase"], "lower", 1, 1);
    add_spark(
        b,
        &["length", "char_length", "character_length", "len"],
        "length",
        1,
        1,
    );
    add_df(b, &["trim", "btrim"], "btrim", 1, 2);
    add_df(b, &["ltrim"], "ltrim", 1, 2);
    add_df(b, &["rtrim"], "rtrim", 1, 2);
    add_spark(b, &["concat"], "concat", 0, usize::MAX);
    add_spark_named(b, &["||"], Naming::Fixed("concat"), "concat", 2, 2);
    add_spark(b, &["concat_ws"], "concat_ws", 1, usize::MAX);
    add_spark(b, &["substring", "substr"], "substring", 2, 3);
    add_df(b, &["replace"], "replace", 2, 3);
    add_df(b, &["reverse"], "reverse", 1, 1);
    add_df(b, &["repeat"], "repeat", 2, 2);
    add_df(b, &["lpad"], "lpad", 2, 3);
    add_df(b, &["rpad"], "rpad", 2, 3);
    add_df(b, &["initcap"], "initcap", 1, 1);
    add_spark(b, &["ascii"], "ascii", 1, 1);
    add_df(b, &["startswith"], "starts_with", 2, 2);
    add_df(b, &["endswith"], "ends_with", 2, 2);
    add_df(b, &["contains"], "contains", 2, 2);
    add_df(b, &["left"], "left", 2, 2);
    add_df(b, &["right"], "right", 2, 2);
    add_df(b, &["translate"], "translate", 3, 3);
    add_df(b, &["md5"], "md5", 1, 1);
    add_spark(b, &["sha1", "sha"], "sha1", 1, 1);
    add_spark(b, &["sha2"], "sha2", 2, 2);
    add_spark(b, &["crc32"], "crc32", 1, 1);
    add_spark(b, &["xxhash64"], "xxhash64", 1, usize::MAX);
    add_spark(b, &["base64"], "base64", 1, 1);
    add_spark(b, &["unbase64"], "unbase64", 1, 1);
    add_spark(b, &["hex"], "hex", 1, 1);
    add_spark(b, &["unhex"], "unhex", 1, 1);
    add_spark(
        b,
        &["format_string", "printf"],
        "format_string",
        1,
        usize::MAX,
    );
    add_spark(b, &["char", "chr"], "char", 1, 1);
    add_spark(b, &["space"], "space", 1, 1);
    add_spark(b, &["soundex"], "soundex", 1, 1);
    add_df(b, &["levenshtein"], "levenshtein", 2, 2);
    add_df(b, &["regexp_replace"], "regexp_replace", 3, 3);
    add_df(b, &["regexp_count"], "regexp_count", 2, 2);
    add_df(b, &["bit_length"], "bit_length", 1, 1);
    add_df(b, &["octet_length"], "octet_length", 1, 1);
    add_df_named(b, &["split_part"], Naming::Call, "split_part", 3, 3);
    // instr(str, substr) and locate(substr, str[, pos]) are 1-based, 0 when absent.
    b.scalar(&["instr"], |f| {
        let (s, sub) = two(f)?;
        super::df_udf("strpos").map(|u| u.call(vec![s, sub]))
    });
    b.scalar(&["locate", "position"], |f| {
        f.arity(2, 3)?;
        if f.args.len() == 3 {
            return Err(crate::error::PlanError::Unsupported(
                "locate with a start position".into(),
            ));
        }
        let (sub, s) = two(f)?;
        super::df_udf("strpos").map(|u| u.call(vec![s, sub]))
    });
    let _: fn(Expr) -> Expr = |e| e;
    let _ = lit(0);
}
