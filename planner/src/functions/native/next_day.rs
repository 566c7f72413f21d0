//! `next_day(date, day)`: the first date after `date` that falls on `day`, named as Spark names
//! days (`SU`, `SUN`, `SUNDAY`, ..., in any case). A day that names none is NULL, or under ANSI
//! Spark's ILLEGAL_DAY_OF_WEEK. (datafusion-spark's takes no constant date with a column of
//! days, and answers NULL in either mode.)

use arrow::array::{Array, ArrayRef, AsArray, Date32Builder};
use arrow::datatypes::Date32Type;
use datafusion::common::{Result, internal_err};
use std::sync::Arc;

use super::Failure;

/// The dates (DATE) after `arrays[0]` on the days `arrays[1]` (text) names.
pub(super) fn next_day(arrays: &[ArrayRef], ansi: bool) -> Result<ArrayRef> {
    let [dates, days] = arrays else {
        return internal_err!("next_day takes a date and a day");
    };
    let (Some(dates), Some(days)) = (
        dates.as_primitive_opt::<Date32Type>(),
        days.as_string_opt::<i32>(),
    ) else {
        return internal_err!("next_day of {} and {}", dates.data_type(), days.data_type());
    };
    let mut out = Date32Builder::with_capacity(dates.len());
    for i in 0..dates.len() {
        if dates.is_null(i) || days.is_null(i) {
            out.append_null();
            continue;
        }
        let Some(wanted) = weekday(days.value(i)) else {
            if ansi {
                let day: ArrayRef = Arc::new(days.slice(i, 1));
                return Err(crate::error::to_datafusion(
                    Failure::IllegalDayOfWeek.error(&[day]),
                ));
            }
            out.append_null();
            continue;
        };
        let date = dates.value(i);
        // (1970-01-01, day 0, was a Thursday: 3 counting from Monday.)
        let today = (i64::from(date) + 3).rem_euclid(7);
        let ahead = match (wanted - today).rem_euclid(7) {
            0 => 7,
            n => n,
        };
        out.append_option(i32::try_from(i64::from(date) + ahead).ok());
    }
    Ok(Arc::new(out.finish()))
}

/// Monday 0 to Sunday 6, of a day's name as Spark reads it (upper-cased, not trimmed).
fn weekday(name: &str) -> Option<i64> {
    Some(match name.to_ascii_uppercase().as_str() {
        "MO" | "MON" | "MONDAY" => 0,
        "TU" | "TUE" | "TUESDAY" => 1,
        "WE" | "WED" | "WEDNESDAY" => 2,
        "TH" | "THU" | "THURSDAY" => 3,
        "FR" | "FRI" | "FRIDAY" => 4,
        "SA" | "SAT" | "SATURDAY" => 5,
        "SU" | "SUN" | "SUNDAY" => 6,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Date32Array, StringArray};

    fn run(
        dates: Vec<Option<i32>>,
        days: Vec<Option<&str>>,
        ansi: bool,
    ) -> Result<Vec<Option<i32>>> {
        let out = next_day(
            &[
                Arc::new(Date32Array::from(dates)),
                Arc::new(StringArray::from(days)),
            ],
            ansi,
        )?;
        Ok(out.as_primitive::<Date32Type>().iter().collect())
    }

    #[test]
    fn the_next_date_on_the_day() -> Result<()> {
        // 2024-02-29 (19782) was a Thursday: the next Monday is 2024-03-04 (19786), the next
        // Thursday a week later; 1969-12-31 (-1, a Wednesday) is followed by Friday 1970-01-02.
        let got = run(
            vec![Some(19782), Some(19782), Some(-1), None, Some(0)],
            vec![Some("mon"), Some("THURSDAY"), Some("Fr"), Some("MO"), None],
            true,
        )?;
        assert_eq!(got, vec![Some(19786), Some(19789), Some(1), None, None]);
        Ok(())
    }

    #[test]
    fn a_day_that_names_none() {
        assert_eq!(
            run(vec![Some(0)], vec![Some(" MON")], false).ok(),
            Some(vec![None])
        );
        let e = run(vec![Some(0)], vec![Some("xx")], true)
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("ILLEGAL_DAY_OF_WEEK") && e.contains("xx")));
    }
}
