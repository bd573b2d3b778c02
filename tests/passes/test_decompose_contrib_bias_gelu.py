from __future__ import annotations

from atccheck.passes.decompose_contrib_bias_gelu import DecomposeContribBiasGelu
from builders import contrib_model
from ort_compare import assert_rewrite, op_types, opset_domains, pass_context, rule_findings

DOMAIN_RULES = ("custom-domain-op", "multiple-opset-imports")


def domain_findings(model):
    return [name for name, _ in rule_findings(model, DOMAIN_RULES)]


def test_bias_gelu_becomes_add_and_erf_gelu():
    model = contrib_model("BiasGelu", ("bias",), relu_after=True)
    new = assert_rewrite(DecomposeContribBiasGelu, model, pass_context())
    ops = op_types(new)
    assert "BiasGelu" not in ops and "Erf" in ops and ops[-1] == "Relu"
    assert opset_domains(new) == [""] and domain_findings(new) == []
