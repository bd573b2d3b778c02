"""No false errors: atccheck run on the ONNX package's own backend node-test models.

Every model whose standard-domain ops are all registered at the model's opset in the CANN
profile (single opset import, no custom domain) must come out without error-severity
findings, except the (model, rule) pairs listed in TRUE_ERRORS, each backed by a fact.

The models are the installed onnx package's node tests: ``onnx/backend/test/data/node/*/model.onnx``
when the package ships them, else the same models built in memory by
``onnx.backend.test.case.node.collect_testcases`` (wheels leave the data folder out).
"""

from __future__ import annotations

import warnings
from functools import lru_cache
from pathlib import Path

import pytest

from atccheck.engine import Prepared, check_prepared, prepare
from atccheck.model.graph import iter_nodes
from atccheck.tables import tables
from atccheck.target import resolve_target

TARGETS = [("9.0", "Ascend910B3"), ("9.0", "Ascend310P3"), ("8.0", "Ascend910B3"), ("8.0", "Ascend310P3")]
STANDARD = ("", "ai.onnx")

# (model, rule) pairs whose errors are TRUE: each one with the fact that makes ATC reject it.
TRUE_ERRORS = {
    # Published ArgMax/ArgMin pages (9.0): select_last_index supports only 0 (attr_limits.json).
    **{(f"test_{op}_{case}_select_last_index", "attr-out-of-range"): "page: select_last_index only 0"
       for op in ("argmax", "argmin")
       for case in ("no_keepdims_example", "no_keepdims_random", "keepdims_example", "keepdims_random",
                    "default_axis_example", "default_axis_random", "negative_axis_keepdims_example",
                    "negative_axis_keepdims_random")},
    # Published GatherND page: batch_dims must be 0 (attr_limits.json).
    ("test_gathernd_example_int32_batch_dim1", "attr-out-of-range"): "page: GatherND batch_dims only 0",
    # Pow becomes the Ascend op Pow directly; kernels.json (8.1.RC1) lists no uint32/uint64 for its AI Core
    # kernel nor its AI CPU kernel, and the Pow page says Y has X's dtype: no kernel takes the exponent (EZ3003).
    ("test_pow_types_float32_uint32", "dtype-not-supported"): "kernels: Pow takes no uint32 in either engine",
    ("test_pow_types_float32_uint64", "dtype-not-supported"): "kernels: Pow takes no uint64 in either engine",
    # Published Expand page: shape must be a constant; these models feed it from a graph input.
    ("test_expand_dim_changed", "non-constant-input"): "page: Expand shape const_required",
    ("test_expand_dim_unchanged", "non-constant-input"): "page: Expand shape const_required",
    # Published NonMaxSuppression page: max_output_boxes_per_class (and the thresholds) must be constants;
    # the node tests feed them from graph inputs.
    **{(f"test_nonmaxsuppression_{case}", "non-constant-input"): "page: NMS scalar inputs const_required"
       for case in ("suppress_by_IOU", "suppress_by_IOU_and_scores", "flipped_coordinates", "limit_output_size",
                    "single_box", "identical_boxes", "center_point_box_format", "two_classes", "two_batches",
                    "iou_threshold_boundary")},
    # fusion_passes.json NonMaxSuppressionV6Fusion (canndev non_max_suppression_fusion_pass.cc lines 173-177): the
    # V6 -> V7 pass reads max_output_size as a constant and fails (E20007) on these graph-input ones.
    **{(f"test_nonmaxsuppression_{case}", "fusion-pass-failure"): "source: the NMS fusion pass needs a constant max"
       for case in ("suppress_by_IOU", "suppress_by_IOU_and_scores", "flipped_coordinates", "limit_output_size",
                    "single_box", "identical_boxes", "center_point_box_format", "two_classes", "two_batches",
                    "iou_threshold_boundary")},
    # Published PRelu page: slope must be 1-D of length 1 or C (op_facts.json input-shape-required); these
    # models use a [3, 4, 5] slope and a [5] slope on a [3, 4, 5] input (C = 4).
    ("test_prelu_example", "input-shape-not-supported"): "page: PRelu slope 1-D of length 1 or C",
    ("test_prelu_broadcast", "input-shape-not-supported"): "page: PRelu slope 1-D of length 1 or C",
    # Published Gather page: negative index values not supported (op_facts.json negative-indices-rejected). The
    # expanded CenterCropPad gathers axes [-3, -2] from the Shape of a Pad whose sizes come from a graph input,
    # so that Gather runs on the device (the first one, on the static input's Shape, folds and is not reported).
    ("test_center_crop_pad_crop_negative_axes_hwc_expanded", "negative-indices"): "page: Gather no negative indices",
    # The parser's ParseInput takes a graph input's data type from its tensor type only; a sequence or optional
    # input reads as type 0, which the Data parser maps to DT_UNDEFINED and rejects (parser_checks.json
    # tensor-dtype-undefined, E19999 "tensor_proto data type 0 is undefined.").
    **{(name, "graph-parse-problem"): "parser: non-tensor graph input has data type 0"
       for name in ("test_identity_opt", "test_sequence_insert_at_back", "test_sequence_insert_at_front")},
    # The 2026 Clip plugin (opset 11+) refuses a Clip with neither min nor max (plugin_refusals.json
    # 2026/clip/Clip/min-max-inputs); the Col2Im plugin needs dilations, pads and strides spelt out and takes
    # pads of length 2 only (2026/col2imv2/Col2Im/*), which every ONNX Col2Im node test breaks.
    **{(f"test_clip_default_{case}", "plugin-refuses-node"): "plugin: Clip needs min or max"
       for case in ("inbounds", "int8_inbounds")},
    **{(f"test_col2im{case}", "plugin-refuses-node"): "plugin: Col2Im attribute tests"
       for case in ("", "_5d", "_dilations", "_pads", "_strides")},
}


