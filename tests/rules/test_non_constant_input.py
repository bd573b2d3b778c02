from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.rules.non_constant_input import NonConstantInput
from atccheck.tables import tables
from builders import init, make_model, tensor_input

INT64 = TensorProto.INT64


def findings(report, name="non-constant-input"):
    return [f for f in report.findings if f.name == name]


def test_dispatches_on_the_ops_the_published_list_marks():
    marked = {op for op, spec in tables().op_specs.items() if any(i.const_required for i in spec.inputs)}
    assert NonConstantInput.op_types == marked
    assert {"Expand", "Resize", "NonMaxSuppression"} <= marked


def test_expand_shape_from_a_graph_input_is_an_error():
    node = helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")
    model = make_model([node], [tensor_input("x", [1, 4]), tensor_input("shape", [2], INT64)],
                       [tensor_input("y", [3, 4])])
    found = findings(check(model, soc="Ascend310P3"))
    assert len(found) == 1
    f = found[0]
    assert f.severity.value == "error" and f.location.node == "expand"
    assert f.data["input"] == "shape" and f.data["index"] == 1 and f.data["foldable"] is False
    assert f.fix.pass_name == "manual"


def test_expand_shape_from_static_shape_is_a_warning_with_simplify():
    nodes = [
        helper.make_node("Shape", ["z"], ["s"], name="shape_of_z"),
        helper.make_node("Expand", ["x", "s"], ["y"], name="expand"),
    ]
    model = make_model(nodes, [tensor_input("x", [1, 4]), tensor_input("z", [3, 4])], [tensor_input("y", [3, 4])])
    found = findings(check(model, soc="Ascend310P3"))
    assert len(found) == 1
    f = found[0]
    assert f.severity.value == "warning" and f.data["foldable"] is True
    assert f.fix.pass_name == "simplify" and f.fix.safe is True
    assert "--oo_constant_folding" in f.message


def test_value_from_shapes_of_dynamic_inputs_waits_for_input_shape():
    nodes = [
        helper.make_node("Shape", ["z"], ["s"], name="shape_of_z"),
        helper.make_node("Expand", ["x", "s"], ["y"], name="expand"),
    ]
    model = make_model(nodes, [tensor_input("x", [1, 4]), tensor_input("z", ["n", 4])], [tensor_input("y", ["n", 4])])
    f = findings(check(model, soc="Ascend310P3"))[0]
    assert f.severity.value == "warning" and f.data["foldable_once_static"] is True
    assert f.data["dynamic_inputs"] == ["z"]
    fixed = findings(check(model, soc="Ascend310P3", input_shapes="z:3,4"))
    assert [g.data["foldable"] for g in fixed] == [True]


def test_constant_inputs_do_not_fire():
    shape_init = init("shape", np.array([3, 4], np.int64))
    expand = helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")
    const = helper.make_node("Constant", [], ["c"], name="c", value=helper.make_tensor("v", INT64, [2], [3, 4]))
    expand2 = helper.make_node("Expand", ["x", "c"], ["y2"], name="expand2")
    model = make_model([expand, const, expand2], [tensor_input("x", [1, 4])],
                       [tensor_input("y", [3, 4]), tensor_input("y2", [3, 4])], [shape_init])
    assert findings(check(model, soc="Ascend310P3")) == []


def test_resize_sizes_input_and_empty_scales():
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize", mode="nearest")
    model = make_model([node], [tensor_input("x", [1, 3, 8, 8]), tensor_input("sizes", [4], INT64)],
                       [tensor_input("y", [1, 3, 16, 16])], opset=11)
    found = findings(check(model, soc="Ascend310P3"))
    assert [(f.data["input"], f.data["index"]) for f in found] == [("sizes", 3)]


def test_resize_10_scales_is_input_one():
    node = helper.make_node("Resize", ["x", "scales"], ["y"], name="resize", mode="nearest")
    model = make_model([node], [tensor_input("x", [1, 3, 8, 8]), tensor_input("scales", [4])],
                       [tensor_input("y", [1, 3, 16, 16])], opset=10)
    found = findings(check(model, soc="Ascend310P3", cann="9.0"))
    assert [(f.data["input"], f.data["index"]) for f in found] == [("scales", 1)]


@pytest.mark.parametrize("which", ["max_output_boxes_per_class", "iou_threshold", "score_threshold"])
def test_nms_thresholds_must_be_constant(which):
    names = ["max_output_boxes_per_class", "iou_threshold", "score_threshold"]
    inits = [init("max_output_boxes_per_class", np.array([10], np.int64)), init("iou_threshold", np.array([0.5], np.float32)),
             init("score_threshold", np.array([0.1], np.float32))]
    inits = [t for t in inits if t.name != which]
    kind = INT64 if which == "max_output_boxes_per_class" else TensorProto.FLOAT
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores", *names], ["sel"], name="nms")
    model = make_model([node], [tensor_input("boxes", [1, 20, 4]), tensor_input("scores", [1, 1, 20]),
                                tensor_input(which, [1], kind)],
                       [tensor_input("sel", [None, 3], INT64)], inits, opset=11)
    found = findings(check(model, soc="Ascend910B3"))
    assert [f.data["input"] for f in found] == [which]
    assert found[0].severity.value == "error"


def test_real_model_resize_with_constant_scales(shared_models):
    report = check(shared_models / "ppocr_v4_det.onnx", soc="Ascend310P3", input_shapes="x:1,3,640,640")
    assert any(g.op_type == "Resize" for g in report.context.graph.nodes)
    assert findings(report) == []
