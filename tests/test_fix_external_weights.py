"""fix on a model whose weights sit in external data files, one file per tensor as the legacy
torch exporter writes them past 2 GiB: the weights stay in their files while the passes run,
a pass reads only what it rewrites, onnxsim sees a stub, onnxruntime reads the files itself,
and the output's data file is copied from them."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from atccheck.errors import InputError
from atccheck.fixing import memory
from atccheck.fixing.inputs import Inputs
from atccheck.fixing.output import write_model
from atccheck.fixing.pipeline import PassStatus, fix
from atccheck.fixing.runtime import ModelSource, run_model
from atccheck.model.loading import load_model
from atccheck.model.weights import tensor_array, weights_from
from atccheck.passes.base import FixPass, PassContext, PassResult
from atccheck.passes.make_inputs_static import MakeInputsStatic
from atccheck.passes.simplify import Simplify
from atccheck.target import resolve_target
from builders import init, make_model, tensor_input

RNG = np.random.default_rng(7)
W1 = RNG.standard_normal((32, 48)).astype(np.float32)
W2 = RNG.standard_normal((48, 32)).astype(np.float32)
BIAS = RNG.standard_normal(48).astype(np.float32)


def decoder_block() -> onnx.ModelProto:
    """MatMul-Add-Relu-MatMul, then an exporter's ``d.expand(x.size(0), x.size(1), 32)``: an Expand
    whose shape a Shape/Gather/Unsqueeze/Concat chain computes, which simplify folds once the input
    is static (ATC wants that shape constant)."""
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="up"),
        helper.make_node("Add", ["h", "bias"], ["hb"], name="bias_add"),
        helper.make_node("Relu", ["hb"], ["r"], name="act"),
        helper.make_node("MatMul", ["r", "w2"], ["d"], name="down"),
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "i0"], ["b"], axis=0, name="g0"),
        helper.make_node("Gather", ["s", "i1"], ["t"], axis=0, name="g1"),
        helper.make_node("Unsqueeze", ["b", "ax"], ["bu"], name="u0"),
        helper.make_node("Unsqueeze", ["t", "ax"], ["tu"], name="u1"),
        helper.make_node("Concat", ["bu", "tu", "width"], ["shape2"], axis=0, name="cat"),
        helper.make_node("Expand", ["d", "shape2"], ["y"], name="expand"),
    ]
    inits = [init("w1", W1), init("w2", W2), init("bias", BIAS), init("i0", np.array(0, np.int64)),
             init("i1", np.array(1, np.int64)), init("ax", np.array([0], np.int64)),
             init("width", np.array([32], np.int64))]
    return make_model(nodes, [tensor_input("x", ["batch", "seq", 32])], [tensor_input("y", ["batch", "seq", 32])],
                      inits, opset=13)


def exported(folder: Path) -> Path:
    """The model saved as the legacy exporter saves a large one: every weight in a file of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.onnx"
    onnx.save_model(decoder_block(), str(path), save_as_external_data=True, all_tensors_to_one_file=False,
                    size_threshold=1024)
    return path


def feeds(batch: int = 2, seq: int = 5) -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(1).standard_normal((batch, seq, 32)).astype(np.float32)}


def expected(x: np.ndarray) -> np.ndarray:
    return np.maximum(x @ W1 + BIAS, 0) @ W2


def external_names(model: onnx.ModelProto) -> set[str]:
    return {t.name for t in model.graph.initializer if t.data_location == TensorProto.EXTERNAL}


