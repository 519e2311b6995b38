//! Handing a `tcplab_record::Table` to Python: each column's buffer moves into a numpy array
//! (no copy); dictionary columns become `(codes, values)`; validity masks numpy booleans.
//! Used by every result object (`RunOutput`, `Analysis`).

use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use tcplab_record::{ColumnData, Table};

/// Takes table `name` out of `tables` (it can be taken once: its buffers move to numpy) and
/// returns its columns as a list of `(name, data, valid)`.
pub(crate) fn take_table<'py>(py: Python<'py>, tables: &mut [Table], name: &str) -> PyResult<Bound<'py, PyList>> {
    let idx = tables
        .iter()
        .position(|t| t.name == name)
        .ok_or_else(|| PyValueError::new_err(format!("no table named {name:?}")))?;
    let table = std::mem::take(&mut tables[idx]);
    tables[idx].name = table.name.clone();
    let out = PyList::empty(py);
    for col in table.columns {
        let data: Bound<'py, PyAny> = match col.data {
            ColumnData::U64(v) => PyArray1::from_vec(py, v).into_any(),
            ColumnData::I64(v) => PyArray1::from_vec(py, v).into_any(),
            ColumnData::U32(v) => PyArray1::from_vec(py, v).into_any(),
            ColumnData::F64(v) => PyArray1::from_vec(py, v).into_any(),
            ColumnData::Bool(v) => PyArray1::from_vec(py, v).into_any(),
            ColumnData::Dict { codes, values } => {
                let codes = PyArray1::from_vec(py, codes).into_any();
                let values = PyList::new(py, values)?.into_any();
                PyTuple::new(py, [codes, values])?.into_any()
            }
        };
        let valid: Bound<'py, PyAny> = match col.valid {
            Some(v) => PyArray1::from_vec(py, v).into_any(),
            None => py.None().into_bound(py),
        };
        let name = col.name.into_pyobject(py)?.into_any();
        out.append(PyTuple::new(py, [name, data, valid])?)?;
    }
    Ok(out)
}
