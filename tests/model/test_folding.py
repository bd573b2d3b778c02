"""Constant folding analysis: values ATC's folding computes at the given input shapes, and the shapes they fix."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.engine import prepare
from atccheck.model.folding import fold_shapes
from atccheck.model.graph import GraphIndex
from atccheck.model.shapes import infer_shapes
from builders import deep_heads_model, heads_model, init, make_model, same_padding_model, tensor_input

INT64 = TensorProto.INT64


def test_onnx_inference_alone_loses_the_shape_after_div():
    model = heads_model()
    shapes = infer_shapes(model, {"x": (1, 8, 64)})
    info = shapes.get("r")
    assert info is None or not info.is_static  # the gap folding closes


def test_folding_computes_the_shape_vector_and_the_shapes_after_it():
    model = heads_model()
    shapes = infer_shapes(model, {"x": (1, 8, 64)})
    folded = fold_shapes(model, shapes, {"x": (1, 8, 64)}, GraphIndex(model))
    assert folded.values["shp"].tolist() == [1, 8, 4, 16]
    assert folded.shapes.get("r").shape == (1, 8, 4, 16)
    assert folded.shapes.get("rt").shape == (1, 4, 8, 16)
    assert folded.values["w"].tolist() == 8  # Where(8 % 4 == 0, 8, 0) on the folded Shape of rt
    assert folded.shapes.get("y").shape == (1, 8, 64)
    assert folded.evaluations >= 1 and folded.node_inferences >= 1


def test_prepare_hands_the_refined_shapes_to_the_rules():
    prepared = prepare(heads_model(), "x:1,8,64")
    assert prepared.shapes.get("rt").is_static


def test_symbolic_input_dims_fold_nothing_from_shape():
    model = heads_model()
    shapes = infer_shapes(model, {})
    folded = fold_shapes(model, shapes, {}, GraphIndex(model))
    assert "shp" not in folded.values and "s" not in folded.values


def test_random_ops_never_fold():
    nodes = [helper.make_node("RandomNormalLike", ["c"], ["r"]), helper.make_node("Add", ["r", "c"], ["y"])]
    model = make_model(nodes, [], [tensor_input("y", [2])], [init("c", np.ones(2, np.float32))])
    folded = fold_shapes(model, infer_shapes(model, {}), {}, GraphIndex(model))
    assert folded.values == {}


def test_integer_div_truncates_and_mod_follows_the_divisor_sign_as_onnx_says():
    nodes = [helper.make_node("Div", ["a", "b"], ["q"]), helper.make_node("Mod", ["a", "b"], ["m"]),
             helper.make_node("Mod", ["a", "b"], ["f"], fmod=1),
             helper.make_node("Concat", ["q", "m", "f"], ["y"], axis=0)]
    inits = [init("a", np.array([-7], np.int64)), init("b", np.array([2], np.int64))]
    model = make_model(nodes, [], [tensor_input("y", [3], INT64)], inits)
    folded = fold_shapes(model, infer_shapes(model, {}), {}, GraphIndex(model))
    assert folded.values["y"].tolist() == [-3, 1, -1]


# --------------------------------------------------------------------------- to a fixed point, by worklist


@pytest.mark.parametrize("depth", [1, 6, 24])
def test_every_block_of_a_deep_model_becomes_static(depth):
    model = deep_heads_model(depth)
    shapes = infer_shapes(model, {"x": (1, 8, 64)})
    folded = fold_shapes(model, shapes, {"x": (1, 8, 64)}, GraphIndex(model))
    for k in range(depth):
        assert folded.shapes.get(f"b{k}_h").shape == (1, 8, 64), k
        assert folded.values[f"b{k}_shp"].tolist() == [1, 8, 4, 16]
    assert folded.shapes.get("y").shape == (1, 8, 64)


def test_depth_costs_single_node_work_not_whole_graph_rounds():
    """Whole-graph inference runs a fixed number of times whatever the depth (none, once the worklist leaves
    every shape static); the work that grows with depth is single-node inference of what each new value reaches."""
    counts = {}
    for depth in (4, 16):
        model = deep_heads_model(depth)
        folded = fold_shapes(model, infer_shapes(model, {"x": (1, 8, 64)}), {"x": (1, 8, 64)}, GraphIndex(model))
        counts[depth] = folded
        assert folded.rounds <= 1
        assert folded.node_inferences <= len(model.graph.node)
    # linear in depth: four times the blocks, at most four times the single-node inferences (and a few more)
    assert counts[16].node_inferences <= 4 * counts[4].node_inferences + 4


def test_nothing_to_fold_runs_no_whole_graph_inference():
    nodes = [helper.make_node("Relu", ["x"], ["y"])]
    model = make_model(nodes, [tensor_input("x", [1, 4])], [tensor_input("y", [1, 4])])
    folded = fold_shapes(model, infer_shapes(model, {"x": (1, 4)}), {"x": (1, 4)}, GraphIndex(model))
    assert folded.rounds == 0 and folded.values == {}


def test_same_padding_clip_folds_and_fixes_every_layer():
    model = same_padding_model(layers=3, size=17)
    folded = fold_shapes(model, infer_shapes(model, {}), {}, GraphIndex(model))
    # 17 -> pad 2 -> 19 -> conv s2 -> 9 -> pad 2 -> 11 -> 5 -> pad 2 -> 7 -> 3
    assert [folded.shapes.get(f"l{k}_y").shape for k in range(3)] == [(1, 8, 9, 9), (1, 8, 5, 5), (1, 8, 3, 3)]
    assert folded.values["l2_a2_pad"].tolist() == 2


# Each evaluator against onnx's reference implementation (ONNX semantics, dtype included).
EVALUATED = [
    ("Clip", [np.array([-3, 2, 9], np.int64), np.array(0, np.int64)], {}, 13),
    ("Clip", [np.array([-3., 2., 9.], np.float32), np.array(0, np.float32), np.array(5, np.float32)], {}, 13),
    ("Clip", [np.array([-3., 2., 9.], np.float32)], {"min": 0.0}, 6),
    ("Relu", [np.array([-3, 2], np.int64)], {}, 14),
    ("Pow", [np.array([2, 3], np.int64), np.array([3, 2], np.int64)], {}, 15),
    ("Pow", [np.array([2., 3.], np.float32), np.array(0.5, np.float32)], {}, 15),
    ("Round", [np.array([0.5, 1.5, -2.5, 2.6], np.float32)], {}, 13),
    ("Reciprocal", [np.array([2., 4.], np.float32)], {}, 13),
    ("Sum", [np.array([1, 2], np.int64), np.array([3], np.int64), np.array([1, 1], np.int64)], {}, 13),
    ("Mean", [np.array([1., 2.], np.float32), np.array([3., 4.], np.float32)], {}, 13),
    ("Xor", [np.array([True, False]), np.array([True, True])], {}, 13),
    ("GatherElements", [np.arange(6, dtype=np.int64).reshape(2, 3), np.array([[0, -1], [2, 1]], np.int64)],
     {"axis": 1}, 13),
    ("ScatterND", [np.array([1, 2, 3, 4], np.int64), np.array([[1], [3]], np.int64), np.array([9, 8], np.int64)],
     {}, 13),
    ("Split", [np.arange(6, dtype=np.int64), np.array([2, 4], np.int64)], {}, 13),
    ("Split", [np.arange(6, dtype=np.int64).reshape(1, 6)], {"axis": 1, "split": [1, 5]}, 11),
    ("Split", [np.arange(7, dtype=np.int64)], {"num_outputs": 3}, 18),
    ("Flatten", [np.arange(24, dtype=np.int64).reshape(2, 3, 4)], {"axis": 2}, 13),
]


@pytest.mark.parametrize("op, args, attrs, opset", EVALUATED, ids=[f"{c[0]}-{c[3]}" for c in EVALUATED])
def test_evaluator_matches_onnx_reference(op, args, attrs, opset):
    from onnx.reference import ReferenceEvaluator

    names = [f"i{k}" for k in range(len(args))]
    count = 3 if attrs.get("num_outputs") == 3 else (2 if op == "Split" else 1)
    outs = [f"o{k}" for k in range(count)]
    node = helper.make_node(op, names, outs, **attrs)
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
              for n, a in zip(names, args)]
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info(o, 0, None) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    expected = ReferenceEvaluator(model).run(None, dict(zip(names, args)))
    inits = [init(n, a) for n, a in zip(names, args)]
    folded_model = make_model([node], [], [helper.make_tensor_value_info(o, 0, None) for o in outs], inits,
                              opset=opset)
    folded = fold_shapes(folded_model, infer_shapes(folded_model, {}), {}, GraphIndex(folded_model))
    for name, want in zip(outs, expected):
        got = folded.values[name]
        assert got.dtype == np.asarray(want).dtype and np.array_equal(got, want), (name, got, want)


def test_an_if_reading_a_folded_value_gets_the_finishing_whole_graph_inference():
    """The worklist does not infer nodes with subgraphs: once a value their branches read is computed, the
    finishing whole-graph inference runs (once: it teaches nothing more here, since ONNX does not pass outer
    values into branch inference)."""
    def branch(name):
        reshape = helper.make_node("Reshape", ["x", "shp"], [name])
        return helper.make_graph([reshape], name, [], [tensor_input(name, [None, None])])

    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Div", ["s", "two"], ["half"]),
             helper.make_node("Mul", ["half", "two"], ["shp"]),
             helper.make_node("If", ["cond"], ["y"], then_branch=branch("t"), else_branch=branch("e"))]
    inits = [init("two", np.array([1, 2], np.int64)), init("cond", np.array(True))]
    model = make_model(nodes, [tensor_input("x", ["B", 6])], [tensor_input("y", [None, None])], inits)
    folded = fold_shapes(model, infer_shapes(model, {"x": (2, 6)}), {"x": (2, 6)}, GraphIndex(model))
    assert folded.values["shp"].tolist() == [2, 6]
    assert folded.rounds == 1
