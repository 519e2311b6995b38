//! Writing a result table (`tcplab_record::Table`) as Parquet and CSV from Rust, so that
//! `tcplab analyze` imports neither numpy nor pyarrow (issue 15 item 6: "well under 0.2 s of
//! start-up"; docs/design.md, "Writing the analyzer's tables from Rust").
//!
//! The files are what the Python writer (`tcplab.tables.TableResult.write`) made from the
//! same table, so a reader cannot tell them apart:
//! - **Arrow schema.** Columns in table order; `U64`/`I64`/`U32`/`F64`/`Bool` as
//!   `uint64`/`int64`/`uint32`/`double`/`bool`; a dictionary column as
//!   `dictionary<values=string, indices=int32>` (what `tcplab.tables.to_arrow` builds); a
//!   column with a validity mask is nullable (Parquet `optional`), every other one is not
//!   (`required`), whether or not this run produced a null. The schema is stored in the
//!   `ARROW:schema` key-value metadata, as pyarrow stores it, so pyarrow, pandas and polars
//!   read the dictionary columns back as dictionaries/categoricals. No other metadata: the
//!   Python writer adds none for these tables.
//! - **Parquet options** (`tcplab.tables.parquet_options`): zstd at its default level,
//!   Parquet dictionary encoding only for the dictionary columns, everything else plain.
//!   Data page v1 and PLAIN encoding, as pyarrow writes them. What differs: the footer's
//!   `created_by` (parquet-rs instead of parquet-cpp-arrow) and `version` (1 instead of
//!   pyarrow's "2.6": parquet-rs's 2.0 mode would switch to data page v2 and delta
//!   encodings; the logical types, `UINT_64` and the rest, are written in both), and the
//!   bytes of the compressed pages.
//! - **CSV** in pyarrow's `write_csv` dialect, byte for byte: a header of quoted names;
//!   strings (dictionary values) always quoted, `"` doubled; numbers and `true`/`false`
//!   unquoted; a null as an empty field; `\n` line ends; doubles as Arrow's formatter prints
//!   them ([`push_f64`]).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    UInt32Array, UInt64Array,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use tcplab_record::{Column, ColumnData, Table};

/// Rows per CSV write: the text of this many rows is built in memory, then written.
const CSV_ROWS_PER_FLUSH: usize = 4096;
/// Arrow's float formatter (arrow/util/formatting.h, double-conversion's `ToShortest`)
/// writes a double in fixed notation when the decimal exponent of its first significant
/// digit lies in `[FIXED_EXPONENT_LOW, FIXED_EXPONENT_HIGH)`, in exponent notation
/// otherwise. Checked against pyarrow 26's `write_csv` (tests: `csv_doubles_as_pyarrow_writes_them`).
const FIXED_EXPONENT_LOW: i32 = -6;
/// See [`FIXED_EXPONENT_LOW`].
const FIXED_EXPONENT_HIGH: i32 = 10;

/// An I/O or encoding failure while writing, as one line naming the file.
#[derive(Debug)]
pub(crate) struct WriteError(pub String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One file to write: a table as Parquet or as CSV.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FileKind {
    Parquet,
    Csv,
}

impl FileKind {
    fn extension(self) -> &'static str {
        match self {
            FileKind::Parquet => "parquet",
            FileKind::Csv => "csv",
        }
    }
}

/// Writes `dir/<table.name>.parquet` and, with `csv`, `dir/<table.name>.csv` for each table,
/// every file on a thread of its own (issue 10 part 5: `tcplab analyze` end to end; the files
/// do not depend on each other, and Parquet's zstd pages are the larger share of the writing).
/// The first failure in table order, Parquet before CSV, is the one reported, so the message
/// does not depend on which thread failed first.
pub(crate) fn write_tables(tables: &[&Table], dir: &Path, csv: bool) -> Result<(), WriteError> {
    let kinds: &[FileKind] = if csv { &[FileKind::Parquet, FileKind::Csv] } else { &[FileKind::Parquet] };
    let jobs: Vec<(&Table, FileKind, std::path::PathBuf)> = tables
        .iter()
        .flat_map(|t| kinds.iter().map(move |&k| (*t, k, dir.join(format!("{}.{}", t.name, k.extension())))))
        .collect();
    std::thread::scope(|s| {
        let running: Vec<_> = jobs
            .iter()
            .map(|(t, k, path)| {
                let h = s.spawn(move || match k {
                    FileKind::Parquet => write_parquet(t, path),
                    FileKind::Csv => write_csv(t, path),
                });
                (path, h)
            })
            .collect();
        let mut first = Ok(());
        for (path, h) in running {
            let r = h.join().unwrap_or_else(|_| Err("the writer stopped unexpectedly".to_string()));
            if let (Ok(()), Err(e)) = (&first, r) {
                first = Err(WriteError(format!("{}: {e}", path.display())));
            }
        }
        first
    })
}

