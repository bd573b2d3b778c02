from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import helper

from atccheck.api import check
from atccheck.passes.decompose_grid_sample import DecomposeGridSample
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

PASS = DecomposeGridSample


def grid_model(mode, padding="zeros", align=0, opset=20, grid=None):
    node = helper.make_node("GridSample", ["x", "g"], ["y"], name="gs", mode=mode, padding_mode=padding,
                            align_corners=align)
    inits = []
    inputs = [tensor_input("x", [2, 3, 5, 7])]
    if grid is None:  # a constant grid reaching outside [-1, 1] and hitting pixel centres and halves
        values = np.random.default_rng(6).uniform(-1.4, 1.4, (2, 4, 6, 2)).astype(np.float32)
        values[0, 0, :3] = [[-1, -1], [1, 1], [0, 0]]
        values[0, 1, :2] = [[1 / 7, 0.2], [-3 / 7, 0.6]]  # halfway between pixels without align_corners
        inits.append(init("g", values))
    else:
        inputs.append(tensor_input("g", grid))
    return make_model([node], inputs, [tensor_input("y", [2, 3, 4, 6])], inits, opset=opset,
                      ir_version=9 if opset >= 20 else 8)


MODES = list(itertools.product(["linear", "nearest", "cubic"], ["zeros", "border", "reflection"], [0, 1]))


@pytest.mark.parametrize("mode,padding,align", MODES, ids=["-".join(map(str, m)) for m in MODES])
def test_grid_sample_20_becomes_gathers(mode, padding, align):
    model = grid_model(mode, padding, align)
    new = assert_rewrite(PASS, model, pass_context())
    assert "GridSample" not in op_types(new) and "GatherElements" in op_types(new)
    assert ("opset-not-registered", "GridSample") in rule_findings(model, "opset-not-registered")


def test_grid_as_input_on_a_profile_without_grid_sample():
    model = grid_model("bilinear", "zeros", 0, opset=16, grid=[2, 4, 6, 2])
    assert rule_findings(model, "unsupported-op", "Ascend310", "6.0") == [("unsupported-op", "GridSample")]
    assert_rewrite(PASS, model, pass_context("Ascend310", "6.0"))
    assert not apply(PASS, model, pass_context()).modified  # 8.0 registers GridSample-16


def test_bicubic_16_on_a_profile_that_rejects_it():
    model = grid_model("bicubic", "border", 0, opset=16)
    assert rule_findings(model, "attr-out-of-range") == [("attr-out-of-range", "GridSample")]
    assert_rewrite(PASS, model, pass_context(findings=[f for f in check(model, "Ascend310P3", "8.0").findings
                                                       if f.name == "attr-out-of-range"]))


def test_dynamic_shapes_are_left_with_a_note():
    result = apply(PASS, grid_model("linear", grid=["n", 4, 6, 2]), pass_context())
    assert not result.modified and "static" in result.notes[0]
