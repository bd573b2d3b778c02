"""fix shows the numbers each step was judged by, and judges exact rewrites by their float rounding."""

from __future__ import annotations

import json
from typing import ClassVar

import numpy as np
import onnx
from onnx import TensorProto, helper

from atccheck.emit import fix_renderer
from atccheck.fixing.pipeline import PassStatus, fix
from atccheck.passes.base import FixPass, PassResult
from atccheck.passes.decompose_affine_grid import DecomposeAffineGrid
from atccheck.passes.prelu_slope_1d import PreluSlope1d
from builders import init, make_model, tensor_input


def step(outcome, name):
    return [p for p in outcome.passes if p.name == name][-1]


def text(outcome) -> str:
    return fix_renderer("text")(outcome)


def spatial_transformer(width: int = 512) -> onnx.ModelProto:
    """AffineGrid into GridSample: GridSample scales a grid coordinate by half the image width, so a
    float32 rounding difference in the grid becomes ~1e-4 in the sampled image."""
    nodes = [helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="ag", align_corners=0),
             helper.make_node("GridSample", ["img", "grid"], ["y"], name="gs", align_corners=0)]
    return make_model(nodes, [tensor_input("img", [1, 1, width, width]), tensor_input("theta", [1, 2, 3])],
                      [tensor_input("y", [1, 1, width, width])],
                      [init("size", np.array([1, 1, width, width], np.int64))], opset=20, ir_version=9)


def test_an_exact_rewrite_magnified_downstream_is_judged_where_it_rewrote():
    outcome = fix(spatial_transformer(), soc="Ascend310P3", passes=[DecomposeAffineGrid], write=False)
    s = step(outcome, "decompose-affine-grid")
    assert s.status is PassStatus.APPLIED, s.reason
    # the outputs are beyond the pass's constant tolerance ...
    assert s.max_abs_error is not None and s.max_abs_error > s.tolerance + s.rtol * 4
    # ... but the grid it rewrote is within the float32 rounding bound of a 3-term MatMul
    judged = s.to_dict()["judged_by"]
    assert judged["method"] == "rounding"
    r = judged["rounding"]
    assert r["values"] == ["grid"] and r["terms"] == 3 and r["unit_roundoff"] == 2.0**-24
    assert 0 < r["measured"] <= r["bound"] < 1e-5
    # derived, not picked: 2 * gamma(3) * the largest |base| * |theta| product
    u = 2.0**-24
    assert r["bound"] == 2 * (3 * u / (1 - 3 * u)) * r["magnitude"]
    line = next(line for line in text(outcome).splitlines() if "decompose-affine-grid" in line)
    assert "float32 rounding bound" in line and "within the bound" in line and "gamma(3)" in line
    assert f"{r['bound']:.3g}" in line and f"{r['measured']:.3g}" in line


class NudgesOutput(FixPass):
    """Test-only: a 'safe' pass that multiplies the first output by 1 + 1e-4 (a small wrong change)."""

    name = "nudges-output"
    stage = "repair"
    fixes: ClassVar[frozenset[str]] = frozenset()
    tolerance = 1e-6
    rtol = 1e-6

    def wanted(self, findings) -> bool:
        return True

    def run(self, model, ctx):
        if any(n.name == "nudge" for n in model.graph.node):
            return PassResult(model, False, [])
        out = model.graph.output[0].name
        for node in model.graph.node:
            node.output[:] = ["before_nudge" if o == out else o for o in node.output]
        model.graph.initializer.append(init("almost_one", np.array(1 + 1e-4, np.float32)))
        model.graph.node.append(helper.make_node("Mul", ["before_nudge", "almost_one"], [out], name="nudge"))
        return PassResult(model, True, ["nudged"])


def relu_model() -> onnx.ModelProto:
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [tensor_input("x", [2, 64])],
                      [tensor_input("y", [2, 64])])


