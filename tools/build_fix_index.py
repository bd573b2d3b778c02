#!/usr/bin/env python3
"""Write ``atccheck/fix_index.py`` (the fix index) from the passes' ``answers``.

Usage::

    python tools/build_fix_index.py [--check]

Each pass declares the findings it answers; the check engine reads the generated index to
give every finding its fix, so that checking a model does not import every pass module.
``--check`` writes nothing and exits 1 when the committed index differs (the test suite runs
the same comparison). Run it after adding a pass or changing a pass's ``answers`` or ``safe``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from atccheck.fixlinks import index_text  # noqa: E402
from atccheck.passes import all_passes  # noqa: E402

INDEX = PROJECT / "atccheck" / "fix_index.py"


def build_index() -> str:
    return index_text(all_passes())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed index is stale")
    args = parser.parse_args(argv)
    text = build_index()
    current = INDEX.read_text(encoding="utf-8") if INDEX.exists() else ""
    if args.check:
        if current != text:
            print(f"{INDEX.relative_to(PROJECT)} is stale: run python tools/build_fix_index.py", file=sys.stderr)
            return 1
        return 0
    if current != text:
        INDEX.write_text(text, encoding="utf-8")
        print(f"wrote {INDEX.relative_to(PROJECT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
