//! [`Native`]: what each of Ember's own scalar functions computes, as plain data (serde) with
//! the settings fixed when it was planned, so that plans carrying these functions travel to
//! workers as JSON.

use super::*;

/// What a native function computes, with the settings fixed when it was planned.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Native {
    /// `date_format(ts, pattern)`: `pattern` is a chrono format (see `ember_execution::values::pattern`).
    DateFormat {
        time_zone: String,
        pattern: String,
    },
    /// Text read with a Spark datetime pattern (`to_timestamp`, `to_date`,
    /// `unix_timestamp`), failing (ANSI) or NULL on text that does not match. With a second
    /// argument, each row's Spark pattern is read from it (and `pattern` is unused).
    ParseDatetime {
        time_zone: String,
        pattern: String,
        target: ParseTarget,
        fail: bool,
    },
    /// `CAST(text AS TIMESTAMP)` in the session time zone: local times in a DST overlap
    /// take the earlier offset, in a gap move forward (as java.time does; arrow refuses
    /// both). `fail`: CAST_INVALID_INPUT for malformed text, else NULL.
    TextToTimestamp {
        time_zone: String,
        fail: bool,
        /// To nanoseconds (TIMESTAMP_LTZ(9)), not microseconds.
        #[serde(default)]
        nanos: bool,
        /// The local date-time of `CAST(text AS TIMESTAMP_NTZ)` (any zone in the text
        /// ignored, a text without a date refused), as an instant in UTC.
        #[serde(default)]
        local: bool,
    },
    /// `CAST(text AS DATE)` by Spark's rules (`yyyy`, `yyyy-[m]m`, `yyyy-[m]m-[d]d`, anything
    /// after a space or `T` ignored). `fail`: CAST_INVALID_INPUT for malformed text, else NULL.
    TextToDate {
        fail: bool,
    },
    /// `make_date(y, m, d)`: `fail`: DATETIME_FIELD_OUT_OF_BOUNDS for fields out of range,
    /// else NULL.
    MakeDate {
        fail: bool,
    },
    /// The local date-time (TIMESTAMP_NTZ) of `make_timestamp(y, mo, d, h, mi, s)`; `fail` as
    /// for `MakeDate`.
    MakeLocalDateTime {
        fail: bool,
    },
    /// `timestamp_seconds`/`_millis`/`_micros(n)`: the microseconds of `n` units of
    /// `1 / per_second` seconds after the epoch, as Spark's (`epoch.rs`).
    EpochMicros {
        per_second: i64,
    },
    /// `date_trunc(unit, ts)` in the session time zone (`unit` one of Spark's, upper case).
    DateTrunc {
        unit: String,
        time_zone: String,
    },
    /// `timestampadd(unit, n, ts)`: calendar units (DAY and up) in the session time zone.
    TimestampAdd {
        unit: String,
        time_zone: String,
    },
    /// `timestampdiff(unit, start, end)`: whole units, calendar units between local times.
    TimestampDiff {
        unit: String,
        time_zone: String,
    },
    /// `CAST(TIMESTAMP AS TIMESTAMP_NTZ)` (`to_local`: the local date-time of the instant in
    /// `time_zone`) and `CAST(TIMESTAMP_NTZ AS TIMESTAMP)` (the instant of the local
    /// date-time, DST overlaps and gaps resolved as java.time does).
    ShiftZone {
        time_zone: String,
        to_local: bool,
    },
    /// `convert_timezone(from, to, ts)`: a local time of zone `from` as the local time of
    /// zone `to` at the same instant (TIMESTAMP_NTZ).
    ConvertTimezone,
    /// `months_between(t1, t2, roundOff)` in the session time zone.
    MonthsBetween {
        time_zone: String,
        round_off: bool,
    },
    /// `split(str, regex[, limit])` with Java's semantics.
    Split,
    /// `regexp_extract(str, regex, group)` or `regexp_extract_all`.
    RegexpExtract {
        all: bool,
    },
    /// `regexp_substr(str, regex)`: the first match, NULL without one.
    RegexpSubstr,
    /// `regexp_instr(str, regex)`: the 1-based position of the first match, else 0.
    RegexpInstr,
    /// `rlike`/`regexp`/`regexp_like(str, regex)` (`function` names it in errors).
    RegexpLike {
        function: String,
    },
    /// `regexp_count(str, regex)`.
    RegexpCount,
    /// `regexp_replace(str, regex, replacement[, position])`.
    RegexpReplace,
    /// `str_to_map(text[, pairDelim[, keyValueDelim]])` (`last_win`: duplicate keys keep
    /// the last value).
    StrToMap {
        last_win: bool,
    },
    /// `initcap`: words split at spaces only, the rest lower case.
    Initcap,
    /// `conv(num, from_base, to_base)`.
    Conv,
    /// `format_number(x, d)` or `format_number(x, pattern)` (a DecimalFormat pattern of
    /// `#`, `0`, `,` and `.`).
    FormatNumber {
        format: format_number::NumberFormat,
    },
    /// `format_number(x, format)` in the format of each row (a column of decimals or
    /// patterns).
    FormatNumberPerRow,
    /// `mask(str, upper, lower, digit, other)`.
    Mask,
    /// Lists of structs with their fields renamed (`arrays_zip`'s names).
    RenameFields {
        names: Vec<String>,
    },
    /// The most frequent value of a list (`mode`); among ties the first in Spark's
    /// `OpenHashMap` (the first seen where its hash codes are not known), or the first in the
    /// list when it is `sorted` (`mode(x, true)`, `WITHIN GROUP`).
    ArrayMode {
        sorted: bool,
    },
    /// Each list (`collect_set`'s) in the iteration order of Spark's Scala `HashSet`.
    HashSetOrder,
    /// `to_json(value[, options])`: dates and timestamps written with the chrono patterns of
    /// the `dateFormat`, `timestampFormat` and `timestampNTZFormat` options, if given.
    ToJson {
        #[serde(default)]
        formats: JsonFormats,
    },
    /// `to_csv(struct)`.
    ToCsv,
    /// Spark's bitmap functions.
    Bitmap {
        op: BitmapOp,
    },
    /// `to_number(text, format)`; `fail`: to_number (else try_to_number, NULL).
    ToNumber {
        pattern: NumberPattern,
        fail: bool,
    },
    /// `to_char(number, format)`: the number as text in Spark's number format.
    ToChar {
        pattern: NumberPattern,
    },
    /// `timestamp ± interval`, `timestamp - timestamp` in the local time of `time_zone`.
    Zoned {
        op: ZonedOp,
        time_zone: String,
    },
    /// `xpath(xml, path)` and its typed forms.
    Xpath {
        result: XpathResult,
    },
    /// `to_binary(text, format)` (`fail`) or `try_to_binary`.
    ToBinary {
        format: BinaryFormat,
        fail: bool,
    },
    /// `reflect`/`java_method`/`try_reflect` of a supported JDK method.
    Reflect {
        call: reflect::ReflectCall,
    },
    /// `session_window(ts, gap)`: marks a GROUP BY key whose sessions the aggregate computes
    /// (its argument: the time in microseconds); `time_zone` is the key's zone (none: NTZ).
    SessionWindow {
        gap: i64,
        time_zone: Option<String>,
    },
    /// `rand`/`randn`/`randstr` with a seed: Spark's per-partition generator, over the
    /// partition and position of each row.
    SeededRandom {
        draw: random::RandomKind,
        seed: i64,
    },
    /// `input_file_name()` and the block functions as called: the resolver replaces them by
    /// what the input gives (`resolver::input_file`), so evaluating one is an error.
    InputFile {
        field: input_file::InputFileField,
    },
    /// The URI Spark names a file by, of its object store location (`prefix` the store's URL).
    FileUri {
        prefix: String,
    },
    /// The length of the local file at an object store location.
    LocalFileSize,
    /// An ANSI interval multiplied (divided) by a number.
    IntervalScale {
        divide: bool,
    },
    /// A number cast to an interval type: the number times the literal interval of one
    /// unit of the type's last field (`cast`: the Spark type names of the number and of
    /// the interval, for CAST_OVERFLOW).
    NumberToInterval {
        cast: (String, String),
    },
    /// An ANSI interval's value without the fields past its type's last: whole multiples
    /// of `unit` (microseconds, or months), toward zero.
    IntervalTruncate {
        unit: i64,
    },
    /// `CAST(text AS INTERVAL ...)` (NULL for text of another form unless `fail`).
    TextToInterval {
        fields: crate::interval::IntervalFields,
        fail: bool,
    },
    /// A number or an interval (counted in `unit`s) cast to the integer type `to` (Spark's
    /// name) under ANSI: CAST_OVERFLOW for values out of its range.
    CheckedIntegerCast {
        from: String,
        to: String,
        unit: i64,
        /// An out-of-range value is an arithmetic result (ARITHMETIC_OVERFLOW, as a BIGINT
        /// `sum` overflows under ANSI) rather than a cast's CAST_OVERFLOW.
        #[serde(default)]
        arithmetic: bool,
    },
    /// The copies of a row `sample(withReplacement=True, mean)` keeps, from its uniform number.
    PoissonCount {
        /// The mean, as the bits of its f64 (kinds are compared and hashed).
        mean_bits: u64,
    },
    /// A number cast to the integer type `to` (Spark's name) outside ANSI mode, as Spark's
    /// legacy cast: low bits kept, floating point values saturated (see `legacy_cast`).
    LegacyIntegerCast {
        to: String,
    },
    /// A GEOMETRY/GEOGRAPHY function (`st_geomfromwkb`, `st_srid`, ...).
    Spatial {
        op: spatial::SpatialOp,
    },
    /// A function of DataSketches sketch values (`hll_sketch_estimate`, `theta_union`, ...).
    Sketch {
        op: SketchOp,
    },
    /// `aes_encrypt` (`encrypt`), `aes_decrypt` and `try_aes_decrypt` (not `fail`).
    Aes {
        encrypt: bool,
        fail: bool,
    },
    /// `window(ts, width, slide)` with a slide other than its width: marks the list of windows
    /// holding a row, which GROUP BY unnests (its argument computed instead). Anywhere else a
    /// row would have to become several rows: "not supported".
    SlidingWindows,
    /// `histogram_numeric(x, nb)` of a group's values (a list).
    HistogramNumeric {
        bins: usize,
    },
    /// `from_xml(text, schema)`: `schema` a DDL struct.
    FromXml {
        schema: String,
        time_zone: String,
    },
    /// `to_xml(struct)` (timestamps in their type's zone).
    ToXml,
    /// `make_ym_interval(years, months)`.
    MakeYmInterval,
    /// `make_dt_interval(days, hours, mins, secs)`.
    MakeDtInterval,
    /// `sentences(text)`: the words of each sentence.
    Sentences,
    /// Spark's TIME functions.
    Time {
        op: TimeOp,
    },
    /// Spark's VARIANT functions.
    Variant {
        op: VariantOp,
    },
    /// `from_json(text, schema)`: `schema` a DDL type, read in `time_zone`.
    FromJson {
        schema: String,
        time_zone: String,
        #[serde(default)]
        leniency: Leniency,
    },
    /// `from_csv(text, schema, options)`: `schema` a DDL struct, read in `time_zone`.
    FromCsv {
        schema: String,
        time_zone: String,
        options: Box<crate::datasource::csv::CsvOptions>,
    },
    /// `get_json_object(json, path)`.
    GetJsonObject,
    JsonArrayLength,
    JsonObjectKeys,
    /// `exp`, `cosh`, `log2` as Java's StrictMath computes them (see `strict_math`).
    StrictMath {
        op: super::strict_math::StrictMathOp,
    },
    /// A DECIMAL's microseconds (seconds times 10^6, truncated toward zero) as a BIGINT that
    /// wraps past its range, as Spark's legacy cast of a decimal to a timestamp
    /// (`BigDecimal.longValue`).
    DecimalMicros,
    /// `bround(x, scale)`: half-even rounding, in the type of `x` (decimals).
    RoundHalfEven {
        scale: i32,
    },
    /// `round`/`bround(x, scale)` of an integer or floating point `x`, as Spark's BigDecimal
    /// rounds it (see `round`).
    Round {
        scale: i32,
        half_even: bool,
        ansi: bool,
    },
    /// `ceil(x, scale)` (`up`) or `floor(x, scale)`, in the type of `x`.
    CeilFloor {
        scale: i32,
        up: bool,
    },
    /// Spark's `hash(...)`: Murmur3 (x86, 32 bits) folded over the arguments, seed 42.
    Murmur3,
    /// `next_day(date, day)` (see `next_day`): ILLEGAL_DAY_OF_WEEK for a day that names none
    /// under ANSI, else NULL.
    NextDay {
        ansi: bool,
    },
    /// Raises a Spark error when a row evaluates it (a CASE branch only the failing rows
    /// take); the arguments fill the message.
    Fail {
        failure: Failure,
    },
    /// `encode`/`decode` in a charset other than UTF-8 (see `charset`).
    Charset {
        charset: charset::Charset,
        encode: bool,
    },
    /// `encode`/`decode` in the charset each row names (a column of charsets).
    CharsetPerRow {
        encode: bool,
    },
    /// Every ordered pair of an array's elements, `{1: a[i], 2: a[j]}` (for
    /// `array_sort`'s comparator).
    ArrayPairs,
    /// An array sorted by its comparator's answers for `ArrayPairs`.
    SortByComparisons,
    /// Its argument, evaluated row by row and never while planning: a literal whose cast
    /// fails, in a branch (of CASE, `if`, `coalesce`) only some rows, or none, may take.
    Deferred,
    /// `to_base32(bin)` (`encode`) or `from_base32(text)`.
    Base32 {
        encode: bool,
    },
    /// `hmac(key, message[, algorithm])`.
    Hmac,
    /// `contains`/`startswith`/`endswith`/`reverse` of BINARY values.
    Bytes {
        op: BytesOp,
    },
    /// Zone names read as Java's `ZoneId.of(name, SHORT_IDS)` reads them, row by row.
    JavaZoneId,
    /// LIKE patterns with escape character `escape`, rewritten to escape with `\\`.
    LikeEscape {
        escape: char,
    },
    /// `text LIKE pattern` of a constant pattern of parts between `%` (`like_segments`).
    LikeSegments {
        pattern: String,
    },
    /// `jaro_winkler_similarity(a, b)`.
    JaroWinkler,
    /// `instr(str, substr, position, occurrence)`.
    Instr,
    /// Spark's vector functions of `ARRAY<FLOAT>`.
    Vector {
        op: VectorOp,
    },
    /// `collect_union` of a group's arrays (a list of them).
    CollectUnion {
        respect_nulls: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParseTarget {
    Timestamp,
    Date,
    UnixSeconds,
}
