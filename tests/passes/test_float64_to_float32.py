from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.fixing.pipeline import PassStatus, fix
from atccheck.passes.float64_to_float32 import Float64ToFloat32
from builders import init, make_model, tensor_input
from fix_harness import max_error, run_pass

D = TensorProto.DOUBLE


def float64_inside():
    """float32 in and out, float64 compute in between (a numpy constant, a Cast to double)."""
    nodes = [helper.make_node("Cast", ["x"], ["xd"], to=D, name="cast"),
             helper.make_node("Mul", ["xd", "k"], ["m"], name="mul"),
             helper.make_node("ConstantOfShape", ["shape"], ["ones"], name="ones",
                              value=helper.make_tensor("v", D, [1], [1.0])),
             helper.make_node("Add", ["m", "ones"], ["a"], name="add"),
             helper.make_node("Exp", ["a"], ["e"], name="exp"),
             helper.make_node("Cast", ["e"], ["y"], to=TensorProto.FLOAT, name="back")]
    return make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])],
                      [init("k", np.array([0.5], np.float64)), init("shape", np.array([1, 4], np.int64))], opset=13)


def float64_findings(model):
    return [f for f in check(model, "Ascend310P3").findings
            if f.name == "dtype-not-supported" and "float64" in (f.data.get("dtype"), f.data.get("output_dtype"))]


def test_float64_compute_becomes_float32_and_the_findings_go():
    model = float64_inside()
    assert float64_findings(model)
    result = run_pass(Float64ToFloat32, model, unsafe=True)
    assert result.modified
    onnx.checker.check_model(result.model, full_check=True)
    assert not float64_findings(result.model)
    assert not any(t.data_type == D for t in result.model.graph.initializer)
    assert max_error(model, result.model, atol=1e-5, rtol=1e-5).ok
    assert not any("interface" in n for n in result.notes)  # float32 in, float32 out: unchanged


def test_float64_inputs_and_outputs_become_float32_and_fix_still_compares_them():
    nodes = [helper.make_node("Mul", ["x", "k"], ["m"], name="mul"),
             helper.make_node("Sqrt", ["m"], ["y"], name="sqrt")]
    model = make_model(nodes, [tensor_input("x", [2, 3], D)], [tensor_input("y", [2, 3], D)],
                       [init("k", np.array(2.0, np.float64))], opset=13)
    result = run_pass(Float64ToFloat32, model, unsafe=True)
    assert result.model.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT
    assert any("interface" in n and "input 'x'" in n and "output 'y'" in n for n in result.notes)
    outcome = fix(model, soc="Ascend310P3", unsafe_fixes=True, write=False)
    step = [p for p in outcome.passes if p.name == "float64-to-float32"][0]
    assert step.status is PassStatus.APPLIED and step.verification == "tested"
    assert outcome.verification.status == "verified" and not float64_findings(outcome.model)


def test_it_needs_the_unsafe_flag():
    outcome = fix(float64_inside(), soc="Ascend310P3", write=False)
    step = [p for p in outcome.passes if p.name == "float64-to-float32"][0]
    assert step.status is PassStatus.SKIPPED and "--unsafe-fixes" in step.reason
    why = [r.why for r in outcome.remaining if r.finding.name == "dtype-not-supported"]
    assert why and all("float64-to-float32 is unsafe" in w for w in why)


def test_a_constant_beyond_float32_is_left_with_a_note():
    nodes = [helper.make_node("Mul", ["x", "big"], ["y"], name="mul")]
    model = make_model(nodes, [tensor_input("x", [1, 2], D)], [tensor_input("y", [1, 2], D)],
                       [init("big", np.array(1e300, np.float64))], opset=13)
    result = run_pass(Float64ToFloat32, model, unsafe=True)
    assert not result.modified and any("left as is" in n and "'big'" in n for n in result.notes)
    outcome = fix(model, soc="Ascend310P3", unsafe_fixes=True, write=False)
    why = [r.why for r in outcome.remaining if r.finding.name == "dtype-not-supported"]
    assert why and "float64-to-float32 ran but could not remove it" in why[0] and "'big'" in why[0]


def test_a_float64_conv_onnxruntime_cannot_load_is_compared_through_the_reference_evaluator():
    w = np.random.default_rng(0).standard_normal((4, 3, 3, 3))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], name="conv"),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    model = make_model(nodes, [tensor_input("x", [1, 3, 8, 8], D)], [tensor_input("y", [1, 4, 6, 6], D)],
                       [init("w", w)], opset=13)
    outcome = fix(model, soc="Ascend310P3", unsafe_fixes=True, write=False)
    step = [p for p in outcome.passes if p.name == "float64-to-float32"][0]
    assert step.status is PassStatus.APPLIED and step.verification == "tested"
    assert outcome.verification.status == "verified" and "reference evaluator" in outcome.verification.reason
    assert outcome.runtime_error is None and not outcome.fails()
