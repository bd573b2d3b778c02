from __future__ import annotations

import numpy as np
from onnx import TensorProto

from atccheck.api import check
from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.passes.decompose_mish import DecomposeMish
from builders import single_op_model
from ort_compare import apply, assert_rewrite, op_types, pass_context, run


def mish_model(elem=TensorProto.FLOAT):
    return single_op_model("Mish", [[2, 3, 7]], [2, 3, 7], opset=18, elem_type=elem)


def asked(label="mish_node"):
    return Finding(code="AC102", name="opset-not-registered", severity=Severity.ERROR, message="m",
                   location=Location(node=label, op_type="Mish"), hint="h", source="s",
                   fix=FixSuggestion("decompose-mish", True))


def test_mish_without_softplus_uses_exp_and_log():
    model = mish_model()
    new = assert_rewrite(DecomposeMish, model, pass_context("Ascend310", "6.0"))
    ops = op_types(new)
    assert "Mish" not in ops and "Softplus" not in ops and {"Exp", "Log", "Tanh", "Mul"} <= set(ops)
    before = [f.location.op_type for f in check(model, "Ascend310", "6.0").findings if f.name == "unsupported-op"]
    after = [f for f in check(new, "Ascend310", "6.0").findings if f.name == "unsupported-op"]
    assert before == ["Mish"] and after == []


def test_softplus_form_where_the_profile_registers_softplus():
    new = assert_rewrite(DecomposeMish, mish_model(), pass_context("Ascend910B3", "9.0", findings=[asked()]))
    assert sorted(op_types(new)) == ["Mul", "Softplus", "Tanh"]


def test_extreme_inputs_saturate_like_mish():
    new = apply(DecomposeMish, mish_model(), pass_context("Ascend310", "6.0")).model
    x = np.resize(np.array([-1000.0, -100.0, -20.0, 0.0, 20.0, 100.0, 1000.0], np.float32), (2, 3, 7))
    got, expected = run(new, {"x0": x})["y"], run(mish_model(), {"x0": x})["y"]
    assert np.all(np.isfinite(got)) and np.allclose(got, expected, atol=1e-5)


def test_float16():
    assert_rewrite(DecomposeMish, mish_model(TensorProto.FLOAT16), pass_context("Ascend310", "6.0"))


def test_nothing_where_the_profile_registers_mish():
    result = apply(DecomposeMish, mish_model(), pass_context("Ascend910B3", "9.0"))
    assert not result.modified and op_types(result.model) == ["Mish"]


def test_cann_8_0_registers_no_mish_opset_and_suggests_this_pass():
    model = mish_model()
    before = [f for f in check(model, "Ascend310P3", "8.0").findings if f.location.op_type == "Mish"]
    assert [(f.name, f.fix.pass_name) for f in before] == [("opset-not-registered", "decompose-mish")]
    new = assert_rewrite(DecomposeMish, model, pass_context("Ascend310P3", "8.0"))
    assert "Mish" not in op_types(new)
