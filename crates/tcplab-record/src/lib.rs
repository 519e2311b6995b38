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
    /// FNV-1a over every value of every column and its null mask, in column order: a compact
    /// integer fingerprint of a whole table, for snapshot tests and before/after benchmarks
    /// (equal tables give equal fingerprints). A dictionary column contributes its codes and,
    /// with `dictionary_values`, the bytes of its values too (two builds whose dictionaries may
    /// differ must hash them; one build's snapshot needs only the codes).
    pub fn fingerprint(&self, dictionary_values: bool) -> u64 {
        /// FNV-1a 64-bit offset basis and prime (Fowler/Noll/Vo, draft-eastlake-fnv).
        const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut h = FNV_OFFSET;
        let mut eat = |x: u64| {
            for b in x.to_le_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            }
        };
        for c in &self.columns {
            match &c.data {
                ColumnData::U64(v) => v.iter().for_each(|&x| eat(x)),
                ColumnData::I64(v) => v.iter().for_each(|&x| eat(x as u64)),
                ColumnData::U32(v) => v.iter().for_each(|&x| eat(u64::from(x))),
                ColumnData::F64(v) => v.iter().for_each(|&x| eat(x.to_bits())),
                ColumnData::Bool(v) => v.iter().for_each(|&x| eat(u64::from(x))),
                ColumnData::Dict { codes, values } => {
                    codes.iter().for_each(|&x| eat(u64::from(x)));
                    if dictionary_values {
                        values.iter().for_each(|v| v.bytes().for_each(|b| eat(u64::from(b))));
                    }
                }
            }
            if let Some(valid) = &c.valid {
                valid.iter().for_each(|&x| eat(u64::from(x)));
            }
        }
        h
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
