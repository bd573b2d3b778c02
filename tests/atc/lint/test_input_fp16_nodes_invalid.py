"""input-fp16-nodes-invalid: --input_fp16_nodes names must be graph inputs (E10016/E10017)."""

from __future__ import annotations

import pytest

from command_files_kit import BASE, image_model, lint_in, named

TWO = image_model((("image", [1, 3, 224, 224]), ("mask", [1, 1, 224, 224])))
TWO_CMD = BASE.replace("image:1,3,224,224", "image:1,3,224,224;mask:1,1,224,224")


@pytest.mark.parametrize("value, code", [
    ("conv_image", "E10017"),
    ("imag", "E10016"),
    ("image; mask", "E10016"),  # ' mask': ATC does not trim
    ("image;", "E10016"),  # a trailing ';' adds an empty name
    ("w_image", "E10016"),  # an initializer is a Const named otherwise
])
def test_refused(tmp_path, value, code):
    found = named(lint_in(tmp_path, TWO_CMD + f' --input_fp16_nodes="{value}"', model=TWO), "input-fp16-nodes-invalid")
    assert [f.atc_error for f in found] == [code]


def test_inputs_pass(tmp_path):
    assert named(lint_in(tmp_path, TWO_CMD + ' --input_fp16_nodes="image;mask"', model=TWO),
                 "input-fp16-nodes-invalid") == []
