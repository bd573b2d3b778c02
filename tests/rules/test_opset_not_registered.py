from __future__ import annotations

import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from builders import make_model, single_op_model


def findings(report, name="opset-not-registered"):
    return [f for f in report.findings if f.name == name]


def test_opset_beyond_the_profile_gives_a_summary_and_per_node_detail():
    model = single_op_model("Relu", [[1, 3]], [1, 3], opset=17)
    found = findings(check(model, soc="Ascend310", cann="6.0"))
    summary = [f for f in found if f.location.node is None]
    per_node = [f for f in found if f.location.node is not None]
    assert len(summary) == 1 and summary[0].data["profile_max_opset"] == 15
    assert summary[0].data["suggested_opset"] <= 15 and summary[0].fix.pass_name == "convert-opset"
    assert len(per_node) == 1 and per_node[0].data["parser_key"] == "ai.onnx::17::Relu"
    assert per_node[0].atc_error == "E19010"


def test_gap_in_the_published_list_fires_only_where_no_source_registers_it():
    # The published list skips Resize-13, but the 2022 and 2026 sources both register it.
    model = single_op_model("Resize", [[1, 3, 4, 4]], None, opset=13)
    assert findings(check(model, soc="Ascend310P3", cann="8.0")) == []  # both sources register Resize-13


def test_only_newer_source_gives_a_warning_in_the_8_0_profile():
    model = single_op_model("Unsqueeze", [[3]], [1, 3], opset=17)
    model.graph.node[0].input.append("axes")
    import numpy as np
    from onnx import numpy_helper

    model.graph.initializer.append(numpy_helper.from_array(np.array([0], dtype=np.int64), "axes"))
    found = findings(check(model, soc="Ascend310P3", cann="8.0"))
    assert len(found) == 1 and found[0].severity.value == "warning"
    assert found[0].data["registered_opsets"][-1] == 15
    assert findings(check(model, soc="Ascend310P3", cann="9.0")) == []


def test_registered_opset_does_not_fire():
    model = single_op_model("Relu", [[1, 3]], [1, 3], opset=11)
    assert findings(check(model, soc="Ascend310", cann="5.0")) == []


def test_op_only_a_newer_source_registers_at_other_opsets_is_unsupported_not_a_crash():
    # Under 8.0, Mish has no registered opset; only the 9.x source registers it, at opset 18.
    model = single_op_model("Mish", [[2, 3]], [2, 3], opset=19)
    report = check(model, soc="Ascend310P3", cann="8.0")
    per_node = [f.name for f in report.findings if f.location.node is not None]
    assert "internal-error" not in per_node
    assert per_node == ["unsupported-op"]


def test_mish_registered_only_by_the_newer_source_at_18_warns_at_18():
    model = single_op_model("Mish", [[2, 3]], [2, 3], opset=18)
    found = findings(check(model, soc="Ascend310P3", cann="8.0"))
    assert len(found) == 1 and found[0].severity.value == "warning"


@pytest.mark.parametrize(("op", "opset", "shapes"), [("Tan", 11, [[2]]), ("IsInf", 11, [[2]]), ("IsNaN", 13, [[2]]),
                                                     ("Einsum", 13, [[2, 2], [2, 2]])])
def test_cann_5_0_list_silent_but_2022_source_registers_is_a_warning(op, opset, shapes):
    # onnx_op_spec.json old_version_ops (5.0.4 list) does not mention these; cann_onnx_registry.json canndev-2022
    # registers them at opsets v9-v13: silent, not negative.
    attrs = {"equation": "ij,jk->ik"} if op == "Einsum" else {}
    report = check(single_op_model(op, shapes, None, opset=opset, **attrs), soc="Ascend310", cann="5.0")
    parser = [f for f in report.findings if f.code in ("AC101", "AC102")]
    assert [(f.name, f.severity.value) for f in parser] == [("opset-not-registered", "warning")]
    assert "5.0.4 list does not mention it" in parser[0].message


def test_model_level_summary_needs_a_node_that_fails_the_lookup():
    # A Constant-only opset 18 model: Constant is mapped natively, nothing fails the 6.0 lookup, so no summary.
    const = helper.make_node("Constant", [], ["y"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))
    model = make_model([const], [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])], opset=18)
    assert findings(check(model, soc="Ascend310", cann="6.0")) == []
    relu = single_op_model("Relu", [[2]], [2], opset=18)
    assert len([f for f in findings(check(relu, soc="Ascend310", cann="6.0")) if f.location.node is None]) == 1
