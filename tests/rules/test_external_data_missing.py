"""external-data-missing: stat every external-data file; never read weights (notes/cann_source.md section 4,
notes/atc_cli.md failure 14)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from atccheck.api import check
from builders import init, make_model, tensor_input

NAME = "external-data-missing"


def found(report):
    return [f for f in report.findings if f.name == NAME]


def saved(folder: Path) -> Path:
    """A one-node Add whose 16-float weight is stored in w.data beside the model."""
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    model = make_model([node], [tensor_input("x", [16])], [tensor_input("y", [16])],
                       [init("w", np.arange(16, dtype=np.float32))])
    path = folder / "m.onnx"
    onnx.save_model(model, path, save_as_external_data=True, location="w.data", size_threshold=0)
    return path


def test_complete_data_file_is_clean(tmp_path):
    assert found(check(saved(tmp_path), soc="Ascend310P3")) == []


def test_missing_data_file_is_an_error_naming_it(tmp_path):
    path = saved(tmp_path)
    (tmp_path / "w.data").unlink()
    [f] = found(check(path, soc="Ascend310P3"))
    assert f.severity.value == "error" and f.data["reason"] == "missing" and "'w.data'" in f.message


def test_short_data_file_names_the_tensor_that_ends_beyond_it(tmp_path):
    path = saved(tmp_path)
    (tmp_path / "w.data").write_bytes((tmp_path / "w.data").read_bytes()[:32])
    [f] = found(check(path, soc="Ascend310P3"))
    assert f.data["reason"] == "short" and f.data["size"] == 32 and f.data["needed"] == 64
    assert f.data["tensor"] == "w"


def test_git_lfs_pointer_is_an_error(tmp_path):
    path = saved(tmp_path)
    (tmp_path / "w.data").write_text("version https://git-lfs.github.com/spec/v1\n"
                                     "oid sha256:" + "0" * 64 + "\nsize 64\n")
    [f] = found(check(path, soc="Ascend310P3"))
    assert f.data["reason"] == "lfs-pointer" and "git lfs pull" in f.hint


def test_in_memory_model_has_no_folder_to_judge(tmp_path):
    model = onnx.load(saved(tmp_path), load_external_data=False)
    assert found(check(model, soc="Ascend310P3")) == []
