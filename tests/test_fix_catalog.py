"""The fix catalogue is derived from the passes, and every suggested fix names a pass that fixes it."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.engine import check
from atccheck.findings import FixSuggestion
from atccheck.fixing import catalog as fix_catalog
from atccheck.passes import all_passes
from atccheck.passes.base import FixLink
from atccheck.rules import catalogue
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


def test_committed_index_matches_the_passes():
    assert (PROJECT / "atccheck" / "fixing" / "index.py").read_text(encoding="utf-8") == fix_catalog.build_index(), (
        "run 'python tools/build_fix_index.py'")


def test_index_generator_check_mode_reports_a_stale_index(monkeypatch):
    spec = importlib.util.spec_from_file_location("build_fix_index", PROJECT / "tools" / "build_fix_index.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0
    monkeypatch.setattr(module, "build_index", lambda: "changed\n")
    assert module.main(["--check"]) == 1


@pytest.mark.parametrize("name", sorted(PASSES))
def test_every_rule_a_pass_declares_exists(name):
    cls = PASSES[name]
    assert cls.fixes, f"{name} fixes no rule"
    assert set(cls.fixes) <= RULE_NAMES, f"{name} lists unknown rules {set(cls.fixes) - RULE_NAMES}"
    for link in cls.suggested_for:
        assert isinstance(link, FixLink)
        if link.rule is not None:
            assert link.rule in cls.fixes, f"{name} is suggested for {link.rule} but does not list it in fixes"


def test_every_catalogue_entry_names_a_pass_that_lists_the_rule():
    for (rule, op), (name, safe) in fix_catalog.CATALOG.items():
        assert name in PASSES and rule in PASSES[name].fixes and PASSES[name].safe is safe, (rule, op, name)
    for op, (name, safe) in fix_catalog.CONTRIB_DECOMPOSITIONS.items():
        assert name in PASSES and PASSES[name].safe is safe, (op, name)


def test_two_passes_claiming_one_finding_are_refused(monkeypatch):
    import atccheck.passes as passes

    first, second = PASSES["decompose-gelu"], PASSES["decompose-mish"]
    monkeypatch.setattr(second, "suggested_for", first.suggested_for)
    monkeypatch.setattr(passes, "all_passes", lambda: (first, second))
    with pytest.raises(ValueError, match="both claim"):
        fix_catalog.build_index()


def _models():
    """Models on which the rules suggest fixes: one per catalogue op plus the shape/graph cases."""
    ops = sorted({op for (_, op) in fix_catalog.CATALOG if op})
    for op in ops:
        for opset in (11, 17, 21):
            yield f"{op}-{opset}", single_op_model(op, [[1, 8, 4, 4]], [1, 8, 4, 4], opset=opset)
    for op in sorted(fix_catalog.CONTRIB_DECOMPOSITIONS):
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


def test_every_suggested_fix_names_a_pass_that_lists_the_rule():
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
                if cls is None or finding.name not in cls.fixes or (finding.fix.safe is not None and finding.fix.safe != cls.safe):
                    bad.append((label, soc, finding.name, finding.location.op_type, name))
    assert not bad, bad
    # the models reach most passes the catalogue names: the check above is not vacuous
    named = {name for name, _ in (*fix_catalog.CATALOG.values(), *fix_catalog.CONTRIB_DECOMPOSITIONS.values())}
    assert len(suggested & named) >= 0.9 * len(named), sorted(named - suggested)