def test_a_wrong_exact_rewrite_is_still_rolled_back_and_says_by_how_much():
    outcome = fix(relu_model(), soc="Ascend310P3", passes=[NudgesOutput], write=False)
    s = step(outcome, "nudges-output")
    assert s.status is PassStatus.REVERTED
    assert "beyond float rounding" in s.reason
    judged = s.to_dict()["judged_by"]
    assert judged["method"] == "rounding" and judged["measured"] > judged["bound"]
    assert judged["rounding"]["values"] == ["y"] and judged["rounding"]["terms"] == 1
    line = next(line for line in text(outcome).splitlines() if "nudges-output" in line)
    assert "beyond the bound" in line and f"{judged['bound']:.3g}" in line


class UnsafeNudge(NudgesOutput):
    """Test-only: the same change from a pass that does not claim to be exact."""

    name = "unsafe-nudge"
    safe = False


def test_a_reverted_pass_says_by_how_much_it_failed():
    outcome = fix(relu_model(), soc="Ascend310P3", passes=[UnsafeNudge], write=False, unsafe_fixes=True)
    s = step(outcome, "unsafe-nudge")
    assert s.status is PassStatus.REVERTED
    judged = s.to_dict()["judged_by"]
    assert judged["method"] == "allclose" and judged["measured"] > judged["bound"] > 0
    # the worst element is 1e-4 * |x| off where 1e-6 + 1e-6 * |x| (plus 4 ulps) is allowed: about 100x
    assert 50 < judged["measured"] / judged["bound"] < 100
    line = next(line for line in text(outcome).splitlines() if "unsafe-nudge" in line)
    assert f"off by {judged['measured']:.3g} where {judged['bound']:.3g} is allowed" in line
    assert f"{judged['measured'] / judged['bound']:.3g}x the bound" in line


def prelu_model() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    nodes = [helper.make_node("PRelu", ["x", "slope"], ["p"], name="prelu"),
             helper.make_node("Conv", ["p", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])]
    return make_model(nodes, [tensor_input("x", [1, 8, 6, 6])], [tensor_input("y", [1, 4, 6, 6])],
                      [init("slope", rng.standard_normal((8, 1, 1)).astype(np.float32)),
                       init("w", rng.standard_normal((4, 8, 3, 3)).astype(np.float32))])


def test_prelu_slope_1d_is_judged_at_its_rewritten_values_when_the_outputs_move(monkeypatch):
    """The PRelu written out is exact; when the outputs after it move by float noise (7.45e-08 on a
    real model, against prelu-slope-1d's zero tolerance), the values it rewrote decide."""
    from atccheck.fixing import verifier

    real = verifier.run_or_evaluate

    def noisy(source, model, inputs):
        outputs = real(source, model, inputs)
        if any(n.op_type == "Min" for n in model.graph.node):  # the rewritten model: its Conv "rounds otherwise"
            return [{k: v + np.float32(7.45e-08) for k, v in out.items()} for out in outputs]
        return outputs

    monkeypatch.setattr(verifier, "run_or_evaluate", noisy)
    outcome = fix(prelu_model(), soc="Ascend310P3", passes=[PreluSlope1d], write=False)
    s = step(outcome, "prelu-slope-1d")
    assert s.status is PassStatus.APPLIED, s.reason
    judged = s.to_dict()["judged_by"]
    assert judged["method"] == "rounding" and judged["rounding"]["values"] == ["p"]
    assert judged["measured"] == 0.0 and judged["bound"] > 0  # the PRelu's own values are bit-identical
    assert s.max_abs_error is not None and s.max_abs_error > 0  # the outputs' figures stay in the report


def test_the_json_report_carries_the_same_numbers_as_the_text():
    outcome = fix(spatial_transformer(256), soc="Ascend310P3", passes=[DecomposeAffineGrid], write=False)
    data = json.loads(fix_renderer("json")(outcome))
    entry = next(p for p in data["passes"] if p["name"] == "decompose-affine-grid")
    line = next(line for line in text(outcome).splitlines() if "decompose-affine-grid" in line)
    judged = entry["judged_by"]
    for figure in (entry["max_abs_error"], judged["measured"], judged["bound"]):
        assert f"{figure:.3g}" in line


def bf16_model() -> onnx.ModelProto:
    bf16 = TensorProto.BFLOAT16
    return make_model([helper.make_node("Sqrt", ["x"], ["y"], name="sqrt")], [tensor_input("x", [1, 4], bf16)],
                      [tensor_input("y", [1, 4], bf16)])


