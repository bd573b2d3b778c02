#!/usr/bin/env python3
"""Write ``atccheck/fixing/index.py`` (the fix catalogue) from the passes' ``suggested_for``.

Usage::

    python tools/build_fix_index.py [--check]

Each pass declares which findings it is the suggested fix for; rules read the generated
index so that checking a model does not import every pass module. ``--check`` writes nothing
and exits 1 when the committed index differs (the test suite runs the same comparison).
Run it after adding a pass or changing a pass's ``suggested_for`` or ``safe``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from atccheck.fixing.catalog import build_index  # noqa: E402

INDEX = PROJECT / "atccheck" / "fixing" / "index.py"


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
