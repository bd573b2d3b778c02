from __future__ import annotations

from click.testing import CliRunner

from atccheck.cli.main import main
from atccheck.tables import tables


def test_every_chip_line_states_its_ub_size_or_that_it_is_unknown():
    result = CliRunner().invoke(main, ["targets"])
    assert result.exit_code == 0
    assert "?" not in result.output
    for soc in tables().socs.values():
        line = next(row for row in result.output.splitlines() if row.split()[:1] == [soc.name])
        ub = (soc.platform or {}).get("ub_size")
        assert (f"UB {ub} B" if ub else "UB unknown (no platform ini)") in line
    assert any(not (s.platform or {}).get("ub_size") for s in tables().socs.values())
