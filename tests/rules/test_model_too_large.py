from __future__ import annotations

import dataclasses

import onnx
import pytest
from onnx import helper

from atccheck.api import check
from atccheck.engine import check_prepared, prepare
from atccheck.model.loading import load_model
from atccheck.tables import tables
from atccheck.target import resolve_target
from builders import make_model, tensor_input

LIMIT = tables().limit("model_file_max_bytes")


def findings(report, name="model-too-large"):
    return [f for f in report.findings if f.name == name]


def small_model():
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    return make_model([node], [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])])


def run_with_size(tmp_path, size, soc="Ascend310P3", cann="8.0"):
    path = tmp_path / "m.onnx"
    onnx.save_model(small_model(), path)
    loaded = dataclasses.replace(load_model(path), file_size=size)  # a fake size: nothing 2 GB is written
    return check_prepared(prepare(loaded), resolve_target(soc, cann))


def test_file_above_int_max_is_an_error(tmp_path):
    found = findings(run_with_size(tmp_path, LIMIT + 1))
    assert len(found) == 1
    f = found[0]
    assert f.severity.value == "error"
    assert f.data == {"file_size": LIMIT + 1, "limit": LIMIT}
    assert f"{LIMIT:,}" in f.message
    assert "save_as_external_data=True" in f.hint
    assert f.fix.pass_name == "manual"


@pytest.mark.parametrize(("cann", "code"), [("6.0", "E19015"), ("8.0", "E19015"), ("9.0", "E13015")])
def test_error_code_follows_the_profile_numbering(tmp_path, cann, code):
    assert findings(run_with_size(tmp_path, 3 * 2**30, cann=cann))[0].atc_error == code


def test_file_at_the_limit_passes(tmp_path):
    assert findings(run_with_size(tmp_path, LIMIT)) == []


def test_real_file_sizes_pass(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save_model(small_model(), path)
    report = check(path, soc="Ascend310")
    assert report.context.loaded.file_size == path.stat().st_size
    assert findings(report) == []


def test_in_memory_model_has_no_file_to_judge():
    assert findings(check(small_model(), soc="Ascend310")) == []