/// The Arrow array of one column (see the module doc for the types).
fn arrow_array(col: &Column) -> ArrayRef {
    let nulls = col.valid.as_ref().map(|v| NullBuffer::from(v.as_slice()));
    match &col.data {
        ColumnData::U64(v) => Arc::new(UInt64Array::new(v.clone().into(), nulls)),
        ColumnData::I64(v) => Arc::new(Int64Array::new(v.clone().into(), nulls)),
        ColumnData::U32(v) => Arc::new(UInt32Array::new(v.clone().into(), nulls)),
        ColumnData::F64(v) => Arc::new(Float64Array::new(v.clone().into(), nulls)),
        ColumnData::Bool(v) => Arc::new(BooleanArray::new(v.as_slice().into(), nulls)),
        ColumnData::Dict { codes, values } => {
            // Codes index `values` (tcplab_record's DictBuilder), far below i32::MAX.
            let keys = Int32Array::new(codes.iter().map(|&c| c as i32).collect(), nulls);
            let values = Arc::new(StringArray::from_iter_values(values.iter()));
            Arc::new(DictionaryArray::<Int32Type>::new(keys, values))
        }
    }
}

/// The record batch of a whole table, with its schema (also the sweep's IPC tables, `ipc.rs`).
pub(crate) fn record_batch(table: &Table) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let arrays: Vec<ArrayRef> = table.columns.iter().map(arrow_array).collect();
    let fields: Vec<Field> = table
        .columns
        .iter()
        .zip(&arrays)
        .map(|(c, a)| Field::new(c.name.clone(), a.data_type().clone(), c.valid.is_some()))
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
}

/// The writer settings of `tcplab.tables.parquet_options`: zstd, Parquet dictionary
/// encoding for the dictionary columns only.
fn writer_properties(table: &Table) -> WriterProperties {
    let mut p = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_1_0)
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_dictionary_enabled(false);
    for c in &table.columns {
        if matches!(c.data, ColumnData::Dict { .. }) {
            p = p.set_column_dictionary_enabled(ColumnPath::from(c.name.as_str()), true);
        }
    }
    p.build()
}

fn write_parquet(table: &Table, path: &Path) -> Result<(), String> {
    let batch = record_batch(table).map_err(|e| e.to_string())?;
    let file = File::create(path).map_err(|e| tcplab_pcap::error::io_reason(&e))?;
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(writer_properties(table))).map_err(|e| e.to_string())?;
    w.write(&batch).map_err(|e| e.to_string())?;
    w.close().map_err(|e| e.to_string())?;
    Ok(())
}

