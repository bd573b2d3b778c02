#!/usr/bin/env python3
"""Regenerate everything atccheck derives from its sources: one command, one freshness test.

Usage::

    python tools/regen.py [--check] [--reference DIR]

In order, each step reading what the steps before it wrote:

1. ``op_tables/*.json`` from ``../shared/reference`` and ``op_tables/curated/``
   (``tools/build_op_tables.py``; left out, with a line saying so, when the reference is absent);
2. ``atccheck/fix_index.py`` from the passes' ``answers`` (``tools/build_fix_index.py``);
3. ``docs/rules/`` from the rules' docstrings and the fix index (``tools/build_rule_docs.py``);
4. ``docs/passes.md`` from the passes' docstrings and declarations (``tools/build_pass_docs.py``);
5. the command examples of ``README.md`` and ``docs/*.md`` (``tools/build_doc_examples.py``).

``--check`` writes nothing and exits 1 naming what is stale; ``tests/test_regen.py`` runs the
same check. Run it after adding or changing a rule, a pass, a curated fact or a command's
output.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

PROJECT = Path(__file__).resolve().parents[1]
TOOLS = PROJECT / "tools"
sys.path.insert(0, str(PROJECT))


def tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _refresh() -> None:
    """Let this process see what a step wrote: the tables, the fix index and their caches."""
    import atccheck.fix_index
    from atccheck import fixlinks
    from atccheck.tables import catalog

    importlib.reload(atccheck.fix_index)
    fixlinks.named_links.cache_clear()
    fixlinks._candidates.cache_clear()
    catalog.tables.cache_clear()


def tables_step(reference: Path, check: bool) -> list[str]:
    builder = tool("build_op_tables")
    out = PROJECT / "op_tables"
    stale = []
    for name, text in builder.build(reference).items():
        path = out / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(f"op_tables/{name}")
            if not check:
                path.write_text(text, encoding="utf-8")
    return stale


def index_step(check: bool) -> list[str]:
    builder = tool("build_fix_index")
    text = builder.build_index()
    if builder.INDEX.read_text(encoding="utf-8") == text:
        return []
    if not check:
        builder.INDEX.write_text(text, encoding="utf-8")
    return [str(builder.INDEX.relative_to(PROJECT))]


def rule_pages_step(check: bool) -> list[str]:
    builder = tool("build_rule_docs")
    from atccheck.rule_docs import DOCS_FOLDER

    out = PROJECT / DOCS_FOLDER
    changed = builder.differences(out) if check else builder.write(out)
    return [f"{DOCS_FOLDER}/{name}" for name in changed]


def pass_page_step(check: bool) -> list[str]:
    builder = tool("build_pass_docs")
    if not builder.stale():
        return []
    if not check:
        builder.PAGE.write_text(builder.page(), encoding="utf-8")
    return [str(builder.PAGE.relative_to(PROJECT))]


def examples_step(check: bool) -> list[str]:
    builder = tool("build_doc_examples")
    stale = builder.stale()
    if not check:
        for path in builder.documents():
            text = path.read_text(encoding="utf-8")
            new = builder.rendered(text)
            if new != text:
                path.write_text(new, encoding="utf-8")
    return stale


def run(check: bool, reference: Path | None, say: Callable[[str], None] = print) -> list[str]:
    """Every step in order; what was stale (with ``check``) or rewritten."""
    stale: list[str] = []
    if reference is not None and reference.is_dir():
        stale += tables_step(reference, check)
    else:
        say(f"op_tables/: left as they are, no reference facts at {reference}")
    _refresh()
    stale += index_step(check)
    _refresh()
    stale += rule_pages_step(check)
    stale += pass_page_step(check)
    stale += examples_step(check)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming what is stale")
    parser.add_argument("--reference", type=Path, default=PROJECT.parent / "shared" / "reference",
                        help="the reference facts the tables are built from (default: ../shared/reference)")
    args = parser.parse_args(argv)
    stale = run(args.check, args.reference)
    for name in stale:
        print(f"{'stale' if args.check else 'wrote'}: {name}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
