"""atccheck targets: the chips and CANN profiles atccheck knows, and the facts behind each."""

from __future__ import annotations

import json

import click

from atccheck.cli.options import error_boundary


@click.command("targets")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@error_boundary
def targets_command(fmt):
    """List valid --soc names (ATC spelling) and --cann profiles with their sources."""
    from atccheck.tables import tables

    tbl = tables()
    if fmt == "json":
        doc = {
            "socs": [
                {
                    "name": s.name,
                    "product": s.product,
                    "kernel_family": s.kernel_family,
                    "dynamic_shape": s.dynamic_shape,
                    "memory_bytes": s.memory_bytes,
                    "memory_basis": s.memory_basis,
                    "ub_size": (s.platform or {}).get("ub_size"),
                    "source": list(s.source),
                }
                for s in tbl.socs.values()
            ],
            "profiles": [
                {"id": p.id, "title": p.title, "basis": p.basis, "kernel_release": p.kernel_release,
                 "note": p.note, "source": list(p.source),
                 "releases": [{"line": r.line, "why": r.why, "source": r.source} for r in p.releases]}
                for p in tbl.profiles.values()
            ],
        }
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo("SoCs (--soc):")
    by_product: dict[str, list] = {}
    for soc in tbl.socs.values():
        by_product.setdefault(soc.product, []).append(soc)
    for product, socs in by_product.items():
        click.echo(f"  {product}")
        for soc in socs:
            memory = f"{soc.memory_bytes / 2**30:.0f} GiB ({soc.memory_basis})" if soc.memory_bytes else "memory unknown"
            ub = (soc.platform or {}).get("ub_size")
            # The UB size comes from the chip's platform ini ([SoCInfo] of <soc>.ini in a CANN
            # package); the package the facts were read from has no ini for some chips.
            ub_text = f"UB {ub} B" if ub else "UB unknown (no platform ini)"
            dyn = "dynamic shape" if soc.dynamic_shape else "static shape and gears only"
            click.echo(f"    {soc.name:<18} kernels {soc.kernel_family:<13} {ub_text}, {memory}, {dyn}")
    click.echo("")
    click.echo("CANN profiles (--cann takes the id or a release number: 8.1.RC1 picks the profile of 8.1.x;")
    click.echo("a release no profile lists is unknown and refused):")
    for profile in tbl.profiles.values():
        click.echo(f"  {profile.id:<4} {profile.title}")
        click.echo(f"       kernels: {profile.kernel_release}; {profile.note}")
        releases = ", ".join(f"{line}.x" for line in profile.release_lines)
        click.echo(f"       releases: {releases}")
        click.echo(f"       sources: {'; '.join(tbl.label_sources(s) for s in profile.source)}")
