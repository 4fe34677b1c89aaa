"""ipywidgets explorers. Each explorer has a static default figure (drawn by the notebook in an
ordinary cell, so the rendered book shows it) and refuses impossible values: sliders are bounded
and text boxes are validated before anything is drawn. One section per chapter."""
from __future__ import annotations


def positive(name: str, value: float) -> float:
    """Refuse a non-positive or non-finite parameter with a clear message."""
    import math
    if value is None or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, not {value!r}")
    return float(value)


# --- ping-pong -----------------------------------------------------------------------------

LAMBDA_RANGE_US = (0.01, 1000.0)      # from shared memory to slow Ethernet
BANDWIDTH_RANGE_MBPS = (1.0, 1e6)     # 1 MB/s .. 1 TB/s


def pingpong_presets(table) -> dict:
    """{label: (λ µs, b MB/s)} from a summary table with latency_us and a bandwidth column."""
    out = {}
    for row in table.to_dict("records"):
        b = row.get("bandwidth_fit_MBps")
        if b is None or b != b:  # NaN: fall back to the plateau
            b = row.get("bandwidth_asymptotic_MBps")
        label = f"{row['machine']} by {row['mapping']}: {row['transport']} ({row['mpi_library']})"
        out[label] = (float(row["latency_us"]), float(b))
    return out


def hockney_figure(lambda_us: float, bandwidth_MBps: float, measured=None, label="",
                   sizes=None, ax=None):
    """Time and effective bandwidth of the Hockney model t = λ + n/b, over measured points."""
    import numpy as np

    from . import plots
    from .models.hockney import Hockney

    lam = positive("λ (µs)", lambda_us) if lambda_us != 0 else 0.0
    model = Hockney(lam, positive("b (MB/s)", bandwidth_MBps))
    n = np.asarray(sizes if sizes is not None else 2.0 ** np.arange(0, 27), float)
    fig, (a1, a2) = plots.plt.subplots(1, 2, figsize=(10, 3.8))
    for a in (a1, a2):
        a.set_xscale("log", base=2)
        a.grid(True, which="both", alpha=0.3)
        a.set_xlabel("message size n (bytes)")
    a1.set_yscale("log")
    a1.set_ylabel("time t (µs)")
    a2.set_ylabel("bandwidth n/t (MB/s)")
    if measured is not None and len(measured):
        m = measured[measured["size_bytes"] > 0]
        plots.measured(a1, m["size_bytes"], m["t_us"], m["t_min_us"], m["t_max_us"],
                       label="measured", color="C0")
        plots.measured(a2, m["size_bytes"], m["size_bytes"] / m["t_us"], label="measured",
                       color="C0")
    name = f"Hockney model{': ' + label if label else ''}"
    plots.model_line(a1, n, model.time_us(n), label=name, color="C3")
    plots.model_line(a2, n, model.effective_bandwidth(n), label=name, color="C3")
    a2.axhline(model.bandwidth_MBps, ls=":", color="C3", lw=1)
    a1.axvline(model.n_half, ls=":", color="grey", lw=1)
    a1.annotate(f"n½ = {model.n_half:,.0f} B", (model.n_half, a1.get_ylim()[0]),
                xytext=(4, 6), textcoords="offset points", fontsize=8, color="grey")
    a1.legend(fontsize=8)
    a2.legend(fontsize=8)
    fig.suptitle(f"λ = {model.lambda_us:.3g} µs, b = {model.bandwidth_MBps:,.0f} MB/s", fontsize=10)
    fig.tight_layout()
    return fig


def hockney_explorer(measured=None, presets: dict | None = None):
    """Sliders for λ and b (bounded, so impossible values cannot be set) and a preset menu."""
    import ipywidgets as w
    import matplotlib.pyplot as plt

    presets = dict(presets or {})
    lam = w.FloatLogSlider(value=1.0, base=10, min=-2, max=3, step=0.01, description="λ (µs)",
                           readout_format=".3g", continuous_update=False)
    bw = w.FloatLogSlider(value=5000.0, base=10, min=0, max=6, step=0.01, description="b (MB/s)",
                          readout_format=",.0f", continuous_update=False)
    choice = w.Dropdown(options=["(sliders)"] + list(presets), description="preset",
                        layout=w.Layout(width="95%"))
    out = w.Output()

    def apply_preset(change):
        if change["new"] in presets:
            lam.value, bw.value = presets[change["new"]]

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            fig = hockney_figure(lam.value, bw.value, measured,
                                 label=choice.value if choice.value in presets else "")
            plt.show(fig)

    choice.observe(apply_preset, names="value")
    lam.observe(redraw, names="value")
    bw.observe(redraw, names="value")
    redraw()
    return w.VBox([choice, w.HBox([lam, bw]), out])

# --- ring ----------------------------------------------------------------------------------

# --- matrix addition -------------------------------------------------------------------------

# --- collectives and topology ---------------------------------------------------------------

# --- jacobi --------------------------------------------------------------------------------
