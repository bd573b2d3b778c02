from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from atccheck.passes.decompose_contrib_embed_layer_normalization import DecomposeContribEmbedLayerNormalization
from builders import CONTRIB_DOMAIN as MS, init, make_model, tensor_input
from ort_compare import assert_rewrite, op_types, opset_domains, pass_context

PASS = DecomposeContribEmbedLayerNormalization
B, S, H, VOCAB = 2, 6, 8, 4  # test inputs draw ids 0..3


def embed_model(segments=True, mask=True, position_ids=False, outputs=("y", "mask_index"), **attrs):
    rng = np.random.default_rng(8)
    i32 = TensorProto.INT32
    inits = [init("word", rng.standard_normal((VOCAB, H)).astype(np.float32)),
             init("pos", rng.standard_normal((10, H)).astype(np.float32)),
             init("gamma", rng.standard_normal(H).astype(np.float32)),
             init("beta", rng.standard_normal(H).astype(np.float32))]
    inputs = [tensor_input("ids", [B, S], i32)]
    names = ["ids", "seg_ids" if segments else "", "word", "pos", "seg" if segments else "", "gamma", "beta"]
    if segments:
        inputs.append(tensor_input("seg_ids", [B, S], i32))
        inits.append(init("seg", rng.standard_normal((VOCAB, H)).astype(np.float32)))
    names.append("mask" if mask else "")
    if mask:
        inputs.append(tensor_input("mask", [B, S], i32))
    if position_ids:
        names.append("pos_ids")
        inputs.append(tensor_input("pos_ids", [B, S], i32))
    node = helper.make_node("EmbedLayerNormalization", names, list(outputs), name="embed", domain=MS, **attrs)
    outs = [tensor_input("y", [B, S, H])]
    if len(outputs) > 1 and outputs[1]:
        outs.append(tensor_input(outputs[1], [B], i32))
    if len(outputs) > 2:
        outs.append(tensor_input(outputs[2], [B, S, H]))
    return make_model([node], inputs, outs, inits, opset=17, extra_opsets={MS: 1})


@pytest.mark.parametrize("kwargs", [{}, {"segments": False}, {"mask": False}, {"position_ids": True},
                                    {"epsilon": 1e-5, "outputs": ("y", "", "sum")},
                                    ],
                         ids=["full", "no-segments", "no-mask", "position-ids", "sum-output"])
def test_embed_layer_norm_becomes_gathers_and_layer_norm(kwargs):
    new = assert_rewrite(PASS, embed_model(**kwargs), pass_context())
    assert "EmbedLayerNormalization" not in op_types(new) and "Gather" in op_types(new)
    assert MS not in opset_domains(new)
