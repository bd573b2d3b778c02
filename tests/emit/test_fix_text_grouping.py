from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.emit.fix_text import render
from atccheck.fixing.pipeline import fix
from builders import init, make_model, tensor_input


def opset_19_chain(relus: int = 12):
    """DeformConv exists only from opset 19, so convert-opset cannot go down: the model-level opset finding stays,
    and with it one per-node finding on every other node."""
    nodes = [helper.make_node("DeformConv", ["x", "w", "off"], ["d"], name="deform")]
    prev = "d"
    for i in range(relus):
        nodes.append(helper.make_node("Relu", [prev], [f"r{i}"], name=f"relu{i}"))
        prev = f"r{i}"
    return make_model(nodes, [tensor_input("x", [1, 2, 5, 5]), tensor_input("off", [1, 18, 3, 3])],
                      [tensor_input(prev, [1, 2, 3, 3])], [init("w", np.ones((2, 2, 3, 3), np.float32))], opset=19)


def test_remaining_findings_are_grouped_as_check_groups_them():
    outcome = fix(opset_19_chain(), soc="Ascend310P3", write=False)
    per_node = [r for r in outcome.remaining if r.finding.name == "opset-not-registered" and r.finding.location.node]
    assert len(per_node) == 12
    text = render(outcome)
    section = text[text.index("remaining findings"):text.index("verification:")]
    assert section.count("opset-not-registered") == 1
    assert "per node: 12 nodes (Relu x12)" in section
    assert not any(f"relu{i}" in section for i in range(12))
    assert len(section.splitlines()) < 12
    # the JSON report still has every finding, each with its reason
    assert len(outcome.to_dict()["remaining"]) == len(outcome.remaining) == 14
