"""aipp-config-unreadable: the AIPP file is found (cwd, then the script's folder), its path and text checked."""

from __future__ import annotations

from command_files_kit import BASE, GOOD_AIPP, lint_in, named


def test_a_good_file_is_clean(tmp_path):
    result = lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", {"aipp.cfg": GOOD_AIPP})
    assert named(result, "aipp-config-unreadable") == []


def test_a_missing_file_is_e10001(tmp_path):
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=nope.cfg"), "aipp-config-unreadable")
    assert f.atc_error == "E10001" and f.severity.value == "error" and str(tmp_path / "nope.cfg") in f.message


def test_the_script_directory_is_looked_at_too(tmp_path):
    scripts = tmp_path / "scripts"
    (scripts).mkdir()
    (scripts / "aipp.cfg").write_text(GOOD_AIPP, encoding="utf-8")
    found_from_script = lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", script_dir=scripts)
    assert named(found_from_script, "aipp-config-unreadable") == []
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg"), "aipp-config-unreadable")
    assert "does not exist" in f.message


def test_a_parse_error_names_line_and_column_with_the_release_code(tmp_path):
    files = {"aipp.cfg": "aipp_op {\n  aipp_mode: static\n  mean_chn_0: 123.675\n}\n"}
    (new,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", files), "aipp-config-unreadable")
    assert new.atc_error == "E13005" and "aipp.cfg:3:15" in new.message and "min_chn" in new.hint
    (old,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", files, cann="6.0"),
                   "aipp-config-unreadable")
    assert old.atc_error == "E19018"


def test_fields_outside_a_block_do_not_parse(tmp_path):
    files = {"aipp.cfg": "aipp_mode: static\ninput_format: RGB888_U8\n"}
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=aipp.cfg", files), "aipp-config-unreadable")
    assert "aipp_op" in f.hint


def test_a_path_with_a_space_is_refused(tmp_path):
    (f,) = named(lint_in(tmp_path, BASE + ' --insert_op_conf="my aipp.cfg"', {"my aipp.cfg": GOOD_AIPP}),
                 "aipp-config-unreadable")
    assert f.atc_error == "E10001" and "' '" in f.message


def test_an_unset_variable_is_only_a_caveat(tmp_path, monkeypatch):
    monkeypatch.delenv("ATCCHECK_NO_SUCH_DIR", raising=False)
    (f,) = named(lint_in(tmp_path, BASE + " --insert_op_conf=$ATCCHECK_NO_SUCH_DIR/aipp.cfg"), "aipp-config-unreadable")
    assert f.severity.value == "info"
    monkeypatch.setenv("ATCCHECK_AIPP_DIR", str(tmp_path))
    result = lint_in(tmp_path, BASE + " --insert_op_conf=$ATCCHECK_AIPP_DIR/aipp.cfg", {"aipp.cfg": GOOD_AIPP})
    assert named(result, "aipp-config-unreadable") == []
