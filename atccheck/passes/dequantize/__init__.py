"""dequantize (unsafe): turn a quantized model (QDQ or QOperator) back into a float model.

The package: ``ops`` (which quantized ops it knows), ``walk`` (the walk over the nodes, the float value each
integer value stands for, and the nodes it emits), one mixin of handlers per family of quantized ops (``qdq``,
``qoperator``, ``dynamic``), ``nodes`` (small graph helpers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes.base import Cosine, FixLink, FixPass, PassContext, PassResult, register_pass
from atccheck.passes.dequantize.dynamic import DynamicOps
from atccheck.passes.dequantize.ops import DEQUANTIZE, ELEMENTWISE, HANDLED, MOVERS, NOT_HANDLED, QUANTIZE
from atccheck.passes.dequantize.qdq import QdqOps
from atccheck.passes.dequantize.qoperator import QOperatorOps

if TYPE_CHECKING:  # pragma: no cover
    import onnx

__all__ = ["DEQUANTIZE", "ELEMENTWISE", "HANDLED", "MOVERS", "NOT_HANDLED", "QUANTIZE", "Dequantize"]


class Dequantizer(QdqOps, QOperatorOps, DynamicOps):
    """One run of the walk, with every family's handlers."""


@register_pass
class Dequantize(FixPass):
    """Rewrite a quantized model into the float model it approximates.

    ATC's ONNX parser registers none of the quantization ops (QuantizeLinear, DequantizeLinear,
    DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearConv, QLinearMatMul) nor the
    ``com.microsoft`` ops onnxruntime's quantizer writes; a model for Ascend is quantized with
    AMCT instead. This pass gives the float model back, to convert as is or to quantize again
    with AMCT:

    - DequantizeLinear of a constant (weights, biases) becomes a float initializer, also through
      Gather/Transpose/Reshape-style ops between the two (an int8 embedding table).
    - QuantizeLinear -> DequantizeLinear pairs on activations are dropped (the float value flows
      on), also across ops that only move elements (Reshape, Transpose, MaxPool, ...).
    - QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearMul, QLinearSigmoid,
      QLinearLeakyRelu, QLinearConcat, QLinearGlobalAveragePool, QLinearAveragePool (NCHW),
      QLinearSoftmax, QLinearReduceMean and QLinearWhere become Conv, MatMul, Gemm, Add, ...
      on float values; int32 biases are scaled into float. QAttention becomes the float
      ``com.microsoft`` Attention (which a decompose pass rewrites into standard ops).
    - DynamicQuantizeLinear -> MatMulInteger/ConvInteger -> Cast -> Mul (onnxruntime's dynamic
      quantization) becomes MatMul/Conv on the float input with dequantized weights; an int32
      bias Add between the integer op and the Cast (SparseML's exporter, onnxruntime's early
      quantizer) becomes an Add of the float bias after it;
      DynamicQuantizeMatMul, MatMulIntegerToFloat and DynamicQuantizeLSTM become MatMul(+Add)
      and LSTM.
    - A DequantizeLinear of a run-time integer tensor (an int8 graph input) becomes exact float
      arithmetic: ``(Cast(x) - zero_point) * scale``.

    Unsafe: the result drops the rounding and saturation of every quantized activation, so its
    outputs differ from the quantized model by the quantization error; the step is accepted
    when each output keeps a cosine similarity of at least 0.99 with the quantized model's (see
    docs/fix.md). Left with a note: QLinearConvTranspose, QEmbedLayerNormalization, MatMulNBits,
    channels-last pools, a QLinearSoftmax whose axis changed meaning between opsets, ops inside
    subgraphs, MatMulInteger/ConvInteger whose scales are not found in the Cast -> Mul pattern.
    """

    name = "dequantize"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "QuantizeLinear"),
        FixLink("unsupported-op", "DequantizeLinear"),
        FixLink("unsupported-op", "DynamicQuantizeLinear"),
        FixLink("unsupported-op", "MatMulInteger"),
        FixLink("unsupported-op", "ConvInteger"),
        FixLink("unsupported-op", "QLinearConv"),
        FixLink("unsupported-op", "QLinearMatMul"),
        *FixLink.replaces("QuantizeLinear"),
        *FixLink.replaces("DequantizeLinear"),
        *FixLink.replaces("QLinearAdd"),
        *FixLink.replaces("QLinearMul"),
        *FixLink.replaces("QLinearSigmoid"),
        *FixLink.replaces("QLinearLeakyRelu"),
        *FixLink.replaces("QLinearConcat"),
        *FixLink.replaces("QLinearGlobalAveragePool"),
        *FixLink.replaces("QLinearAveragePool"),
        *FixLink.replaces("QGemm"),
        *FixLink.replaces("DynamicQuantizeMatMul"),
        *FixLink.replaces("MatMulIntegerToFloat"),
        *FixLink.replaces("DynamicQuantizeLSTM"),
        *FixLink.replaces("QLinearSoftmax"),
        *FixLink.replaces("QLinearReduceMean"),
        *FixLink.replaces("QLinearWhere"),
        *FixLink.replaces("QAttention"),
        # it also runs for these rules' findings on any op it handles
        *(FixLink(rule, op, named=False) for rule in ("unsupported-op", "custom-domain-op", "opset-not-registered",
                                                      "dtype-not-supported") for op in sorted(HANDLED)),
    )
    safe = False
    comparison = Cosine(0.99)  # judged by each output's cosine similarity, not elementwise

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        work = Dequantizer(model)
        work.rewrite()
        if not work.changed:
            return PassResult(model, False, work.notes)
        notes = ["the result is a float model: quantize it again for Ascend with AMCT (Huawei's quantization "
                 "tool); the int8 ops of this model are not kept"]
        notes.append("rewritten into float ops: " + ", ".join(f"{op} x{n}" for op, n in sorted(work.counts.items())))
        return PassResult(model, True, notes + work.notes)
