from __future__ import annotations

from onnx import helper

from atccheck.api import check, fix
from atccheck.fixing.outcome import PassStatus
from atccheck.passes.flatten_softmax_input import FlattenSoftmaxInput
from builders import make_model, single_op_model, tensor_input
from ort_compare import apply, assert_rewrite, op_types, pass_context

PASS = FlattenSoftmaxInput


def findings(model):
    return [f for f in check(model, soc="Ascend310P3").findings if f.name == "axis-not-flattened"]


def test_an_inner_axis_is_flattened_with_the_same_outputs_and_the_finding_goes():
    model = single_op_model("LogSoftmax", [[2, 3, 4, 5]], [2, 3, 4, 5], opset=11, axis=1)
    new = assert_rewrite(PASS, model, pass_context(findings=findings(model)))
    assert op_types(new) == ["Flatten", "LogSoftmax", "Shape", "Reshape"]
    assert findings(new) == []


def test_no_axis_and_a_dynamic_batch_keep_their_meaning():
    node = helper.make_node("LogSoftmax", ["x"], ["y"], name="lsm")
    model = make_model([node], [tensor_input("x", ["n", 3, 4])], [tensor_input("y", ["n", 3, 4])], opset=11)
    new = assert_rewrite(PASS, model, pass_context(findings=findings(model)), shapes={"x": [2, 3, 4]})
    assert "Flatten" in op_types(new)


def test_a_node_no_finding_names_is_left_alone():
    model = single_op_model("LogSoftmax", [[2, 3, 4, 5]], [2, 3, 4, 5], opset=11, axis=-1)
    assert not apply(PASS, model, pass_context(findings=findings(model))).modified


def test_fix_applies_it_verified_and_the_model_is_clean_of_the_finding():
    model = single_op_model("LogSoftmax", [[1, 8, 6, 6]], [1, 8, 6, 6], opset=11, axis=1)
    outcome = fix(model, soc="Ascend310P3", write=False)
    [step] = [p for p in outcome.passes if p.name == PASS.name]
    assert step.status is PassStatus.APPLIED and step.verification in ("tested", "proved")
    assert not any(f.name == "axis-not-flattened" for f in outcome.after.findings)
