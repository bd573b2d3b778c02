"""What keeps fix's own cost down: the serialization onnxsim already made is the one onnxruntime
runs and the output is written from, and the original's run leaves the passes a core."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import helper

from atccheck.fixing import runtime, verifier
from atccheck.fixing.pipeline import PassStatus, fix
from atccheck.model.wire import replace_field
from atccheck.passes.base import PassContext
from atccheck.passes.make_inputs_static import MakeInputsStatic
from atccheck.passes.simplify import METADATA_FIELD, Simplify
from atccheck.target import resolve_target
from builders import init, make_model, tensor_input


def view_head_model() -> onnx.ModelProto:
    """Conv, then an Expand whose shape Shape/Gather/Concat compute from the dynamic batch."""
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Shape", ["c"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "i0"], ["b"], axis=0, name="gather"),
        helper.make_node("Unsqueeze", ["b", "ax"], ["bu"], name="unsqueeze"),
        helper.make_node("Concat", ["bu", "rest"], ["shape2"], axis=0, name="concat"),
        helper.make_node("Expand", ["c", "shape2"], ["y"], name="expand"),
    ]
    inits = [init("w", rng.standard_normal((8, 3, 3, 3)).astype(np.float32)), init("i0", np.array(0, np.int64)),
             init("ax", np.array([0], np.int64)), init("rest", np.array([8, 16, 16], np.int64))]
    model = make_model(nodes, [tensor_input("x", ["batch", 3, 16, 16])], [tensor_input("y", ["batch", 8, 16, 16])],
                       inits)
    model.metadata_props.add(key="exporter", value="test")
    return model


def test_replace_field_swaps_a_top_level_repeated_field_and_keeps_the_rest():
    model = view_head_model()
    model.metadata_props.add(key="onnxsim.removed", value="3")
    entry = onnx.StringStringEntryProto(key="mine", value="kept")
    data = replace_field(model.SerializeToString(), METADATA_FIELD, [entry.SerializeToString()])
    back = onnx.ModelProto.FromString(data)
    assert [(p.key, p.value) for p in back.metadata_props] == [("mine", "kept")]
    del model.metadata_props[:]
    model.metadata_props.append(entry)
    assert back == model
    assert onnx.ModelProto.FromString(replace_field(data, METADATA_FIELD, [])).metadata_props == []


def test_simplify_hands_over_onnxsims_bytes_which_are_its_result_with_the_models_metadata():
    target = resolve_target("Ascend310P3")
    static = MakeInputsStatic().run(view_head_model(), PassContext(target, {"x": (1, 3, 16, 16)}, ())).model
    result = Simplify().run(static, PassContext(target, {}, ()))
    assert result.modified and result.data is not None
    back = onnx.ModelProto.FromString(result.data)
    assert back == result.model
    assert [(p.key, p.value) for p in back.metadata_props] == [("exporter", "test")]  # onnxsim's own are not kept


def test_the_verification_runs_the_handed_bytes_and_the_output_is_them(tmp_path, monkeypatch):
    handed: list[bool] = []
    real = verifier.ModelSource

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, model=None, path=None, weights=None, data=None):
            if model is not None:
                handed.append(data is not None)
            super().__init__(model, path, weights, data)

    monkeypatch.setattr(verifier, "ModelSource", Spy)
    captured: list[bytes] = []

    class Keeping(Simplify):
        def run(self, model, ctx):
            result = super().run(model, ctx)
            if result.data is not None:
                captured.append(result.data)
            return result

    source = tmp_path / "m.onnx"
    onnx.save(view_head_model(), str(source))
    outcome = fix(source, soc="Ascend310P3", passes=[MakeInputsStatic, Keeping])
    simplify = next(p for p in outcome.passes if p.name == "simplify")
    assert simplify.status is PassStatus.APPLIED and simplify.verification == "tested"
    assert handed == [True]  # onnxruntime got the pass's bytes: nothing serialized again
    assert captured and (tmp_path / "m.atc.onnx").read_bytes() == captured[-1]


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (3, 2), (16, 2)])
def test_the_originals_run_leaves_the_passes_a_core(monkeypatch, cores, threads):
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert runtime.beside_work_threads() == threads
    assert runtime.session_options(threads=runtime.beside_work_threads()).intra_op_num_threads == threads
    assert runtime.session_options().intra_op_num_threads == min(2, cores)


def test_without_verification_the_output_is_still_written_from_the_passs_bytes(tmp_path):
    captured: list[bytes] = []

    class Keeping(Simplify):
        def run(self, model, ctx):
            result = super().run(model, ctx)
            if result.data is not None:
                captured.append(result.data)
            return result

    source = tmp_path / "m.onnx"
    view = view_head_model()
    view.functions.add().CopyFrom(onnx.FunctionProto(name="unused", domain="local"))  # a field after metadata
    view.opset_import.add(domain="local", version=1)
    onnx.save(view, str(source))
    fix(source, soc="Ascend310P3", passes=[MakeInputsStatic, Keeping], verify=False)
    written = (tmp_path / "m.atc.onnx").read_bytes()
    assert captured and written == captured[-1]
    assert written != onnx.ModelProto.FromString(written).SerializeToString()  # not serialized again here


def test_two_simplifies_at_once_each_get_their_own_bytes_and_onnx_is_left_as_it_was():
    from concurrent.futures import ThreadPoolExecutor

    real = onnx.load_from_string
    target = resolve_target("Ascend310P3")

    def simplified(batch: int):
        static = MakeInputsStatic().run(view_head_model(), PassContext(target, {"x": (batch, 3, 16, 16)}, ())).model
        return Simplify().run(static, PassContext(target, {}, ()))

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(simplified, [1, 2]))
    assert onnx.load_from_string is real
    for result in results:
        assert result.data is not None and onnx.ModelProto.FromString(result.data) == result.model
    assert results[0].data != results[1].data  # batch 1 and batch 2: each its own
