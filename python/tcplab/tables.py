"""Assembling Arrow tables from the column buffers the Rust core hands over.

The core returns, per table, a list of ``(name, data, valid)`` where ``data`` is a numpy
array that owns the Rust buffer (no copy) or, for dictionary-encoded strings, a pair
``(codes, values)``; ``valid`` is ``None`` or a boolean numpy mask (``False`` = null).
pyarrow wraps numeric numpy buffers without copying.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyarrow as pa


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
