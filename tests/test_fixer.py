from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import ClassVar

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper

from atccheck.errors import InputError, UsageError
from atccheck.fixing.pipeline import PassStatus, fix
from atccheck.passes import all_passes
from atccheck.passes.base import FixPass, PassResult
from builders import init, make_model, resize_with_computed_sizes, tensor_input

MODELS = Path(__file__).resolve().parents[1] / "models"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sample(tmp_path: Path, name: str) -> Path:
    source = MODELS / name
    if not source.exists():
        pytest.skip(f"missing resource: {source} (sample models)")
    target = tmp_path / name
    shutil.copy(source, target)
    return target


def status(outcome, name):
    return [p for p in outcome.passes if p.name == name]


def dynamic_convnet():
    rng = np.random.default_rng(3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("GlobalAveragePool", ["r"], ["y"], name="gap")]
    weights = init("w", rng.standard_normal((16, 3, 3, 3)).astype(np.float32))  # 1.7 kB: external-data sized
    return make_model(nodes, [tensor_input("x", ["batch", 3, 16, 16])], [tensor_input("y", ["batch", 16, 1, 1])],
                      [weights])


def outputs(path_or_model, feeds):
    payload = path_or_model.SerializeToString() if isinstance(path_or_model, onnx.ModelProto) else str(path_or_model)
    session = ort.InferenceSession(payload, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


# --------------------------------------------------------------------------- end to end


def test_sample_convnet_dynamic_batch_is_fixed_written_and_the_input_untouched(tmp_path):
    path = sample(tmp_path, "convnet_dynamic_batch.onnx")
    before = digest(path)
    outcome = fix(path, soc="Ascend310P3")
    assert digest(path) == before
    assert outcome.output == tmp_path / "convnet_dynamic_batch.atc.onnx" and outcome.output.exists()
    assert outcome.before.counts()["error"] >= 1 and not outcome.fails()
    assert status(outcome, "make-inputs-static")[0].status is PassStatus.APPLIED
    assert outcome.verification.status == "verified"
    assert any("batch" in w for w in outcome.warnings)
    written = onnx.load(str(outcome.output))
    onnx.checker.check_model(written, full_check=True)
    assert outcome.input_shapes == {"image": [1, 3, 64, 64]}
    assert outcome.atc_command is not None and f"--model={outcome.output}" in outcome.atc_command.line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["convnet_dynamic_batch.atc.onnx", "convnet_dynamic_batch.onnx"]
    feeds = {"image": np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)}
    np.testing.assert_allclose(outputs(path, feeds)[0], outputs(outcome.output, feeds)[0], rtol=1e-5, atol=1e-6)


def test_transformer_at_opset_17_for_cann_6_decomposes_then_converts(tmp_path):
    path = sample(tmp_path, "transformer_block_op17.onnx")
    outcome = fix(path, soc="Ascend310P3", cann="6.0", input_shapes="tokens:1,16,64")
    applied = [(p.name, p.round) for p in outcome.applied]
    assert ("decompose-layer-normalization", 1) in applied and ("convert-opset", 2) in applied
    assert outcome.after.counts()["error"] == 0 and not outcome.fails()
    assert outcome.verification.status == "verified" and outcome.verification.max_abs_error < 1e-4
    convert = [p for p in outcome.passes if p.name == "convert-opset" and p.status is PassStatus.APPLIED][0]
    assert convert.verification == "tested" and convert.removed.get("opset-not-registered")
    model = onnx.load(str(outcome.output))
    assert [e.version for e in model.opset_import if e.domain == ""] == [15]


def test_detector_stem_every_page_finding_is_repaired_exactly(tmp_path):
    path = sample(tmp_path, "detector_stem_exported.onnx")
    outcome = fix(path, soc="Ascend310P3", cann="9.0")
    before = {f.name for f in outcome.before.findings}
    assert {"input-shape-not-supported", "negative-indices", "slice-step-on-last-axis", "pad-value-not-zero"} <= before
    assert {p.name for p in outcome.applied} == {"make-inputs-static", "prelu-slope-1d", "non-negative-indices",
                                                 "unstride-last-axis-slice", "pad-zero-then-fill"}
    assert outcome.after.findings == [] and not outcome.fails()
    assert outcome.verification.status == "verified" and outcome.verification.max_abs_error == 0.0
    feeds = {"image": np.random.default_rng(1).standard_normal((1, 3, 64, 64)).astype(np.float32)}
    np.testing.assert_array_equal(outputs(path, feeds)[0], outputs(outcome.output, feeds)[0])


