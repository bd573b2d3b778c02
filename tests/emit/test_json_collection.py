from __future__ import annotations

import json

from atccheck.batch import UncheckedModel
from atccheck.emit import render


def test_one_report_is_the_report_object_unchanged(make_report, make_finding):
    report = make_report("m.onnx", [make_finding()])
    text = render("json", [report])
    assert json.loads(text) == json.loads(json.dumps(report.to_dict()))
    assert text == json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


def test_a_collection_lists_reports_and_unchecked_models(make_report, make_finding):
    reports = [make_report("a.onnx", [make_finding()]), make_report("a.onnx", [], soc="Ascend910B3")]
    doc = json.loads(render("json", reports, unchecked=[UncheckedModel("b.onnx", "no such file")]))
    assert doc["schema_version"] == 1
    assert [(r["model"], r["target"]["soc"]) for r in doc["reports"]] == [("a.onnx", "Ascend310P3"), ("a.onnx", "Ascend910B3")]
    assert doc["unchecked"] == [{"model": "b.onnx", "problem": "no such file"}]


def test_collection_shape_does_not_depend_on_the_count(make_report):
    doc = json.loads(render("json", [make_report("only.onnx", [])], collection=True))
    assert [r["model"] for r in doc["reports"]] == ["only.onnx"] and doc["unchecked"] == []
    doc = json.loads(render("json", [], unchecked=[UncheckedModel("x.onnx", "empty file")]))
    assert doc["reports"] == [] and len(doc["unchecked"]) == 1
