"""The command examples in README.md and docs/ are what the commands print (tools/build_doc_examples.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def load_generator():
    spec = importlib.util.spec_from_file_location("build_doc_examples", PROJECT / "tools" / "build_doc_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_stale_example_is_rewritten():
    generator = load_generator()
    text = (
        "intro\n<!-- example: atccheck check models/convnet_clean.onnx --soc Ascend310P3 -->\n```\nold output\n```\nafter\n"
    )
    new = generator.rendered(text)
    assert "old output" not in new and new.startswith("intro\n") and new.endswith("```\nafter\n")
    assert "$ atccheck check models/convnet_clean.onnx --soc Ascend310P3\nmodels/convnet_clean.onnx: Ascend310P3" in new
    assert generator.rendered(new) == new
    assert any(p == PROJECT / "README.md" for p in generator.documents())
