"""Link presets of the ping-pong and ring explorers: ORFEO's measured links beside the emulated
nodes of this project's reference machine (commbook.nodes.boundary: TCP over a virtual link on
one machine). A menu chooses a preset; the model is then drawn with the preset's λ and b
(parameters ``<slider>_used``), and with the sliders' values again when the menu is back on
"the sliders". Only the menu's entries can be chosen, and each value is clamped to its slider's
range."""

from __future__ import annotations

START = "the sliders"  # the menu entry under which the sliders set the model


def orfeo_links(transport: str = "ucx", library: str = "Open MPI") -> dict:
    """{link class: Hockney} of ORFEO's THIN nodes, from the seed report's ping-pong table."""
    from .. import orfeo

    return orfeo.links(transport, library)


def emulated_links() -> dict:
    """{link class: Hockney} fitted to the shipped reference run on emulated nodes."""
    from ..nodes import boundary

    run = boundary.BoundaryRun(*_reference_tables(), live=False)
    return {c: f.model for c, f in boundary.fit_links(run).items()}


def _reference_tables():
    from .. import data
    from ..nodes import boundary

    pp = data.read_measurements(boundary.reference_dir() / "boundary-pingpong.csv")
    ring = data.read_measurements(boundary.reference_dir() / "boundary-ring.csv")
    return pp.table, ring.table, pp.meta


def pingpong_presets() -> dict:
    """{menu label: Hockney} for the ping-pong explorer."""
    ucx, tcp, emulated = orfeo_links("ucx"), orfeo_links("ob1-tcp"), emulated_links()
    return {
        "ORFEO THIN, across nodes, UCX (InfiniBand)": ucx["node"],
        "ORFEO THIN, across nodes, TCP (Ethernet)": tcp["node"],
        "ORFEO THIN, inside a socket, UCX": ucx["core"],
        "emulated nodes, across (TCP over a veth, one machine)": emulated["node"],
        "emulated nodes, inside a node (shared memory)": emulated["core"],
    }


def ring_presets() -> dict:
    """{menu label: {link class: Hockney}} for the ring explorer (classes it does not set keep
    the slider's value)."""
    emulated = emulated_links()
    return {
        "ORFEO THIN, UCX": orfeo_links("ucx"),
        "ORFEO THIN, Open MPI TCP": orfeo_links("ob1-tcp"),
        "emulated nodes (TCP over a veth, one machine)": {
            "core": emulated["core"],
            "socket": emulated["core"],
            "node": emulated["node"],
        },
    }


def value_expr(menu: str, slider: str, by_label: dict, lo: float, hi: float, digits: int) -> str:
    """A Vega expression: the preset's value (clamped to the slider's range) for each label,
    the slider's own value otherwise."""
    expr = slider
    for label, value in by_label.items():
        v = round(min(max(float(value), lo), hi), digits)
        expr = f"{menu} == {label!r} ? {v!r} : ({expr})"
    return expr


def used(slider: str, lo: float, hi: float, menu: str, by_label: dict, digits: int):
    """The parameter `<slider>_used`: what the model uses for that slider's quantity."""
    import altair as alt

    return alt.param(name=f"{slider}_used", expr=value_expr(menu, slider, by_label, lo, hi, digits))


def menu_param(name: str, labels: list[str]):
    from .render import menu

    return menu(name, "preset link", [START] + list(labels), START)
