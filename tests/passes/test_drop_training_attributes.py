from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.findings import Finding, FixSuggestion, Location, Severity
from atccheck.fixlinks import with_fix
from atccheck.passes.drop_training_attributes import DropTrainingAttributes
from atccheck.tables import tables
from builders import init, make_model, tensor_input
from fix_harness import assert_valid, max_error, named
from ort_compare import apply, pass_context


def page_limit(attr: str, op: str = "BatchNormalization", node: str = "bn") -> Finding:
    """An attr-out-of-range finding on a training-only attribute, as a page limit no source supersedes gives it
    (the tables hold none now: BatchNormalization momentum's page fact is superseded by the plugin sources)."""
    return with_fix(Finding(code="AC302", name="attr-out-of-range", severity=Severity.ERROR,
                            message=f"{op} {attr}: not supported", location=Location(node=node, op_type=op),
                            hint="export it without the attribute", fix=FixSuggestion.manual(), source="a page",
                            data={"attr": attr}))


def run(model, *findings):
    return apply(DropTrainingAttributes, model, pass_context(findings=findings))


def batch_norm(opset=14, outputs=("y",), graph_outputs=("y",), **attrs):
    rng = np.random.default_rng(0)
    inits = [init(n, rng.standard_normal(4).astype(np.float32)) for n in ("scale", "bias", "mean")]
    inits.append(init("var", rng.uniform(0.5, 2, 4).astype(np.float32)))
    node = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], list(outputs), name="bn",
                            **attrs)
    return make_model([node], [tensor_input("x", [1, 4, 3, 3])], [tensor_input(o, [1, 4, 3, 3] if o == "y" else [4]) for o in graph_outputs],
                      inits, opset=opset)


def test_check_says_nothing_of_maxvits_momentum_since_no_batchnorm_plugin_reads_it():
    model = batch_norm(epsilon=1e-3, momentum=0.01)  # torch BatchNorm2d(momentum=0.99), exported
    assert named(model, "attr-out-of-range") == [] and named(model, "attr-out-of-range", "Ascend910B3", "9.0") == []
    (page,) = [a for a in tables().attr_limits if (a.op, a.attr) == ("BatchNormalization", "momentum")]
    assert page.source.startswith("https://") and page.superseded_by_source
    assert "batch_normalization_plugin.cc@7d77ce32d" in page.superseded_by_source
    assert "batch_normalization_onnx_plugin.cpp@e5c3fa932" in page.superseded_by_source


def test_a_finding_on_momentum_names_this_pass_which_drops_it_exactly():
    model = batch_norm(epsilon=1e-3, momentum=0.01)
    finding = page_limit("momentum")
    assert finding.fix.pass_name == "drop-training-attributes"
    result = run(model, finding)
    assert result.modified
    (node,) = result.model.graph.node
    assert {a.name for a in node.attribute} == {"epsilon"} and node.name == "bn"
    assert_valid(result.model)
    assert max_error(model, result.model).max_abs == 0.0
    assert not run(result.model, finding).modified


def test_an_attribute_that_is_not_training_only_is_not_this_pass():
    assert page_limit("epsilon").fix.pass_name == "manual"


def test_a_batchnorm_in_training_mode_keeps_its_momentum():
    model = batch_norm(opset=15, outputs=("y", "running_mean", "running_var"),
                       graph_outputs=("y", "running_mean", "running_var"), momentum=0.01, training_mode=1)
    result = run(model, page_limit("momentum"))
    assert not result.modified
    assert any("training_mode=1" in note for note in result.notes)


def test_a_read_training_output_keeps_the_momentum():
    model = batch_norm(opset=9, outputs=("y", "m", "v", "sm", "sv"), graph_outputs=("y", "m"), momentum=0.01)
    result = run(model, page_limit("momentum"))
    assert not result.modified
    assert any("only training computes is read" in note for note in result.notes)


def test_every_training_only_attribute_is_a_fact_with_its_source():
    facts = [f for f in tables().op_facts if f.kind == "training-only-attr"]
    assert {(f.op, f.attr) for f in facts} == {("BatchNormalization", "momentum"), ("Dropout", "ratio"),
                                             ("Dropout", "seed")}
    assert all(f.source.startswith("onnx/onnx docs/Changelog.md") and f.opsets for f in facts)


def test_each_training_only_attribute_is_in_onnxs_schema_at_every_listed_opset():
    from onnx import defs

    for fact in (f for f in tables().op_facts if f.kind == "training-only-attr"):
        for version in fact.opsets:
            schema = defs.get_schema(fact.op, version)
            assert schema.since_version == version, (fact.op, version)
            assert fact.attr in schema.attributes, (fact.op, version, fact.attr)


def test_the_pass_links_name_exactly_the_training_only_facts():
    facts = {(f.op, f.attr) for f in tables().op_facts if f.kind == "training-only-attr"}
    linked = {(link.op_type, attr) for link in DropTrainingAttributes.answers for attr in link.when["attr"]}
    assert linked == facts
