"""aipp-param-invalid: GE's validation of each aipp_op (E10052)."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, lint_in, named


def test_missing_mode_and_repeated_values(tmp_path):
    text = "aipp_op {\n  input_format: RGB888_U8\n  var_reci_chn_0: 0.5\n  var_reci_chn_0: 0.25\n}\n"
    found = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": text}), "aipp-param-invalid")
    assert {f.data["check"] for f in found} == {"aipp-mode-set", "repeated-once"}
    assert all(f.atc_error == "E10052" and f.location.node == "--insert_op_conf" for f in found)
    assert any(f.data["file_line"] == 4 for f in found)


def test_a_good_file_passes(tmp_path):
    assert named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": GOOD_AIPP}),
                 "aipp-param-invalid") == []


def test_an_empty_file_warns_that_no_aipp_is_inserted(tmp_path):
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": "# nothing\n"}),
                 "aipp-param-invalid")
    assert f.severity.value == "warning" and f.atc_error is None
