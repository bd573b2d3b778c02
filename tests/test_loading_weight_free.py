"""check and atc-cmd read the graph only: same reports as a full load, same errors, weights never read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper, numpy_helper

from atccheck.api import check
from atccheck.cli.main import main
from atccheck.engine import check_prepared, prepare
from atccheck.errors import InputError
from atccheck.model.graph import SMALL_CONSTANT_ELEMENTS
from atccheck.model.loading import KEEP_ELEMENTS, PARSE_FAILED, load_model
from atccheck.model.shapes import SMALL_INITIALIZER_ELEMENTS
from atccheck.model.wire import encode_varint
from atccheck.target import resolve_target
from builders import init, make_model, tensor_input
from conftest import SAMPLE_MODELS

TARGETS = [("Ascend310P3", "8.0"), ("Ascend310", "6.0"), ("Ascend910B3", "9.0")]


def weighty_model() -> onnx.ModelProto:
    """Large weights beside the small constants rules read (negative Gather indices, Pad value, Reshape shape)."""
    rng = np.random.default_rng(0)
    weight = init("w", rng.standard_normal((64, 256)).astype(np.float32))
    indices = init("idx", np.array([0, -1, 3], dtype=np.int64))
    big_indices = init("idx_big", -np.ones(KEEP_ELEMENTS + 1, dtype=np.int64))  # too large to read, as before
    shape = init("shape", np.array([1, 12, 64], dtype=np.int64))
    pads = init("pads", np.array([0, 0, 1, 0, 0, 1], dtype=np.int64))
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
        helper.make_node("Constant", [], ["table"], name="table",
                         value=numpy_helper.from_array(rng.standard_normal((100, 256)).astype(np.float32))),
        helper.make_node("Gather", ["h", "idx"], ["g"], name="gather", axis=0),
        helper.make_node("Gather", ["table", "idx_big"], ["g2"], name="gather_big", axis=0),
        helper.make_node("Add", ["h", "g"], ["s"], name="add"),
        helper.make_node("Reshape", ["s", "shape"], ["r"], name="reshape"),
        helper.make_node("Pad", ["r", "pads", "value"], ["y"], name="pad", mode="constant"),
    ]
    value = init("value", np.array(-1.0, dtype=np.float32))
    return make_model(nodes, [tensor_input("x", [3, 64])], [tensor_input("y", [1, 12, 66]), tensor_input("g2", [KEEP_ELEMENTS + 1, 256])],
                      [weight, indices, big_indices, shape, pads, value])


def reports(path: Path, soc: str, cann: str) -> tuple[dict, dict]:
    target = resolve_target(soc, cann)
    full = check_prepared(prepare(load_model(path)), target).to_dict()
    graph_only = check_prepared(prepare(load_model(path, weights=False)), target).to_dict()
    return full, graph_only


def test_the_threshold_covers_every_reader_of_constant_values():
    assert KEEP_ELEMENTS >= SMALL_CONSTANT_ELEMENTS and KEEP_ELEMENTS >= SMALL_INITIALIZER_ELEMENTS


def test_large_tensors_keep_metadata_and_small_ones_their_data(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save_model(weighty_model(), path)
    full, light = load_model(path), load_model(path, weights=False)
    assert full.weights and not light.weights
    tensors = {t.name: t for t in light.model.graph.initializer}
    assert tensors["w"].raw_data == b"" and list(tensors["w"].dims) == [64, 256]
    assert tensors["w"].data_type == TensorProto.FLOAT
    assert numpy_helper.to_array(tensors["idx"]).tolist() == [0, -1, 3]
    assert light.model.graph.node[1].attribute[0].t.raw_data == b""
    assert light.file_size == full.file_size and light.external == full.external
    assert light.model.ByteSize() < full.model.ByteSize() // 10
    assert light.data_left_out(tensors["w"]) and not light.data_left_out(tensors["idx"])
    assert not full.data_left_out(full.model.graph.initializer[0])


def test_check_uses_the_weight_free_load(tmp_path):
    path = tmp_path / "m.onnx"
    onnx.save_model(weighty_model(), path)
    report = check(path, soc="Ascend310P3")
    assert not report.context.loaded.weights
    names = {f.name for f in report.findings}
    assert {"negative-indices", "pad-value-not-zero"} <= names  # small constants are still read


@pytest.mark.parametrize(("soc", "cann"), TARGETS)
def test_same_report_on_a_model_with_weights(tmp_path, soc, cann):
    path = tmp_path / "m.onnx"
    onnx.save_model(weighty_model(), path)
    full, graph_only = reports(path, soc, cann)
    assert graph_only == full


@pytest.mark.parametrize(("soc", "cann"), TARGETS)
def test_same_report_on_every_sample_model(soc, cann):
    paths = sorted(SAMPLE_MODELS.glob("*.onnx"))
    assert paths
    for path in paths:
        full, graph_only = reports(path, soc, cann)
        assert graph_only == full, path.name


@pytest.mark.parametrize(("soc", "cann"), TARGETS)
def test_same_report_on_every_real_model(shared_models, soc, cann):
    paths = sorted(shared_models.glob("*.onnx"))
    assert paths
    for path in paths:
        full, graph_only = reports(path, soc, cann)
        assert graph_only == full, path.name


# --------------------------------------------------------------------------- bad bytes


def damaged(tmp_path: Path, where: str) -> Path:
    data = weighty_model().SerializeToString()
    payload = data.find(np.asarray(numpy_helper.to_array(weighty_model().graph.initializer[0])).tobytes()[:64])
    assert payload > 0
    cuts = {"inside the weights": payload + 1000, "inside the graph": payload // 2, "one byte short": len(data) - 1}
    path = tmp_path / f"{where.replace(' ', '_')}.onnx"
    path.write_bytes(data[: cuts[where]])
    return path


@pytest.mark.parametrize("where", ["inside the weights", "inside the graph", "one byte short"])
@pytest.mark.parametrize("command", [["check", "--soc", "Ascend310P3"], ["atc-cmd", "--soc", "Ascend310P3"]])
def test_truncated_files_are_one_line_and_exit_2(tmp_path, where, command):
    path = damaged(tmp_path, where)
    before = path.read_bytes()
    result = CliRunner().invoke(main, [command[0], str(path), *command[1:]])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(f"{path}: {PARSE_FAILED}"), lines
    assert "Traceback" not in result.output and result.stdout == ""
    with pytest.raises(InputError, match="truncated"):
        load_model(path, weights=False)
    assert path.read_bytes() == before


def test_folder_mode_reports_the_damaged_file_and_checks_the_rest(tmp_path):
    good = tmp_path / "good.onnx"
    onnx.save_model(weighty_model(), good)
    bad = damaged(tmp_path, "inside the weights")
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--soc", "Ascend310P3", "--format", "json",
                                       "--fail-on", "never"])
    assert result.exit_code == 2, result.output
    assert str(bad) in result.stderr and PARSE_FAILED in result.stderr
    doc = json.loads(result.stdout)
    docs = doc if isinstance(doc, list) else doc.get("reports", [doc])
    assert any(str(good) in json.dumps(d) for d in docs)


# --------------------------------------------------------------------------- weights never read


def sparse_model_file(path: Path, payload: int) -> Path:
    """A valid .onnx whose one initializer holds ``payload`` bytes of raw_data left as a hole in a sparse file."""
    elements = payload // 4
    meta = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[elements]).SerializeToString()
    tensor_head = meta + encode_varint(9 << 3 | 2) + encode_varint(payload)
    tensor_len = len(tensor_head) + payload
    rest = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "sparse",
        [tensor_input("x", [elements])], [tensor_input("y", [elements])]).SerializeToString()
    graph_head = encode_varint(5 << 3 | 2) + encode_varint(tensor_len) + tensor_head
    graph_len = len(graph_head) + payload + len(rest)
    model = helper.make_model(onnx.GraphProto(), opset_imports=[helper.make_opsetid("", 13)])
    model.ClearField("graph")
    model.ir_version = 8
    head = model.SerializeToString() + encode_varint(7 << 3 | 2) + encode_varint(graph_len) + graph_head
    with open(path, "wb") as handle:
        handle.write(head)
        handle.seek(len(head) + payload)  # the payload is a hole: no block is written or read
        handle.write(rest)
    return path


def test_a_file_over_2_gib_is_checked_without_reading_its_weights(tmp_path):
    path = sparse_model_file(tmp_path / "huge.onnx", 2**31 + 4096)
    assert path.stat().st_size > 2**31
    assert path.stat().st_blocks * 512 < 2**20  # sparse indeed
    loaded = load_model(path, weights=False)
    assert list(loaded.model.graph.initializer[0].dims) == [(2**31 + 4096) // 4]
    report = check(path, soc="Ascend310P3", cann="9.0")
    found = [f for f in report.findings if f.name == "model-too-large"]
    assert len(found) == 1 and found[0].atc_error == "E13015"
