from __future__ import annotations

from atccheck.api import check
from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.passes.decompose_hard_swish import DecomposeHardSwish
from builders import single_op_model
from ort_compare import apply, assert_rewrite, op_types, pass_context


def hard_swish(opset=14):
    return single_op_model("HardSwish", [[2, 4, 9]], [2, 4, 9], opset=opset)


def test_rewritten_where_the_profile_lacks_it_at_the_model_opset():
    model = hard_swish(16)
    new = assert_rewrite(DecomposeHardSwish, model, pass_context("Ascend310", "6.0"))
    assert "HardSwish" not in op_types(new)
    # CANN 6.0 registers Clip only up to opset 15: the clamp is Max/Min there
    assert {"Add", "Max", "Min", "Mul", "Div"} == set(op_types(new))
    before = [f.location.op_type for f in check(model, "Ascend310", "6.0").findings if f.name == "opset-not-registered"]
    after = [f.location.op_type for f in check(new, "Ascend310", "6.0").findings if f.name == "opset-not-registered"]
    assert "HardSwish" in before and "HardSwish" not in after


def test_clip_with_bounds_as_inputs_where_clip_is_registered():
    finding = Finding(code="AC302", name="attr-out-of-range", severity=Severity.ERROR, message="m",
                      location=Location(node="hardswish_node", op_type="HardSwish"), hint="h", source="s",
                      fix=FixSuggestion("decompose-hard-swish", True))
    new = assert_rewrite(DecomposeHardSwish, hard_swish(14), pass_context("Ascend310P3", "8.0", findings=[finding]))
    clip = [n for n in new.graph.node if n.op_type == "Clip"]
    assert len(clip) == 1 and len(clip[0].input) == 3 and not clip[0].attribute


def test_no_op_where_the_profile_registers_it():
    for cann, opset in (("6.0", 14), ("8.0", 18), ("9.0", 15)):
        result = apply(DecomposeHardSwish, hard_swish(opset), pass_context("Ascend310", cann))
        assert not result.modified and op_types(result.model) == ["HardSwish"], cann
