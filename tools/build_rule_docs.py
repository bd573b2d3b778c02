#!/usr/bin/env python3
"""Write ``docs/rules/`` from the rules' docstrings.

Usage::

    python tools/build_rule_docs.py [--out DIR] [--check]

One page per registered rule, model rules and ``atc`` command rules alike (``docs/rules/<rule-name>.md``) plus the catalogue
(``docs/rules/README.md``). Pages of rules that no longer exist are removed. ``--check``
writes nothing and exits 1 when the committed pages differ from the docstrings (the test
suite runs the same comparison). Run it after adding a rule or editing a rule's docstring.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from atccheck.catalogue import catalogue  # noqa: E402
from atccheck.rule_docs import DOCS_FOLDER, expected_pages  # noqa: E402


def differences(out: Path, expected: dict[str, str] | None = None) -> list[str]:
    """File names under ``out`` that are missing, stale, or left over from a removed rule."""
    if expected is None:
        expected = expected_pages(catalogue())
    present = {p.name for p in out.glob("*.md")} if out.is_dir() else set()
    wrong = [name for name, text in expected.items() if not (out / name).is_file() or (out / name).read_text(encoding="utf-8") != text]
    return sorted([*wrong, *(present - set(expected))])


def write(out: Path) -> list[str]:
    expected = expected_pages(catalogue())
    out.mkdir(parents=True, exist_ok=True)
    changed = differences(out, expected)
    for name in changed:
        path = out / name
        if name in expected:
            path.write_text(expected[name], encoding="utf-8")
        else:
            path.unlink()
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PROJECT / DOCS_FOLDER)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the pages are stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = differences(args.out)
        for name in stale:
            print(f"stale: {args.out / name}")
        return 1 if stale else 0
    for name in write(args.out):
        print(f"{'wrote' if (args.out / name).exists() else 'removed'} {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
