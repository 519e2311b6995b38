//! A run's table handed to Python as Arrow IPC bytes, with its `flow_name` column, for the
//! sweep's workers (`tcplab.sweep.task.run_task`).
//!
//! Per run of `bench-1000` the worker spent ~0.75 ms of CPU outside the simulator building
//! the flows table in Python: `tcplab.tables.to_arrow` (numpy buffers to Arrow arrays,
//! ~0.46 ms) and `tcplab.api.add_flow_names` (~0.30 ms), then Arrow IPC encoding to ship it
//! (docs/benchmarks.md, "Parameter studies", sessions 9 and 10). Here the same table is
//! built and encoded in Rust in one step, and the worker ships the bytes as they are.
//!
//! **The same table** as `add_flow_names(to_arrow(columns), names, labels)`:
//! - the columns and their types are those of `analyze_write::record_batch` (the file writer
//!   that already matches `to_arrow`: `uint64`/`int64`/`uint32`/`double`/`bool`, dictionary
//!   columns `dictionary<values=string, indices=int32>`, a column nullable exactly when the
//!   core sends a validity mask);
//! - `flow_name` right after the flow id column (`flow`, or `id` in the flows table): a
//!   nullable `dictionary<values=string, indices=int32>` whose dictionary is `labels` and
//!   whose code for a row is the index in `labels` of `names[id]`; null when the id is not
//!   below `names.len()` (4294967295 on link rows) or the flow is unnamed. A table without a
//!   flow id column, or with a `flow_name` already, is returned unchanged, as in Python.
//!
//! No schema metadata, as `to_arrow` adds none. `tests/test_sweep_core_ipc.py` compares the
//! two for the flows and events tables.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
use arrow_buffer::NullBuffer;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{ArrowError, Field, Schema};
use tcplab_record::{ColumnData, Table};

use crate::analyze_write::record_batch;

/// The name of the column of flow names (`tcplab.api.FLOW_NAME`).
pub(crate) const FLOW_NAME: &str = "flow_name";

/// The flow id of each row of `table`'s column `name`, if the column is an integer one
/// without nulls (the core's flow ids are `u32`; `u64`/`i64` accepted as `add_flow_names`
/// reads them). `None` otherwise: the table is then returned without names.
fn flow_ids(table: &Table, name: &str) -> Option<Vec<i64>> {
    let col = table.columns.iter().find(|c| c.name == name)?;
    if col.valid.is_some() {
        return None;
    }
    match &col.data {
        ColumnData::U32(v) => Some(v.iter().map(|&x| i64::from(x)).collect()),
        ColumnData::U64(v) => Some(v.iter().map(|&x| i64::try_from(x).unwrap_or(i64::MAX)).collect()),
        ColumnData::I64(v) => Some(v.clone()),
        _ => None,
    }
}

/// The `flow_name` array of rows whose flow ids are `ids` (see the module doc).
fn flow_name_array(ids: &[i64], names: &[Option<String>], labels: &[String]) -> Result<ArrayRef, ArrowError> {
    let code_of: HashMap<&str, i32> = labels.iter().enumerate().map(|(i, l)| (l.as_str(), i as i32)).collect();
    let by_flow: Vec<Option<i32>> = names
        .iter()
        .map(|n| match n {
            None => Ok(None),
            Some(n) => code_of
                .get(n.as_str())
                .copied()
                .map(Some)
                .ok_or_else(|| ArrowError::InvalidArgumentError(format!("flow name {n:?} is not among the labels"))),
        })
        .collect::<Result<_, _>>()?;
    let codes: Vec<Option<i32>> = ids
        .iter()
        .map(|&id| usize::try_from(id).ok().and_then(|i| by_flow.get(i).copied().flatten()))
        .collect();
    let valid: Vec<bool> = codes.iter().map(Option::is_some).collect();
    let keys = Int32Array::new(codes.iter().map(|c| c.unwrap_or(-1)).collect(), Some(NullBuffer::from(valid)));
    let values = Arc::new(StringArray::from_iter_values(labels.iter()));
    Ok(Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values)?))
}

/// `table` as a record batch with its `flow_name` column (when `names` is given; see the
/// module doc).
pub(crate) fn named_batch(table: &Table, names: Option<(&[Option<String>], &[String])>) -> Result<RecordBatch, ArrowError> {
    let batch = record_batch(table)?;
    let Some((names, labels)) = names else { return Ok(batch) };
    let id_col = if table.columns.iter().any(|c| c.name == "flow") { "flow" } else { "id" };
    if table.columns.iter().any(|c| c.name == FLOW_NAME) {
        return Ok(batch);
    }
    let (Some(at), Some(ids)) = (table.columns.iter().position(|c| c.name == id_col), flow_ids(table, id_col)) else {
        return Ok(batch);
    };
    let arr = flow_name_array(&ids, names, labels)?;
    let mut fields: Vec<Arc<Field>> = batch.schema().fields().iter().cloned().collect();
    let mut arrays: Vec<ArrayRef> = batch.columns().to_vec();
    fields.insert(at + 1, Arc::new(Field::new(FLOW_NAME, arr.data_type().clone(), true)));
    arrays.insert(at + 1, arr);
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

/// `batch` in Arrow's IPC stream format (schema, then the one batch), which
/// `pyarrow.ipc.open_stream(bytes).read_all()` reads back.
pub(crate) fn ipc_stream(batch: &RecordBatch) -> Result<Vec<u8>, ArrowError> {
    let mut w = StreamWriter::try_new(Vec::new(), &batch.schema())?;
    w.write(batch)?;
    w.finish()?;
    w.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_record::Column;

    fn col(name: &str, data: ColumnData) -> Column {
        Column { name: name.into(), data, valid: None }
    }

    #[test]
    fn flow_name_follows_the_id_column_and_is_null_off_the_named_flows() {
        let table = Table {
            name: "events".into(),
            columns: vec![col("t_ns", ColumnData::U64(vec![1, 2, 3, 4])), col("flow", ColumnData::U32(vec![0, 2, 1, u32::MAX]))],
        };
        let names = [Some("b".to_string()), None, Some("a".to_string())];
        let labels = ["a".to_string(), "b".to_string()];
        let batch = named_batch(&table, Some((&names, &labels))).unwrap();
        let schema = batch.schema();
        let cols: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(cols, ["t_ns", "flow", FLOW_NAME]);
        assert!(schema.field(2).is_nullable());
        let arr = batch.column(2).as_any().downcast_ref::<DictionaryArray<Int32Type>>().unwrap();
        let keys: Vec<Option<i32>> = arr.keys().iter().collect();
        // flow 0 is "b" (code 1), flow 2 "a" (code 0), flow 1 unnamed, u32::MAX no flow.
        assert_eq!(keys, [Some(1), Some(0), None, None]);
        assert!(!ipc_stream(&batch).unwrap().is_empty());
    }

    #[test]
    fn a_name_missing_from_the_labels_is_an_error_not_a_wrong_code() {
        let table = Table { name: "flows".into(), columns: vec![col("id", ColumnData::U32(vec![0]))] };
        let names = [Some("x".to_string())];
        assert!(named_batch(&table, Some((&names, &[]))).is_err());
    }
}
