from __future__ import annotations

import json
from pathlib import Path

import pytest

from atccheck.api import check
from atccheck.baseline import compare, fingerprint, load_baseline, write_baseline
from atccheck.errors import UsageError
from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.report import Report
from atccheck.target import resolve_target
from builders import single_op_model


def f(node: str | None, rule: str = "unsupported-op", message: str = "m", op: str | None = "FindMax") -> Finding:
    return Finding("AC101", rule, Severity.ERROR, message, Location(node=node, op_type=op), "h",
                   FixSuggestion.manual(), "test")


def report(model: Path, findings: list[Finding], soc: str = "Ascend310P3") -> Report:
    return Report(model=str(model), target=resolve_target(soc), findings=findings)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "models").mkdir()
    return tmp_path


def test_unchanged_findings_are_hidden(folder):
    reports = [report(folder / "models/a.onnx", [f("n1"), f("n2")])]
    write_baseline(reports, folder / "baseline.json")
    outcome = compare(load_baseline(folder / "baseline.json"), reports)
    assert (outcome.new, outcome.unchanged, outcome.gone) == (0, 2, ())
    assert outcome.reports[0].findings == []


def test_new_findings_remain_and_messages_do_not_matter(folder):
    write_baseline([report(folder / "models/a.onnx", [f("n1", message="old words")])], folder / "b.json")
    now = report(folder / "models/a.onnx", [f("n1", message="new words, other numbers"), f("n3")])
    outcome = compare(load_baseline(folder / "b.json"), [now])
    assert (outcome.new, outcome.unchanged) == (1, 1)
    assert [x.location.node for x in outcome.reports[0].findings] == ["n3"]


def test_fixed_entries_are_listed(folder):
    write_baseline([report(folder / "models/a.onnx", [f("n1"), f("n2")])], folder / "b.json")
    outcome = compare(load_baseline(folder / "b.json"), [report(folder / "models/a.onnx", [f("n1")])])
    assert outcome.new == 0
    (gone,) = outcome.gone
    assert (gone.fingerprint.model, gone.fingerprint.node, gone.count) == ("models/a.onnx", "n2", 1)
    assert "models/a.onnx [Ascend310P3] AC101 unsupported-op at main/n2" in gone.describe()


def test_models_and_chips_not_checked_this_run_are_not_gone(folder):
    for name in ("a", "b"):
        (folder / f"models/{name}.onnx").write_bytes(b"")
    write_baseline([report(folder / "models/a.onnx", [f("n1")]), report(folder / "models/b.onnx", [f("n1")]),
                    report(folder / "models/a.onnx", [f("n1")], soc="Ascend910B3")], folder / "b.json")
    outcome = compare(load_baseline(folder / "b.json"), [report(folder / "models/a.onnx", [])])
    assert [(g.fingerprint.model, g.fingerprint.soc) for g in outcome.gone] == [("models/a.onnx", "Ascend310P3")]


def test_the_chip_is_part_of_the_fingerprint(folder):
    write_baseline([report(folder / "models/a.onnx", [f("n1")])], folder / "b.json")
    outcome = compare(load_baseline(folder / "b.json"), [report(folder / "models/a.onnx", [f("n1")], soc="Ascend910B3")])
    assert outcome.new == 1


def test_shared_fingerprints_are_counted(folder):
    write_baseline([report(folder / "a.onnx", [f(None, op=None)])], folder / "b.json")
    entries = json.loads((folder / "b.json").read_text())["findings"]
    assert len(entries) == 1 and entries[0]["count"] == 1 and entries[0]["node"] == ""
    outcome = compare(load_baseline(folder / "b.json"), [report(folder / "a.onnx", [f(None, op=None), f(None, op=None)])])
    assert (outcome.new, outcome.unchanged) == (1, 1)


def test_paths_are_relative_to_the_baseline_file_not_the_working_directory(folder, monkeypatch):
    (folder / "ci").mkdir()
    monkeypatch.chdir(folder)
    write_baseline([report(Path("models/a.onnx"), [f("n1")])], "ci/baseline.json")
    entry = json.loads((folder / "ci/baseline.json").read_text())["findings"][0]
    assert entry["model"] == "../models/a.onnx"
    monkeypatch.chdir(folder / "models")
    outcome = compare(load_baseline("../ci/baseline.json"), [report(Path("a.onnx"), [f("n1")])])
    assert (outcome.new, outcome.unchanged) == (0, 1)


def test_file_is_stable_and_sorted(folder):
    reports = [report(folder / "b.onnx", [f("z"), f("a")]), report(folder / "a.onnx", [f("m")])]
    write_baseline(reports, folder / "one.json")
    write_baseline(list(reversed(reports)), folder / "two.json")
    assert (folder / "one.json").read_text() == (folder / "two.json").read_text()
    models = [(e["model"], e["node"]) for e in json.loads((folder / "one.json").read_text())["findings"]]
    assert models == sorted(models)


@pytest.mark.parametrize("content, problem", [
    (None, "does not exist"),
    ("{", "not valid JSON"),
    ('{"findings": []}', "not an atccheck baseline"),
    ('{"atccheck_baseline": 1, "findings": [{"model": "a"}]}', "entry 0 lacks"),
    ('{"atccheck_baseline": 1, "findings": [{"model": "a", "soc": "s", "rule": "r", "graph": "g", "count": 0}]}', "count 0"),
])
def test_bad_baseline_files(tmp_path, content, problem):
    path = tmp_path / "b.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(UsageError, match=problem):
        load_baseline(path)


def test_fingerprint_of_a_real_finding(tmp_path):
    model = tmp_path / "custom.onnx"
    import onnx

    onnx.save(single_op_model("FindMax", [[4, 4]], [4], opset=11), model)
    result = check(model, soc="Ascend310", cann="6.0")
    found = [x for x in result.findings if x.name == "unsupported-op"]
    fp = fingerprint(found[0], result, tmp_path)
    assert (fp.model, fp.soc, fp.rule, fp.graph, fp.node, fp.op_type) == (
        "custom.onnx", "Ascend310", "unsupported-op", "main", "findmax_node", "FindMax")
    assert len(fp.digest()) == 32 and fp.digest() == fingerprint(found[0], result, tmp_path).digest()


def test_entries_of_a_deleted_model_are_gone(folder):
    (folder / "models/a.onnx").write_bytes(b"")
    write_baseline([report(folder / "models/a.onnx", [f("n1")]), report(folder / "models/deleted.onnx", [f("n1")])],
                   folder / "b.json")
    outcome = compare(load_baseline(folder / "b.json"), [])
    assert [g.fingerprint.model for g in outcome.gone] == ["models/deleted.onnx"]
