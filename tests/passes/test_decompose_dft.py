from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.passes.decompose_dft import DecomposeDft
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context, rule_findings

PASS = DecomposeDft


def dft_model(shape=(2, 16, 1), opset=17, axis=None, length=None, out=None, **attrs):
    names, inits = ["x", "", ""], []
    if length is not None:
        names[1] = "len"
        inits.append(init("len", np.array(length, np.int64)))
    if axis is not None:
        if opset >= 20:
            names[2] = "axis"
            inits.append(init("axis", np.array(axis, np.int64)))
        else:
            attrs["axis"] = axis
    while names and not names[-1]:
        names.pop()
    node = helper.make_node("DFT", names, ["y"], name="dft", **attrs)
    return make_model([node], [tensor_input("x", list(shape))], [tensor_input("y", out or ["d"] * len(shape))], inits,
                      opset=opset, ir_version=9 if opset >= 20 else 8)


CASES = {
    "real": dict(), "onesided": dict(onesided=1), "complex": dict(shape=(2, 16, 2)),
    "inverse": dict(shape=(2, 16, 2), inverse=1), "opset20-default-axis": dict(opset=20, shape=(3, 12, 1)),
    "axis-2-of-4d": dict(shape=(2, 3, 10, 2), axis=2), "pad": dict(length=20, onesided=1),
    "cut": dict(length=12, shape=(2, 16, 2)), "opset20-axis": dict(opset=20, shape=(2, 10, 3, 1), axis=1),
}


@pytest.mark.parametrize("kwargs", CASES.values(), ids=CASES.keys())
def test_dft_becomes_a_matmul(kwargs):
    model = dft_model(**kwargs)
    assert rule_findings(model, ("unsupported-op", "opset-not-registered"))
    new = assert_rewrite(PASS, model, pass_context())
    assert "DFT" not in op_types(new) and "MatMul" in op_types(new)


def test_onesided_inverse_is_left_with_a_note():
    result = apply(PASS, dft_model(shape=(2, 16, 2), onesided=1), pass_context())
    assert not result.modified and "onesided" in result.notes[0]
