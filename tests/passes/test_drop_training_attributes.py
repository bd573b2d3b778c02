from __future__ import annotations

import numpy as np
from onnx import helper

from atccheck.passes.drop_training_attributes import DropTrainingAttributes
from atccheck.tables import tables
from builders import init, make_model, tensor_input
from fix_harness import assert_exact_repair, named, run_pass


def batch_norm(opset=14, outputs=("y",), graph_outputs=("y",), **attrs):
    rng = np.random.default_rng(0)
    inits = [init(n, rng.standard_normal(4).astype(np.float32)) for n in ("scale", "bias", "mean")]
    inits.append(init("var", rng.uniform(0.5, 2, 4).astype(np.float32)))
    node = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], list(outputs), name="bn",
                            **attrs)
    return make_model([node], [tensor_input("x", [1, 4, 3, 3])], [tensor_input(o, [1, 4, 3, 3] if o == "y" else [4]) for o in graph_outputs],
                      inits, opset=opset)


def test_maxvits_batchnorm_momentum_is_dropped_and_the_error_goes():
    model = batch_norm(epsilon=1e-3, momentum=0.01)  # torch BatchNorm2d(momentum=0.99), exported
    assert named(model, "attr-out-of-range")
    result = assert_exact_repair(DropTrainingAttributes, model, "attr-out-of-range")
    (node,) = result.model.graph.node
    assert {a.name for a in node.attribute} == {"epsilon"} and node.name == "bn"


def test_a_batchnorm_in_training_mode_keeps_its_momentum():
    model = batch_norm(opset=15, outputs=("y", "running_mean", "running_var"),
                       graph_outputs=("y", "running_mean", "running_var"), momentum=0.01, training_mode=1)
    result = run_pass(DropTrainingAttributes, model)
    assert not result.modified
    assert any("training_mode=1" in note for note in result.notes)


def test_a_read_training_output_keeps_the_momentum():
    model = batch_norm(opset=9, outputs=("y", "m", "v", "sm", "sv"), graph_outputs=("y", "m"), momentum=0.01)
    result = run_pass(DropTrainingAttributes, model)
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
