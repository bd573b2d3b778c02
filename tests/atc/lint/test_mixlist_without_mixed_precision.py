"""mixlist-without-mixed-precision: --modify_mixlist needs a mixed precision mode (E10001)."""

from __future__ import annotations

import pytest

from command_files_kit import BASE, lint_in, named

MIXLIST = {"m.json": '{"black-list": {"to-add": ["Conv2D"]}}'}


@pytest.mark.parametrize("precision", ["", " --precision_mode=force_fp32", " --precision_mode_v2=fp16"])
def test_refused(tmp_path, precision):
    (f,) = named(lint_in(tmp_path, BASE + precision + " --modify_mixlist=m.json", MIXLIST),
                 "mixlist-without-mixed-precision")
    assert f.atc_error == "E10001" and f.location.node == "--modify_mixlist"


@pytest.mark.parametrize("precision", [" --precision_mode=allow_mix_precision", " --precision_mode_v2=mixed_float16",
                                       " --precision_mode=allow_mix_precision_fp16"])
def test_accepted(tmp_path, precision):
    assert named(lint_in(tmp_path, BASE + precision + " --modify_mixlist=m.json", MIXLIST),
                 "mixlist-without-mixed-precision") == []
