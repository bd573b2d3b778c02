"""How constant folding's cost grows with a model's depth, beside ``onnx.load`` of the same file.

    python bench/bench_folding.py [--repeats 5] [--depths 4,12,24,48] [--only synthetic,bert,same-padding]
                                  [--source DIR]

Folding (``atccheck/model/folding.py``) runs to a fixed point: each block of a transformer whose
reshapes are computed from the Shape of the block before needs the block before to be static
first. The worklist makes that one pass over the graph plus the nodes each new value reaches,
so its time should grow with the node count, like ``onnx.load``, not with depth times size.

Sections, each printed as a table, one row per depth:

1. ``synthetic``: ``tests/builders.deep_heads_model(depth)``, 19 nodes per block of
   Shape -> Gather -> Div -> Unsqueeze -> Concat -> Reshape -> Transpose and back, which ONNX
   data propagation cannot follow past the Div: without folding every block waits for the one
   before.
2. ``bert``: ``transformers`` BertModel (hidden 64, 4 heads, ffn 128) with ``depth`` layers,
   random weights, exported by torch's legacy exporter at opset 14 with dynamic batch and
   sequence, checked at ``input_ids:1,32;attention_mask:1,32`` (needs torch and transformers:
   ``pip install torch==2.13.0`` and the ``bench`` extra).
3. ``same-padding``: a stack of timm-style "same"-padding convolutions written in plain PyTorch
   (the pad computed from the input's size and clamped at 0, as timm's ``pad_same`` does),
   exported at opsets 11 to 17 with dynamic height and width and checked at a static size:
   the findings of hand-fixed-pattern (AC311) and dtype-not-supported (AC304) on CANN 6.0.

Per row: nodes; ``onnx.load`` (whole file, in process); ``prepare`` (atccheck's load, shape
inference and folding); folding alone (``fold_shapes`` on a fresh inference); folding / load;
whole-graph inferences (``rounds``), single-node inferences, evaluated nodes; and the share of
node outputs with a static shape. ``--source DIR`` runs the same against another atccheck tree
(``git archive COMMIT atccheck | tar -x -C DIR`` and ``git archive COMMIT op_tables | tar -x -C DIR/atccheck``), to set the
figures before a change beside those after it. Models go to bench/out/folding/ (git-ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out" / "folding"
SEQ = 32


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --------------------------------------------------------------------------- models


def synthetic(depth: int) -> Path:
    import onnx

    sys.path.insert(0, str(REPO / "tests"))
    from builders import deep_heads_model

    path = OUT / f"synthetic_{depth}.onnx"
    if not path.exists():
        onnx.save(deep_heads_model(depth), str(path))
    return path


def bert(depth: int) -> Path:
    path = OUT / f"bert_{depth}.onnx"
    if path.exists():
        return path
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=depth, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=128)
    model = BertModel(config, add_pooling_layer=False).eval()

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids, mask):
            return self.model(input_ids=ids, attention_mask=mask).last_hidden_state

    ids = torch.randint(0, 1000, (1, SEQ))
    mask = torch.ones(1, SEQ, dtype=torch.long)
    dynamic = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
    with _quiet(), torch.no_grad():
        torch.onnx.export(Wrapped(), (ids, mask), str(path), opset_version=14, dynamo=False,
                          input_names=["input_ids", "attention_mask"], output_names=["hidden"],
                          dynamic_axes=dynamic, do_constant_folding=True)
    return path


def same_padding(opset: int, layers: int = 4) -> Path:
    """timm's Conv2dSame in plain PyTorch: the pad of each axis from the input's size, clamped at 0."""
    path = OUT / f"same_padding_op{opset}.onnx"
    if path.exists():
        return path
    import torch
    import torch.nn.functional as F

    def get_same_padding(x, kernel: int, stride: int, dilation: int):
        if isinstance(x, torch.Tensor):
            return torch.clamp(((x / stride).ceil() - 1) * stride + (kernel - 1) * dilation + 1 - x, min=0)
        return max((-(-x // stride) - 1) * stride + (kernel - 1) * dilation + 1 - x, 0)

    class Conv2dSame(torch.nn.Conv2d):
        def forward(self, x):
            ih, iw = x.size()[-2:]
            pad_h = get_same_padding(ih, self.kernel_size[0], self.stride[0], self.dilation[0])
            pad_w = get_same_padding(iw, self.kernel_size[1], self.stride[1], self.dilation[1])
            x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
            return F.conv2d(x, self.weight, self.bias, self.stride, (0, 0), self.dilation, self.groups)

    torch.manual_seed(0)
    blocks = []
    channels = 3
    for _ in range(layers):
        blocks += [Conv2dSame(channels, 8, 3, stride=2), torch.nn.ReLU()]
        channels = 8
    net = torch.nn.Sequential(*blocks).eval()
    with _quiet(), torch.no_grad():
        torch.onnx.export(net, (torch.randn(1, 3, 65, 65),), str(path), opset_version=opset, dynamo=False,
                          input_names=["x"], output_names=["y"], dynamic_axes={"x": {2: "h", 3: "w"}})
    return path


def _quiet():
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
    return stack


# --------------------------------------------------------------------------- measures


def depth_rows(label: str, make, depths: list[int], shapes: str, repeats: int) -> None:
    import onnx

    from atccheck.engine import as_input_shapes, prepare
    from atccheck.model.folding import fold_shapes
    from atccheck.model.graph import GraphIndex
    from atccheck.model.loading import load_model
    from atccheck.model.shapes import infer_shapes

    print(f"\n{label}: input shape {shapes}, median of {repeats}")
    print(f"{'depth':>5} {'nodes':>6} {'onnx.load':>10} {'prepare':>9} {'folding':>9} {'fold/load':>9} "
          f"{'rounds':>6} {'node-inf':>8} {'evals':>6} {'static':>7}")
    given = as_input_shapes(shapes)
    for depth in depths:
        try:
            path = make(depth)
        except ImportError as exc:
            print(f"{depth:>5} skipped: {exc}")
            continue
        load = median_time(lambda p=path: onnx.load(str(p)), repeats)
        prep = median_time(lambda p=path: prepare(str(p), shapes), repeats)
        loaded = load_model(str(path), weights=False)
        graph = GraphIndex(loaded.model)
        inferred = infer_shapes(loaded.model, given)
        fold = median_time(lambda m=loaded.model, s=inferred, g=graph: fold_shapes(m, s, given, g), repeats)
        folded = fold_shapes(loaded.model, inferred, given, graph)
        outputs = [o for n in loaded.model.graph.node for o in n.output if o]
        static = sum(1 for o in outputs if (i := folded.shapes.get(o)) is not None and i.is_static) / len(outputs)
        print(f"{depth:>5} {len(loaded.model.graph.node):>6} {load * 1e3:>8.1f}ms {prep * 1e3:>7.1f}ms "
              f"{fold * 1e3:>7.1f}ms {fold / load:>9.2f} {folded.rounds:>6} "
              f"{getattr(folded, 'node_inferences', '-'):>8} {getattr(folded, 'evaluations', '-'):>6} "
              f"{static:>7.0%}")


def same_padding_rows(opsets: list[int]) -> None:
    from atccheck.api import check

    print("\nsame-padding: 4 timm-style Conv2dSame layers, dynamic H/W exported, checked at x:1,3,65,65, CANN 6.0")
    print(f"{'opset':>5} {'nodes':>6} {'Clip':>5} {'AC311':>6} {'AC304 warn':>10} {'AC304 info':>10} {'AC202':>6}")
    for opset in opsets:
        try:
            path = same_padding(opset)
        except ImportError as exc:
            print(f"{opset:>5} skipped: {exc}")
            continue
        import onnx

        model = onnx.load(str(path))
        clips = sum(1 for n in model.graph.node if n.op_type == "Clip")
        report = check(str(path), "Ascend310", "6.0", input_shapes="x:1,3,65,65")
        seen = [(f.code, f.severity.value) for f in report.findings]
        print(f"{opset:>5} {len(model.graph.node):>6} {clips:>5} {sum(c == 'AC311' for c, _ in seen):>6} "
              f"{seen.count(('AC304', 'warning')):>10} {seen.count(('AC304', 'info')):>10} "
              f"{sum(c == 'AC202' for c, _ in seen):>6}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--depths", default="4,12,24,48")
    parser.add_argument("--only", default="synthetic,bert,same-padding")
    parser.add_argument("--source", type=Path, help="an atccheck source tree to measure instead of this one")
    args = parser.parse_args(argv)
    if args.source:
        sys.path.insert(0, str(args.source.resolve()))
    OUT.mkdir(parents=True, exist_ok=True)
    import atccheck

    print(f"atccheck from {Path(atccheck.__file__).parent}")
    depths = [int(d) for d in args.depths.split(",")]
    only = set(args.only.split(","))
    if "synthetic" in only:
        depth_rows("synthetic (deep_heads_model)", synthetic, depths, "x:1,8,64", args.repeats)
    if "bert" in only:
        depth_rows("bert (transformers BertModel, legacy export, opset 14)", bert, depths,
                   f"input_ids:1,{SEQ};attention_mask:1,{SEQ}", args.repeats)
    if "same-padding" in only:
        same_padding_rows([11, 12, 13, 14, 15, 16, 17])
    return 0


if __name__ == "__main__":
    sys.exit(main())
