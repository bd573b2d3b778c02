"""Errors the library raises for bad input; the CLI turns each into one line and exit code 2."""

from __future__ import annotations


class AtcCheckError(Exception):
    """Base of every error atccheck raises on purpose."""


class UsageError(AtcCheckError):
    """An option value atccheck cannot use (unknown SoC, malformed --input-shape, ...)."""


class InputError(AtcCheckError):
    """A model file atccheck cannot read: missing, empty, truncated, not ONNX, unsafe paths."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def one_line(exc: BaseException) -> str:
    """An exception's first line (its type when it has no text), at most 400 characters."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first if len(first) <= 400 else first[:397] + "..."
