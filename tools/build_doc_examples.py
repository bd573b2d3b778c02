#!/usr/bin/env python3
"""Rewrite the command examples in README.md and docs/*.md from what the commands print now.

Usage::

    python tools/build_doc_examples.py [--check]

An example is a marker line followed by a fenced block::

    <!-- example: atccheck check models/convnet_clean.onnx --soc Ascend310P3 -->
    ```
    $ atccheck check models/convnet_clean.onnx --soc Ascend310P3
    ...what it prints...
    ```

The command runs in-process from the project folder (standard output only, no colour) and the
block is replaced with its output; a ``json`` block holds the output alone, any other block the
command line and then the output. ``--check`` writes nothing and exits 1 when an example is
stale (the test suite runs the same comparison), so a doc example cannot drift from the code.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

MARKER = re.compile(r"^<!-- example: (atccheck .+?) -->\n```(\w*)\n.*?^```$", re.MULTILINE | re.DOTALL)


def documents() -> list[Path]:
    return [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]


def run(command: str) -> str:
    """What ``command`` (an atccheck command line) prints on standard output, run from PROJECT."""
    import os

    from click.testing import CliRunner

    from atccheck.cli.main import main

    argv = shlex.split(command)[1:]
    cwd = os.getcwd()
    os.chdir(PROJECT)
    try:
        result = CliRunner().invoke(main, argv, color=False)
    finally:
        os.chdir(cwd)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise RuntimeError(f"{command}: {result.exception!r}")
    return result.stdout


def rendered(text: str) -> str:
    """TEXT with every example block replaced by what its command prints now."""

    def block(match: re.Match[str]) -> str:
        command, lang = match.group(1), match.group(2)
        output = run(command).rstrip("\n")
        body = output if lang == "json" else f"$ {command}\n{output}"
        return f"<!-- example: {command} -->\n```{lang}\n{body}\n```"

    return MARKER.sub(block, text)


def stale() -> list[str]:
    """The documents whose examples differ from what the commands print."""
    return [str(p.relative_to(PROJECT)) for p in documents() if rendered(p.read_text(encoding="utf-8")) != p.read_text(encoding="utf-8")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when an example is stale")
    args = parser.parse_args(argv)
    if args.check:
        names = stale()
        for name in names:
            print(f"stale examples: {name}")
        return 1 if names else 0
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new = rendered(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote {path.relative_to(PROJECT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
