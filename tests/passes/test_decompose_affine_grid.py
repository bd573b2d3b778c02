from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_affine_grid import DecomposeAffineGrid
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

PASS = DecomposeAffineGrid


def affine_model(size, align=0, elem=TensorProto.FLOAT, constant_size=True):
    dims = len(size) - 2
    node = helper.make_node("AffineGrid", ["theta", "size"], ["y"], name="ag", align_corners=align)
    inputs = [tensor_input("theta", [size[0], dims, dims + 1], elem)]
    inits = [init("size", np.array(size, np.int64))] if constant_size else []
    if not constant_size:
        inputs.append(tensor_input("size", [len(size)], TensorProto.INT64))
    out = [size[0], *size[2:], dims]
    return make_model([node], inputs, [tensor_input("y", out, elem)], inits, opset=20, ir_version=9)


@pytest.mark.parametrize("size", [[2, 3, 4, 5], [2, 3, 3, 4, 5]], ids=["2d", "3d"])
@pytest.mark.parametrize("align", [0, 1])
def test_affine_grid_becomes_a_matmul(size, align):
    model = affine_model(size, align)
    assert ("opset-not-registered", "AffineGrid") in rule_findings(model, "opset-not-registered")
    new = assert_rewrite(PASS, model, pass_context())
    assert "AffineGrid" not in op_types(new) and "MatMul" in op_types(new)


def test_one_pixel_axis_with_align_corners_is_left_with_a_note():
    assert_rewrite(PASS, affine_model([1, 1, 1, 6], 0), pass_context())
    result = apply(PASS, affine_model([1, 1, 1, 6], 1), pass_context())
    assert not result.modified and "one pixel" in result.notes[0]


def test_float16_and_size_from_the_output_shape():
    assert_rewrite(PASS, affine_model([2, 3, 4, 5], elem=TensorProto.FLOAT16), pass_context())
    model = affine_model([2, 3, 4, 5], constant_size=False)
    result = apply(PASS, model, pass_context())
    assert result.modified
