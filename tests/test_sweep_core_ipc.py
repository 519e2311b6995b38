"""The sweep worker's flows table, built by the core as Arrow IPC bytes
(``_core.RunOutput.table_ipc``, crates/tcplab-py/src/ipc.rs), is the table the Python
conversion builds (``add_flow_names(to_arrow(...))``): schema with nullability and
metadata, dictionaries, values and nulls."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from tcplab import _core
from tcplab.api import Scenario, _FlowNames, add_flow_names
from tcplab.scenarios import path as scenario_path
from tcplab.sweep.task import RunTask, run_task
from tcplab.tables import to_arrow


def _names(spec, raw) -> _FlowNames:
    import json

    summary = json.loads(raw.summary_json)
    sc = Scenario(spec, spec.name, spec.default_seed, tuple(spec.link_names), (), "")
    names = _FlowNames(sc)
    names.extend(0, [f.get("workload") for f in summary.get("flows") or []])
    return names


@pytest.mark.parametrize(
    "scenario, overrides, table",
    [
        # [[flows]] entries named by the scenario; the traced events table has link rows
        # (flow id 4294967295, a null flow_name).
        ("dumbbell", [], "flows"),
        ("dumbbell", [], "events"),
        # A workload's connections, named by their workload.
        ("red-ecn-web", ['simulation.duration="3s"'], "flows"),
    ],
)
def test_core_ipc_table_equals_the_python_conversion(scenario, overrides, table):
    text = scenario_path(scenario).read_text()
    spec = _core.load_scenario(text, scenario, overrides)
    raw = _core.run(spec, 3, True, [])
    names = _names(spec, raw)
    got = pa.ipc.open_stream(raw.table_ipc(table, names.names, names.labels)).read_all()
    want = add_flow_names(to_arrow(raw.table(table)), names.names, names.labels)
    assert got.num_rows == want.num_rows > 0
    assert got.schema.equals(want.schema, check_metadata=True), (got.schema, want.schema)
    assert got.equals(want)
    assert "flow_name" in got.column_names
    # Null exactly where the flow id names no flow (4294967295 on link rows); every flow
    # of these scenarios is named.
    ids = got["flow" if "flow" in got.column_names else "id"].to_pylist()
    assert got["flow_name"].null_count == sum(1 for i in ids if i >= len(names.names))
    assert got["flow_name"].null_count < got.num_rows


def test_table_ipc_without_names_and_errors():
    spec = _core.load_scenario(scenario_path("dumbbell").read_text(), "dumbbell", [])
    raw = _core.run(spec, 1, False, [])
    plain = pa.ipc.open_stream(raw.table_ipc("flows")).read_all()
    assert "flow_name" not in plain.column_names and plain.equals(to_arrow(raw.table("flows")))
    with pytest.raises(ValueError, match="no table named"):
        raw.table_ipc("nope")
    with pytest.raises(ValueError, match="both names and labels"):
        raw.table_ipc("events", [None], None)


def test_run_outcome_ships_the_core_bytes_not_the_decoded_table():
    task = RunTask("k", scenario_path("dumbbell").read_text(), "dumbbell", (), 2)
    out = run_task(task)
    assert out.flows.num_rows > 0 and "flow_name" in out.flows.column_names  # decoded (cached)
    back = pickle.loads(pickle.dumps(out))
    assert "flows" not in back.__dict__ and back.flows_ipc == out.flows_ipc
    assert back.flows.equals(out.flows)
