from __future__ import annotations

import numpy as np
import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from atccheck.api import check
from atccheck.cli.main import main
from atccheck.tables import tables
from builders import init, make_model, tensor_input

WEIGHT_BYTES = 256 * 256 * 4
ACT = 4 * 256  # elements of every activation


def findings(report, name="memory-over-budget"):
    return [f for f in report.findings if f.name == name]


def mlp(batch="4"):
    """x -> MatMul(W) -> h -> Relu -> r -> Add(r, x) -> y: x stays live until the Add."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Add", ["r", "x"], ["y"], name="add"),
    ]
    b = int(batch) if batch.isdigit() else batch
    return make_model(nodes, [tensor_input("x", [b, 256])], [tensor_input("y", [b, 256])],
                      [init("w", np.zeros((256, 256), np.float32))])


def test_estimate_is_weights_plus_liveness_peak_in_fp16():
    # peak at the Relu: x, h and r are live at once (3 activations), float32 counted as float16
    expected = WEIGHT_BYTES + 3 * ACT * 2
    found = findings(check(mlp(), soc="Ascend910B3", device_memory=expected - 1))
    assert len(found) == 1
    f = found[0]
    assert f.severity.value == "warning"
    assert f.data["weights_bytes"] == WEIGHT_BYTES
    assert f.data["activation_peak_bytes"] == 3 * ACT * 2
    assert f.data["estimate_bytes"] == expected
    assert f.data["budget_bytes"] == expected - 1
    assert f.data["budget_basis"] == "--device-memory given by the user"
    assert f.data["peak_node"] == "relu"
    assert f.data["fp16_activations"] is True
    assert "float16" in f.message and "--device-memory" in f.message
    assert findings(check(mlp(), soc="Ascend910B3", device_memory=expected)) == []


def test_origin_precision_counts_float32_activations_at_four_bytes():
    expected = WEIGHT_BYTES + 3 * ACT * 4
    f = findings(check(mlp(), soc="Ascend910B3", precision_mode="must_keep_origin_dtype", device_memory=expected - 1))
    assert [x.data["activation_peak_bytes"] for x in f] == [3 * ACT * 4]
    assert f[0].data["fp16_activations"] is False


def test_batch_from_input_shape_scales_activations():
    small = WEIGHT_BYTES + 3 * 1 * 256 * 2
    report = check(mlp("n"), soc="Ascend910B3", input_shapes="x:1,256", device_memory=small - 1)
    f = findings(report)
    assert [x.data["estimate_bytes"] for x in f] == [small]
    assert "--input-shape" in f[0].message
    big = check(mlp("n"), soc="Ascend910B3", input_shapes="x:64,256", device_memory=small - 1)
    assert findings(big)[0].data["activation_peak_bytes"] == 3 * 64 * 256 * 2


def test_dynamic_shapes_skip_the_check():
    assert findings(check(mlp("n"), soc="Ascend910B3", device_memory=1)) == []


def external_weights_model(gib):
    """A model whose only weight is external and `gib` GiB large; the data file need not exist."""
    rows = gib * 2**28  # float32 rows of one element: gib GiB
    weight = onnx.TensorProto()
    weight.name = "w"
    weight.data_type = TensorProto.FLOAT
    weight.dims.extend([rows])
    weight.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (("location", "w.data"), ("offset", "0"), ("length", str(rows * 4))):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return make_model([node], [tensor_input("x", [1])], [tensor_input("y", [rows])], [weight])


def test_chip_budget_from_the_tables():
    soc = tables().socs["Ascend310B1"]
    assert soc.memory_bytes == 32 * 2**30
    f = findings(check(external_weights_model(40), soc="Ascend310B1"))
    assert len(f) == 1
    assert f[0].data["budget_bytes"] == soc.memory_bytes
    assert f[0].data["budget_basis"] == soc.memory_basis
    assert f[0].data["weights_bytes"] == 40 * 2**30
    assert soc.memory_basis in f[0].message
    assert findings(check(external_weights_model(40), soc="Ascend910B3")) == []  # 64 GiB


@pytest.mark.parametrize("soc", ["Ascend310", "Ascend910A"])
def test_unknown_chip_memory_is_skipped_unless_given(soc):
    assert tables().socs[soc].memory_bytes is None
    assert findings(check(external_weights_model(40), soc=soc)) == []
    assert len(findings(check(external_weights_model(40), soc=soc, device_memory=8 * 2**30))) == 1


def test_cli_device_memory_in_gib(tmp_path):
    path = tmp_path / "mlp.onnx"
    onnx.save_model(mlp(), path)
    result = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend910B3", "--device-memory", "0.0001",
                                       "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    assert "memory-over-budget" in result.output
    quiet = CliRunner().invoke(main, ["check", str(path), "--soc", "Ascend910B3", "--device-memory", "1",
                                      "--fail-on", "never"])
    assert "memory-over-budget" not in quiet.output


def test_real_model_estimate_is_positive_and_skips_unknown_budget(shared_models):
    report = check(shared_models / "ppocr_v4_det.onnx", soc="Ascend310P3", input_shapes="x:1,3,640,640",
                   device_memory=2**20)
    f = findings(report)
    assert len(f) == 1
    assert f[0].data["weights_bytes"] > 0 and f[0].data["activation_peak_bytes"] > 0
    assert f[0].data["estimate_bytes"] < tables().socs["Ascend310P3"].memory_bytes
    assert findings(check(shared_models / "ppocr_v4_det.onnx", soc="Ascend310P3", input_shapes="x:1,3,640,640")) == []
