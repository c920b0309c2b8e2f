//! Binary search in sorted tables, as NumPy's `searchsorted`.

/// Where `key` goes in the sorted `values[lo..hi]`, as a position from `lo` to `hi`: after the
/// values equal to it with `after_equal` (`side="right"`), else before them (`side="left"`).
///
/// A NaN key compares false with everything and goes to `lo`; callers that want NumPy's place for
/// it (after every value) test for it first.
#[inline]
pub fn insertion_point<T: PartialOrd + Copy>(values: &[T], lo: usize, hi: usize, key: T, after_equal: bool) -> usize {
    let (mut low, mut high) = (lo, hi);
    while low < high {
        let middle = (low + high) / 2;
        if values[middle] < key || (after_equal && values[middle] == key) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_of_equal_values() {
        let values = [1.0, 2.0, 2.0, 3.0];
        assert_eq!(insertion_point(&values, 0, 4, 2.0, false), 1);
        assert_eq!(insertion_point(&values, 0, 4, 2.0, true), 3);
        assert_eq!(insertion_point(&values, 0, 4, 0.0, true), 0);
        assert_eq!(insertion_point(&values, 0, 4, 9.0, false), 4);
        assert_eq!(insertion_point(&values, 1, 3, 2.5, false), 3);
    }

    #[test]
    fn a_nan_key_goes_to_the_start_of_the_range() {
        assert_eq!(insertion_point(&[1.0, 2.0], 0, 2, f64::NAN, true), 0);
    }

    #[test]
    fn integers_alike() {
        assert_eq!(insertion_point(&[1i64, 3, 3, 7], 0, 4, 3, true), 3);
    }
}
