"""Constant folding analysis: values ATC's folding computes at the given input shapes, and the shapes they fix."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from atccheck.engine import prepare
from atccheck.model.folding import fold_shapes
from atccheck.model.graph import GraphIndex
from atccheck.model.shapes import infer_shapes
from builders import heads_model, init, make_model, tensor_input

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
    assert folded.rounds >= 1


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
