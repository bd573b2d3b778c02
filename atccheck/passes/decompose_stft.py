"""decompose-stft: STFT (opset 17) into a strided Conv with a windowed DFT basis."""

from __future__ import annotations

import math
from typing import ClassVar

from atccheck.passes._graph import np_dtype
from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site
from atccheck.passes.base import FixLink, register_pass

SIGNAL, FRAME_STEP, WINDOW, FRAME_LENGTH = range(4)
MAX_BASIS_ELEMENTS = 1 << 24  # the constant weight written: 2 * bins * channels * frame_length values
MAX_FRAME_SLICES = 64  # frames built from at most this many Slices (frame_length / gcd(frame_length, frame_step))


@register_pass
class DecomposeStft(Decomposition):
    """Rewrite STFT as a MatMul of the framed signal by a windowed DFT basis (or one strided Conv).

    No CANN profile registers STFT (nor DFT). Frame t, bin k of the ONNX STFT is
    ``sum_n w[n] x[t * step + n] e^(-2 pi i k n / N)``: the frames times a constant basis
    whose columns are ``w[n] cos(2 pi k n / N)`` (real parts) and ``-w[n] sin(2 pi k n / N)``
    (imaginary parts). With a static signal length the frames are cut without a strided
    window: the signal is reshaped into chunks of gcd(N, step) samples and each frame is the
    Concat of N / gcd chunk Slices (step on the chunk axis, never on the last axis; at most
    64), then one MatMul [B, T, N] x [N, 2 bins] and a Reshape/Transpose to STFT's
    [B, frames, bins, 2]. Otherwise (dynamic length, or more Slices) one 1-D Conv with stride
    ``step`` and the basis as its [2 bins, channels, N] filters, whose kernel
    split-large-kernel-conv cuts when N > 255 (and whose stride above 63 compiles through a
    slow path). A complex signal [B, L, 2] has the basis of a complex product. ``onesided`` 1
    keeps bins 0..N/2. A [B, L] signal (what torch exports; onnxruntime reads it as real) is
    taken as [B, L, 1]. ``frame_step``, ``frame_length`` and ``window`` must be constants (no
    window: rectangular); N comes from ``frame_length``, else the window length. Exact up to
    float rounding. The tolerance (5e-3 absolute + 1e-3 relative) is onnxruntime's own
    error: on a 400-sample Hann frame of N(0, 1) input its STFT is 9.8e-4 off a float64
    reference, this rewrite 1.3e-5 (the Conv form 1.4e-5).
    """

    name = "decompose-stft"
    stage = "decompose"
    answers = (
        FixLink("unsupported-op", "STFT"),
        FixLink("opset-not-registered", "STFT", named=False),
    )
    op_types: ClassVar[frozenset[str] | None] = frozenset({"STFT"})
    safe = True
    tolerance = 5e-3
    rtol = 1e-3
    counted = "STFT node(s)"

    def rewrite(self, rw: Rewriter, site: Site) -> Emitter | str:
        import numpy as np

        signal = site.input(SIGNAL)
        elem = rw.float_type(signal)
        info = rw.info(signal)
        if info is None or info.shape is None or not (len(info.shape) == 2 or (len(info.shape) == 3 and
                                                                              info.shape[-1] in (1, 2))):
            return "the signal must be [batch, length] or [batch, length, 1 or 2] with its rank known"
        last = info.shape[-1]
        if len(info.shape) == 3:
            assert isinstance(last, int)  # checked above: 1 or 2
            channels = int(last)
        else:
            channels = 1  # [batch, length]: real, as onnxruntime reads it
        step = rw.const_value(site.input(FRAME_STEP))
        if step is None:
            return "frame_step is computed at run time"
        window = None
        if site.input(WINDOW):
            window = rw.const_value(site.input(WINDOW), limit=MAX_BASIS_ELEMENTS)
            if window is None:
                return "the window is computed at run time (a constant is needed for the basis)"
            window = np.asarray(window, dtype=np.float64).reshape(-1)
        length = None
        if site.input(FRAME_LENGTH):
            value = rw.const_value(site.input(FRAME_LENGTH))
            if value is None:
                return "frame_length is computed at run time"
            length = int(np.asarray(value).reshape(-1)[0])
        if length is None:
            if window is None:
                return "neither frame_length nor a window gives the frame length"
            length = window.size
        if window is None:
            window = np.ones(length)
        if window.size != length or length <= 0:
            return f"a window of {window.size} values for frames of {length}"
        onesided = bool(site.attr("onesided", 1))
        bins = length // 2 + 1 if onesided else length
        if 2 * bins * channels * length > MAX_BASIS_ELEMENTS:
            return f"the DFT basis would hold {2 * bins * channels * length} values"
        hop = int(np.asarray(step).reshape(-1)[0])
        if hop <= 0:
            return f"frame_step {hop}"
        filters = dft_basis(window, bins, channels)
        em = Emitter(rw, site)
        samples = info.shape[1]
        chunk = math.gcd(length, hop)
        if isinstance(samples, int) and samples >= length and length // chunk <= MAX_FRAME_SLICES:
            frames = frame_signal(em, signal, samples, length, hop, channels)  # B, T, N * channels
            # rows n * channels + c of the [N * channels, 2 * bins] basis: the Conv filters' (n, c) entries
            basis = filters.transpose(2, 1, 0).reshape(length * channels, 2 * bins)
            product = em.op("MatMul", [frames, em.const(basis.astype(np_dtype(elem)), "dft_basis")])
            parts = em.reshape(product, [0, 0, 2, bins])  # B, T, (real, imag), bins
            em.transpose(parts, [0, 1, 3, 2], out=site.output(0))
            return em
        basis = em.const(filters.astype(np_dtype(elem)), "dft_basis")
        planar = em.transpose(signal, [0, 2, 1]) if len(info.shape) == 3 else em.unsqueeze(signal, [1])
        frames = em.op("Conv", [planar, basis], kernel_shape=[length], strides=[hop])
        parts = em.reshape(frames, [0, 2, bins, -1])  # B, (real, imag), bins, frames
        em.transpose(parts, [0, 3, 2, 1], out=site.output(0))
        return em


