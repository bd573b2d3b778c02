"""option-file-entry-unmatched: names and Ascend op types in the precision files against the model."""

from __future__ import annotations

from command_files_kit import BASE, lint_in, named


def test_keep_dtype_names_and_types(tmp_path):
    text = "conv_image\nRelu_0\nconv_imag\nOpType::Conv2D\nOpType::Conv\nOpType::Softmax\n"
    found = named(lint_in(tmp_path, BASE + " --keep_dtype=k.txt", {"k.txt": text}), "option-file-entry-unmatched")
    by_line = {f.data["file_line"]: f for f in found}
    assert sorted(by_line) == [3, 5, 6]  # the unnamed Relu is Relu_0 to ATC; Conv2D is the Ascend type
    assert "conv_image" in by_line[3].hint
    assert "Conv2D" in by_line[5].message and by_line[5].severity.value == "warning"
    assert by_line[6].severity.value == "warning"


def test_types_of_compile_time_files_are_a_caveat(tmp_path):
    command = BASE + " --precision_mode_v2=mixed_float16 --modify_mixlist=m.json"
    found = named(lint_in(tmp_path, command, {"m.json": '{"black-list": {"to-add": ["MatMulV3", "Conv2D"]}}'}),
                  "option-file-entry-unmatched")
    assert [(f.data["entry"], f.severity.value) for f in found] == [("MatMulV3", "info")]


def test_without_a_model_nothing_is_compared(tmp_path):
    from atccheck.atc.command_files import FileBase
    from atccheck.atc.lint import lint_command

    (tmp_path / "k.txt").write_text("nothing_here\n", encoding="utf-8")
    result = lint_command(BASE + " --keep_dtype=k.txt", None, files=FileBase(str(tmp_path)))
    assert named(result, "option-file-entry-unmatched") == []
