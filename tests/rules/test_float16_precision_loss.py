"""float16-precision-loss: where the error first grows, without an overflow."""

from __future__ import annotations

import onnx

import atccheck.fixing.runtime as runtime
from atccheck.api import check
from precision_models import cancellation, conv_block, endless_loop


def losses(report):
    return [f for f in report.findings if f.name == "float16-precision-loss"]


def test_cancellation_loses_x_at_the_subtraction():
    report = check(cancellation(), soc="Ascend310P3", numerics=True)
    (finding,) = losses(report)
    assert finding.severity.value == "warning"
    assert finding.location.node == "sub_c" and finding.location.op_type == "Sub"
    (before,) = report.numerics.before
    assert before.rel_error > 0.5 and before.cosine < 0.9
    assert "relative error" in finding.message and "cosine" in finding.message
    # the Sub in float32 still reads the float16 sum: both must be kept
    keep = report.numerics.keep
    assert keep.nodes == ("add_c", "sub_c") and keep.restored
    assert keep.after[0].rel_error < 1e-6
    assert not [f for f in report.findings if f.name == "float16-overflow"]


def test_a_smaller_constant_keeps_x():
    # 1 + x in float16 keeps x to ~1e-3: within the threshold
    report = check(cancellation(1.0), soc="Ascend310P3", numerics=True)
    assert not losses(report) and report.numerics.ok


def test_a_clean_conv_block_reports_nothing_in_any_mode():
    for mode in ("force_fp16", "allow_mix_precision", "allow_fp32_to_fp16", "force_fp32", "must_keep_origin_dtype"):
        report = check(conv_block(), soc="Ascend910B1", precision_mode=mode, numerics=True)
        assert not [f for f in report.findings if f.name.startswith("float16-")], mode
        assert report.numerics.ok and report.numerics.keep is None
    fp16 = check(conv_block(), soc="Ascend910B1", numerics=True).numerics
    assert fp16.lowered == fp16.nodes  # every node computed in float16, and still within the threshold
    assert 0 < fp16.before[0].rel_error < 1e-2


def test_a_model_onnxruntime_cannot_run_gives_one_info():
    model = cancellation()
    model.graph.node[0].op_type = "NoSuchOp"
    model.graph.node[0].domain = "custom.domain"
    model.opset_import.append(onnx.helper.make_opsetid("custom.domain", 1))
    report = check(model, soc="Ascend310P3", numerics=True)
    (finding,) = losses(report)
    assert finding.severity.value == "info" and "did not run" in finding.message
    assert report.numerics.error


def test_a_run_without_an_end_is_stopped_and_said_in_one_info(monkeypatch):
    monkeypatch.setattr(runtime, "RUN_TIMEOUT_S", 0.5)  # the bound fix's runs have (30 s by default)
    report = check(endless_loop(), soc="Ascend310P3", numerics=True)
    (finding,) = losses(report)
    assert finding.severity.value == "info" and "timed out" in report.numerics.error
