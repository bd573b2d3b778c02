"""The ONNX domains atccheck names, each spelled once.

The default ONNX domain has two spellings, ``""`` and ``"ai.onnx"``; ATC's parser and onnx
treat them as one domain. ``com.microsoft`` holds onnxruntime's contrib ops.
"""

from __future__ import annotations

from collections.abc import Mapping

AI_ONNX = "ai.onnx"
STANDARD_DOMAINS = ("", AI_ONNX)
CONTRIB_DOMAIN = "com.microsoft"


def is_standard(domain: str) -> bool:
    """Whether a node domain is the default ONNX domain (either spelling)."""
    return domain in STANDARD_DOMAINS


def opset_for(imports: Mapping[str, int], domain: str) -> int | None:
    """The model opset a node domain is looked up at: its own entry of ``opset_import`` (by raw
    domain string), else, for the default domain, the entry of its other spelling."""
    if domain in imports:
        return imports[domain]
    if not is_standard(domain):
        return None
    return next((imports[d] for d in STANDARD_DOMAINS if d in imports), None)


def normalize_domain(domain: str) -> str:
    """The parser's spelling of a node domain: the empty domain is ``ai.onnx``."""
    return domain or AI_ONNX
