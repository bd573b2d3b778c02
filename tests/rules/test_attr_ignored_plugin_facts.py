"""attr-ignored on the facts read from every parser plugin (op_tables/curated/plugin_refusals.json)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, single_op_model, tensor_input

NAME = "attr-ignored"
OLD, NEW = "Ascend310P3", "Ascend910B3"


def found(model, cann, soc=NEW):
    return [f for f in check(model, soc=soc, cann=cann).findings if f.name == NAME]


def test_attr_axis_in_argmax_keepdims_reinserts_axis_1_in_the_2022_plugin():
    last = single_op_model("ArgMax", [[2, 3, 4]], None, opset=13, axis=-1, keepdims=1)
    [f] = found(last, "6.0", OLD)
    assert f.severity.value == "warning" and f.data["fact"] == "2022/argmax/ArgMax/keepdims-axis"
    assert "ExpandDims at axis 1" in f.message
    assert found(single_op_model("ArgMax", [[2, 3, 4]], None, opset=13, axis=1, keepdims=1), "6.0", OLD) == []
    assert found(single_op_model("ArgMax", [[2, 3, 4]], None, opset=13, axis=-1, keepdims=0), "6.0", OLD) == []
    assert found(last, "9.0") == []  # the 2026 plugin expands at the reduced axis


def test_attr_axis_in_is_unknown_without_the_input_rank():
    model = single_op_model("ArgMax", [[2]], None, opset=13, axis=-1, keepdims=1)
    model.graph.input[0].type.tensor_type.ClearField("shape")  # rank unknown
    [f] = found(model, "6.0", OLD)
    assert f.severity.value == "info" and "unknown" in f.message


def test_input_rank_in_global_max_pool_of_a_5d_input():
    model = single_op_model("GlobalMaxPool", [[1, 2, 4, 4, 4]], [1, 2, 1, 1, 1])
    [f] = found(model, "9.0")
    assert f.data["attr"] is None and "axis 3 is not pooled" in f.message
    assert found(single_op_model("GlobalMaxPool", [[1, 2, 4, 4]], [1, 2, 1, 1]), "9.0") == []


def test_input_dtype_not_in_eyelike_without_dtype():
    model = single_op_model("EyeLike", [[3, 3]], [3, 3], elem_type=TensorProto.INT64)
    [f] = found(model, "6.0", OLD)
    assert "float32" in f.message
    assert found(single_op_model("EyeLike", [[3, 3]], [3, 3]), "6.0", OLD) == []
    assert found(single_op_model("EyeLike", [[3, 3]], [3, 3], elem_type=TensorProto.INT64, dtype=7), "6.0", OLD) == []


def test_output_used_unique_indices():
    def unique(read_indices: bool):
        node = helper.make_node("Unique", ["x"], ["y", "indices"])
        outputs = [tensor_input("y", [None], TensorProto.FLOAT)]
        if read_indices:
            outputs.append(tensor_input("indices", [None], TensorProto.INT64))
        return make_model([node], [tensor_input("x", [6])], outputs, opset=13)

    [f] = found(unique(True), "9.0")
    assert f.data["fact"] == "2026/unique/Unique/indices-output"
    assert found(unique(False), "9.0") == []


def test_resize_half_pixel_computes_as_asymmetric_in_the_2022_plugin():
    roi = init("roi", np.array([], np.float32))
    scales = init("scales", np.array([1, 1, 2, 2], np.float32))

    def resize(**attrs):
        node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], **attrs)
        return make_model([node], [tensor_input("x", [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [roi, scales], opset=13)

    linear = resize(mode="linear")  # half_pixel is the ONNX default
    [f] = found(linear, "6.0", OLD)
    assert f.data["attr"] == "coordinate_transformation_mode" and "asymmetric" in f.message
    assert found(linear, "9.0") == []  # the 2026 plugin sets half_pixel_centers for half_pixel
    assert found(resize(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"), "6.0", OLD) == []


def test_value_facts_mod_fmod_and_roi_align_mode():
    mod = make_model([helper.make_node("Mod", ["a", "b"], ["y"])],
                     [tensor_input("a", [4], TensorProto.INT32), tensor_input("b", [4], TensorProto.INT32)],
                     [tensor_input("y", [4], TensorProto.INT32)], opset=13)
    [f] = found(mod, "9.0")
    assert f.data["attr"] == "fmod" and f.data["value"] == 0
    roi = make_model([helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], mode="max")],
                     [tensor_input("x", [1, 2, 8, 8]), tensor_input("rois", [3, 4]),
                      tensor_input("idx", [3], TensorProto.INT64)], [tensor_input("y", [3, 2, 1, 1])], opset=13)
    assert [f.data["attr"] for f in found(roi, "6.0", OLD)] == ["mode"]


def test_a_fact_holds_only_at_its_opsets():
    shape15 = single_op_model("Shape", [[2, 3]], None, opset=15, start=1)
    assert [f.data["attr"] for f in found(shape15, "6.0", OLD)] == ["start"]
    lstm_layout = helper.make_node("LSTM", ["x", "w", "r"], ["y"], hidden_size=2, layout=1)
    w = init("w", np.zeros((1, 8, 3), np.float32))
    r = init("r", np.zeros((1, 8, 2), np.float32))
    for opset, expected in ((13, []), (14, ["layout"])):
        model = make_model([lstm_layout], [tensor_input("x", [2, 5, 3])], [tensor_input("y", [None])], [w, r],
                           opset=opset)
        assert [f.data["attr"] for f in found(model, "9.0")] == expected


def test_lppool_ceil_mode_from_a_plugin_newer_than_8_x_is_unknown_for_8_0():
    model = single_op_model("LpPool", [[1, 1, 4, 4]], None, opset=18, kernel_shape=[2, 2], ceil_mode=1)
    [warn] = found(model, "9.0")
    assert warn.severity.value == "warning" and warn.data["attr"] == "ceil_mode"
    [info] = found(model, "8.0")
    assert info.severity.value == "info" and "unknown" in info.message and "v9.2.0-beta.1" in info.message


def test_a_plugin_whose_outcome_the_source_cannot_tell_is_an_info():
    w = init("w", np.zeros((1, 6, 3), np.float32))
    r = init("r", np.zeros((1, 6, 2), np.float32))
    gru = make_model([helper.make_node("GRU", ["x", "w", "r"], ["y"], hidden_size=2, linear_before_reset=1)],
                     [tensor_input("x", [5, 1, 3])], [tensor_input("y", [None])], [w, r], opset=13)
    infos = [f for f in found(gru, "9.0") if f.data["attr"] == "linear_before_reset"]
    assert [f.severity.value for f in infos] == ["info"] and "unknown" in infos[0].message
    # the 2022 GRU fusion builds DynamicGRUV2 with reset_after=true: linear_before_reset=1 is what it computes
    assert [f for f in found(gru, "6.0", OLD) if f.data["attr"] == "linear_before_reset"] == []
