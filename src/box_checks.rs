//! The checks and corners of a batch of boxes in one pass.
//!
//! `Box` checks its coordinates with NumPy: a dozen passes over the batch. `accepted_corners` makes
//! the same checks in one pass per box, on every core, converting to corners on the way. It only
//! accepts: a batch it does not accept goes through `Box`'s NumPy checks, which name the faulty box,
//! so the messages have one source. The arithmetic is the NumPy path's (IEEE, in the same order),
//! so the corners and sizes are its bits.

use std::sync::atomic::{AtomicBool, Ordering};

use numpy::{PyReadonlyArray2, PyReadwriteArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyList, PyTuple};

use crate::errors::invalid_argument;
use crate::numeric::max;
use crate::threads;

/// Nanoseconds a box costs on one thread.
const BOX_NS: usize = 2;

/// How the four numbers of a box are given.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// x1, y1, x2, y2
    Corners,
    /// x, y, w, h
    CornerAndSize,
    /// cx, cy, w, h
    CentreAndSize,
}

/// `xywh_lost_size` of one side: a positive size given apart that the corners do not give back.
#[inline(always)]
fn size_lost(start: f64, size: f64, end: f64, largest: f64) -> bool {
    let in_range = start.abs() <= largest && end.abs() <= largest;
    in_range && size > 0.0 && !((end - start - size).abs() <= 1e-6 * size)
}

/// The corners and sizes of one box, or None where `Box` would refuse it.
#[inline(always)]
pub fn checked(row: &[f64], format: Format, largest: f64, smallest: f64) -> Option<([f64; 4], [f64; 2])> {
    let (a, b, c, d) = (row[0], row[1], row[2], row[3]);
    let (x1, y1, x2, y2, w, h);
    if format == Format::Corners {
        (x1, y1, x2, y2) = (a, b, c, d);
        (w, h) = (x2 - x1, y2 - y1);
    } else {
        (w, h) = (c, d);
        if w < 0.0 || h < 0.0 {
            return None;
        }
        if format == Format::CornerAndSize {
            (x1, y1, x2, y2) = (a, b, a + w, b + h);
        } else {
            (x1, y1, x2, y2) = (a - w / 2.0, b - h / 2.0, a + w / 2.0, b + h / 2.0);
        }
        if w > 0.0 && h > 0.0 && (size_lost(x1, w, x2, largest) || size_lost(y1, h, y2, largest)) {
            return None;
        }
    }
    if !(x1 <= x2 && y1 <= y2) {
        return None;
    }
    if !(max(max(max(x1.abs(), y1.abs()), x2.abs()), y2.abs()) <= largest) {
        return None; // inf too
    }
    if w > 0.0 && h > 0.0 && w * h < smallest {
        return None;
    }
    Some(([x1, y1, x2, y2], [w, h]))
}

/// Fill `size` (2 per box) and, unless the boxes are corners already (then None: they are their own
/// corners), `xyxy` (4 per box) from `boxes` (4 per box); false if any box is refused (the outputs are
/// then partly written and not to be used).
pub fn corners(
    boxes: &[f64],
    format: Format,
    largest: f64,
    smallest: f64,
    xyxy: Option<&mut [f64]>,
    size: &mut [f64],
) -> bool {
    let refused = AtomicBool::new(false);
    let check = |i: usize| {
        let cell = checked(&boxes[4 * i..4 * i + 4], format, largest, smallest);
        if cell.is_none() {
            refused.store(true, Ordering::Relaxed);
        }
        cell
    };
    let chunk = threads::chunk_of(BOX_NS);
    match xyxy {
        Some(xyxy) => threads::for_chunks_of_two(xyxy, 4, size, 2, chunk, |first, corners, sides| {
            for (t, (corner, side)) in corners.chunks_mut(4).zip(sides.chunks_mut(2)).enumerate() {
                if let Some((c, s)) = check(first + t) {
                    corner.copy_from_slice(&c);
                    side.copy_from_slice(&s);
                }
            }
        }),
        None => threads::for_chunks(size, 2, chunk, |first, sides| {
            for (t, side) in sides.chunks_mut(2).enumerate() {
                if let Some((_, s)) = check(first / 2 + t) {
                    side.copy_from_slice(&s);
                }
            }
        }),
    }
    !refused.load(Ordering::Relaxed)
}

/// Write the corners `xyxy` `(N, 4)` (None for `fmt` "xyxy": the boxes are their corners) and sides
/// `size` `(N, 2)` of the `(N, 4)` `boxes` given as `fmt`;
/// false unless `Box` accepts every box (ordered corners, a size that survives the conversion, within
/// `largest`, an area of at least `smallest` where it is positive), and then the outputs are not to be used.
#[pyfunction]
fn accepted_corners(
    py: Python<'_>,
    boxes: PyReadonlyArray2<'_, f64>,
    fmt: &str,
    largest: f64,
    smallest: f64,
    xyxy: Option<PyReadwriteArray2<'_, f64>>,
    mut size: PyReadwriteArray2<'_, f64>,
) -> PyResult<bool> {
    let format = format_of(fmt)?;
    let count = boxes.shape()[0];
    let mut xyxy = xyxy;
    let xyxy_shape = xyxy.as_ref().map(|xyxy| xyxy.shape().to_vec());
    for (name, shape, width) in
        [("boxes", Some(boxes.shape().to_vec()), 4), ("xyxy", xyxy_shape, 4), ("size", Some(size.shape().to_vec()), 2)]
    {
        if shape.as_ref().is_some_and(|shape| shape[..] != [count, width]) {
            return Err(invalid_argument(name, &format!("an ({count}, {width}) array"), format!("{shape:?}")));
        }
    }
    if (xyxy.is_none()) != (format == Format::Corners) {
        return Err(invalid_argument("xyxy", "None exactly for boxes given as corners", fmt));
    }
    let values = boxes.as_slice()?;
    let xyxy = match xyxy.as_mut() {
        Some(xyxy) => Some(xyxy.as_slice_mut()?),
        None => None,
    };
    let size = size.as_slice_mut()?;
    Ok(py.detach(|| corners(values, format, largest, smallest, xyxy, size)))
}

