"""plugin-refuses-node: one-node models for every condition kind, and a representative refusal of each era."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, single_op_model, tensor_input

NAME = "plugin-refuses-node"
OLD, NEW = "Ascend310P3", "Ascend910B3"


def found(model, cann, soc=NEW, name=NAME):
    return [f for f in check(model, soc=soc, cann=cann).findings if f.name == name]


def one(model, cann, soc=NEW):
    [finding] = found(model, cann, soc)
    return finding


def node_model(op, inputs, outputs, opset=13, input_shapes=None, elem=TensorProto.FLOAT, inits=(), **attrs):
    """One node; graph inputs for every named input that is not an initializer."""
    names = {t.name for t in inits}
    shapes = input_shapes or {}
    graph_inputs = [tensor_input(n, shapes.get(n, [1, 3, 8, 8]), elem) for n in inputs if n and n not in names]
    node = helper.make_node(op, list(inputs), list(outputs), name=f"{op.lower()}_node", **attrs)
    return make_model([node], graph_inputs, [helper.make_tensor_value_info(outputs[0], elem, None)], list(inits),
                      opset=opset)


# --------------------------------------------------------------------------- one representative per era


def test_2022_argmax_select_last_index_is_refused_in_5_0_and_6_0():
    model = single_op_model("ArgMax", [[2, 3]], None, opset=13, axis=1, select_last_index=1)
    for cann in ("5.0", "6.0"):
        f = one(model, cann, OLD)
        assert f.severity.value == "error" and f.atc_error == "E11010"
        assert f.data["plugin_message"] == "Only support select_last_index=0, but 1 is obtained now"
        assert f.data["stage"] == "parse-params" and f.data["profile"] == cann and f.data["channel"] == "onnx-plugin-loge"
        assert "argmax_plugin.cc@7d77ce32d" in f.source and f.location.node == "argmax_node"
    # from 8.0 on the published page's limit reports it (attr-out-of-range), not this rule
    assert found(model, "9.0") == []
    assert [f.name for f in check(model, soc=NEW, cann="9.0").findings if f.severity.value == "error"] \
        == ["attr-out-of-range"]
    assert found(single_op_model("ArgMax", [[2, 3]], None, opset=13, axis=1, select_last_index=0), "6.0", OLD) == []


def test_2026_transpose_without_perm_fails_its_graph_expansion():
    f = one(single_op_model("Transpose", [[2, 3, 4]], None, opset=13), "9.0")
    assert f.atc_error == "E19999" and f.data["stage"] == "op-to-graph"
    assert f.data["plugin_message"] == "must input the attr of perm" and f.data["channel"] == "op-loge-2026"
    assert "hicann/ops-math:conversion/transpose/framework/transpose_onnx_plugin.cpp@c41933244" in f.source
    assert found(single_op_model("Transpose", [[2, 3, 4]], None, opset=13, perm=[2, 1, 0]), "9.0") == []


# --------------------------------------------------------------------------- condition kinds


def test_attr_missing_conv_transpose_without_kernel_shape():
    w = init("w", np.zeros((3, 2, 3, 3), np.float32))
    model = node_model("ConvTranspose", ["x", "w"], ["y"], inits=[w])
    for cann in ("6.0", "8.0", "9.0"):
        f = one(model, cann)
        assert f.data["plugin_message"] == "attr kernel_shape must have value" and f.atc_error == "E11010"
    assert found(node_model("ConvTranspose", ["x", "w"], ["y"], inits=[w], kernel_shape=[3, 3]), "9.0") == []


def test_attr_not_in_random_uniform_double_in_the_2022_plugin():
    model = make_model([helper.make_node("RandomUniform", [], ["y"], dtype=TensorProto.DOUBLE, shape=[2, 2])], [],
                       [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2, 2])])
    f = one(model, "6.0", OLD)
    assert f.data["plugin_message"] == "only support float32/float16/int32/int64, but got %d"
    float_model = make_model([helper.make_node("RandomUniform", [], ["y"], shape=[2, 2])], [],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])])
    assert found(float_model, "6.0", OLD) == []


def test_attr_outside_selu_alpha_in_the_2022_plugin():
    assert one(single_op_model("Selu", [[4]], [4], alpha=2.0), "6.0", OLD).data["check"] == "alpha-gamma"
    assert found(single_op_model("Selu", [[4]], [4]), "6.0", OLD) == []  # the defaults pass (within 1e-5)


def test_attr_parity_lrn_even_size_only_in_the_2022_plugin():
    even = single_op_model("LRN", [[1, 3, 8, 8]], [1, 3, 8, 8], size=4)
    assert one(even, "6.0", OLD).data["plugin_message"] == "Attr size must be odd num"
    assert found(even, "9.0") == []  # the 2026 plugin refuses only size 0
    assert found(single_op_model("LRN", [[1, 3, 8, 8]], [1, 3, 8, 8], size=5), "6.0", OLD) == []


def test_attr_length_odd_conv_pads_in_every_profile():
    w = init("w", np.zeros((4, 3, 3, 3), np.float32))
    model = node_model("Conv", ["x", "w"], ["y"], inits=[w], kernel_shape=[3, 3], pads=[1, 1, 1])
    for cann in ("5.0", "6.0", "8.0", "9.0"):
        assert one(model, cann, OLD if cann < "8" else NEW).data["check"] == "pads-odd"
    assert found(node_model("Conv", ["x", "w"], ["y"], inits=[w], kernel_shape=[3, 3], pads=[1, 1, 1, 1]), "8.0") == []


def test_attr_other_than_bitshift_with_an_extra_attribute():
    model = node_model("BitShift", ["a", "b"], ["y"], opset=11, input_shapes={"a": [4], "b": [4]},
                       elem=TensorProto.UINT8, direction="LEFT", extra=1)
    assert one(model, "6.0", OLD).data["plugin_message"] == "direction attr is empty"
    clean = node_model("BitShift", ["a", "b"], ["y"], opset=11, input_shapes={"a": [4], "b": [4]},
                       elem=TensorProto.UINT8, direction="LEFT")
    assert found(clean, "6.0", OLD) == []


def test_input_count_in_trilu_k_input_only_in_the_2022_plugin():
    k = init("k", np.array(1, np.int64))
    model = node_model("Trilu", ["x", "k"], ["y"], opset=14, inits=[k])
    assert one(model, "6.0", OLD).data["plugin_message"] == "now only support one input, not support k input"
    assert found(model, "9.0") == []


def test_input_absent_clip_without_min_and_max():
    model = node_model("Clip", ["x", "", ""], ["y"], opset=13)
    assert one(model, "9.0").data["check"] == "min-max-inputs"
    low = init("low", np.array(0, np.float32))
    assert found(node_model("Clip", ["x", "low"], ["y"], opset=13, inits=[low]), "9.0") == []


def test_output_count_in_maxpool_declaring_indices_even_unread():
    model = node_model("MaxPool", ["x"], ["y", "indices"], kernel_shape=[2, 2])
    for cann in ("5.0", "6.0", "8.0", "9.0"):
        f = one(model, cann, OLD if cann < "8" else NEW)
        assert f.data["plugin_message"] == "The output of Indices is not support, transforming failed."
    assert found(node_model("MaxPool", ["x"], ["y"], kernel_shape=[2, 2]), "9.0") == []


def test_output_count_differs_split_sizes_and_outputs():
    split = node_model("Split", ["x"], ["a", "b", "c"], opset=11, axis=1, split=[1, 2])
    assert one(split, "6.0", OLD).data["plugin_message"] == "output size[%d] is not equal split size[%d]."
    assert found(node_model("Split", ["x"], ["a", "b"], opset=11, axis=1, split=[1, 2]), "6.0", OLD) == []


def test_combinators_reduce_sum_13_with_its_axes_input_in_the_2022_plugin():
    axes = init("axes", np.array([1], np.int64))
    model = node_model("ReduceSum", ["x", "axes"], ["y"], opset=13, inits=[axes])
    f = one(model, "6.0", OLD)
    assert f.atc_error == "E19999" and f.data["plugin_message"] == "Input num or set attr is error"
    assert found(model, "9.0") == []  # the 2026 plugin takes one or two inputs
    assert found(node_model("ReduceSum", ["x", "axes"], ["y"], opset=13, inits=[axes], noop_with_empty_axes=1),
                 "6.0", OLD) == []


def test_attr_length_in_with_min_conv_3d_auto_pad():
    """2022: the 5-D auto_pad test reads an uninitialised rank, so the outcome is unknown (info)."""
    w = init("w", np.zeros((4, 3, 3, 3, 3), np.float32))
    model = node_model("Conv", ["x", "w"], ["y"], inits=[w], input_shapes={"x": [1, 3, 8, 8, 8]},
                       kernel_shape=[3, 3, 3], auto_pad="SAME_UPPER")
    f = one(model, "6.0", OLD)
    assert f.severity.value == "info" and "unknown" in f.message and f.data["unknown"]
    assert "uninitialised" in f.message


# --------------------------------------------------------------------------- profiles the source cannot tell


def test_a_plugin_added_after_the_8_x_releases_is_unknown_for_8_0():
    w = init("w", np.zeros((3, 2, 3, 3, 3), np.float32))
    model = node_model("ConvTranspose", ["x", "w"], ["y"], inits=[w], input_shapes={"x": [1, 3, 4, 4, 4]},
                       kernel_shape=[3, 3, 3], output_padding=[1, 1])
    assert one(model, "9.0").severity.value == "error"
    unknown = one(model, "8.0")
    assert unknown.severity.value == "info" and "unknown" in unknown.message and "v9.2.0-beta.1" in unknown.message
    assert one(model, "6.0", OLD).severity.value == "error"  # the 2022 plugin makes the test too


def test_a_test_both_eras_make_holds_for_8_0():
    model = node_model("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], pads=[0, 0, 1])
    f = one(model, "8.0")
    assert f.severity.value == "error" and f.data["check"] == "pads-odd"


@pytest.mark.parametrize("cann", ["5.0", "6.0", "8.0", "9.0"])
def test_a_model_the_plugins_take_has_no_finding(cann):
    w = init("w", np.zeros((4, 3, 3, 3), np.float32))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Transpose", ["p"], ["y"], perm=[0, 2, 3, 1])]
    model = make_model(nodes, [tensor_input("x", [1, 3, 8, 8])], [tensor_input("y", [1, 4, 4, 4])], [w])
    assert found(model, cann, OLD if cann < "8" else NEW) == []
