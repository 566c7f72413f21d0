//! `format_string(format, args...)` / `printf`: datafusion-spark's, with the arguments a `%s`
//! shows as text given as Spark's text of them (it spells a DECIMAL's `%s` as its unscaled
//! digits: `12345` for 12.345).

use arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Expr, cast};

use super::RegistryBuilder;

pub(super) fn register(b: &mut RegistryBuilder) {
    b.scalar(&["format_string", "printf"], |f| {
        f.arity(1, usize::MAX)?;
        let shown_as_text = match f.args.first() {
            Some(Expr::Literal(ScalarValue::Utf8(Some(format)), _)) => text_arguments(format),
            _ => vec![],
        };
        let mut args = f.args;
        for (i, (arg, t)) in args.iter_mut().zip(&f.types).enumerate().skip(1) {
            if matches!(t, DataType::Decimal128(..) | DataType::Decimal256(..))
                && shown_as_text.contains(&i)
            {
                *arg = cast(arg.clone(), DataType::Utf8);
            }
        }
        super::sp_udf("format_string").map(|u| u.call(args))
    });
}

/// The (1-based) arguments a Java format string shows with `%s` or `%S`: `%[index$][flags]
/// [width][.precision]conversion`, `%<s` the previous argument, `%%` and `%n` none.
fn text_arguments(format: &str) -> Vec<usize> {
    let chars: Vec<char> = format.chars().collect();
    let (mut out, mut next, mut last) = (vec![], 1usize, 0usize);
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            i += 1;
            continue;
        }
        i += 1;
        let digits = |i: &mut usize| {
            let start = *i;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                *i += 1;
            }
            chars[start..*i].iter().collect::<String>()
        };
        let start = i;
        let number = digits(&mut i);
        let explicit = if i < chars.len() && chars[i] == '$' && !number.is_empty() {
            i += 1;
            number.parse::<usize>().ok()
        } else {
            i = start;
            None
        };
        let mut previous = false;
        while i < chars.len() && "-#+ 0,(<".contains(chars[i]) {
            previous |= chars[i] == '<';
            i += 1;
        }
        digits(&mut i);
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            digits(&mut i);
        }
        let Some(&conversion) = chars.get(i) else {
            break;
        };
        i += 1;
        if matches!(conversion, 't' | 'T') {
            i += 1;
        }
        if matches!(conversion, '%' | 'n') {
            continue;
        }
        let index = match (explicit, previous) {
            (Some(n), _) => n,
            (None, true) => last,
            (None, false) => {
                next += 1;
                next - 1
            }
        };
        last = index;
        if matches!(conversion, 's' | 'S') {
            out.push(index);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::text_arguments;

    #[test]
    fn finds_the_arguments_shown_as_text() {
        assert_eq!(text_arguments("%s-%d"), vec![1]);
        assert_eq!(text_arguments("%d %5.2s %% %n %S"), vec![2, 3]);
        assert_eq!(text_arguments("%2$s %1$d %<s"), vec![2, 1]);
        assert_eq!(text_arguments("%-10s|%,.3f|%s"), vec![1, 3]);
        assert!(text_arguments("no args").is_empty());
    }
}