fn write_csv(table: &Table, path: &Path) -> Result<(), String> {
    let file = File::create(path).map_err(|e| tcplab_pcap::error::io_reason(&e))?;
    let mut out = BufWriter::new(file);
    let mut text = String::new();
    for (i, c) in table.columns.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        push_quoted(&mut text, &c.name);
    }
    text.push('\n');
    let mut scratch = String::new();
    // Each dictionary value quoted once, not once per row.
    let quoted: Vec<Vec<String>> = table
        .columns
        .iter()
        .map(|c| match &c.data {
            ColumnData::Dict { values, .. } => values
                .iter()
                .map(|v| {
                    let mut q = String::with_capacity(v.len() + 2);
                    push_quoted(&mut q, v);
                    q
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    for row in 0..table.num_rows() {
        for (i, c) in table.columns.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            if c.valid.as_ref().is_some_and(|v| !v[row]) {
                continue; // null: an empty field
            }
            // `write!` into a String cannot fail.
            let _ = match &c.data {
                ColumnData::U64(v) => write!(text, "{}", v[row]),
                ColumnData::I64(v) => write!(text, "{}", v[row]),
                ColumnData::U32(v) => write!(text, "{}", v[row]),
                ColumnData::F64(v) => {
                    push_f64(&mut text, &mut scratch, v[row]);
                    Ok(())
                }
                ColumnData::Bool(v) => {
                    text.push_str(if v[row] { "true" } else { "false" });
                    Ok(())
                }
                ColumnData::Dict { codes, .. } => {
                    // A code outside the dictionary is an empty string, quoted (`""`).
                    text.push_str(quoted[i].get(codes[row] as usize).map_or("\"\"", String::as_str));
                    Ok(())
                }
            };
        }
        text.push('\n');
        if row % CSV_ROWS_PER_FLUSH == CSV_ROWS_PER_FLUSH - 1 {
            out.write_all(text.as_bytes()).map_err(|e| tcplab_pcap::error::io_reason(&e))?;
            text.clear();
        }
    }
    out.write_all(text.as_bytes()).map_err(|e| tcplab_pcap::error::io_reason(&e))?;
    out.flush().map_err(|e| tcplab_pcap::error::io_reason(&e))?;
    Ok(())
}

/// `s` in double quotes, each `"` doubled (RFC 4180 §2, as pyarrow quotes strings).
fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    if s.contains('"') {
        out.push_str(&s.replace('"', "\"\""));
    } else {
        out.push_str(s);
    }
    out.push('"');
}

/// A double as Arrow's CSV writer prints it: the shortest digits that read back as the same
/// double (Rust's `{:e}` gives them, as double-conversion's `ToShortest` does), in fixed
/// notation when the exponent lies in [`FIXED_EXPONENT_LOW`, `FIXED_EXPONENT_HIGH`)
/// (`0.000001`, `123456`, `9999999999`), else as `d[.ddd]e±x` (`1e-7`, `1e+10`); `nan`,
/// `inf`, `-inf`, `-0`.
fn push_f64(out: &mut String, scratch: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    scratch.clear();
    let _ = write!(scratch, "{:e}", x.abs());
    let (mantissa, exp) = scratch.split_once('e').unwrap_or((scratch.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if x < 0.0 {
        out.push('-');
    }
    let first = &mantissa[..1];
    let rest = mantissa.get(2..).unwrap_or("");
    if (FIXED_EXPONENT_LOW..FIXED_EXPONENT_HIGH).contains(&exp) {
        if exp >= 0 {
            let int_digits = exp as usize + 1;
            out.push_str(first);
            if rest.len() >= int_digits - 1 {
                out.push_str(&rest[..int_digits - 1]);
                if rest.len() > int_digits - 1 {
                    out.push('.');
                    out.push_str(&rest[int_digits - 1..]);
                }
            } else {
                out.push_str(rest);
                out.extend(std::iter::repeat_n('0', int_digits - 1 - rest.len()));
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(first);
            out.push_str(rest);
        }
    } else {
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(out, "e{}{}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> String {
        let (mut out, mut scratch) = (String::new(), String::new());
        push_f64(&mut out, &mut scratch, x);
        out
    }

    /// The expected texts are what pyarrow 26.0.1's `pyarrow.csv.write_csv` printed for the
    /// same doubles (run once by hand; `tests/test_analyze_files.py` compares whole files).
    #[test]
    fn csv_doubles_as_pyarrow_writes_them() {
        let cases: [(f64, &str); 26] = [
            (0.1, "0.1"),
            (1e-5, "0.00001"),
            (1e20, "1e+20"),
            (1.0, "1"),
            (123456789.123, "123456789.123"),
            (1e15, "1e+15"),
            (1.5e17, "1.5e+17"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (123456.0, "123456"),
            (-0.0, "-0"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (2.5e-300, "2.5e-300"),
            (f64::MAX, "1.7976931348623157e+308"),
            (0.30000000000000004, "0.30000000000000004"),
            (1234567890123456789.0, "1.2345678901234568e+18"),
            (5e-324, "5e-324"),
            (1e9, "1000000000"),
            (1e10, "1e+10"),
            (9999999999.0, "9999999999"),
            (12345678901.0, "1.2345678901e+10"),
            (100.0, "100"),
            (3e-5, "0.000030000000000000004"),
        ];
        for (x, want) in cases {
            let x = if want == "0.000030000000000000004" { 1e-5 * 3.0 } else { x };
            assert_eq!(f(x), want, "{x:e}");
        }
        assert_eq!(f(-2.5), "-2.5");
    }

    #[test]
    fn csv_quotes_strings_and_leaves_nulls_empty() {
        let mut t = Table::new("t");
        t.push_nullable("a", ColumnData::U64(vec![1, 0, 3]), vec![true, false, true]);
        t.push("b", ColumnData::Bool(vec![true, false, true]));
        t.push_nullable(
            "s",
            ColumnData::Dict { codes: vec![0, 1, 0], values: vec!["x".into(), "y\"z".into()] },
            vec![true, true, false],
        );
        let dir = std::env::temp_dir().join(format!("tcplab-csv-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_csv(&t, &dir.join("t.csv")).unwrap();
        let text = std::fs::read_to_string(dir.join("t.csv")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(text, "\"a\",\"b\",\"s\"\n1,true,\"x\"\n,false,\"y\"\"z\"\n3,true,\n");
    }
}
