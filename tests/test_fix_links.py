"""The rule -> pass link is declared once, on the pass: the index is derived from it, the engine attaches
it, and every fix a finding names is a pass that answers the finding."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.catalogue import catalogue
from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.fixlinks import FixLink, fix_for, index_text, named_links, with_fix
from atccheck.passes import all_passes
from atccheck.passes.base import FixPass, register_pass
from builders import (
    contrib_model,
    heads_model,
    init,
    make_model,
    resize_with_computed_sizes,
    single_op_model,
    tensor_input,
)
from conftest import PROJECT

PASSES = {cls.name: cls for cls in all_passes()}
RULE_NAMES = {rule.name for rule in catalogue()}
TARGETS = (("Ascend310P3", "9.0"), ("Ascend310", "6.0"))


def test_index_generator_check_mode_reports_a_stale_index(monkeypatch):
    spec = importlib.util.spec_from_file_location("build_fix_index", PROJECT / "tools" / "build_fix_index.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0
    monkeypatch.setattr(module, "build_index", lambda: "changed\n")
    assert module.main(["--check"]) == 1


@pytest.mark.parametrize("name", sorted(PASSES))
def test_every_pass_answers_findings_of_rules_that_exist(name):
    cls = PASSES[name]
    assert cls.answers, f"{name} answers no finding"
    for link in cls.answers:
        assert isinstance(link, FixLink)
        assert link.rule is None or link.rule in RULE_NAMES, f"{name} answers an unknown rule {link.rule}"


def test_every_indexed_link_names_a_pass_with_its_safety():
    for item in named_links():
        cls = PASSES[item.pass_name]
        assert cls.safe is item.safe and item.link in cls.answers, item


def test_two_passes_claiming_one_finding_are_refused(monkeypatch):
    first, second = PASSES["decompose-gelu"], PASSES["decompose-mish"]
    monkeypatch.setattr(second, "answers", first.answers)
    with pytest.raises(ValueError, match="both claim"):
        index_text((first, second))


def test_a_pass_in_the_old_style_is_refused_with_the_recipe():
    class Old(FixPass):
        """Old style."""

        name = "old-style"
        stage = "repair"
        fixes = frozenset({"unsupported-op"})

    with pytest.raises(ValueError, match="answers"):
        register_pass(Old)


def _finding(name, op_type=None, domain="", data=None, hint="do it by hand", fix_hint=None):
    return Finding(code="AC999", name=name, severity=Severity.ERROR, message="m",
                   location=Location(node="n" if op_type else None, op_type=op_type, domain=domain), hint=hint,
                   fix=FixSuggestion.manual(), source="s", data=data or {}, fix_hint=fix_hint)


def test_the_most_specific_named_link_wins():
    # a contrib op: its decomposition, not the rule-wide single-opset-import (which asks for a local function)
    assert fix_for(_finding("custom-domain-op", "FastGelu", "com.microsoft")).pass_name == "decompose-contrib-fast-gelu"
    assert fix_for(_finding("custom-domain-op", "Foo", "my.domain", {"status": "custom-domain"})).pass_name == "manual"
    assert fix_for(_finding("custom-domain-op", "Foo", "my.domain", {"status": "local-function"})).pass_name == \
        "single-opset-import"
    # an op link beats the rule-wide one: LayerNormalization decomposes, another op converts the opset
    assert fix_for(_finding("opset-not-registered", "LayerNormalization")).pass_name == "decompose-layer-normalization"
    assert fix_for(_finding("opset-not-registered", "Relu")).pass_name == "convert-opset"
    # a data condition: only a kernel finding on Conv splits the kernel, not one on its strides
    assert fix_for(_finding("kernel-out-of-range", "Conv", data={"kernel_hw": [400, 400]})).pass_name == \
        "split-large-kernel-conv"
    assert fix_for(_finding("kernel-out-of-range", "Conv", data={"attr": "strides"})).pass_name == "manual"
    # renaming answers a duplicate name on any node, a contrib op's too
    assert fix_for(_finding("duplicate-node-name", "FastGelu", "com.microsoft")).pass_name == "rename-duplicate-nodes"


def test_the_engine_resolves_the_hint_with_the_fix():
    answered = with_fix(_finding("unsupported-op", "Gelu", hint="manual text", fix_hint="run ({pass_name})"))
    assert (answered.fix.pass_name, answered.hint, answered.fix_hint) == ("decompose-gelu", "run (decompose-gelu)", None)
    alone = with_fix(_finding("unsupported-op", "NoSuchOp", hint="manual text", fix_hint="run ({pass_name})"))
    assert (alone.fix.pass_name, alone.hint, alone.fix_hint) == ("manual", "manual text", None)


def test_a_link_that_is_not_named_runs_the_pass_without_naming_it():
    finding = _finding("dtype-not-supported", "Relu", data={"dtype": "float64"})
    assert fix_for(finding).pass_name == "manual"
    assert PASSES["float64-to-float32"]().wanted([finding])
    assert not PASSES["float64-to-float32"]().wanted([_finding("dtype-not-supported", "Relu", data={"dtype": "int8"})])


def test_no_rule_names_its_own_fix():
    """Rules report; the passes' answers link them to a fix: no rule module names a pass or a suggestion."""
    import re

    for path in sorted((PROJECT / "atccheck" / "rules").rglob("*.py")):
        code = re.sub(r'"""[\s\S]*?"""', "", path.read_text(encoding="utf-8"))  # docstrings may name a pass
        assert "FixSuggestion" not in code and "fix_pass" not in code and "fixlinks" not in code, path
        assert "fix=" not in code, path