@pytest.fixture
def never_read_whole(monkeypatch):
    """Reading every weight into the model, as fix once did, fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the weights were read into the model")

    monkeypatch.setattr(onnx.external_data_helper, "load_external_data_for_model", refuse)


def test_the_legacy_layout_is_fixed_verified_and_written_with_one_data_file(tmp_path, never_read_whole):
    source = exported(tmp_path / "in")
    before = sorted(p.name for p in source.parent.iterdir())
    assert {"w1", "w2"} <= set(before)  # a file per weight, as the legacy exporter writes them
    out = tmp_path / "out" / "model.atc.onnx"
    outcome = fix(source, soc="Ascend310P3", input_shapes="x:2,5,32", output=out)
    applied = {p.name: p for p in outcome.passes if p.status is PassStatus.APPLIED}
    assert {"make-inputs-static", "simplify"} <= set(applied)
    assert applied["simplify"].verification == "tested"  # onnxruntime ran both models, weights from their files
    assert outcome.verification.status == "verified"
    assert sorted(p.name for p in out.parent.iterdir()) == ["model.atc.onnx", "model.atc.onnx.data"]
    assert outcome.external_data == "model.atc.onnx.data"
    stored = onnx.load(str(out), load_external_data=False)
    assert not [n for n in stored.graph.node if n.op_type == "Shape"]  # the view's shape was folded
    assert {"w1", "w2"} <= external_names(stored)
    assert {e.value for t in stored.graph.initializer for e in t.external_data if e.key == "location"} \
        == {"model.atc.onnx.data"}
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(session.run(None, feeds())[0], expected(feeds()["x"]), rtol=1e-5, atol=1e-5)
    assert sorted(p.name for p in source.parent.iterdir()) == before  # the input untouched


class Recorder(FixPass):
    """Records what the model handed to a pass holds; changes nothing."""

    name = "record-weights"
    stage = "repair"
    seen: ClassVar[list[set[str]]] = []

    def wanted(self, findings) -> bool:
        return True

    def run(self, model: onnx.ModelProto, ctx: PassContext) -> PassResult:
        Recorder.seen.append(external_names(model))
        return PassResult(model, False)


def test_passes_get_the_weights_as_external_records(tmp_path, never_read_whole):
    Recorder.seen = []
    fix(exported(tmp_path), soc="Ascend310P3", input_shapes="x:2,5,32", write=False,
        passes=[MakeInputsStatic, Simplify, Recorder])
    assert Recorder.seen and all({"w1", "w2"} <= names for names in Recorder.seen)


def test_tensor_array_reads_one_tensor_from_its_file_and_leaves_it_external(tmp_path):
    path = exported(tmp_path)
    model = onnx.load(str(path), load_external_data=False)
    w1 = next(t for t in model.graph.initializer if t.name == "w1")
    with pytest.raises(ValueError, match="external file"):
        tensor_array(w1)  # no folder given: no guess at the working directory
    with weights_from(tmp_path):
        np.testing.assert_array_equal(tensor_array(w1), W1)
    assert w1.data_location == TensorProto.EXTERNAL and not w1.HasField("raw_data")


def test_simplify_hands_onnxsim_a_stub_and_puts_the_weights_back(tmp_path):
    path = exported(tmp_path)
    model = onnx.load(str(path), load_external_data=False)
    static = MakeInputsStatic().run(model, PassContext(resolve_target("Ascend310P3"), {"x": (2, 5, 32)}, ())).model
    records = {t.name: list(t.external_data) for t in static.graph.initializer if t.name in ("w1", "w2")}
    with weights_from(tmp_path):
        result = Simplify().run(static, PassContext(resolve_target("Ascend310P3"), {}, ()))
    assert result.modified
    assert not [n for n in result.model.graph.node if n.op_type == "Shape"]
    assert [i.name for i in result.model.graph.input] == ["x"]  # the stub's weight inputs are gone
    kept = {t.name: list(t.external_data) for t in result.model.graph.initializer if t.name in ("w1", "w2")}
    assert kept == records  # the same records, pointing at the same files
    session = ModelSource(result.model, weights=tmp_path)
    try:
        got = run_model(session, Inputs([feeds()], ["f"], {"x": (2, 5, 32)}))
    finally:
        session.release()
    np.testing.assert_allclose(got[0]["y"], expected(feeds()["x"]), rtol=1e-5, atol=1e-5)


def test_onnxruntime_gets_the_graph_as_bytes_and_reads_the_weights_itself(tmp_path):
    path = exported(tmp_path)
    model = onnx.load(str(path), load_external_data=False)
    source = ModelSource(model, weights=tmp_path)
    try:
        assert source.data is not None and source.path is None  # no copy of the weights in a temporary file
        assert len(source.data) < W1.nbytes  # the graph only
        got = run_model(source, Inputs([feeds()], ["f"], {"x": (2, 5, 32)}))
    finally:
        source.release()
    np.testing.assert_allclose(got[0]["y"], expected(feeds()["x"]), rtol=1e-5, atol=1e-5)


def test_write_model_copies_external_tensors_into_the_output_data_file(tmp_path):
    path = exported(tmp_path / "in")
    model = onnx.load(str(path), load_external_data=False)
    extra = onnx.numpy_helper.from_array(np.arange(600, dtype=np.float32), "rewritten")  # a tensor a pass made
    model.graph.initializer.append(extra)
    out = tmp_path / "out" / "m.onnx"
    assert write_model(model, out, True, None, durable=False, weights=path.parent) == "m.onnx.data"
    written = onnx.load(str(out))  # the weights read back from the one data file
    arrays = {t.name: onnx.numpy_helper.to_array(t) for t in written.graph.initializer}
    np.testing.assert_array_equal(arrays["w1"], W1)
    np.testing.assert_array_equal(arrays["w2"], W2)
    np.testing.assert_array_equal(arrays["rewritten"], np.arange(600, dtype=np.float32))
    np.testing.assert_array_equal(arrays["width"], np.array([32]))  # small ones stay inside
    assert sorted(p.name for p in out.parent.iterdir()) == ["m.onnx", "m.onnx.data"]


def test_a_model_too_large_for_the_memory_left_is_refused_in_one_line_before_the_run(tmp_path, monkeypatch):
    path = exported(tmp_path)
    loaded = load_model(path)
    need = memory.needed_bytes(loaded)
    assert need > memory.EXTERNAL_FACTOR * loaded.external_bytes  # the weights count, whatever the file holds
    assert memory.shortfall(loaded, available=need) is None
    line = memory.shortfall(loaded, available=need - 1)
    assert line is not None and "\n" not in line and "available" in line
    monkeypatch.setattr(memory, "available_bytes", lambda *a, **k: need - 1)
    with pytest.raises(InputError, match="GiB are available"):
        fix(path, soc="Ascend310P3", input_shapes="x:2,5,32", write=False)
    outcome = fix(path, soc="Ascend310P3", input_shapes="x:2,5,32", write=False, options={"memory_check": False})
    assert outcome.verification.status == "verified"


def test_available_memory_is_read_from_meminfo_within_the_cgroup_limit(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24000000 kB\nMemAvailable:    8000000 kB\n")
    cgroup = tmp_path / "cgroup"
    cgroup.mkdir()
    assert memory.available_bytes(meminfo, cgroup) == 8000000 * 1024  # no cgroup files: meminfo alone
    (cgroup / "memory.max").write_text("max\n")
    (cgroup / "memory.current").write_text("100\n")
    assert memory.available_bytes(meminfo, cgroup) == 8000000 * 1024
    (cgroup / "memory.max").write_text(f"{2 * 2**30}\n")
    (cgroup / "memory.current").write_text(f"{2**30}\n")
    assert memory.available_bytes(meminfo, cgroup) == 2**30
    assert memory.available_bytes(tmp_path / "none", cgroup) is None


def test_the_command_says_it_in_one_line_and_exits_2_writing_nothing(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from atccheck.cli.main import main

    path = exported(tmp_path / "in")
    monkeypatch.setattr(memory, "available_bytes", lambda *a, **k: 2**20)
    out = tmp_path / "out.onnx"
    result = CliRunner().invoke(main, ["fix", str(path), "--soc", "Ascend310P3", "--input-shape", "x:2,5,32",
                                       "-o", str(out)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "GiB of memory" in lines[0] and "available" in lines[0]
    assert not out.exists() and "Traceback" not in result.output


def test_a_graph_too_large_for_bytes_goes_to_onnxruntime_as_a_file_linking_the_weights(tmp_path, monkeypatch):
    from atccheck.fixing import runtime

    path = exported(tmp_path / "in")
    model = onnx.load(str(path), load_external_data=False)
    monkeypatch.setattr(runtime, "INLINE_LIMIT", 0)  # as if a pass had inlined 2 GiB of new tensors
    source = ModelSource(model, weights=path.parent)
    try:
        assert source.data is None and source.path is not None
        folder = Path(source.path).parent
        linked = folder / "w1"
        assert linked.stat().st_ino == (path.parent / "w1").stat().st_ino  # linked, not copied (one file system)
        got = run_model(source, Inputs([feeds()], ["f"], {"x": (2, 5, 32)}))
    finally:
        source.release()
    np.testing.assert_allclose(got[0]["y"], expected(feeds()["x"]), rtol=1e-5, atol=1e-5)
    assert not folder.exists()


def test_in_place_over_a_data_file_of_the_same_name_reads_it_before_replacing_it(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save_model(decoder_block(), str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=1024)  # the very name fix writes
    outcome = fix(path, soc="Ascend310P3", input_shapes="x:2,5,32", in_place=True)
    assert outcome.written and outcome.external_data == "model.onnx.data"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx", "model.onnx.data"]
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(session.run(None, feeds())[0], expected(feeds()["x"]), rtol=1e-5, atol=1e-5)
