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

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq


def to_arrow(columns: Sequence[tuple[str, Any, Any]]) -> pa.Table:
    """The Arrow table of the core's columns. A column the core sends with a validity mask
    is a nullable field (Parquet ``optional``), every other one is ``required``: the
    schema says which columns can hold nulls, whether or not this run produced any."""
    arrays = []
    fields = []
    for name, data, valid in columns:
        mask = None if valid is None else ~np.asarray(valid, dtype=bool)
        if isinstance(data, tuple):
            codes, values = data
            indices = pa.array(np.asarray(codes, dtype=np.int32), mask=mask)
            arr = pa.DictionaryArray.from_arrays(indices, pa.array(list(values), type=pa.string()))
        else:
            arr = pa.array(data, mask=mask)
        arrays.append(arr)
        fields.append(pa.field(name, arr.type, nullable=valid is not None))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


#: pandas' nullable dtypes for the Arrow types of nullable columns (numpy has no integer
#: or boolean NA: without these a nullable uint64 would become float64 and lose precision
#: above 2**53, and a nullable bool an ``object`` column).
_NULLABLE_DTYPES = {
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
    columns = {}
    for field in table.schema:
        dtype = _NULLABLE_DTYPES.get(field.type) if field.nullable else None
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
        type does, into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        for name, table in self._arrow.items():
            pq.write_table(table, out / f"{name}.parquet", compression="zstd")
            if self.WRITE_CSV:
                plain = pa.table(
                    {
                        c: (table[c].cast(pa.string()) if pa.types.is_dictionary(table[c].type) else table[c])
                        for c in table.column_names
                    }
                )
                pacsv.write_csv(plain, out / f"{name}.csv")
        return out