def test_custom_op_remains_with_why_and_no_crash(tmp_path):
    path = sample(tmp_path, "custom_op.onnx")
    outcome = fix(path, soc="Ascend310P3")
    assert outcome.fails()
    names = {r.finding.name for r in outcome.remaining}
    assert "custom-domain-op" in names
    why = [r.why for r in outcome.remaining if r.finding.name == "custom-domain-op"][0]
    assert "single-opset-import ran but could not remove it" in why and "plugin" in why


def test_a_real_model_with_input_shape(tmp_path, shared_models):
    source = shared_models / "ppocr_mobile_v2_cls.onnx"
    before = digest(source)
    outcome = fix(source, soc="Ascend310P3", input_shapes="x:1,3,48,192", output=tmp_path / "cls.onnx")
    assert digest(source) == before
    assert not outcome.fails() and outcome.after.counts()["error"] == 0
    # Its Reshape shape (Shape -> ... -> Concat) folds at the given input shape, as ATC's constant folding
    # folds it: no finding calls for simplify, and the static model is all that ATC needs.
    simplify = status(outcome, "simplify")[0]
    assert simplify.status is PassStatus.SKIPPED and simplify.reason == "no finding calls for it"
    assert [p.name for p in outcome.applied] == ["make-inputs-static"]
    assert outcome.verification.status == "verified"


# --------------------------------------------------------------------------- rollback


def reroute_output(model, via: str) -> str:
    """Make the node that writes the first graph output write ``via`` instead; returns the output's name."""
    out = model.graph.output[0].name
    for node in model.graph.node:
        for i, name in enumerate(node.output):
            if name == out:
                node.output[i] = via
    return out


class ScaleOutput(FixPass):
    """Test-only: multiplies the first output by 1.5 (wrong numbers)."""

    name = "scale-output"
    stage = "repair"
    fixes: ClassVar[frozenset[str]] = frozenset()
    tolerance = 1e-5

    def wanted(self, findings) -> bool:
        return True

    def run(self, model, ctx):
        if any(n.name == "scale" for n in model.graph.node):
            return PassResult(model, False, [])
        out = reroute_output(model, "before_scale")
        model.graph.initializer.append(init("one_and_a_half", np.array(1.5, np.float32)))
        model.graph.node.append(helper.make_node("Mul", ["before_scale", "one_and_a_half"], [out], name="scale"))
        return PassResult(model, True, ["scaled"])


class Explodes(ScaleOutput):
    """Test-only: raises."""

    name = "explodes"

    def run(self, model, ctx):
        raise RuntimeError("boom")


class DanglingInput(ScaleOutput):
    """Test-only: leaves a node reading a value nothing defines."""

    name = "dangling-input"

    def run(self, model, ctx):
        model.graph.node[0].input[0] = "nowhere"
        return PassResult(model, True, [])


class MakesCycle(ScaleOutput):
    """Test-only: feeds a node its own output."""

    name = "makes-cycle"

    def run(self, model, ctx):
        node = model.graph.node[-1]
        node.input[0] = node.output[0]
        return PassResult(model, True, [])


class AddsIdentity(ScaleOutput):
    """Test-only: an exact change onnxruntime has to check (an Identity before the output)."""

    name = "adds-identity"
    stage = "split-kernels"

    def run(self, model, ctx):
        if any(n.op_type == "Identity" for n in model.graph.node):
            return PassResult(model, False, [])
        out = reroute_output(model, "before_identity")
        model.graph.node.append(helper.make_node("Identity", ["before_identity"], [out], name="identity"))
        return PassResult(model, True, ["identity"])


class UnsafeThing(AddsIdentity):
    """Test-only: an unsafe pass."""

    name = "unsafe-thing"
    safe = False


def test_a_pass_with_wrong_numbers_is_rolled_back_with_its_error(tmp_path):
    model = dynamic_convnet()
    passes = [p for p in all_passes() if p.name == "make-inputs-static"] + [ScaleOutput, AddsIdentity]
    outcome = fix(model, soc="Ascend310P3", passes=passes, output=tmp_path / "out.onnx")
    bad = status(outcome, "scale-output")[0]
    assert bad.status is PassStatus.REVERTED
    assert bad.max_abs_error is not None and bad.max_abs_error > 0.1
    assert "differs beyond the tolerance" in bad.reason
    assert not any(n.name == "scale" for n in outcome.model.graph.node)
    # the passes around it still apply, and the result is verified
    assert status(outcome, "make-inputs-static")[0].status is PassStatus.APPLIED
    good = status(outcome, "adds-identity")[0]
    assert good.status is PassStatus.APPLIED and good.verification == "tested" and good.max_abs_error == 0.0
    assert outcome.verification.status == "verified"
    json.dumps(outcome.to_dict())
    written = onnx.load(str(tmp_path / "out.onnx"))
    assert not any(n.name == "scale" for n in written.graph.node)
    assert [p.name for p in tmp_path.iterdir()] == ["out.onnx"]  # the staged candidate did not stay


