//! geoiou's own exceptions, raised from the crate with the messages users read.
//!
//! The classes are those of `geoiou.errors` (imported when first raised), so a caller's
//! `except InvalidArgumentError` (or `except ValueError`) catches an error from the crate as it
//! catches one from Python. A broken internal promise (an index outside its table) is a panic,
//! which reaches Python as pyo3's `PanicException`: the Python side checks what it hands over.

use pyo3::PyErr;

pyo3::import_exception!(geoiou.errors, InvalidArgumentError);

/// An option or array handed to the crate outside what it accepts: `'{name}' must be {expected} (got {given})`.
pub fn invalid_argument(name: &str, expected: &str, given: impl std::fmt::Display) -> PyErr {
    InvalidArgumentError::new_err(format!("'{name}' must be {expected} (got {given})"))
}
