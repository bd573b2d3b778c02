from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import atccheck
from atccheck.api import check
from builders import init, make_model, tensor_input

NAME = "input-shape-not-supported"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def prelu(x_shape, slope, constant=True):
    node = helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")
    slope = np.asarray(slope, dtype=np.float32)
    inputs = [tensor_input("x", x_shape)]
    inits = [init("slope", slope)] if constant else []
    if not constant:
        inputs.append(tensor_input("slope", list(slope.shape)))
    return make_model([node], inputs, [tensor_input("y", x_shape)], inits, opset=13)


def test_an_exporters_per_channel_slope_is_an_error_with_the_repair_suggested():
    [f] = found(check(prelu([1, 3, 4, 4], np.full((3, 1, 1), 0.25)), soc="Ascend310P3", cann="9.0"))
    assert f.code == "AC307" and f.severity.value == "error"
    assert f.location.node == "prelu" and f.data["shape"] == [3, 1, 1]
    assert f.fix.pass_name == "prelu-slope-1d" and f.fix.safe
    assert "op_facts.json input-shape-required" in f.source and "atlasoxol_09_0137" in f.source


def test_a_slope_computed_at_run_time_is_judged_by_its_inferred_shape():
    [f] = found(check(prelu([1, 3, 4, 4], np.full((3, 1, 1), 0.25), constant=False), soc="Ascend910B3"))
    assert f.data["shape"] == [3, 1, 1]


@pytest.mark.parametrize("x_shape, slope", [
    ([1, 3, 4, 4], [0.25]),  # one slope for every element
    ([2, 5], np.linspace(0.1, 0.5, 5)),  # [N, C] with [C]: ONNX and the page agree on the channel
    ([5], [0.25]),
])
def test_slopes_the_page_allows_do_not_fire(x_shape, slope):
    assert found(check(prelu(x_shape, slope), soc="Ascend310P3", cann="9.0")) == []


def test_a_length_other_than_one_or_the_channel_is_an_error():
    [f] = found(check(prelu([5], np.linspace(0.1, 0.5, 5)), soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "error" and "length 5" in f.message and "allowed here: 1" in f.message


def test_a_long_1d_slope_on_an_image_means_another_axis_to_onnx_than_to_atc():
    # ONNX broadcasts [4] along the last axis (W = 4); the page reads it per channel (C = 4)
    [f] = found(check(prelu([1, 4, 4, 4], np.linspace(0.1, 0.4, 4)), soc="Ascend310P3", cann="9.0"))
    assert f.severity.value == "warning" and "last axis" in f.message


def test_profiles_the_page_does_not_cover_get_an_info():
    [f] = found(check(prelu([1, 3, 4, 4], np.full((3, 1, 1), 0.25)), soc="Ascend310", cann="5.0"))
    assert f.severity.value == "info" and "unverified" in f.message


def test_fix_removes_it_and_proves_the_same_numbers(tmp_path):
    path = tmp_path / "prelu.onnx"
    path.write_bytes(prelu([1, 3, 4, 4], np.array([0.1, 0.2, 0.3]).reshape(3, 1, 1)).SerializeToString())
    outcome = atccheck.fix(path, soc="Ascend310P3", cann="9.0")
    assert [p.name for p in outcome.passes if p.status.value == "applied"] == ["prelu-slope-1d"]
    assert found(outcome.after) == [] and outcome.verification.status == "verified"
    assert outcome.verification.max_abs_error == 0.0
