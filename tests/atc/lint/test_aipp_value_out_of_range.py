"""aipp-value-out-of-range: the AIPP kernel's ranges (E81012)."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, lint_in, named


def test_mean_above_255(tmp_path):
    text = GOOD_AIPP.replace("mean_chn_0: 123", "mean_chn_0: 300")
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-value-out-of-range")
    assert f.atc_error == "E81012" and "mean_chn_0 is 300" in f.message and f.data["file_line"] == 6


def test_in_range_values_pass(tmp_path):
    assert named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": GOOD_AIPP}),
                 "aipp-value-out-of-range") == []