def test_a_replayed_pass_after_a_rollback_runs_on_the_model_before_the_bad_one():
    # adds-identity runs before scale-output (stage split-kernels < repair); scale-output is last
    class ScaleFirst(ScaleOutput):
        name = "scale-first"
        stage = "simplify"

    outcome = fix(dynamic_convnet(), soc="Ascend310P3", passes=[ScaleFirst, AddsIdentity], write=False)
    assert status(outcome, "scale-first")[0].status is PassStatus.REVERTED
    identity = status(outcome, "adds-identity")
    assert len(identity) == 1 and identity[0].status is PassStatus.APPLIED
    assert [n.op_type for n in outcome.model.graph.node][-1] == "Identity"
    assert not any(n.name == "scale" for n in outcome.model.graph.node)


class UndecidedPass(ScaleOutput):
    """Test-only: its own test of the findings raises."""

    name = "undecided"

    def wanted(self, findings) -> bool:
        raise KeyError("data")


def test_a_pass_that_raises_or_breaks_the_graph_is_reverted_not_fatal():
    outcome = fix(dynamic_convnet(), soc="Ascend310P3", passes=[Explodes, DanglingInput, MakesCycle, UndecidedPass],
                  write=False)
    assert "KeyError" in status(outcome, "undecided")[0].reason
    explodes, dangling = status(outcome, "explodes")[0], status(outcome, "dangling-input")[0]
    assert explodes.status is PassStatus.REVERTED and "RuntimeError: boom" in explodes.reason
    assert dangling.status is PassStatus.REVERTED and "nowhere" in dangling.reason
    cycle = status(outcome, "makes-cycle")[0]
    assert cycle.status is PassStatus.REVERTED and "before anything defines it" in cycle.reason
    assert outcome.passes and outcome.model.graph.node[-1].input[0] == "r"


def test_unsafe_passes_need_the_flag():
    outcome = fix(dynamic_convnet(), soc="Ascend310P3", passes=[UnsafeThing], write=False)
    skipped = status(outcome, "unsafe-thing")[0]
    assert skipped.status is PassStatus.SKIPPED and "--unsafe-fixes" in skipped.reason
    outcome = fix(dynamic_convnet(), soc="Ascend310P3", passes=[UnsafeThing], write=False, unsafe_fixes=True)
    assert status(outcome, "unsafe-thing")[0].status is PassStatus.APPLIED


def test_a_model_onnxruntime_cannot_run_is_never_called_verified():
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Mystery", ["r"], ["y"], domain="com.example", name="custom")]
    model = make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])],
                       extra_opsets={"com.example": 1})
    outcome = fix(model, soc="Ascend310P3", passes=[AddsIdentity], write=False)
    step = status(outcome, "adds-identity")[0]
    assert step.status is PassStatus.APPLIED and step.verification == "unverified"
    assert outcome.verification.status == "unverified"
    assert "onnxruntime could not run the original" in outcome.verification.reason


def test_no_verify_says_so():
    outcome = fix(dynamic_convnet(), soc="Ascend310P3", passes=[AddsIdentity], write=False, verify=False)
    assert outcome.verification.status == "disabled"
    assert status(outcome, "adds-identity")[0].verification == "disabled"


# --------------------------------------------------------------------------- inputs and files


def test_sample_inputs_are_fed_and_must_fit(tmp_path):
    npz = tmp_path / "sample.npz"
    np.savez(npz, x=np.ones((1, 3, 16, 16), np.float32))
    outcome = fix(dynamic_convnet(), soc="Ascend310P3", inputs=npz, passes=[AddsIdentity], write=False)
    assert any(str(npz) in label for label in outcome.verification.inputs)
    np.savez(npz, x=np.ones((4, 3, 16, 16), np.float32))
    with pytest.raises(UsageError, match="--input-shape"):
        fix(dynamic_convnet(), soc="Ascend310P3", inputs=npz, write=False)
    np.savez(npz, nope=np.ones(3, np.float32))
    with pytest.raises(UsageError, match="does not have"):
        fix(dynamic_convnet(), soc="Ascend310P3", inputs=npz, write=False)
    with pytest.raises(InputError):
        fix(dynamic_convnet(), soc="Ascend310P3", inputs=tmp_path / "missing.npz", write=False)


