from __future__ import annotations

from onnx import helper

from atccheck.api import check
from atccheck.emit.text import render
from builders import make_model, tensor_input


def opset17_chain():
    ops = ["Relu", "Sigmoid", "Tanh", "Abs", "Neg"]
    nodes = [helper.make_node(op, [f"t{i}"], [f"t{i + 1}"], name=f"n{i}") for i, op in enumerate(ops)]
    return make_model(nodes, [tensor_input("t0", [1, 4])], [tensor_input(f"t{len(ops)}", [1, 4])], opset=17)


def test_many_identical_per_node_findings_collapse_under_the_model_summary():
    report = check(opset17_chain(), soc="Ascend310", cann="6.0")
    text = render([report])
    assert "beyond every registration of CANN 6.0" in text
    assert "per node: 5 nodes" in text
    assert "Sigmoid is registered in CANN 6.0" not in text


def test_verbose_lists_every_message_and_the_fact_source():
    report = check(opset17_chain(), soc="Ascend310", cann="6.0")
    text = render([report], verbose=True)
    assert "Sigmoid is registered in CANN 6.0" in text and "source:" in text


def test_colour_only_when_asked():
    report = check(opset17_chain(), soc="Ascend310", cann="6.0")
    assert "\x1b[" not in render([report])
    assert "\x1b[" in render([report], color=True)


def test_a_model_level_cause_is_counted_once_in_the_summary():
    report = check(opset17_chain(), soc="Ascend310", cann="6.0")
    per_node = [f for f in report.findings if f.code == "AC102" and f.location.node is not None]
    assert len(per_node) == 5
    text = render([report])
    assert "AC102 opset-not-registered (1 + 5 per node)" in text
    errors = report.counts()["error"] - len(per_node)
    assert f"{errors} error{'s' if errors != 1 else ''}, 0 warnings, 0 info (and 5 per-node findings of AC102, counted once)" in text


def test_verbose_names_mirror_repositories_for_people_and_json_keeps_them():
    from atccheck.emit import render as render_format

    report = check(opset17_chain(), soc="Ascend310", cann="6.0")
    raw = " ".join(f.source for f in report.findings)
    assert "dengguojie/vue-element-admin" in raw  # the 2022 registry's mirror, kept for machines
    text = render([report], verbose=True)
    assert "vue-element-admin" not in text and "canndev (2022-06 snapshot):" in text
    assert "dengguojie/vue-element-admin" in render_format("json", [report])