def _models():
    """Models on which the rules suggest fixes: one per indexed op plus the shape/graph cases."""
    ops = sorted({item.link.op_type for item in named_links() if item.link.op_type and item.link.domain is None})
    for op in ops:
        for opset in (11, 17, 21):
            yield f"{op}-{opset}", single_op_model(op, [[1, 8, 4, 4]], [1, 8, 4, 4], opset=opset)
    for op in sorted({item.link.op_type for item in named_links() if item.link.domain == "com.microsoft"}):
        yield f"contrib-{op}", contrib_model(op)
    yield "resize-half-pixel", single_op_model("Resize", [[1, 3, 8, 8]], [1, 3, 16, 16], opset=13,
                                               coordinate_transformation_mode="half_pixel", mode="linear")
    yield "resize-align-corners", single_op_model("Resize", [[1, 3, 8, 8]], [1, 3, 16, 16], opset=13,
                                                  coordinate_transformation_mode="tf_crop_and_resize")
    yield "grid-sample-modes", single_op_model("GridSample", [[1, 3, 8, 8], [1, 4, 4, 2]], [1, 3, 4, 4], opset=16,
                                               mode="nearest", padding_mode="reflection")
    yield "resize-computed", resize_with_computed_sizes(x_shape=(1, 3, "h", "w"))
    yield "heads", heads_model()
    yield "dynamic-batch", single_op_model("Relu", [["n", 3, 8, 8]], ["n", 3, 8, 8])
    yield "conv-large-kernel", single_op_model(
        "Conv", [[1, 1, 400, 400]], [1, 1, 1, 1], initializers=[init("w", np.ones((1, 1, 400, 400), np.float32))])
    for pool in ("MaxPool", "AveragePool"):
        yield f"{pool}-large", single_op_model(pool, [[1, 1, 400, 400]], [1, 1, 1, 1], kernel_shape=[400, 400])
    yield "prelu-slope", single_op_model("PRelu", [[1, 8, 4, 4]], [1, 8, 4, 4],
                                         initializers=[init("s", np.ones((8,), np.float32))])
    yield "reduce-no-axes", single_op_model("ReduceSum", [[2, 3]], [1, 1], opset=13)
    yield "gather-negative", single_op_model("Gather", [[4, 3]], [3], initializers=[init("i", np.array(-1, np.int64))])
    yield "slice-step", single_op_model("Slice", [[4, 8]], [4, 4], initializers=[
        init("st", np.array([0], np.int64)), init("en", np.array([8], np.int64)),
        init("ax", np.array([1], np.int64)), init("sp", np.array([2], np.int64))])
    yield "pad-value", single_op_model("Pad", [[1, 3, 4, 4]], [1, 3, 6, 6], opset=11, mode="constant", initializers=[
        init("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)), init("v", np.array(1.5, np.float32))])
    yield "float64", single_op_model("Relu", [[2, 3]], [2, 3], elem_type=TensorProto.DOUBLE)
    yield "int64", single_op_model("Add", [[2, 3], [2, 3]], [2, 3], elem_type=TensorProto.INT64)
    yield "old-opset", single_op_model("Relu", [[2, 3]], [2, 3], opset=21)
    yield "two-opsets", single_op_model("Relu", [[2, 3]], [2, 3], extra_opsets={"ai.onnx.ml": 3})
    yield "custom-domain", single_op_model("Relu", [[2, 3]], [2, 3], domain="my.domain", extra_opsets={"my.domain": 1})
    twins = [helper.make_node("Relu", ["x"], ["a"], name="n"), helper.make_node("Relu", ["a"], ["y"], name="n")]
    yield "duplicate-names", make_model(twins, [tensor_input("x", [2])], [tensor_input("y", [2])])


def test_every_named_fix_is_a_pass_that_answers_the_finding():
    suggested: set[str] = set()
    bad = []
    for label, model in _models():
        for soc, cann in TARGETS:
            for finding in check(model, soc=soc, cann=cann).findings:
                name = finding.fix.pass_name
                if name == FixSuggestion.MANUAL:
                    continue
                suggested.add(name)
                cls = PASSES.get(name)
                if cls is None or not cls().answered([finding]) or finding.fix.safe != cls.safe:
                    bad.append((label, soc, finding.name, finding.location.op_type, name))
    assert not bad, bad
    # the models reach most passes the index names: the check above is not vacuous
    named = {item.pass_name for item in named_links()}
    assert len(suggested & named) >= 0.9 * len(named), sorted(named - suggested)