def test_integer_inputs_feeding_gather_stay_in_range(tmp_path):
    path = sample(tmp_path, "bert_tiny_two_inputs.onnx")
    outcome = fix(path, soc="Ascend310P3", input_shapes="input_ids:1,8;attention_mask:1,8",
                  passes=[p for p in all_passes() if p.name == "make-inputs-static"] + [AddsIdentity])
    assert status(outcome, "adds-identity")[0].verification == "tested"
    assert outcome.verification.status == "verified"


def test_external_data_round_trip(tmp_path):
    model = dynamic_convnet()
    source = tmp_path / "ext.onnx"
    onnx.save_model(model, str(source), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="ext.weights", size_threshold=0)
    hashes = {p.name: digest(p) for p in tmp_path.iterdir()}
    outcome = fix(source, soc="Ascend310P3")
    assert {p.name: digest(p) for p in tmp_path.iterdir() if p.name in hashes} == hashes
    assert outcome.external_data == "ext.atc.onnx.data"
    assert (tmp_path / "ext.atc.onnx.data").exists()
    stored = onnx.load(str(outcome.output), load_external_data=False)
    assert stored.graph.initializer[0].data_location == onnx.TensorProto.EXTERNAL
    onnx.checker.check_model(str(outcome.output), full_check=True)
    feeds = {"x": np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32)}
    # onnxruntime reads the weights from beside the output
    np.testing.assert_allclose(outputs(outcome.output, feeds)[0], outputs(dynamic_convnet(), feeds)[0],
                               rtol=1e-5, atol=1e-6)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging leftovers


def test_a_big_model_goes_out_with_external_data(tmp_path):
    outcome = fix(dynamic_convnet(), soc="Ascend310P3", output=tmp_path / "big.onnx",
                  options={"external_data_bytes": 0})
    assert outcome.external_data == "big.onnx.data"
    stored = onnx.load(str(tmp_path / "big.onnx"), load_external_data=False)
    assert stored.graph.initializer[0].data_location == onnx.TensorProto.EXTERNAL


def test_missing_external_data_is_an_input_error(tmp_path):
    source = tmp_path / "ext.onnx"
    onnx.save_model(dynamic_convnet(), str(source), save_as_external_data=True, location="w.bin",
                    size_threshold=0)
    (tmp_path / "w.bin").unlink()
    with pytest.raises(InputError, match="missing"):
        fix(source, soc="Ascend310P3")
    (tmp_path / "w.bin").write_bytes(b"\0" * 8)
    with pytest.raises(InputError, match="too short"):
        fix(source, soc="Ascend310P3")


def test_output_paths(tmp_path):
    source = tmp_path / "m.onnx"
    onnx.save(dynamic_convnet(), str(source))
    with pytest.raises(UsageError, match="--in-place"):
        fix(source, soc="Ascend310P3", output=source)
    before = digest(source)
    outcome = fix(source, soc="Ascend310P3", in_place=True)
    assert outcome.output == source and digest(source) != before
    assert onnx.load(str(source)).graph.input[0].type.tensor_type.shape.dim[0].dim_value == 1
    assert not (tmp_path / "m.atc.onnx").exists()


def test_json_report_shape():
    doc = fix(dynamic_convnet(), soc="Ascend310P3", write=False).to_dict()
    assert doc["kind"] == "fix" and doc["schema_version"] == 1
    assert set(doc["summary"]) == {"before", "after", "fixed", "remaining", "errors_remaining"}
    assert doc["summary"]["fixed"] >= 1
    every = {p["name"] for p in doc["passes"]}
    assert {p.name for p in all_passes()} <= every  # every pass is listed, run or not, with a status
    assert all(p["status"] in ("applied", "unchanged", "skipped", "reverted") for p in doc["passes"])
    assert doc["atc_command"] is None and doc["atc_command_error"]
    json.dumps(doc, allow_nan=False)


