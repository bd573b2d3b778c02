"""The precision preflight on the real trained models and the sample models, as a user runs it."""

from __future__ import annotations

import pytest

from atccheck.api import check
from conftest import SAMPLE_MODELS

# Models onnxruntime cannot run on random inputs or at all: one info says so, nothing else.
NOT_RUN = {"silero_vad.onnx", "silero_vad_op18_ifless.onnx", "custom_op.onnx"}
# The graph as written overflows: its dynamic-quantized MatMul's int32 sums (2e5) are scaled in float16.
FLAGGED = {"text2tashkeel_rawi_int8.onnx": ("float16-overflow", "/fc/MatMul_quant_output_scale_mul")}


def numerics_findings(report):
    return [f for f in report.findings if f.name in ("float16-overflow", "float16-precision-loss")]


def test_real_models(shared_models):
    paths = sorted(shared_models.glob("*.onnx"))
    assert len(paths) >= 9
    for path in paths:
        report = check(str(path), soc="Ascend310P3", numerics=True)
        result = report.numerics
        found = numerics_findings(report)
        if path.name in NOT_RUN:
            assert result.error and [f.severity.value for f in found] == ["info"], path.name
            continue
        assert result.error is None, (path.name, result.error)
        if path.name in FLAGGED:
            assert [(f.name, f.location.node) for f in found] == [FLAGGED[path.name]]
            assert result.keep.restored and all(o.ok for o in result.keep.after)
            continue
        # trained float models: float16 moves their outputs by well under the threshold
        assert not found, (path.name, [f.message for f in found])
        assert result.ok and result.lowered > 0, path.name


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLE_MODELS.glob("*.onnx")))
def test_sample_models(name):
    report = check(str(SAMPLE_MODELS / name), soc="Ascend910B1", numerics=True)
    found = numerics_findings(report)
    if name in NOT_RUN:
        assert [f.severity.value for f in found] == ["info"]
        return
    assert not found and report.numerics.ok, [f.message for f in found]
