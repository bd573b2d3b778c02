"""fixed-size-padded-output: NonMaxSuppression's fixed [N, 3] output under the 2022 op proto, padded with -1."""

from __future__ import annotations

import pytest

from atccheck.api import check
from builders import nms_model

NAME = "fixed-size-padded-output"


def found(report):
    return [f for f in report.findings if f.name == NAME]


@pytest.mark.parametrize("cann", ["5.0", "6.0"])
@pytest.mark.parametrize("soc", ["Ascend310", "Ascend310P3"])
def test_nms_with_a_constant_maximum_warns_of_the_padding(cann, soc):
    [f] = found(check(nms_model(10, gather=True), soc=soc, cann=cann))
    assert f.severity.value == "warning" and f.code == "AC204"
    assert f.data["shape"] == [30, 3] and f.data["padding"] == -1 and f.data["consumers"] == ["box_index"]
    assert "non_max_suppression_v7.py" in f.source


def test_graph_output_is_named_as_such():
    [f] = found(check(nms_model(4), soc="Ascend310", cann="6.0"))
    assert "graph output" in f.message and f.data["shape"] == [12, 3]


@pytest.mark.parametrize(("model", "cann"), [
    (nms_model(runtime=True), "6.0"),  # no static shape: dynamic-shape-unsupported speaks
    (nms_model(2**63 - 1), "6.0"),  # read as int32: unknown
    (nms_model(10), "9.0"),  # the 2026 infer-shape function is not public
])
def test_no_warning_where_the_fixed_size_is_not_established(model, cann):
    assert found(check(model, soc="Ascend310", cann=cann)) == []