def test_a_repair_simplify_already_did_is_skipped_and_says_so():
    model = resize_with_computed_sizes(["n", 3, 8, 8])
    outcome = fix(model, soc="Ascend310P3", write=False)
    assert status(outcome, "simplify")[0].status is PassStatus.APPLIED
    fold = status(outcome, "fold-resize-scales")[0]
    assert fold.status is PassStatus.SKIPPED and fold.reason == "its findings were removed by an earlier pass (simplify)"
    assert not [f for f in outcome.after.findings if f.name == "non-constant-input"]


# --------------------------------------------------------------------------- fixed point


def group_norm_at_opset_21():
    rng = np.random.default_rng(5)
    shape = [1, 8, 6, 6]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[1, 1], name="conv"),
             helper.make_node("GroupNormalization", ["c", "scale", "bias"], ["g"], name="gn", num_groups=2,
                              epsilon=1e-4),
             helper.make_node("Relu", ["g"], ["y"], name="relu")]
    inits = [init("w", rng.standard_normal((8, 8, 1, 1)).astype(np.float32)),
             init("scale", rng.standard_normal(8).astype(np.float32)),
             init("bias", rng.standard_normal(8).astype(np.float32))]
    return make_model(nodes, [tensor_input("x", shape)], [tensor_input("y", shape)], inits, opset=21, ir_version=10)


def test_a_pass_rolled_back_in_round_1_runs_again_once_another_pass_changed_the_model():
    """convert-opset fails at 21 -> 18 while GroupNormalization is there; after the decomposition it converts."""
    outcome = fix(group_norm_at_opset_21(), soc="Ascend310P3", write=False)
    convert = status(outcome, "convert-opset")
    assert [p.status for p in convert] == [PassStatus.REVERTED, PassStatus.APPLIED]
    assert convert[1].round == 2
    assert status(outcome, "decompose-group-normalization")[0].status is PassStatus.APPLIED
    assert outcome.after.findings == [] and not outcome.fails()
    assert outcome.verification.status == "verified"
    assert [e.version for e in outcome.model.opset_import if e.domain == ""][0] <= 18


class ScaleEveryOther(ScaleOutput):
    """Test-only: wrong numbers on every model it sees, while another pass keeps changing the model."""

    name = "scale-every-other"
    stage = "simplify"


class AddsIdentities(AddsIdentity):
    """Test-only: one more Identity on every run, up to four (so every replay changes the model)."""

    name = "adds-identities"

    def run(self, model, ctx):
        count = sum(n.op_type == "Identity" for n in model.graph.node)
        if count >= 4:
            return PassResult(model, False, [])
        out = reroute_output(model, f"before_identity_{count}")
        model.graph.node.append(helper.make_node("Identity", [f"before_identity_{count}"], [out],
                                                 name=f"identity_{count}"))
        return PassResult(model, True, ["identity"])


def test_a_pass_that_keeps_failing_is_tried_a_bounded_number_of_times():
    from atccheck.fixing.pipeline import MAX_REVERTS

    outcome = fix(dynamic_convnet(), soc="Ascend310P3", passes=[ScaleEveryOther, AddsIdentities], write=False)
    tries = status(outcome, "scale-every-other")
    assert [p.status for p in tries] == [PassStatus.REVERTED] * MAX_REVERTS
    # each rollback replays from the model before the failing step, where adds-identities runs again
    assert sum(n.op_type == "Identity" for n in outcome.model.graph.node) == MAX_REVERTS
    assert not any(n.name == "scale" for n in outcome.model.graph.node)


# --------------------------------------------------------------------------- verification and reporting


