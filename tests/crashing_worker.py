"""A stand-in for atccheck.batch._worker whose process dies on models named crash*.onnx.

Worker processes import it by name (tests/ is on their sys.path), so a test can prove that a
model killing its worker process is reported and the other models are still checked.
"""

from __future__ import annotations

import os

from atccheck.batch import _worker as real_worker


def worker(model, *args):
    if os.path.basename(model).startswith("crash"):
        os._exit(3)
    return real_worker(model, *args)
