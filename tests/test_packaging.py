"""pyproject lists every package explicitly: a sub-package left out is missing from the wheel
(an editable install hides that, since it imports from the source tree)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PROJECT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((PROJECT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(p.relative_to(PROJECT).parts)
        for p in (PROJECT / "atccheck").rglob("*")
        if p.is_dir() and p.name != "__pycache__" and any(p.glob("*.py"))
    }
    assert folders - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert (PROJECT / "atccheck" / "py.typed").is_file()
