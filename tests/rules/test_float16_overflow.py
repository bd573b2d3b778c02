"""float16-overflow: the node where a value first leaves float16's range, and the keep list that cures it."""

from __future__ import annotations

import numpy as np

from atccheck.api import check
from atccheck.precision.preflight import NumericsRequest
from precision_models import attention_scores, layernorm_after_gain, long_reduce_sum


def overflows(report):
    return [f for f in report.findings if f.name == "float16-overflow"]


def test_layernorm_after_a_large_gain_overflows_at_the_square():
    report = check(layernorm_after_gain(1000.0), soc="Ascend310P3", numerics=True)
    (finding,) = overflows(report)
    assert finding.severity.value == "warning"
    assert finding.location.node == "square" and finding.location.op_type == "Pow"
    assert finding.data["largest"] > 65504 and finding.data["limit"] == 65504.0
    assert finding.data["precision_mode"] == "force_fp16" and finding.data["soc"] == "Ascend310P3"
    assert "force_fp16" in finding.message and "Ascend310P3" in finding.message and "65504" in finding.message
    result = report.numerics
    (before,) = result.before
    assert not before.ok
    # the squares stay float32 only if the mean, the epsilon add and the root that read them do too
    assert result.keep.nodes == ("square", "variance", "add_eps", "std")
    assert result.keep.restored
    (after,) = result.keep.after
    assert after.ok and after.rel_error < 1e-2 and after.cosine > 0.999
    assert "square, variance, add_eps, std" in finding.hint


def test_one_finding_per_cause_not_per_downstream_node():
    report = check(layernorm_after_gain(1000.0), soc="Ascend310P3", numerics=True)
    # inf reaches the variance, the root, the division and the output: only the Pow is reported
    assert [f.location.node for f in report.findings if f.name.startswith("float16-")] == ["square"]


def test_the_same_layernorm_at_a_small_gain_is_clean():
    report = check(layernorm_after_gain(1.0), soc="Ascend310P3", numerics=True)
    assert not [f for f in report.findings if f.name.startswith("float16-")]
    assert report.numerics.ok and report.numerics.keep is None


def test_attention_scores_overflow_in_the_score_matmul():
    report = check(attention_scores(), soc="Ascend910B1", numerics=True)
    (finding,) = overflows(report)
    assert finding.location.node == "scores" and finding.location.op_type == "MatMul"
    assert finding.data["largest"] > 65504
    result = report.numerics
    assert "scores" in result.keep.nodes and result.keep.restored
    assert all(o.ok for o in result.keep.after)
    # the scaled scores are read by a float16 Div: the search keeps it too under force_fp16
    assert result.keep.nodes == ("scores", "scale")


def test_keeping_fewer_nodes_than_the_list_does_not_restore_the_outputs():
    """The keep list is minimal: the simulation without any one of its nodes fails again."""
    from atccheck.precision.analysis import output_errors
    from atccheck.precision.dtypes import assign_dtypes
    from atccheck.precision.simulate import Simulator, float32_value_names

    model = layernorm_after_gain(1000.0)
    report = check(model, soc="Ascend310P3", numerics=True)
    ctx = report.context
    rng = np.random.default_rng(0)
    simulator = Simulator(model, [{"x": rng.standard_normal((1, 8, 64)).astype(np.float32)}])
    reference = simulator.reference()
    float32 = float32_value_names(simulator, reference)
    keep = report.numerics.keep.nodes
    for dropped in keep:
        fewer = [n for n in keep if n != dropped]
        values = simulator.lowered(assign_dtypes(ctx, "force_fp16", fewer, float32), float32)
        assert not all(o.ok for o in output_errors(simulator.output_names, reference, values)), dropped


def test_a_long_reduce_sum_overflows_at_the_sum():
    report = check(long_reduce_sum(), soc="Ascend910B1", numerics=True)
    (finding,) = overflows(report)
    assert finding.location.node == "sum" and finding.location.op_type == "ReduceSum"
    assert 90_000 < finding.data["largest"] < 110_000
    assert report.numerics.keep.nodes == ("sum", "mean") and report.numerics.keep.restored


def test_the_black_list_keeps_the_sum_in_float32_under_mixed_precision():
    """ReduceSum is on Ascend910B's precision_reduce black list: allow_mix_precision leaves it in float32."""
    report = check(long_reduce_sum(), soc="Ascend910B1", precision_mode="allow_mix_precision", numerics=True)
    assert not overflows(report) and report.numerics.ok


def test_nothing_to_keep_under_origin_or_float32_modes():
    for mode in ("must_keep_origin_dtype", "force_fp32"):
        for model in (layernorm_after_gain(1000.0), attention_scores()):
            report = check(model, soc="Ascend910B1", precision_mode=mode, numerics=True)
            assert not [f for f in report.findings if f.name.startswith("float16-")], mode
            assert report.numerics.ok and report.numerics.keep is None


def test_bfloat16_mode_is_offered_where_the_chip_has_it_and_only_there():
    with_bf16 = check(attention_scores(), soc="Ascend910B1", numerics=True).numerics
    without = check(attention_scores(), soc="Ascend310P3", numerics=True).numerics
    assert with_bf16.alternative is not None and with_bf16.alternative.mode == "mixed_bfloat16"
    assert without.alternative is None  # socs.json: Ascend310P has no bfloat16 precision modes


def test_inputs_given_by_the_user_are_simulated(tmp_path):
    """Random N(0,1) inputs keep a gain-10 LayerNorm in range; the user's large sample does not."""
    model = layernorm_after_gain(10.0)
    assert not overflows(check(model, soc="Ascend310P3", numerics=True))
    sample = tmp_path / "sample.npz"
    np.savez(sample, x=np.full((1, 8, 64), 50.0, np.float32) + np.linspace(-40, 40, 64, dtype=np.float32))
    report = check(model, soc="Ascend310P3", numerics=NumericsRequest(inputs=str(sample)))
    assert [f.location.node for f in overflows(report)] == ["square"]
    assert any("--inputs" in label for label in report.numerics.inputs)


def test_unnamed_nodes_are_kept_by_the_names_atc_gives_them():
    report = check(layernorm_after_gain(1000.0, named=False), soc="Ascend310P3", numerics=True)
    # ATC names an unnamed node <OpType>_<k>, k counting the unnamed nodes: Pow is the only Pow
    assert report.numerics.keep.nodes == ("Pow_3", "ReduceMean_4", "Add_5", "Sqrt_6")


def test_plain_check_runs_no_simulation():
    report = check(layernorm_after_gain(1000.0), soc="Ascend310P3")
    assert report.numerics is None and not overflows(report)


def test_precision_mode_v2_names_are_simulated_and_kept_in_the_atc_command():
    report = check(layernorm_after_gain(1000.0), soc="Ascend910B1", precision_mode="fp16", numerics=True)
    found = overflows(report)
    assert [f.location.node for f in found] == ["square"] and "under fp16 on Ascend910B1" in found[0].message
    assert report.numerics is not None and report.numerics.mode == "fp16"
    # fp16 is ATC's default: the command needs no precision flag
    assert report.atc_command is not None and not any("precision_mode" in a for a in report.atc_command.argv)
    report = check(layernorm_after_gain(1000.0), soc="Ascend910B1", precision_mode="origin", numerics=True)
    assert not [f for f in report.findings if f.name.startswith("float16-")]
    assert report.atc_command is not None and "--precision_mode_v2=origin" in report.atc_command.argv