def reshape_by_input():
    """The original fails on random values of 'shape' (a Reshape target): it needs real ones."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return make_model(nodes, [tensor_input("x", [1, 12]), tensor_input("shape", [2], onnx.TensorProto.INT64)],
                      [tensor_input("y", [3, 4])])


def test_when_the_original_fails_on_random_inputs_the_report_names_the_inputs_it_needs():
    outcome = fix(reshape_by_input(), soc="Ascend310P3", passes=[AddsIdentity], write=False)
    v = outcome.verification
    assert v.status == "unverified" and "onnxruntime could not run the original" in v.reason
    assert v.needs is not None and "--inputs" in v.needs and "shape int64 [2]" in v.needs and "x float32 [1,12]" in v.needs
    assert "\n" not in v.needs
    assert outcome.to_dict()["verification"]["needs_inputs"] == v.needs


def test_a_given_sample_is_used_when_the_random_inputs_make_the_original_fail(tmp_path):
    npz = tmp_path / "sample.npz"
    np.savez(npz, shape=np.array([3, 4], np.int64))
    outcome = fix(reshape_by_input(), soc="Ascend310P3", passes=[AddsIdentity], inputs=npz, write=False)
    v = outcome.verification
    assert v.status == "verified" and v.needs is None
    assert len(v.inputs) == 1 and str(npz) in v.inputs[0]
    assert v.dropped is not None and v.dropped.startswith("seeded random inputs")
    assert status(outcome, "adds-identity")[0].verification == "tested"


@pytest.mark.parametrize("verify", [True, False])
def test_a_written_model_onnxruntime_cannot_load_is_not_called_fixed(tmp_path, verify):
    # bfloat16 Sqrt: valid ONNX, nothing ATC-related to report, but onnxruntime's CPU provider has no kernel
    bf16 = onnx.TensorProto.BFLOAT16
    model = make_model([helper.make_node("Sqrt", ["x"], ["y"], name="sqrt")], [tensor_input("x", [1, 4], bf16)],
                       [tensor_input("y", [1, 4], bf16)])
    outcome = fix(model, soc="Ascend310P3", passes=[AddsIdentity], output=tmp_path / "out.onnx", verify=verify)
    assert outcome.after.findings == []
    assert outcome.runtime_error is not None and "onnxruntime cannot load" in outcome.runtime_error
    assert outcome.fails()
    assert outcome.to_dict()["onnxruntime_load_error"] == outcome.runtime_error
    good = fix(dynamic_convnet(), soc="Ascend310P3", passes=[AddsIdentity], input_shapes="x:1,3,16,16",
               output=tmp_path / "good.onnx", verify=verify)
    assert good.runtime_error is None


def test_before_counts_use_the_given_input_shape():
    from atccheck.api import check

    model = dynamic_convnet()
    outcome = fix(model, soc="Ascend310P3", input_shapes="x:2,3,16,16", write=False)
    assert outcome.before.counts() == check(model, "Ascend310P3", input_shapes="x:2,3,16,16").counts()
    assert len(outcome.before.findings) < len(check(model, "Ascend310P3").findings)


def test_a_finding_left_after_its_pass_ran_does_not_advise_running_that_pass_again():
    class Unfoldable(FixPass):
        """Test-only: stands for simplify that ran and could not fold a value."""

        name = "simplify"
        stage = "simplify"
        fixes: ClassVar[frozenset[str]] = frozenset({"non-constant-input"})

        def run(self, model, ctx):
            return PassResult(model, False, [])

    model = resize_with_computed_sizes([1, 3, 8, 8])
    outcome = fix(model, soc="Ascend310P3", passes=[Unfoldable], write=False)
    left = [r for r in outcome.remaining if r.finding.name == "non-constant-input"]
    assert left and "run 'atccheck fix'" in left[0].finding.hint
    assert "simplify ran but could not remove it" in left[0].why
    assert "atccheck fix" not in left[0].why and "manual" in left[0].why


class BreaksLoading(AddsIdentity):
    """Test-only: valid ONNX that onnxruntime's CPU provider cannot load (a bfloat16 Sqrt)."""

    name = "breaks-loading"

    def run(self, model, ctx):
        if any(n.name == "bf16_sqrt" for n in model.graph.node):
            return PassResult(model, False, [])
        out = reroute_output(model, "before_bf16")
        bf16 = onnx.TensorProto.BFLOAT16
        model.graph.node.extend([
            helper.make_node("Cast", ["before_bf16"], ["as_bf16"], to=bf16, name="to_bf16"),
            helper.make_node("Sqrt", ["as_bf16"], ["rooted"], name="bf16_sqrt"),
            helper.make_node("Cast", ["rooted"], [out], to=onnx.TensorProto.FLOAT, name="back")])
        return PassResult(model, True, ["bfloat16"])


def test_an_unverified_step_that_onnxruntime_cannot_load_is_rolled_back():
    outcome = fix(reshape_by_input(), soc="Ascend310P3", passes=[BreaksLoading], write=False)
    step = status(outcome, "breaks-loading")[0]
    assert step.status is PassStatus.REVERTED and "cannot load" in step.reason
    assert not any(n.name == "bf16_sqrt" for n in outcome.model.graph.node)
    assert outcome.runtime_error is None


def test_public_fix_stays_the_function_once_the_pipeline_package_is_imported():
    import atccheck
    import atccheck.fixing.output  # noqa: F401  (a submodule of the pipeline package)
    from atccheck.fixing.outcome import FixOutcome
    from atccheck.fixing.pipeline import fix

    assert atccheck.fix is fix and atccheck.FixOutcome is FixOutcome
