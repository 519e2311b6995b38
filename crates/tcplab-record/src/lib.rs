//! Columnar tables in long format, the hand-off between the Rust core and Python.
//!
//! A [`Table`] is a list of named, typed columns of equal length. The Python binding hands
//! each column's buffer to numpy without copying, and pyarrow assembles an Arrow table from
//! those buffers (also without copying); Parquet is written by pyarrow. Why not arrow-rs:
//! see docs/design.md ("Results").
//!
//! Strings that repeat (event kinds, causes, names) are dictionary-encoded: a `u32` code per
//! row and the list of distinct values, which pyarrow turns into a `DictionaryArray`
//! (pandas `Categorical`).

/// The values of one column.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    U64(Vec<u64>),
    I64(Vec<i64>),
    U32(Vec<u32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    /// Dictionary-encoded strings: `codes[i]` indexes `values`.
    Dict { codes: Vec<u32>, values: Vec<String> },
}

impl ColumnData {
    pub fn len(&self) -> usize {
        match self {
            ColumnData::U64(v) => v.len(),
            ColumnData::I64(v) => v.len(),
            ColumnData::U32(v) => v.len(),
            ColumnData::F64(v) => v.len(),
            ColumnData::Bool(v) => v.len(),
            ColumnData::Dict { codes, .. } => codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One named column; `valid[i] == false` marks row `i` as null.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub data: ColumnData,
    pub valid: Option<Vec<bool>>,
}

/// A named table of equal-length columns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
}

impl Table {
    pub fn new(name: impl Into<String>) -> Self {
        Table { name: name.into(), columns: Vec::new() }
    }
    /// Adds a column; panics in debug builds if its length differs from the others
    /// (a programming error, never a user error).
    pub fn push(&mut self, name: impl Into<String>, data: ColumnData) -> &mut Self {
        debug_assert!(self.columns.first().is_none_or(|c| c.data.len() == data.len()));
        self.columns.push(Column { name: name.into(), data, valid: None });
        self
    }
    /// Adds a nullable column.
    pub fn push_nullable(
        &mut self,
        name: impl Into<String>,
        data: ColumnData,
        valid: Vec<bool>,
    ) -> &mut Self {
        debug_assert_eq!(data.len(), valid.len());
        self.columns.push(Column { name: name.into(), data, valid: Some(valid) });
        self
    }
    pub fn num_rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// Builds a dictionary-encoded string column without allocating per row: values are
/// interned once, rows store a code.
#[derive(Debug, Clone, Default)]
pub struct DictBuilder {
    codes: Vec<u32>,
    values: Vec<String>,
}

impl DictBuilder {
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends `s`. Linear in the number of distinct values, which is small by design
    /// (event kinds, causes); use a map-backed builder for high-cardinality strings.
    pub fn push(&mut self, s: &str) {
        let code = match self.values.iter().position(|v| v == s) {
            Some(i) => i as u32,
            None => {
                self.values.push(s.to_string());
                (self.values.len() - 1) as u32
            }
        };
        self.codes.push(code);
    }
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
    pub fn finish(self) -> ColumnData {
        ColumnData::Dict { codes: self.codes, values: self.values }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_builder_interns_repeated_strings() {
        let mut b = DictBuilder::new();
        for s in ["sent", "ack", "sent", "drop", "ack"] {
            b.push(s);
        }
        assert_eq!(
            b.finish(),
            ColumnData::Dict {
                codes: vec![0, 1, 0, 2, 1],
                values: vec!["sent".into(), "ack".into(), "drop".into()]
            }
        );
    }

    #[test]
    fn a_table_reports_rows_and_finds_columns_by_name() {
        let mut t = Table::new("flows");
        t.push("id", ColumnData::U32(vec![0, 1])).push("x", ColumnData::F64(vec![1.0, 2.0]));
        assert_eq!(t.num_rows(), 2);
        assert!(t.column("x").is_some() && t.column("y").is_none());
    }
}