def _node_test_models() -> list[tuple[str, bytes]]:
    import onnx

    folder = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"
    if folder.is_dir():
        return sorted((path.parent.name, path.read_bytes()) for path in folder.glob("*/model.onnx"))
    import numpy as np
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = collect_testcases(None)
    return sorted((case.name, case.model.SerializeToString()) for case in cases if case.model is not None)


@lru_cache(maxsize=1)
def candidate_models() -> tuple[tuple[str, "onnx.ModelProto"], ...]:  # noqa: F821
    """Node-test models with a single standard opset import and standard-domain nodes only."""
    import onnx

    out = []
    for name, blob in _node_test_models():
        model = onnx.load_from_string(blob)
        imports = list(model.opset_import)
        if len(imports) != 1 or imports[0].domain not in STANDARD:
            continue
        if any(g.node.domain not in STANDARD for g in iter_nodes(model.graph)):
            continue
        out.append((name, model))
    return tuple(out)


def registered_everywhere(model, profile: str) -> bool:
    """Every node registered at the model's opset in the profile (native ops within its opset range)."""
    tbl = tables()
    registry = tbl.registry(profile)
    opset = model.opset_import[0].version
    if opset > registry.max_opset():
        return False
    for gnode in iter_nodes(model.graph):
        if gnode.op_type in tbl.native_types:
            continue
        reg = registry.lookup(gnode.domain, gnode.op_type)
        if reg is None or not reg.registered_at(opset):
            return False
    return True


_PREPARED: dict[str, Prepared | None] = {}


def prepared(name: str, model) -> Prepared | None:
    if name not in _PREPARED:
        try:
            _PREPARED[name] = prepare(model)
        except Exception:  # a node test atccheck cannot load is not a false error of a rule
            _PREPARED[name] = None
    return _PREPARED[name]


@pytest.fixture(scope="module")
def models():
    found = candidate_models()
    if not found:
        pytest.skip("missing resource: the onnx package's backend node tests")
    return found


@pytest.mark.parametrize(("cann", "soc"), TARGETS, ids=[f"{c}-{s}" for c, s in TARGETS])
def test_no_unexplained_errors_on_onnx_node_tests(models, cann, soc):
    target = resolve_target(soc, cann)
    checked = 0
    unexplained = []
    for name, model in models:
        if not registered_everywhere(model, cann):
            continue
        prep = prepared(name, model)
        if prep is None:
            continue
        checked += 1
        for finding in check_prepared(prep, target).findings:
            if finding.severity.value == "error" and (name, finding.name) not in TRUE_ERRORS:
                unexplained.append(f"{name} [{finding.name}] {finding.message}")
    assert checked > 100, f"only {checked} node-test models are registered for CANN {cann}"
    header = f"{len(unexplained)} errors without a fact on {soc}, CANN {cann}:\n"
    assert not unexplained, header + "\n".join(unexplained)


def test_every_allow_listed_error_still_fires(models):
    """An allow-list entry whose error no longer fires anywhere is stale: the pair must be removed."""
    fired = set()
    wanted = {name for name, _ in TRUE_ERRORS}
    for name, model in models:
        if name not in wanted:
            continue
        for cann, soc in TARGETS:
            if not registered_everywhere(model, cann):
                continue
            prep = prepared(name, model)
            if prep is None:
                continue
            fired |= {(name, f.name) for f in check_prepared(prep, resolve_target(soc, cann)).findings
                      if f.severity.value == "error"}
    present = {name for name, _ in models}
    stale = sorted(pair for pair in TRUE_ERRORS if pair[0] in present and pair not in fired)
    assert not stale, f"allow-listed errors that no longer fire: {stale}"
