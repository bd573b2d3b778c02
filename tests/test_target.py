"""--soc names: ATC's spelling, and a message that says why a name is refused."""

from __future__ import annotations

import pytest

from atccheck.errors import UsageError
from atccheck.tables import tables
from atccheck.target import resolve_soc, soc_name_note


def test_a_chip_atc_knows_but_without_kernel_facts_is_named_as_such():
    # atc_options.json lists the Ascend 950 values; ascend_op_kernels.json has no kernels for them.
    with pytest.raises(UsageError, match="valid ATC --soc_version .*no kernel facts"):
        resolve_soc("ascend950pr_9579")


def test_a_product_line_without_its_suffix_is_not_answered_with_an_unrelated_chip():
    with pytest.raises(UsageError) as err:
        resolve_soc("Ascend950")
    assert "product line" in str(err.value) and "Ascend910" not in str(err.value)


def test_a_typo_gets_the_closest_names():
    with pytest.raises(UsageError, match="did you mean .*Ascend310P3"):
        resolve_soc("Ascend310P")


def test_the_legacy_ascend910b_name_says_which_kernels_it_means():
    soc = resolve_soc("ascend910b")
    assert soc.name == "Ascend910B" and soc.kernel_family == "ascend910"
    note = soc_name_note(soc)
    assert note is not None and "ascend910 kernels" in note
    for name in ("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4"):
        assert name in note
    assert soc_name_note(resolve_soc("Ascend910B3")) is None
    assert all(soc_name_note(s) is None for s in tables().socs.values() if s.kernel_family != "ascend910")


def test_a_name_the_facts_list_as_not_valid_for_atc_says_what_the_facts_say():
    # atc_options.json soc_versions.not_valid_for_atc: Ascend710, the pre-rename 310P name (unverified).
    with pytest.raises(UsageError) as err:
        resolve_soc("Ascend710")
    assert "pre-rename name of Ascend310P" in str(err.value) and "did you mean" not in str(err.value)