/// The format `fmt` names.
fn format_of(fmt: &str) -> PyResult<Format> {
    match fmt {
        "xyxy" => Ok(Format::Corners),
        "xywh" => Ok(Format::CornerAndSize),
        "cxcywh" => Ok(Format::CentreAndSize),
        _ => Err(invalid_argument("fmt", "one of 'xyxy', 'xywh', 'cxcywh'", format!("{fmt:?}"))),
    }
}

/// The four numbers of a list or tuple (exactly those types) of four Python ints and floats (exactly:
/// no bool, no NumPy scalar), or None: anything else takes `Box`'s general checks.
fn plain_four(coords: &Bound<'_, PyAny>) -> Option<[f64; 4]> {
    let items = if let Ok(list) = coords.cast_exact::<PyList>() {
        (list.len() == 4).then(|| list.iter().collect::<Vec<_>>())?
    } else {
        let tuple = coords.cast_exact::<PyTuple>().ok()?;
        (tuple.len() == 4).then(|| tuple.iter().collect::<Vec<_>>())?
    };
    let mut numbers = [0.0; 4];
    for (number, item) in numbers.iter_mut().zip(&items) {
        if item.is_exact_instance_of::<PyFloat>() {
            *number = item.cast_exact::<PyFloat>().ok()?.value();
        } else if item.is_exact_instance_of::<PyInt>() {
            *number = item.extract::<f64>().ok()?; // an int beyond float range: the general checks
        } else {
            return None;
        }
    }
    Some(numbers)
}

/// One box of plain Python numbers (`coords`, a list or tuple of four ints and floats, as `fmt`)
/// checked and converted as `accepted_corners` converts a batch: its corners then its sides as 48
/// bytes of float64, or None where `Box` would refuse it or the numbers are not plain (then `Box`'s
/// general checks decide, and name what is wrong). The single-pair path's constructor: no NumPy
/// array is made to check one box.
#[pyfunction]
fn plain_box<'py>(
    py: Python<'py>,
    coords: &Bound<'py, PyAny>,
    fmt: &str,
    largest: f64,
    smallest: f64,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    // An unknown format is `Box`'s to name, as every refusal is.
    let Ok(format) = format_of(fmt) else { return Ok(None) };
    let Some(numbers) = plain_four(coords) else { return Ok(None) };
    let Some((corners, sides)) = checked(&numbers, format, largest, smallest) else { return Ok(None) };
    let mut bytes = [0u8; 48];
    for (cell, value) in bytes.chunks_exact_mut(8).zip(corners.iter().chain(&sides)) {
        cell.copy_from_slice(&value.to_ne_bytes());
    }
    Ok(Some(PyBytes::new(py, &bytes)))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(plain_box, module)?)?;
    module.add_function(wrap_pyfunction!(accepted_corners, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LARGEST: f64 = 2.0 * (1u64 << 52) as f64;

    #[test]
    fn a_corner_and_size_becomes_corners() {
        let (corner, side) = checked(&[1.0, 2.0, 3.0, 4.0], Format::CornerAndSize, LARGEST, 0.0).unwrap();
        assert_eq!((corner, side), ([1.0, 2.0, 4.0, 6.0], [3.0, 4.0]));
        let (corner, _) = checked(&[2.0, 2.0, 2.0, 4.0], Format::CentreAndSize, LARGEST, 0.0).unwrap();
        assert_eq!(corner, [1.0, 0.0, 3.0, 4.0]);
    }

    #[test]
    fn what_box_refuses_is_refused() {
        assert!(checked(&[1.0, 2.0, -3.0, 4.0], Format::CornerAndSize, LARGEST, 0.0).is_none()); // negative width
        assert!(checked(&[3.0, 0.0, 1.0, 1.0], Format::Corners, LARGEST, 0.0).is_none()); // x2 < x1
        assert!(checked(&[0.0, 0.0, f64::INFINITY, 1.0], Format::Corners, LARGEST, 0.0).is_none());
        // A width of 1 next to 1e16 is lost in the corners (their spacing is 2).
        assert!(checked(&[1e16, 0.0, 1.0, 2.0], Format::CornerAndSize, 1e300, 0.0).is_none());
        assert!(checked(&[0.0, 0.0, 1e-200, 1e-200], Format::Corners, LARGEST, 1e-300).is_none());
        // A zero-width box has no area to measure: accepted.
        assert!(checked(&[0.0, 0.0, 0.0, 1.0], Format::Corners, LARGEST, 1e-300).is_some());
    }

    #[test]
    fn one_refused_box_refuses_the_batch() {
        let boxes = [0.0, 0.0, 1.0, 1.0, 3.0, 0.0, 1.0, 1.0];
        let (mut xyxy, mut size) = ([0.0; 8], [0.0; 4]);
        assert!(!corners(&boxes, Format::Corners, LARGEST, 0.0, None, &mut size));
        assert!(corners(&boxes[..4], Format::CornerAndSize, LARGEST, 0.0, Some(&mut xyxy[..4]), &mut size[..2]));
        assert_eq!((xyxy[..4].to_vec(), size[..2].to_vec()), (vec![0.0, 0.0, 1.0, 1.0], vec![1.0, 1.0]));
    }
}
