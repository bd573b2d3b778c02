from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_rms_normalization import DecomposeRmsNormalization
from builders import init, make_model, tensor_input
from ort_compare import assert_rewrite, op_types, pass_context, rule_findings

PASS = DecomposeRmsNormalization


def rms_model(shape=(2, 5, 16), elem=TensorProto.FLOAT, **attrs):
    dtype = helper.tensor_dtype_to_np_dtype(elem)
    axis = attrs.get("axis", -1)
    node = helper.make_node("RMSNormalization", ["x", "g"], ["y"], name="rms", **attrs)
    scale = np.random.default_rng(2).standard_normal(shape[axis:]).astype(dtype)
    return make_model([node], [tensor_input("x", list(shape), elem)], [tensor_input("y", list(shape), elem)],
                      [init("g", scale)], opset=23, ir_version=10)


@pytest.mark.parametrize("attrs", [{}, {"epsilon": 1e-2}, {"axis": 1}, {"axis": -2}, {"stash_type": 1}])
def test_rms_normalization_becomes_reduce_mean_arithmetic(attrs):
    model = rms_model(**attrs)
    assert rule_findings(model, ("unsupported-op", "opset-not-registered"))
    new = assert_rewrite(PASS, model, pass_context())
    assert "RMSNormalization" not in op_types(new) and "ReduceMean" in op_types(new)
    assert ("unsupported-op", "RMSNormalization") not in rule_findings(new, "unsupported-op")


def test_float16_input_computes_in_float32():
    new = assert_rewrite(PASS, rms_model(elem=TensorProto.FLOAT16), pass_context())
    assert op_types(new).count("Cast") == 2
