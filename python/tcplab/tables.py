"""Assembling Arrow tables from the column buffers the Rust core hands over.

The core returns, per table, a list of ``(name, data, valid)`` where ``data`` is a numpy
array that owns the Rust buffer (no copy) or, for dictionary-encoded strings, a pair
``(codes, values)``; ``valid`` is ``None`` or a boolean numpy mask (``False`` = null).
pyarrow wraps numeric numpy buffers without copying.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:  # pandas is imported only when a DataFrame is asked for (fast CLI start)
    import pandas as pd


def _bitmap(bits: np.ndarray) -> pa.Buffer:
    """An Arrow bitmap (LSB first) of a boolean array."""
    return pa.py_buffer(np.packbits(np.asarray(bits, dtype=bool), bitorder="little"))


def _numeric(data: Any, valid: Any) -> pa.Array:
    """A numeric or boolean Arrow array wrapping the numpy buffer (no copy for numbers).

    Built from buffers rather than with ``pa.array``, which imports pandas to inspect its
    argument: the CLI writes tables without ever loading pandas (fast start-up)."""
    arr = np.ascontiguousarray(data)
    if arr.dtype == np.bool_:
        typ, buf = pa.bool_(), _bitmap(arr)
    else:
        typ, buf = pa.from_numpy_dtype(arr.dtype), pa.py_buffer(arr)
    if valid is None:
        return pa.Array.from_buffers(typ, len(arr), [None, buf], null_count=0)
    valid = np.asarray(valid, dtype=bool)
    nulls = int(len(valid) - np.count_nonzero(valid))
    return pa.Array.from_buffers(typ, len(arr), [_bitmap(valid), buf], null_count=nulls)


def _strings(values: Sequence[str]) -> pa.Array:
    """A UTF-8 string array from Python strings (built from buffers, see :func:`_numeric`)."""
    encoded = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def to_arrow(columns: Sequence[tuple[str, Any, Any]]) -> pa.Table:
    """The Arrow table of the core's columns. A column the core sends with a validity mask
    is a nullable field (Parquet ``optional``), every other one is ``required``: the
    schema says which columns can hold nulls, whether or not this run produced any."""
    arrays = []
    fields = []
    for name, data, valid in columns:
        if isinstance(data, tuple):
            codes, values = data
            indices = _numeric(np.asarray(codes, dtype=np.int32), valid)
            arr = pa.DictionaryArray.from_arrays(indices, _strings(list(values)))
        else:
            arr = _numeric(data, valid)
        arrays.append(arr)
        fields.append(pa.field(name, arr.type, nullable=valid is not None))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def parquet_options(schema: pa.Schema) -> dict:
    """How every tcplab table is written to Parquet (``pq.write_table`` / ``pq.ParquetWriter``
    keywords): zstd, and Parquet's dictionary encoding only for the columns that are Arrow
    dictionaries (kinds, causes, names). Numeric columns are written plain and left to zstd:
    Parquet's default dictionary-encodes every column, which for times, sequence numbers and
    windows (nearly all values distinct) costs a dictionary that overflows and is abandoned
    for each row group, and compresses worse. Measured on the trace of a 2000 s dumbbell run
    (docs/benchmarks.md, "Long runs"): events 2.83 instead of 4.70 bytes a row, timeseries
    1.90 instead of 3.51, written with half the CPU time, and the size no longer depends on
    the row-group size (2.84 bytes a row in groups of 2^18 rows, 2.88 in groups of 2^16)."""
    return {
        "compression": "zstd",
        "use_dictionary": [f.name for f in schema if pa.types.is_dictionary(f.type)],
    }


def _nullable_dtypes() -> dict:
    """pandas' nullable dtypes for the Arrow types of nullable columns (numpy has no integer
    or boolean NA: without these a nullable uint64 would become float64 and lose precision
    above 2**53, and a nullable bool an ``object`` column)."""
    import pandas as pd

    return {
        pa.uint64(): pd.UInt64Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.bool_(): pd.BooleanDtype(),
    }


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """A DataFrame of ``table``: nullable integer and boolean columns (fields marked
    nullable) get pandas' nullable dtypes (``UInt64``, ``boolean``, ...), every other
    column its numpy dtype; dictionary strings become ``category``."""
    import pandas as pd

    nullable = _nullable_dtypes()
    columns = {}
    for field in table.schema:
        dtype = nullable.get(field.type) if field.nullable else None
        mapper = {field.type: dtype}.get if dtype is not None else None
        columns[field.name] = table[field.name].to_pandas(types_mapper=mapper)
    return pd.DataFrame(columns)


class TableResult:
    """A ``summary`` dict plus named Arrow tables, with pandas views and writers.

    Subclasses name their tables as properties (``RunResult.events``,
    ``AnalysisResult.retransmissions``) and say whether ``write`` adds CSV copies.
    """

    #: Also write ``<name>.csv`` next to ``<name>.parquet``.
    WRITE_CSV = False

    def __init__(self, summary: dict, tables: Mapping[str, pa.Table]):
        self.summary = summary
        self._arrow = dict(tables)
        self._frames: dict[str, pd.DataFrame] = {}

    def arrow(self, name: str) -> pa.Table:
        """The Arrow table ``name``."""
        try:
            return self._arrow[name]
        except KeyError:
            raise KeyError(f"no table {name!r}; tables are {', '.join(self._arrow)}") from None

    def _frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            self._frames[name] = to_pandas(self.arrow(name))
        return self._frames[name]

    def write(self, out_dir: str | os.PathLike) -> Path:
        """Write ``summary.json`` and each table as Parquet (zstd), and as CSV if the result
        type does, into ``out_dir``.

        ``out_dir`` is a local path, whatever it looks like (``run:1``, ``s3:bucket``): pyarrow
        is handed open files, never a path string it could read as a filesystem URI; names
        that are not UTF-8 work (``open`` takes them as surrogate escapes)."""
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        out = Path(os.fsdecode(os.fspath(out_dir)))
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n", encoding="utf-8")
        for name, table in self._arrow.items():
            with open(out / f"{name}.parquet", "wb") as fh:
                pq.write_table(table, fh, **parquet_options(table.schema))
            if self.WRITE_CSV:
                with open(out / f"{name}.csv", "wb") as fh:
                    try:
                        # Dictionary columns are written as their strings; no cast, so that
                        # pyarrow.compute (0.15 s to import) is not loaded.
                        pacsv.write_csv(table, fh)
                    except pa.ArrowNotImplementedError:  # an older pyarrow: decode first
                        fh.seek(0)
                        fh.truncate()
                        plain = pa.Table.from_arrays(
                            [
                                (table[c].cast(pa.string()) if pa.types.is_dictionary(table[c].type) else table[c])
                                for c in table.column_names
                            ],
                            names=table.column_names,
                        )
                        pacsv.write_csv(plain, fh)
        return out
