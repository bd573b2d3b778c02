from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests are reproducible: the same examples on every run and every machine
# (derandomize), no local example database that makes one checkout differ from another.
# A failure found this way is kept as an @example on its test. HYPOTHESIS_PROFILE=explore
# searches with fresh randomness when looking for new failures on purpose.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis_settings.register_profile("explore", derandomize=False, database=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

PROJECT = Path(__file__).resolve().parents[1]
# The team's shared folder (real models, CANN facts) sits beside the checkout; ATCCHECK_SHARED
# points elsewhere when the checkout lives on its own.
SHARED = Path(os.environ.get("ATCCHECK_SHARED") or PROJECT.parent / "shared")
SHARED_MODELS = SHARED / "models"
SHARED_REFERENCE = SHARED / "reference"
SAMPLE_MODELS = PROJECT / "models"


def _missing(path: Path, what: str) -> None:
    """Skip without the shared folder; but when ATCCHECK_SHARED names it (CI does), its absence fails."""
    if os.environ.get("ATCCHECK_SHARED"):
        pytest.fail(f"ATCCHECK_SHARED is set but {path} is missing ({what})")
    pytest.skip(f"missing resource: {path} ({what})")


@pytest.fixture
def shared_models() -> Path:
    """The real trained models from public packages (../shared/models)."""
    if not SHARED_MODELS.is_dir():
        _missing(SHARED_MODELS, "real models from public packages")
    return SHARED_MODELS


@pytest.fixture
def shared_reference() -> Path:
    if not SHARED_REFERENCE.is_dir():
        _missing(SHARED_REFERENCE, "CANN facts the tables are built from")
    return SHARED_REFERENCE
