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
    arrays = []
    names = []
    for name, data, valid in columns:
        mask = None if valid is None else ~np.asarray(valid, dtype=bool)
        if isinstance(data, tuple):
            codes, values = data
            indices = pa.array(np.asarray(codes, dtype=np.int32), mask=mask)
            arr = pa.DictionaryArray.from_arrays(indices, pa.array(list(values), type=pa.string()))
        else:
            arr = pa.array(data, mask=mask)
        arrays.append(arr)
        names.append(name)
    return pa.Table.from_arrays(arrays, names=names)


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
            self._frames[name] = self.arrow(name).to_pandas()
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
