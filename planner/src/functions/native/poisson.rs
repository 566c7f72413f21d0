//! The number of copies of a row that `sample(withReplacement=True, fraction)` keeps: a
//! Poisson count of mean `fraction`, drawn by inverting its distribution at the row's uniform
//! number in [0, 1) (Spark draws Poisson counts per row as well, from its own generator).

use std::sync::Arc;

use arrow::array::{ArrayRef, AsArray, Int64Array};
use arrow::datatypes::Float64Type;
use datafusion::common::{Result, internal_err};

/// The least `k` whose cumulative Poisson(`mean`) probability exceeds `u`.
fn count(u: f64, mean: f64) -> i64 {
    if mean <= 0.0 || u.is_nan() {
        return 0;
    }
    // The probabilities in logarithms, so that a large mean's first terms (below the
    // smallest double) do not make every later one 0.
    let mut k = 0i64;
    let mut log_p = -mean;
    let mut total = log_p.exp();
    // (Bounded: the tail beyond mean + 40 standard deviations has no weight in doubles.)
    let limit = (mean + 40.0 * mean.sqrt() + 40.0) as i64;
    while u >= total && k < limit {
        k += 1;
        log_p += mean.ln() - (k as f64).ln();
        total += log_p.exp();
    }
    k
}

pub(super) fn evaluate(arrays: &[ArrayRef], mean: f64) -> Result<ArrayRef> {
    let [draws] = arrays else {
        return internal_err!("a Poisson count takes one uniform number");
    };
    let draws = arrow::compute::cast(draws, &arrow::datatypes::DataType::Float64)?;
    let counts: Int64Array = draws
        .as_primitive::<Float64Type>()
        .unary(|u| count(u, mean));
    Ok(Arc::new(counts))
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn inverts_the_distribution() {
        // Poisson(1): P(0) = 0.3679, P(<=1) = 0.7358, P(<=2) = 0.9197.
        assert_eq!(count(0.0, 1.0), 0);
        assert_eq!(count(0.3, 1.0), 0);
        assert_eq!(count(0.5, 1.0), 1);
        assert_eq!(count(0.9, 1.0), 2);
        assert_eq!(count(0.99, 1.0), 4);
        assert_eq!(count(0.5, 0.0), 0);
        // The mean of the counts over evenly spread draws is the mean.
        let n = 100_000;
        let total: i64 = (0..n)
            .map(|i| count((i as f64 + 0.5) / n as f64, 2.5))
            .sum();
        assert!((total as f64 / n as f64 - 2.5).abs() < 0.01);
        // A mean whose P(0) is below the smallest double: counts around the mean.
        assert!((count(0.5, 1000.0) - 1000).abs() <= 1);
    }
}
