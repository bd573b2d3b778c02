"""Bad input files: each is one line on stderr naming the file, exit 2, and the file untouched."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import helper

from atccheck.api import check
from atccheck.cli.main import main
from atccheck.errors import InputError
from atccheck.model.loading import LoadedModel, load_model
from builders import init, make_model, tensor_input


def valid_model() -> onnx.ModelProto:
    weight = init("w", np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32))
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")
    return make_model([node], [tensor_input("x", [1, 64])], [tensor_input("y", [1, 64])], [weight])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cli_check(path: Path):
    return CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310"])


def assert_one_line_error(result, path: Path) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(path) in lines[0]
    assert "Traceback" not in result.output
    assert result.stdout == ""
    return lines[0]


def make_missing(folder: Path) -> Path:
    return folder / "missing.onnx"


def make_empty(folder: Path) -> Path:
    path = folder / "empty.onnx"
    path.write_bytes(b"")
    return path


def make_truncated(folder: Path) -> Path:
    data = valid_model().SerializeToString()
    path = folder / "truncated.onnx"
    path.write_bytes(data[: len(data) // 2])
    return path


def make_text(folder: Path) -> Path:
    path = folder / "notes.onnx"
    path.write_text("this is not a model\nbut a text file\n")
    return path


def make_random(folder: Path) -> Path:
    path = folder / "noise.onnx"
    path.write_bytes(random.Random(0).randbytes(4096))
    return path


def make_undefined_input(folder: Path) -> Path:
    node = helper.make_node("Add", ["x", "ghost"], ["y"], name="add")
    model = make_model([node], [tensor_input("x", [4])], [tensor_input("y", [4])])
    path = folder / "ghost.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def make_undefined_output(folder: Path) -> Path:
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    model = make_model([node], [tensor_input("x", [4])], [tensor_input("z", [4])])
    path = folder / "no_output.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def make_no_graph(folder: Path) -> Path:
    model = onnx.ModelProto()
    model.ir_version = 8
    model.opset_import.add().version = 13
    path = folder / "no_graph.onnx"
    path.write_bytes(model.SerializeToString())
    return path


BAD = {
    "missing": (make_missing, "no such file"),
    "empty": (make_empty, "empty"),
    "truncated": (make_truncated, "not an ONNX model, or truncated"),
    "text": (make_text, "not an ONNX model"),
    "random bytes": (make_random, "not an ONNX model"),
    "undefined input": (make_undefined_input, "ghost"),
    "undefined output": (make_undefined_output, "'z'"),
    "no graph": (make_no_graph, "no graph"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_input_is_one_line_and_exit_2(tmp_path, kind):
    make, words = BAD[kind]
    path = make(tmp_path)
    before = digest(path) if path.exists() else None
    line = assert_one_line_error(cli_check(path), path)
    assert words in line
    with pytest.raises(InputError) as err:
        load_model(path)
    assert err.value.path == str(path) and words in err.value.problem
    if before is not None:
        assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if before is None else [path.name])


def test_directory_where_a_file_is_expected(tmp_path):
    folder = tmp_path / "a_folder.onnx"
    folder.mkdir()
    with pytest.raises(InputError, match="directory"):
        load_model(folder)


def test_valid_file_is_loaded_and_never_modified(tmp_path):
    path = tmp_path / "ok.onnx"
    onnx.save_model(valid_model(), path)
    before = digest(path)
    mtime = path.stat().st_mtime_ns
    loaded = load_model(path)
    assert isinstance(loaded, LoadedModel)
    assert loaded.path == path and loaded.file_size == path.stat().st_size
    assert loaded.external == ()
    result = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend310", "--format", "json", "--fail-on",
                                       "never"])
    assert result.exit_code == 0, result.output
    check(path, soc="Ascend910B3", input_shapes="x:1,64", device_memory=1)
    assert digest(path) == before and path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.onnx"]


def test_in_memory_model_is_loaded_as_is():
    model = valid_model()
    before = model.SerializeToString()
    loaded = load_model(model)
    assert loaded.model is model and loaded.path is None and loaded.file_size is None
    assert model.SerializeToString() == before


def test_in_memory_invalid_graph_is_refused():
    node = helper.make_node("Add", ["x", "ghost"], ["y"], name="add")
    model = make_model([node], [tensor_input("x", [4])], [tensor_input("y", [4])], name="broken")
    with pytest.raises(InputError, match="ghost"):
        check(model, soc="Ascend310")


def test_values_from_the_outer_scope_are_defined_in_subgraphs(tmp_path):
    then_graph = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [], [tensor_input("t", [4])])
    else_graph = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [tensor_input("e", [4])])
    node = helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_graph, else_branch=else_graph)
    model = make_model([node], [tensor_input("c", [], onnx.TensorProto.BOOL), tensor_input("x", [4])],
                       [tensor_input("y", [4])])
    path = tmp_path / "if.onnx"
    onnx.save_model(model, path)
    assert load_model(path).model.graph.node[0].op_type == "If"


def test_real_models_load(shared_models):
    for path in sorted(shared_models.glob("*.onnx")):
        before = digest(path)
        loaded = load_model(path)
        assert loaded.file_size == path.stat().st_size
        assert digest(path) == before
