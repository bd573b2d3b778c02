from __future__ import annotations

import pytest

from atccheck.passes.decompose_contrib_quick_gelu import DecomposeContribQuickGelu
from builders import contrib_model
from ort_compare import assert_rewrite, op_types, opset_domains, pass_context, rule_findings

DOMAIN_RULES = ("custom-domain-op", "multiple-opset-imports")


def domain_findings(model):
    return [name for name, _ in rule_findings(model, DOMAIN_RULES)]


@pytest.mark.parametrize("alpha", [None, 1.0, 2.5])
def test_quick_gelu_becomes_x_times_sigmoid(alpha):
    attrs = {"alpha": alpha} if alpha is not None else {}
    new = assert_rewrite(DecomposeContribQuickGelu, contrib_model("QuickGelu", **attrs), pass_context())
    ops = op_types(new)
    assert "QuickGelu" not in ops and "Sigmoid" in ops
    assert ops.count("Mul") == (1 if alpha == 1.0 else 2)
    assert opset_domains(new) == [""] and domain_findings(new) == []
