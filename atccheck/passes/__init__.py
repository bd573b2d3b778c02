"""The fix passes: one pass per module in this package.

Each pass rewrites a model for one kind of finding and documents itself in its docstring;
``docs/passes.md`` is made from these docstrings and the passes' declarations by
``tools/regen.py``. The page opens with the text below.

## What they have in common

- **When.** A decomposition rewrites a node only when the target profile does not register
  its op at the model's opset (`op_tables/registry.json`), or when a finding names the pass
  as its fix for that node. A node the profile handles is left alone, so running a pass on
  a clean model changes nothing.
- **How.** New ops are written the way the model's opset wants them: ReduceMean `axes` as an
  attribute below opset 18 and as an input from 18, ReduceSum/Squeeze/Unsqueeze from 13,
  Clip bounds as inputs from 11, Slice arguments as inputs from 10, Pad from 11. Constants
  are initializers of the node's own graph, in the input's float type. Nodes inside
  subgraphs (If branches, Loop bodies) are rewritten too, innermost graphs first.
- **Refusals.** What a pass cannot do exactly it leaves untouched, with a note in the
  report (`PassResult.notes`) saying why; a refused node is never half rewritten.
- **Exactness.** "Exact" means the same formula, so outputs differ by float rounding only.
  The pipeline accepts a step when its outputs pass the comparison the pass declares
  (`comparison`: by default every output element within `tolerance + rtol * |old|` of the
  model before it). Float16 models differ from onnxruntime's fused float16 kernels
  (which compute in float32) by a few float16 ulps.
- **Order.** Decompositions are stage `decompose`, the kernel splits stage `split-kernels`,
  after `convert-opset`. Ops with no earlier ONNX version (Gelu-20, Mish-18, HardSwish-14,
  LayerNormalization-17, GroupNormalization-18) keep `convert-opset` from lowering the opset
  until they are decomposed; the fixer runs passes again in a later round for that.

## onnxruntime contrib ops (com.microsoft)

`decompose-contrib-fast-gelu`, `decompose-contrib-bias-gelu`,
`decompose-contrib-quick-gelu`, `decompose-contrib-skip-layer-normalization` rewrite
`com.microsoft` ops that exporters and onnxruntime's optimizer leave in models. No profile
registers that domain, and its opset import alone breaks every standard node (E16005).
Semantics and defaults are those of the schemas onnxruntime 1.32 registers.

SkipLayerNormalization is left with a note when its `mean` or `inv_std_var` output is
read. Each pass removes the `com.microsoft` opset import itself once no node uses it:
`single-opset-import` runs before the decompositions, while the contrib nodes still hold it.
Exact.

onnx's shape inference knows no com.microsoft schema, so in a model onnxruntime optimized,
every value past the first fused op has no type, and a pass that needs its input's
element type would wait one fixer round per layer. Before rewriting, the passes fill in
the outputs of the ops they know from their schemas' type and shape rules
(`passes/_contrib_shapes.py`) and let onnx inference carry them through the standard ops
that follow, layer by layer on a weight-free copy; one run of each pass then rewrites
every layer.

## What onnxruntime's optimizer writes

A model saved by onnxruntime with `graph_optimization_level` "extended" (or "all") and
`optimized_model_filepath` carries fused ops of its own. These passes take them back to
standard ops; their tests build a small standard model, let onnxruntime fuse it, and compare
the rewrite with onnxruntime's fused kernel on seeded random inputs.

GemmFastGelu, BiasAdd and BiasSplitGelu are written by onnxruntime's GPU optimizations
(diffusion and BERT models optimized for CUDA); onnxruntime's CPU provider has no kernel
for them, so their tests compare the rewrite with the standard graph each stands for, and
on a real model `fix` applies them "unverified" (the original does not run in onnxruntime
on CPU; the report says so and `onnx.checker` still checks every step).

Attention masks: a raw [B, S] or [B, S, S] mask keeps positions whose value is above 0; a
[B] vector of valid lengths keeps key positions below it (right padding); `unidirectional`
keeps keys at or before the query. Masked scores get `mask_filter_value` added once,
whichever masks they, as onnxruntime's CPU kernel does. Left with a note: `past` state, a
`present` output that is read, `past_sequence_length`, `do_rotary`, a [2B] (left padding)
or 4-D mask, packed weights of unknown shape. Valid lengths and `unidirectional` need a
static sequence length. Tolerance 1e-4 (summation order).

Not handled: the `com.microsoft.nchwc` layout ops onnxruntime writes at level "all" for
its CPU kernels (blocked NCHWc layout, sized for the CPU that saved the model; the
custom-domain-op finding on them says to save the model at level "extended" instead), the
GPU-only BiasSoftmax and NhwcConv, and GroupQueryAttention (a decoder step with a KV cache).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from atccheck.passes.base import FixPass, PassContext, PassResult, register_pass, registered_passes

__all__ = ["FixPass", "PassContext", "PassResult", "all_passes", "register_pass"]


@lru_cache(maxsize=1)
def all_passes() -> tuple[type[FixPass], ...]:
    """Every pass class in pipeline order (modules are imported on first call)."""
    for info in pkgutil.iter_modules(__path__):
        if info.name != "base" and not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    return tuple(registered_passes().values())