def test_a_model_onnxruntime_cannot_load_is_not_left_behind(tmp_path):
    from test_fixer import AddsIdentity

    out = tmp_path / "out.onnx"
    outcome = fix(bf16_model(), soc="Ascend310P3", passes=[AddsIdentity], output=out)
    assert outcome.runtime_error is not None and outcome.fails()
    assert not outcome.written and not out.exists() and list(tmp_path.iterdir()) == []
    assert outcome.to_dict()["written"] is False and outcome.atc_command is None
    report = text(outcome)
    assert "written:" not in report and "(not written)" in report.splitlines()[0]


def test_in_place_the_input_is_replaced_only_by_a_model_that_loads(tmp_path):
    from test_fixer import AddsIdentity

    path = tmp_path / "m.onnx"
    onnx.save(bf16_model(), str(path))
    before = path.read_bytes()
    outcome = fix(str(path), soc="Ascend310P3", passes=[AddsIdentity], in_place=True)
    assert outcome.runtime_error is not None and not outcome.written
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


def test_no_next_step_runs_the_pass_that_was_just_rolled_back():
    from atccheck.fixlinks import FixLink

    class BreaksTheGrid(DecomposeAffineGrid):
        """Test-only: answers AffineGrid's finding, and breaks the numbers."""

        name = "decompose-affine-grid"
        answers = (FixLink("opset-not-registered", "AffineGrid"),)

        def run(self, model, ctx):
            result = super().run(model, ctx)
            for t in result.model.graph.initializer:
                if "base_grid" in t.name:
                    array = onnx.numpy_helper.to_array(t) * np.float32(1.5)
                    t.CopyFrom(onnx.numpy_helper.from_array(array, t.name))
            return result

    model = make_model([helper.make_node("AffineGrid", ["theta", "size"], ["y"], name="ag")],
                       [tensor_input("theta", [1, 2, 3])], [tensor_input("y", [1, 4, 5, 2])],
                       [init("size", np.array([1, 3, 4, 5], np.int64))], opset=20, ir_version=9)
    outcome = fix(model, soc="Ascend310P3", passes=[BreaksTheGrid], write=False)
    assert step(outcome, "decompose-affine-grid").status is PassStatus.REVERTED
    left = [r for r in outcome.remaining if r.finding.location.op_type == "AffineGrid"]
    assert left and "atccheck fix" in left[0].finding.hint  # what the report said as the next step before
    why = left[0].why
    assert "decompose-affine-grid was rolled back" in why
    next_step = why.split("next step: ", 1)[1]
    assert "atccheck fix" not in next_step and next_step.startswith("manual:")


class NudgesAndBumpsOpset(NudgesOutput):
    """Test-only: the nudge, plus a new opset, under which the nodes it kept might compute otherwise."""

    name = "nudges-and-bumps-opset"

    def run(self, model, ctx):
        result = super().run(model, ctx)
        if result.modified:
            result.model.opset_import[0].version += 1
        return result


def test_a_rewrite_that_changes_the_opset_is_not_judged_at_its_rewritten_values():
    outcome = fix(relu_model(), soc="Ascend310P3", passes=[NudgesAndBumpsOpset], write=False)
    s = step(outcome, "nudges-and-bumps-opset")
    assert s.status is PassStatus.REVERTED
    assert "not judged at the rewritten values: the opsets" in s.reason
    assert s.to_dict()["judged_by"]["method"] == "allclose"


def test_an_applied_step_names_the_tolerance_it_was_judged_by():
    from test_fixer import AddsIdentity

    outcome = fix(relu_model(), soc="Ascend310P3", passes=[AddsIdentity], write=False)
    s = step(outcome, "adds-identity")
    assert s.status is PassStatus.APPLIED and s.to_dict()["judged_by"]["method"] == "allclose"
    line = next(line for line in text(outcome).splitlines() if "adds-identity" in line)
    assert "tested, max abs err 0, rel 0 (tolerance 1e-05 + 1e-05*|x|)" in line
