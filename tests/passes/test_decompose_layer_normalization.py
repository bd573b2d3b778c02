from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.passes.decompose_layer_normalization import DecomposeLayerNormalization
from builders import init, make_model, tensor_input
from conftest import SAMPLE_MODELS
from ort_compare import apply, assert_rewrite, op_types, pass_context

RNG = np.random.default_rng(3)


def ln_model(shape, axis=None, bias=True, elem=TensorProto.FLOAT, stats=False, opset=17, stash_type=None):
    dtype = helper.tensor_dtype_to_np_dtype(elem)
    axis_value = -1 if axis is None else axis
    norm_shape = shape[axis_value:]
    inits = [init("scale", RNG.standard_normal(norm_shape).astype(dtype))]
    inputs = ["x", "scale"]
    if bias:
        inits.append(init("bias", RNG.standard_normal(norm_shape).astype(dtype)))
        inputs.append("bias")
    attrs = {"epsilon": 1e-3}
    if axis is not None:
        attrs["axis"] = axis
    if stash_type is not None:
        attrs["stash_type"] = stash_type
    outputs = ["y", "mean", "inv_std"] if stats else ["y"]
    node = helper.make_node("LayerNormalization", inputs, outputs, name="ln", **attrs)
    graph_outputs = [tensor_input("y", shape, elem)]
    if stats:
        leading = len(shape) - len(norm_shape)
        stat_shape = list(shape[:leading]) + [1] * len(norm_shape)
        graph_outputs += [tensor_input(n, stat_shape, TensorProto.FLOAT) for n in ("mean", "inv_std")]
    return make_model([node], [tensor_input("x", shape, elem)], graph_outputs, inits, opset=opset)


def unsupported(model, cann):
    return [f.location.op_type for f in check(model, "Ascend310", cann).findings if f.name == "unsupported-op"]


def test_layer_norm_is_rewritten_where_the_profile_lacks_it():
    model = ln_model([2, 5, 16])
    new = assert_rewrite(DecomposeLayerNormalization, model, pass_context("Ascend310", "6.0"))
    ops = op_types(new)
    assert "LayerNormalization" not in ops
    assert ops.count("ReduceMean") == 2 and {"Sub", "Pow", "Sqrt", "Div", "Mul", "Add"} <= set(ops)
    assert unsupported(model, "6.0") == ["LayerNormalization"] and unsupported(new, "6.0") == []


@pytest.mark.parametrize("axis", [-2, 1, 0])
def test_axis_other_than_last_without_bias(axis):
    new = assert_rewrite(DecomposeLayerNormalization, ln_model([2, 5, 16], axis=axis, bias=False),
                         pass_context("Ascend310", "6.0"))
    means = [n for n in new.graph.node if n.op_type == "ReduceMean"]
    expected = list(range(axis if axis < 0 else axis - 3, 0))
    assert [list(helper.get_attribute_value(a)) for n in means for a in n.attribute if a.name == "axes"] == [expected] * 2


def test_opset_18_passes_axes_as_an_input():
    new = assert_rewrite(DecomposeLayerNormalization, ln_model([3, 8], opset=18), pass_context("Ascend310", "6.0"))
    for node in new.graph.node:
        if node.op_type == "ReduceMean":
            assert len(node.input) == 2 and not [a for a in node.attribute if a.name == "axes"]


def test_float16_input_computes_statistics_in_the_stash_type():
    new = assert_rewrite(DecomposeLayerNormalization, ln_model([2, 4, 32], elem=TensorProto.FLOAT16),
                         pass_context("Ascend310", "6.0"))
    assert op_types(new).count("Cast") == 2


def test_mean_and_inv_std_outputs_are_kept_when_named():
    new = assert_rewrite(DecomposeLayerNormalization, ln_model([2, 3, 8], axis=-2, stats=True),
                         pass_context("Ascend310", "6.0"))
    producers = {o: n.op_type for n in new.graph.node for o in n.output}
    assert producers["mean"] == "ReduceMean" and producers["inv_std"] == "Reciprocal"


def test_left_alone_where_the_profile_registers_it():
    result = apply(DecomposeLayerNormalization, ln_model([2, 5, 16]), pass_context("Ascend310P3", "8.0"))
    assert not result.modified and "LayerNormalization" in op_types(result.model)


def test_a_finding_naming_the_pass_forces_the_rewrite():
    from atccheck.findings import Finding, FixSuggestion, Location, Severity

    finding = Finding(code="AC304", name="dtype-not-supported", severity=Severity.WARNING, message="m",
                      location=Location(node="ln", op_type="LayerNormalization"), hint="h", source="s",
                      fix=FixSuggestion("decompose-layer-normalization", True))
    result = apply(DecomposeLayerNormalization, ln_model([2, 5, 16]), pass_context("Ascend310P3", "8.0", findings=[finding]))
    assert result.modified and "LayerNormalization" not in op_types(result.model)


def test_positive_axis_with_unknown_rank_is_left_with_a_note():
    model = ln_model([2, 5, 16], axis=2)
    model.graph.input[0].type.tensor_type.ClearField("shape")
    result = apply(DecomposeLayerNormalization, model, pass_context("Ascend310", "6.0"))
    assert not result.modified and "rank" in result.notes[0]


def test_sample_transformer_block():
    model = onnx.load(SAMPLE_MODELS / "transformer_block_op17.onnx")
    shapes = {"tokens": (2, 7, 64)}
    new = assert_rewrite(DecomposeLayerNormalization, model, pass_context("Ascend310", "6.0"), shapes=shapes)
    assert "LayerNormalization" not in op_types(new)
