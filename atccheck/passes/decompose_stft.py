"""decompose-stft: STFT (opset 17) into a strided Conv with a windowed DFT basis."""

from __future__ import annotations

from typing import ClassVar

from atccheck.passes._rewrite import Decomposition, Emitter, Rewriter, Site, np_dtype
from atccheck.passes.base import register_pass

SIGNAL, FRAME_STEP, WINDOW, FRAME_LENGTH = range(4)
MAX_BASIS_ELEMENTS = 1 << 24  # the constant weight written: 2 * bins * channels * frame_length values


@register_pass
class DecomposeStft(Decomposition):
    """Rewrite STFT as one 1-D Conv whose filters are the windowed DFT basis.

    No CANN profile registers STFT (nor DFT). Frame t, bin k of the ONNX STFT is
    ``sum_n w[n] x[t * step + n] e^(-2 pi i k n / N)``: a convolution of the signal with
    stride ``frame_step`` and one filter per bin and part, ``w[n] cos(2 pi k n / N)`` (real)
    and ``-w[n] sin(2 pi k n / N)`` (imaginary). The signal [B, L, 1] (real) or [B, L, 2]
    (complex: two input channels, the basis of a complex product) is transposed to
    [B, channels, L]; the Conv gives [B, 2 * bins, frames], reshaped and transposed to the
    STFT layout [B, frames, bins, 2]. ``onesided`` 1 keeps bins 0..N/2. ``frame_step``,
    ``frame_length`` and ``window`` must be constants (the basis is a constant; no window
    means a rectangular one); N comes from ``frame_length``, else the window length. The
    kernel is N long: split-large-kernel-conv then cuts kernels above 255. Exact up to
    float rounding. The tolerance (5e-3 absolute + 1e-3 relative) is onnxruntime's own
    error: on a 400-sample Hann frame of N(0, 1) input its STFT is 9.8e-4 off a float64
    reference, this Conv 1.4e-5.
    """

    name = "decompose-stft"
    stage = "decompose"
    fixes: ClassVar[frozenset[str]] = frozenset({"unsupported-op", "opset-not-registered"})
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
        if info is None or info.shape is None or len(info.shape) != 3 or info.shape[-1] not in (1, 2):
            return "the signal must be [batch, length, 1 or 2] with its last axis known"
        channels = int(info.shape[-1])
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
        em = Emitter(rw, site)
        basis = em.const(dft_basis(window, bins, channels).astype(np_dtype(elem)), "dft_basis")
        frames = em.op("Conv", [em.transpose(signal, [0, 2, 1]), basis], kernel_shape=[length],
                       strides=[int(np.asarray(step).reshape(-1)[0])])
        parts = em.reshape(frames, [0, 2, bins, -1])  # B, (real, imag), bins, frames
        em.transpose(parts, [0, 3, 2, 1], out=site.output(0))
        return em


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
