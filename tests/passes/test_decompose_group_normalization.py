from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.passes.decompose_group_normalization import DecomposeGroupNormalization
from builders import init, make_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context

RNG = np.random.default_rng(5)


def gn_model(shape, groups, opset, params_as_inputs=False, elem=TensorProto.FLOAT):
    channels = shape[1]
    width = groups if opset < 21 else channels
    dtype = helper.tensor_dtype_to_np_dtype(elem)
    inputs = [tensor_input("x", shape, elem)]
    inits = []
    if params_as_inputs:
        inputs += [tensor_input("scale", [width], elem), tensor_input("bias", [width], elem)]
    else:
        inits = [init("scale", RNG.standard_normal(width).astype(dtype)), init("bias", RNG.standard_normal(width).astype(dtype))]
    node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], name="gn", num_groups=groups, epsilon=1e-4)
    return make_model([node], inputs, [tensor_input("y", shape, elem)], inits, opset=opset, ir_version=8 if opset < 21 else 10)


@pytest.mark.parametrize("opset", [18, 21])
def test_group_norm_becomes_reduce_mean_arithmetic(opset):
    model = gn_model([2, 6, 5, 4], 3, opset)
    new = assert_rewrite(DecomposeGroupNormalization, model, pass_context("Ascend310P3", "9.0"))
    ops = op_types(new)
    assert "GroupNormalization" not in ops and "InstanceNormalization" not in ops and ops.count("ReduceMean") == 2
    assert {t.name for t in new.graph.initializer}.isdisjoint({"scale", "bias"})  # replaced by reshaped copies
    before = [f.location.op_type for f in check(model, "Ascend310P3", "9.0").findings if f.name == "unsupported-op"]
    after = [f for f in check(new, "Ascend310P3", "9.0").findings if f.name == "unsupported-op"]
    assert before == ["GroupNormalization"] and after == []


@pytest.mark.parametrize("opset", [18, 21])
def test_scale_and_bias_given_as_inputs_and_rank_3(opset):
    assert_rewrite(DecomposeGroupNormalization, gn_model([3, 8, 10], 2, opset, params_as_inputs=True), pass_context())


def test_per_group_and_per_channel_are_not_confused():
    """At opset 18 the scale has num_groups entries; at 21, C: both must match onnxruntime."""
    m18 = gn_model([1, 4, 3, 3], 2, 18)
    new = assert_rewrite(DecomposeGroupNormalization, m18, pass_context())
    params = [t for t in new.graph.initializer if list(t.dims) == [2, 1]]
    assert len(params) == 2


def test_dynamic_batch_restores_the_shape_with_a_shape_node():
    model = gn_model(["n", 6, 4, 4], 3, 21)
    new = assert_rewrite(DecomposeGroupNormalization, model, pass_context(), shapes={"x": (2, 6, 4, 4)})
    assert "Shape" in op_types(new)


def test_float16_with_stash_type_float():
    new = assert_rewrite(DecomposeGroupNormalization, gn_model([2, 4, 6, 6], 2, 21, elem=TensorProto.FLOAT16), pass_context())
    assert op_types(new).count("Cast") == 2


def test_unknown_rank_is_left_with_a_note():
    model = gn_model([2, 6, 5, 4], 3, 21)
    model.graph.input[0].type.tensor_type.ClearField("shape")
    result = apply(DecomposeGroupNormalization, model, pass_context())
    assert not result.modified and "rank" in result.notes[0]
