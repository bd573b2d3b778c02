"""check never reads external weights, refuses locations outside the model's folder, and copes
with external data beyond 2 GiB (a sparse file: it costs no disk and is never read)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.cli.main import main
from atccheck.errors import InputError
from atccheck.model.loading import load_model
from atccheck.tables import tables
from builders import init, make_model, tensor_input


def conv_model() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"], name="relu"),
    ]
    rng = np.random.default_rng(0)
    inits = [init("w", rng.standard_normal((8, 3, 3, 3)).astype(np.float32)), init("b", np.zeros(8, np.float32))]
    return make_model(nodes, [tensor_input("x", ["n", 3, 16, 16])], [tensor_input("y", ["n", 8, 16, 16])], inits)


def save_external(model: onnx.ModelProto, folder: Path, name: str = "m.onnx") -> Path:
    path = folder / name
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="w.data",
                    size_threshold=0)
    return path


def external_tensor(name: str, dims: list[int], location: str, offset: str = "0", length: str | None = None):
    tensor = onnx.TensorProto()
    tensor.name = name
    tensor.data_type = TensorProto.FLOAT
    tensor.dims.extend(dims)
    tensor.data_location = onnx.TensorProto.EXTERNAL
    count = int(np.prod(dims))
    for key, value in (("location", location), ("offset", offset), ("length", length or str(count * 4))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return tensor


def model_with_external(location: str, offset: str = "0") -> onnx.ModelProto:
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return make_model([node], [tensor_input("x", [4])], [tensor_input("y", [4])],
                      [external_tensor("w", [4], location, offset)])


def write(model: onnx.ModelProto, path: Path) -> Path:
    path.write_bytes(model.SerializeToString())  # as is: the external records are not touched
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_cli(*args: str):
    return CliRunner().invoke(main, list(args))


def assert_one_line_error(result, path: Path) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(path) in lines[0]
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------- never read


def test_report_is_identical_with_the_weights_deleted(tmp_path):
    path = save_external(conv_model(), tmp_path)
    data = tmp_path / "w.data"
    assert data.stat().st_size == (8 * 3 * 3 * 3 + 8) * 4
    options = dict(soc="Ascend310B1", input_shapes="x:2,3,16,16", device_memory=2**10)
    with_weights = check(path, **options).to_dict()
    cli_with = run_cli("check", str(path), "--soc", "Ascend310B1", "--input-shape", "x:2,3,16,16", "--format", "json",
                       "--device-memory", "0.000001", "--fail-on", "never")
    data.unlink()
    without = check(path, **options).to_dict()
    cli_without = run_cli("check", str(path), "--soc", "Ascend310B1", "--input-shape", "x:2,3,16,16", "--format",
                          "json", "--device-memory", "0.000001", "--fail-on", "never")
    # Deleting the data changes exactly one thing: the external-data-missing finding that names the file.
    added = [f for f in without["findings"] if f not in with_weights["findings"]]
    assert [(f["name"], f["data"]["location"], f["data"]["reason"]) for f in added] == [
        ("external-data-missing", "w.data", "missing")]
    assert [f for f in without["findings"] if f not in added] == with_weights["findings"]
    assert {k: v for k, v in without.items() if k not in ("findings", "summary", "counts")} == {
        k: v for k, v in with_weights.items() if k not in ("findings", "summary", "counts")}
    assert cli_with.exit_code == 0 and cli_without.exit_code == 0  # --fail-on never
    cli_before, cli_after = json.loads(cli_with.stdout)["findings"], json.loads(cli_without.stdout)["findings"]
    assert [f for f in cli_after if f["name"] != "external-data-missing"] == cli_before
    assert len(cli_after) == len(cli_before) + 1
    names = [f["name"] for f in with_weights["findings"]]
    assert "memory-over-budget" in names  # the weights were counted from their dims
    budget = [f for f in with_weights["findings"] if f["name"] == "memory-over-budget"][0]
    assert budget["data"]["weights_bytes"] == (8 * 3 * 3 * 3 + 8) * 4


def test_loader_keeps_external_records_without_data(tmp_path):
    path = save_external(conv_model(), tmp_path)
    loaded = load_model(path)
    assert {t.name for t in loaded.external} == {"w", "b"}
    assert loaded.external_bytes == (8 * 3 * 3 * 3 + 8) * 4
    assert all(t.location == "w.data" for t in loaded.external)
    for tensor in loaded.model.graph.initializer:
        assert tensor.data_location == onnx.TensorProto.EXTERNAL
        assert not tensor.raw_data


# --------------------------------------------------------------------------- unsafe locations


@pytest.mark.parametrize("location", ["../x.data", "sub/../../x.data", "/etc/passwd", "\\\\server\\share\\x.data",
                                      "C:\\weights\\x.data"])
def test_locations_leaving_the_folder_are_refused(tmp_path, location):
    folder = tmp_path / "model"
    folder.mkdir()
    path = write(model_with_external(location), folder / "m.onnx")
    before = digest(path)
    with pytest.raises(InputError) as err:
        check(path, soc="Ascend310")
    assert str(path) in str(err.value)
    assert_one_line_error(run_cli("check", str(path), "--soc", "Ascend310"), path)
    assert digest(path) == before


def test_symlink_pointing_outside_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.data").write_bytes(b"\0" * 16)
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "w.data").symlink_to(outside / "secret.data")
    path = write(model_with_external("w.data"), folder / "m.onnx")
    with pytest.raises(InputError, match="outside"):
        load_model(path)
    assert_one_line_error(run_cli("check", str(path), "--soc", "Ascend310"), path)


def test_symlink_staying_inside_is_accepted(tmp_path):
    folder = tmp_path / "model"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "real.data").write_bytes(b"\0" * 16)
    (folder / "w.data").symlink_to(folder / "data" / "real.data")
    path = write(model_with_external("w.data"), folder / "m.onnx")
    assert [t.location for t in load_model(path).external] == ["w.data"]


def test_non_numeric_offset_is_refused(tmp_path):
    path = write(model_with_external("w.data", offset="twelve"), tmp_path / "m.onnx")
    with pytest.raises(InputError, match="offset"):
        load_model(path)
    assert_one_line_error(run_cli("check", str(path), "--soc", "Ascend310"), path)


def test_missing_location_is_refused(tmp_path):
    model = model_with_external("w.data")
    tensor = model.graph.initializer[0]
    kept = [e for e in tensor.external_data if e.key != "location"]
    del tensor.external_data[:]
    tensor.external_data.extend(kept)
    path = write(model, tmp_path / "m.onnx")
    with pytest.raises(InputError, match="location"):
        load_model(path)


# --------------------------------------------------------------------------- beyond 2 GiB


def test_external_data_beyond_2_gib_is_checked_without_loading(tmp_path):
    size = int(2.2 * 2**30) // 4 * 4
    data = tmp_path / "big.data"
    with open(data, "wb"):
        pass
    os.truncate(data, size)  # sparse: no disk used, and never read
    rows = size // 4
    weight = external_tensor("table", [rows], "big.data", "0", str(size))
    nodes = [helper.make_node("Gather", ["table", "idx"], ["y"], name="lookup")]
    model = make_model(nodes, [tensor_input("idx", [8], TensorProto.INT64)], [tensor_input("y", [8])], [weight])
    path = write(model, tmp_path / "big.onnx")
    assert path.stat().st_size < 4096
    before = digest(path)

    loaded = load_model(path)
    assert loaded.external_bytes == size > tables().limit("model_file_max_bytes")

    report = check(path, soc="Ascend310B1", device_memory=2**31)
    names = {f.name for f in report.findings}
    assert "model-too-large" not in names  # external data does not count against the file limit
    budget = [f for f in report.findings if f.name == "memory-over-budget"]
    assert len(budget) == 1
    assert budget[0].data["weights_bytes"] == size
    assert budget[0].data["activation_peak_bytes"] == 8 * 8 + 8 * 2  # int64 indices + fp16 output
    assert not [f for f in check(path, soc="Ascend910B3").findings if f.name == "memory-over-budget"]
    json.dumps(report.to_dict())  # serializable
    assert digest(path) == before
