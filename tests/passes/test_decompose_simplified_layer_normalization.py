from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_simplified_layer_normalization import DecomposeSimplifiedLayerNormalization
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, ort_optimized, pass_context, rule_findings

PASS = DecomposeSimplifiedLayerNormalization
RNG = np.random.default_rng(7)


def rms_pattern(residual=False):
    """The RMS norm an exporter writes (Pow, ReduceMean, Add, Sqrt, Div, Mul), opset 18."""
    nodes = [helper.make_node("Add", ["x", "r"], ["s"])] if residual else []
    src = "s" if residual else "x"
    nodes += [helper.make_node("Pow", [src, "two"], ["p"]), helper.make_node("ReduceMean", ["p", "axes"], ["m"]),
              helper.make_node("Add", ["m", "eps"], ["a"]), helper.make_node("Sqrt", ["a"], ["rms"]),
              helper.make_node("Div", [src, "rms"], ["d"]), helper.make_node("Mul", ["d", "g"], ["y"])]
    inits = [init("two", np.array(2, np.float32)), init("axes", np.array([-1])), init("eps", np.array(1e-6, np.float32)),
             init("g", RNG.standard_normal(16).astype(np.float32))]
    inputs = [tensor_input("x", [2, 5, 16])] + ([tensor_input("r", [2, 5, 16])] if residual else [])
    return make_model(nodes, inputs, [tensor_input("y", [2, 5, 16])], inits, opset=18)


def test_what_onnxruntime_fuses_becomes_reduce_mean_arithmetic():
    fused = ort_optimized(rms_pattern())
    assert [n.op_type for n in fused.graph.node] == ["SimplifiedLayerNormalization"]
    assert rule_findings(fused, "unsupported-op")
    new = assert_rewrite(PASS, fused, pass_context())
    assert "SimplifiedLayerNormalization" not in op_types(new) and rule_findings(new, "unsupported-op") == []


def sln_model(shape=(2, 5, 16), elem=TensorProto.FLOAT, outputs=("y",), **attrs):
    dtype = helper.tensor_dtype_to_np_dtype(elem)
    axis = attrs.get("axis", -1)
    scale_shape = list(shape[axis:]) if axis != -1 else [shape[-1]]
    node = helper.make_node("SimplifiedLayerNormalization", ["x", "g"], list(outputs), name="sln", **attrs)
    outs = [tensor_input("y", list(shape), elem)]
    if len(outputs) > 1:
        stat = list(shape[:axis % len(shape)]) + [1] * (len(shape) - axis % len(shape))
        outs.append(tensor_input(outputs[1], stat, TensorProto.FLOAT))
    return make_model([node], [tensor_input("x", list(shape), elem)], outs,
                      [init("g", RNG.standard_normal(scale_shape).astype(dtype))], opset=17)


@pytest.mark.parametrize("attrs", [{}, {"epsilon": 1e-3}, {"axis": 1}, {"axis": -2}])
def test_axes_and_epsilon(attrs):
    assert_rewrite(PASS, sln_model(**attrs), pass_context())


def test_inv_std_var_output_and_float16():
    assert_rewrite(PASS, sln_model(outputs=("y", "inv")), pass_context())
    assert_rewrite(PASS, sln_model(elem=TensorProto.FLOAT16), pass_context())


def test_non_negative_axis_without_rank_is_left_with_a_note():
    node = helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"], name="sln", axis=1)
    model = make_model([node], [helper.make_tensor_value_info("x", 1, None)], [tensor_input("y", ["a", "b"])],
                       [init("g", np.ones(4, np.float32))], opset=17)
    result = apply(PASS, model, pass_context())
    assert not result.modified and "rank" in result.notes[0]
