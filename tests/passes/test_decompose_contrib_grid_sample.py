from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_contrib_grid_sample import DecomposeContribGridSample
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import assert_rewrite, op_types, opset_domains, pass_context

PASS = DecomposeContribGridSample


def grid_model(mode="bilinear", padding="zeros", align=0):
    node = helper.make_node("GridSample", ["x", "g"], ["y"], name="gs", domain=MS, mode=mode, padding_mode=padding,
                            align_corners=align)
    grid = np.random.default_rng(6).uniform(-1.3, 1.3, (2, 4, 6, 2)).astype(np.float32)
    return make_model([node], [tensor_input("x", [2, 3, 5, 7])], [tensor_input("y", [2, 3, 4, 6])],
                      [init("g", grid)], opset=13, extra_opsets={MS: 1})


@pytest.mark.parametrize("mode,padding,align", [("bilinear", "zeros", 0), ("nearest", "border", 1),
                                                ("bilinear", "reflection", 1)])
def test_contrib_grid_sample_becomes_gathers(mode, padding, align):
    new = assert_rewrite(PASS, grid_model(mode, padding, align), pass_context())
    assert "GridSample" not in op_types(new) and MS not in opset_domains(new)


def test_bicubic():
    assert_rewrite(PASS, grid_model("bicubic", "reflection", 0), pass_context())
