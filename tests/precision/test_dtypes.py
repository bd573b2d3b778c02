"""Each node's compute dtype under each precision mode, as GE's dtype selection gives it."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from atccheck.api import check
from atccheck.errors import UsageError
from atccheck.precision.dtypes import assign_dtypes
from atccheck.tables import tables
from builders import init, make_model, tensor_input


def mixed_model():
    """x -> MatMul (cube, white on 910B) -> Add -> ReduceSum (black on 910B); x -> Relu (gray, reads an input);
    Cast to float32 of an int input."""
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "b"], ["a"], name="add_after_matmul"),
        helper.make_node("ReduceSum", ["a", "axes"], ["s"], name="sum"),
        helper.make_node("Relu", ["x"], ["r"], name="relu_on_input"),
        helper.make_node("Cast", ["i"], ["c"], to=1, name="cast"),
    ]
    inits = [init("w", np.ones((8, 8), np.float32)), init("b", np.ones(8, np.float32)),
             init("axes", np.array([1], np.int64))]
    return make_model(nodes, [tensor_input("x", [2, 8]), tensor_input("i", [2, 8], 7)],
                      [tensor_input("s", [2, 1]), tensor_input("r", [2, 8]), tensor_input("c", [2, 8])], inits)


def dtypes(mode, soc="Ascend910B1", keep=()):
    ctx = check(mixed_model(), soc=soc, precision_mode=mode if mode in ("force_fp16",) else "force_fp16").context
    assignment = assign_dtypes(ctx, mode, keep)
    return {n.name: (n.inputs, n.outputs) for n in assignment.nodes.values()}


def test_force_fp16_lowers_every_float_node_but_cast():
    got = dtypes("force_fp16")
    assert got["matmul"] == got["add_after_matmul"] == got["sum"] == got["relu_on_input"] == ("float16", "float16")
    assert got["cast"] == ("float32", "float32")  # Cast is dtype-sensitive (op_info_common.cc IsDtypeSensitiveOp)


def test_allow_fp32_to_fp16_lowers_only_cube_ops():
    got = dtypes("allow_fp32_to_fp16")
    assert got["matmul"] == ("float16", "float16")  # fe.ini fp16.op_type: cube ops ask for float16 first
    assert got["add_after_matmul"] == got["sum"] == got["relu_on_input"] == ("float32", "float32")


def test_mixed_follows_the_chip_lists_and_the_producer():
    got = dtypes("allow_mix_precision")
    facts = tables().precision
    assert facts.policy("cann-8.1.RC1", "ascend910b", "BatchMatMulV2") == "white"
    assert facts.policy("cann-8.1.RC1", "ascend910b", "ReduceSum") == "black"
    assert facts.policy("cann-8.1.RC1", "ascend910b", "Add") == "gray"
    assert got["matmul"] == ("float16", "float16")  # white
    assert got["add_after_matmul"] == ("float16", "float16")  # gray, its producer is float16
    assert got["sum"] == ("float32", "float32")  # black
    assert got["relu_on_input"] == ("float32", "float32")  # gray, its producer is the float32 graph input


def test_mixed_bfloat16_lowers_white_ops_to_bfloat16():
    got = dtypes("mixed_bfloat16")
    assert got["matmul"] == ("bfloat16", "bfloat16") and got["add_after_matmul"] == ("bfloat16", "bfloat16")
    assert got["sum"] == ("float32", "float32")


def test_force_fp32_gives_cube_ops_float16_input_and_float32_output():
    got = dtypes("force_fp32")
    assert got["matmul"] == ("float16", "float32")
    assert got["add_after_matmul"] == got["sum"] == ("float32", "float32")


def test_origin_keeps_everything():
    assert set(dtypes("must_keep_origin_dtype").values()) == {("float32", "float32")}


def test_a_kept_node_computes_in_float32_even_if_it_is_a_cube_op():
    assert dtypes("allow_fp32_to_fp16", keep=["matmul"])["matmul"] == ("float32", "float32")
    assert dtypes("force_fp16", keep=["sum"])["sum"] == ("float32", "float32")
    # must_keep_origin_dtype: --keep_dtype has no effect, and nothing is lowered anyway
    assert dtypes("must_keep_origin_dtype", keep=["sum"])["sum"] == ("float32", "float32")


def test_the_chip_lists_differ_by_family():
    facts = tables().precision
    assert facts.policy("cann-8.1.RC1", "ascend310", "ReduceSum") == "gray"
    assert facts.policy("cann-8.1.RC1", "ascend910b", "ReduceSum") == "black"
    got = dtypes("allow_mix_precision", soc="Ascend310")
    assert got["sum"] == ("float16", "float16")  # gray on Ascend310: follows its float16 producer


def test_hif8_modes_are_not_simulated():
    ctx = check(mixed_model(), soc="Ascend910B1").context
    with pytest.raises(UsageError, match="HiFloat8"):
        assign_dtypes(ctx, "cube_hif8")


def test_every_kernel_family_has_lists_and_every_atc_mode_a_strategy():
    facts = tables().precision
    families = {soc.kernel_family for soc in tables().socs.values()}
    assert all(facts.policy("cann-8.1.RC1", family, "Conv2D") == "white" for family in families)
    atc_modes = set(tables().atc_options["--precision_mode"].allowed_values or ())
    atc_modes |= set(tables().atc_options["--precision_mode_v2"].allowed_values or ())
    assert atc_modes == set(facts.modes)
    # the Ascend ops ONNX's Conv, MatMul, Gemm and ConvTranspose become are cube ops
    assert {"Conv2D", "BatchMatMulV2", "MatMulV2", "Conv2DTranspose"} <= facts.cube_ops


@pytest.mark.parametrize(("v2", "v1"), [("fp16", "force_fp16"), ("mixed_float16", "allow_mix_precision"),
                                        ("mixed_bfloat16", "allow_mix_precision_bf16"),
                                        ("origin", "must_keep_origin_dtype"),
                                        ("cube_fp16in_fp32out", "force_fp32")])
def test_a_precision_mode_v2_name_computes_as_its_precision_mode_twin(v2, v1):
    # fe_context_utils.cc kPrecisionModeMap: each pair is one enum, so one dtype assignment
    assert tables().precision.modes[v2].option == "--precision_mode_v2"
    assert dtypes(v2) == dtypes(v1)
