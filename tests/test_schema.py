"""The generated JSON Schema against a real validator, the generated docs tables, and
override validation (`tcplab.check`, `tcplab check`)."""

from __future__ import annotations

import json
import tomllib

import jsonschema
import pytest
from conftest import ROOT, SCENARIOS, tcplab_cli

import tcplab
from tcplab import _core


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(_core.schema())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


SHIPPED = sorted(SCENARIOS.glob("*.toml"))


def test_there_are_shipped_scenarios():
    assert len(SHIPPED) >= 10


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_the_schema_accepts_every_shipped_scenario(validator, path):
    doc = tomllib.loads(path.read_text())
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == []


def test_the_schema_rejects_what_the_loader_rejects(validator):
    base = tomllib.loads((SCENARIOS / "dumbbell.toml").read_text())
    for path, value in [
        (("simulation", "duration"), 30),  # a bare number: no unit
        (("simulation", "duration"), "30 secs"),  # not a duration unit
        (("tcp", "recovery"), "vegas"),
        (("tcp", "profile"), "linux-9"),
        (("tcp", "min_rot"), "1s"),  # unknown key
    ]:
        doc = json.loads(json.dumps(base))
        doc.setdefault(path[0], {})[path[1]] = value
        assert not validator.is_valid(doc), (path, value)
        with pytest.raises(tcplab.ScenarioError):
            tcplab.load_scenario(doc)


def test_resolved_scenarios_validate_too(validator):
    sc = tcplab.load_scenario("dumbbell", ["tcp.profile=bsd-lite"])
    assert validator.is_valid(tomllib.loads(sc.resolved_toml))


def test_schema_markdown_is_what_the_docs_contain():
    r = tcplab_cli("schema", "--markdown")
    assert r.returncode == 0, r.stderr
    docs = (ROOT / "docs" / "scenarios.md").read_text()
    blocks = [b.strip() for b in r.stdout.split("\n\n") if b.strip()]
    assert len(blocks) == 12  # 11 key tables (workloads, pathlet, host_cache too) and the loss models
    for b in blocks:
        assert b in docs, b.splitlines()[0]


def test_check_validates_each_override_then_all_together():
    sc = tcplab.check("dumbbell", ["tcp.min_rto=1s", "tcp.sack=false"])
    assert sc.overrides == ("tcp.min_rto=1s", "tcp.sack=false")
    with pytest.raises(tcplab.ScenarioError, match=r"^tcp\.min_rto: .*\(from --set tcp\.min_rto=1x\)$"):
        tcplab.check("dumbbell", ["tcp.sack=false", "tcp.min_rto=1x"])
    with pytest.raises(tcplab.ScenarioError, match=r"cannot be combined with tlp"):
        tcplab.check("dumbbell", ["tcp.sender=linux", "tcp.tlp=true"])
    # A dict scenario too.
    doc = tomllib.loads((SCENARIOS / "dumbbell.toml").read_text())
    with pytest.raises(tcplab.ScenarioError, match=r"did you mean \"min_rto\""):
        tcplab.check(doc, "tcp.min_rot=1s")


def test_cli_check_names_the_bad_override_on_one_line():
    r = tcplab_cli("check", "dumbbell", "--set", "tcp.min_rto=1s")
    assert r.returncode == 0 and r.stdout.startswith("dumbbell: ok"), r.stderr
    r = tcplab_cli("check", "dumbbell", "--set", "tcp.sack=false", "--set", "tcp.min_rto=oops")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "(from --set tcp.min_rto=oops)" in r.stderr
