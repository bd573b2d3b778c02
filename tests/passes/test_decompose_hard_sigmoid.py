from __future__ import annotations

import numpy as np
import onnx

from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.passes.decompose_hard_sigmoid import DecomposeHardSigmoid
from builders import single_op_model
from ort_compare import apply, assert_rewrite, op_types, pass_context


def hard_sigmoid(opset, **attrs):
    return single_op_model("HardSigmoid", [[3, 5, 4]], [3, 5, 4], opset=opset, **attrs)


def asked():
    return Finding(code="AC302", name="attr-out-of-range", severity=Severity.ERROR, message="m",
                   location=Location(node="hardsigmoid_node", op_type="HardSigmoid"), hint="h", source="s",
                   fix=FixSuggestion("decompose-hard-sigmoid", True))


def test_rewritten_where_the_profile_lacks_it():
    new = assert_rewrite(DecomposeHardSigmoid, hard_sigmoid(16, alpha=0.3, beta=0.4), pass_context("Ascend310", "6.0"))
    assert "HardSigmoid" not in op_types(new) and {"Max", "Min"} <= set(op_types(new))
    alpha = [t for t in new.graph.initializer if t.name.endswith("/alpha")]
    assert onnx.numpy_helper.to_array(alpha[0]) == np.float32(0.3)


def test_clip_bounds_are_attributes_below_opset_11():
    new = assert_rewrite(DecomposeHardSigmoid, hard_sigmoid(10), pass_context("Ascend310P3", "8.0", findings=[asked()]))
    clip = [n for n in new.graph.node if n.op_type == "Clip"]
    assert len(clip) == 1 and len(clip[0].input) == 1 and {a.name for a in clip[0].attribute} == {"min", "max"}


def test_clip_bounds_are_inputs_from_opset_11():
    new = assert_rewrite(DecomposeHardSigmoid, hard_sigmoid(13, alpha=0.25), pass_context("Ascend310P3", "8.0", findings=[asked()]))
    clip = [n for n in new.graph.node if n.op_type == "Clip"]
    assert len(clip) == 1 and len(clip[0].input) == 3


def test_no_op_on_a_real_model_whose_profile_registers_hard_sigmoid(shared_models):
    model = onnx.load(shared_models / "ppocr_mobile_v2_cls.onnx")
    for cann in ("5.0", "8.0"):
        result = apply(DecomposeHardSigmoid, model, pass_context("Ascend310", cann))
        assert not result.modified and op_types(result.model).count("HardSigmoid") == 9
