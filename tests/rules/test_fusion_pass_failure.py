from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.api import check
from builders import init, make_model, tensor_input

# fusion_passes.json NonMaxSuppressionV6Fusion (canndev non_max_suppression_fusion_pass.cc@7d77ce32d): the pass
# reads max_output_size as a constant (lines 173-177) and sizes an index constant from the scores dims, failing
# where their product is negative (lines 69-76, 116-120, 187-197); an ATC log shows both as E20007.


def found(report):
    return [f for f in report.findings if f.name == "fusion-pass-failure"]


def nms(scores=(1, 2, 16), constant_max=True):
    inits = [init("iou", np.array([0.5], np.float32)), init("score", np.array([0.1], np.float32))]
    inputs = [tensor_input("boxes", [1, 16, 4]), tensor_input("scores", list(scores))]
    if constant_max:
        inits.append(init("max", np.array([4], np.int64)))
    else:
        inputs.append(tensor_input("max", [1], TensorProto.INT64))
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "score"], ["sel"], name="nms")
    return make_model([node], inputs, [helper.make_tensor_value_info("sel", TensorProto.INT64, None)], inits, opset=11)


def test_static_scores_and_a_constant_max_pass():
    for soc, cann in (("Ascend310P3", "8.0"), ("Ascend310", "6.0"), ("Ascend910B3", "9.0")):
        assert found(check(nms(), soc=soc, cann=cann)) == []


def test_scores_with_one_unknown_dim_stop_the_build_with_e20007():
    # --input-shape keeps the batch -1 (the dynamic-shape route): GE holds scores as [-1, 2, 16], count -32
    [f] = found(check(nms(), soc="Ascend310P3", cann="8.0", input_shapes="scores:-1,2,16"))
    assert f.severity.value == "error" and f.atc_error == "E20007" and f.location.node == "nms"
    assert f.data["fusion_pass"] == "NonMaxSuppressionV6Fusion" and f.data["case"] == "negative-element-count"
    assert f.data["input"] == 1 and f.data["dims"] == [-1, 2, 16] and f.data["element_count"] < 0
    assert "The shape of score cannot be negative." in f.message
    assert "non_max_suppression_fusion_pass.cc@7d77ce32d" in f.source and "116-120" in f.source
    # a symbolic dim the model leaves unknown is held the same way; the 2022 profile too
    [old] = found(check(nms(scores=("B", 2, 16)), soc="Ascend910A", cann="6.0"))
    assert old.data["dims"] == [-1, 2, 16]


def test_two_unknown_dims_give_a_positive_count_and_only_an_info():
    [f] = found(check(nms(scores=("B", 2, "N")), soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "info" and f.atc_error is None and f.data["element_count"] > 0


def test_a_max_output_boxes_per_class_that_is_not_constant_stops_the_build():
    [f] = found(check(nms(constant_max=False), soc="Ascend310P3", cann="8.0"))
    assert f.severity.value == "error" and f.atc_error == "E20007" and f.data["case"] == "not-constant"
    assert f.data["input"] == 2 and "max_output_boxes_per_class" in f.message
    assert "Get constValue failed of [max_output_size]" in f.message and "173-177" in f.source


def test_gears_make_each_graph_static():
    report = check(nms(scores=("B", 2, 16)), soc="Ascend310P3", cann="8.0", input_shapes="scores:-1,2,16",
                   dynamic_batch="1,2")
    assert found(report) == []