def frame_signal(em: Emitter, signal: str, samples: int, length: int, hop: int, channels: int) -> str:
    """The frames of a [B, L, channels] signal as [B, T, length * channels], without a strided
    window: the signal is cut into chunks of g = gcd(length, hop) samples ([B, chunks, g *
    channels]); frame t is chunks t*b .. t*b + a - 1 (a = length / g, b = hop / g), so the
    frames are the Concat of ``a`` Slices of the chunk axis, each with step b."""
    count = 1 + (samples - length) // hop
    chunk = math.gcd(length, hop)
    per_frame, per_hop = length // chunk, hop // chunk
    chunks = (count - 1) * per_hop + per_frame
    cut = em.slice(signal, [0], [chunks * chunk], [1]) if chunks * chunk < samples else signal
    grouped = em.reshape(cut, [0, chunks, chunk * channels])
    pieces = []
    for j in range(per_frame):
        if per_hop == 1 and per_frame == 1:
            pieces.append(grouped)
            continue
        args = [em.ints([j], "starts"), em.ints([j + (count - 1) * per_hop + 1], "ends"), em.ints([1], "axes"),
                em.ints([per_hop], "steps")]
        pieces.append(em.op("Slice", [grouped, *args]))
    return pieces[0] if len(pieces) == 1 else em.op("Concat", pieces, axis=-1)


def dft_basis(window, bins: int, channels: int):
    """Conv filters [2 * bins, channels, N]: the real parts of bins 0..bins-1, then the imaginary.

    A real signal (1 channel): real ``w cos``, imaginary ``-w sin``. A complex one (channels
    re, im): real ``(w cos, w sin)``, imaginary ``(-w sin, w cos)``.
    """
    import numpy as np

    n = np.arange(window.size)
    angle = 2.0 * np.pi * np.outer(np.arange(bins), n) / window.size
    cos, sin = np.cos(angle) * window, np.sin(angle) * window
    if channels == 1:
        return np.concatenate([cos, -sin])[:, None, :]
    real = np.stack([cos, sin], axis=1)
    imag = np.stack([-sin, cos], axis=1)
    return np.concatenate([real, imag])
