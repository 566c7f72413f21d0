//! Spark's datetime patterns checked as Spark checks them and turned into chrono's (see
//! `ember_execution::values::pattern`), for formatting and for parsing.

/// A Spark datetime pattern for formatting as chrono's (see `chrono_pattern_for`).
pub(crate) fn chrono_pattern(spark: &str) -> crate::error::PlanResult<String> {
    chrono_pattern_for(spark, false)
}

/// The letters of a Spark pattern outside its quoted text.
fn pattern_letters(spark: &str) -> impl Iterator<Item = char> + '_ {
    let mut quoted = false;
    spark.chars().filter(move |c| {
        if *c == '\'' {
            quoted = !quoted;
        }
        !quoted && c.is_ascii_alphabetic()
    })
}

/// A Spark datetime pattern as chrono's, for parsing text (`parsing`) or formatting. As in
/// Spark, letters it never accepts (and quarters, when parsing) are
/// INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER, letters repeated more than it allows
/// INVALID_DATETIME_PATTERN.LENGTH.
pub(crate) fn chrono_pattern_for(spark: &str, parsing: bool) -> crate::error::PlanResult<String> {
    // (Week-based letters first, as Spark checks them.)
    ember_execution::values::pattern::week_based(spark)?;
    let illegal =
        |c: char| matches!(c, 'A' | 'n' | 'N' | 'p' | 'B') || (parsing && matches!(c, 'q' | 'Q'));
    if let Some(c) = pattern_letters(spark).find(|c| illegal(*c)) {
        return Err(crate::error::SparkError::new(
            crate::error::ErrorKind::IllegalArgument,
            "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER",
            "22007",
            format!("Unrecognized datetime pattern: {spark}. Illegal pattern character found in datetime pattern: {c}. Please provide legal character."),
            vec![("pattern", spark.to_string()), ("c", c.to_string())],
        )
        .into());
    }
    ember_execution::values::pattern::to_chrono(spark).map_err(|e| {
        let mut longest = 0;
        let mut run = 0;
        let mut prev = None;
        for c in spark.chars() {
            run = if Some(c) == prev { run + 1 } else { 1 };
            prev = Some(c);
            if c.is_ascii_alphabetic() {
                longest = longest.max(run);
            }
        }
        if longest >= 5 {
            crate::error::SparkError::new(
                crate::error::ErrorKind::IllegalArgument,
                "INVALID_DATETIME_PATTERN.LENGTH",
                "22007",
                format!("Too many letters in datetime pattern: {spark}."),
                vec![("pattern", spark.to_string())],
            )
            .into()
        } else {
            e.into()
        }
    })
}
