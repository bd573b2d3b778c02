"""CI runs the tests that need ../shared when CI puts it beside the clone."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from conftest import PROJECT


def shared_block() -> str:
    script = (PROJECT / ".ci" / "run").read_text()
    match = re.search(r"^if \[ -z \"\$\{ATCCHECK_SHARED:-\}\" \].*?^fi$", script, re.S | re.M)
    assert match, ".ci/run no longer sets ATCCHECK_SHARED from ../shared"
    return match.group(0)


def exported(cwd: Path, env: dict[str, str]) -> str:
    out = subprocess.run(["bash", "-c", shared_block() + '\nprintf %s "${ATCCHECK_SHARED:-}"'], cwd=cwd,
                         env=env, capture_output=True, text=True, check=True)
    return out.stdout


def test_ci_points_the_tests_at_the_shared_folder_beside_the_clone(tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ATCCHECK_SHARED"}
    assert exported(clone, env) == ""
    (tmp_path / "shared").mkdir()
    assert exported(clone, env) == str((tmp_path / "shared").resolve())
    assert exported(clone, {**env, "ATCCHECK_SHARED": "/elsewhere"}) == "/elsewhere"
