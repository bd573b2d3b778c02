"""--soc names: ATC's spelling, and a message that says why a name is refused; --cann release numbers."""

from __future__ import annotations

import json

import onnx
import pytest
from click.testing import CliRunner

from atccheck.cli.main import main
from atccheck.errors import UsageError
from atccheck.tables import tables
from atccheck.target import DEFAULT_PROFILE, profile_note, resolve_profile, resolve_soc, soc_name_note
from builders import single_op_model


def test_a_chip_atc_knows_but_without_kernel_facts_is_named_as_such():
    # atc_options.json lists the Ascend 950 values; ascend_op_kernels.json has no kernels for them.
    with pytest.raises(UsageError, match="valid ATC --soc_version .*no kernel facts"):
        resolve_soc("ascend950pr_9579")


def test_a_product_line_without_its_suffix_is_not_answered_with_an_unrelated_chip():
    with pytest.raises(UsageError) as err:
        resolve_soc("Ascend950")
    assert "product line" in str(err.value) and "Ascend910" not in str(err.value)


def test_a_typo_gets_the_closest_names():
    with pytest.raises(UsageError, match="did you mean Ascend310P3"):
        resolve_soc("Ascend31OP3")


def test_a_product_line_without_its_model_lists_its_models_in_order():
    with pytest.raises(UsageError) as err:
        resolve_soc("ascend310p")
    message = str(err.value)
    assert message.endswith(": Ascend310P1, Ascend310P3, Ascend310P5, Ascend310P7")
    assert "Atlas inference series" in message


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


# --------------------------------------------------------------------------- --cann release numbers


@pytest.mark.parametrize("release, profile", [
    ("8.1.RC1", "8.0"),  # the package the 8.0 profile's kernel facts come from
    ("8.0.RC3", "8.0"),
    ("8.0.RC2.2", "8.0"),
    ("CANN 8.1.RC1", "8.0"),
    ("6.0.1", "6.0"),
    ("5.1.RC2", "6.0"),
    ("5.0.4.6", "5.0"),
    ("9.2.0-beta.1", "9.0"),
])
def test_a_release_number_picks_the_profile_whose_release_lines_hold_it(release, profile):
    picked = resolve_profile(release)
    assert picked.id == profile
    line = ".".join(release.removeprefix("CANN ").split(".")[:2])
    assert line in picked.release_lines
    note = profile_note(release)
    assert note is not None and f"profile {profile}" in note and release.removeprefix("CANN ") in note


@pytest.mark.parametrize("release", ["7.0", "6.3.RC2", "8.5.0"])
def test_a_release_no_profile_holds_is_unknown_not_guessed(release):
    with pytest.raises(UsageError, match="unknown, not guessed") as info:
        resolve_profile(release)
    for profile in tables().profiles.values():
        assert f"{profile.id} for" in str(info.value)


def test_every_release_line_names_its_source_and_belongs_to_one_profile():
    lines = [(r.line, p.id) for p in tables().profiles.values() for r in p.releases]
    assert len({line for line, _ in lines}) == len(lines)
    for profile in tables().profiles.values():
        assert profile.id in profile.release_lines  # a profile id speaks for its own line
        assert all(r.why and r.source for r in profile.releases)
    assert profile_note(DEFAULT_PROFILE) is None


def test_the_cli_says_which_profile_a_release_picks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    onnx.save(single_op_model("Relu", [[1, 3]], [1, 3], opset=13), tmp_path / "m.onnx")
    result = CliRunner().invoke(main, ["check", "m.onnx", "--soc", "Ascend310P3", "--cann", "8.1.RC1", "--no-config",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["target"]["cann"] == "8.0"
    assert "atccheck: note: --cann 8.1.RC1: checked with profile 8.0" in result.stderr
    refused = CliRunner().invoke(main, ["atc-cmd", "m.onnx", "--soc", "Ascend310P3", "--cann", "7.0", "--no-config"])
    assert refused.exit_code == 2 and "CANN 7.0" in refused.stderr and "unknown" in refused.stderr
