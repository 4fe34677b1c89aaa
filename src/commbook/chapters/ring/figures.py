"""Ring chapter (book/ring.md): time of one ring against P and against the message size."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from ...plotting import CLASS_COLORS, SERIES_COLORS, measured, model_line, new_axes


def plot_ring(
    series,
    models=(),
    boundaries=(),
    title="Ring: time of one ring vs processes",
    ax=None,
    logy=False,
    per_step=False,
    legend="best",
):
    """Ring time against P: measured series as points with their spread, models as lines.

    series: [(label, table with np, t_us, t_min_us, t_max_us)], models: [(label, P, t_us)],
    boundaries: [(P, class)] where the ring first uses a dearer link (drawn as dotted lines).
    per_step divides every time by P (µs per step).
    """
    if ax is None:
        fig, ax = new_axes(title, "processes P", "µs per step" if per_step else "time of one ring (µs)", logy=logy)
    else:
        fig = ax.figure
    for i, (label, df) in enumerate(series):
        df = df.sort_values("np")
        P = df["np"].to_numpy(float)
        k = P if per_step else 1.0
        measured(
            ax,
            P,
            df["t_us"] / k,
            df["t_min_us"] / k,
            df["t_max_us"] / k,
            label=label,
            color=SERIES_COLORS[i % len(SERIES_COLORS)],
            elinewidth=1,
        )
    styles = ["-", "--", "-.", ":"]
    for i, (label, P, t) in enumerate(models):
        P = np.asarray(P, float)
        model_line(
            ax, P, np.asarray(t, float) / (P if per_step else 1.0), label=label, color="k", ls=styles[i % len(styles)]
        )
    for P, cls in boundaries:
        if P > 1:
            ax.axvline(P - 0.5, color=CLASS_COLORS.get(cls, "0.5"), ls=":", lw=1.2)
            ax.annotate(
                f"{cls} from P={P}",
                (P - 0.5, 1.0),
                xycoords=("data", "axes fraction"),
                xytext=(3, -12),
                textcoords="offset points",
                fontsize=8,
                rotation=90,
                va="top",
                color=CLASS_COLORS.get(cls, "0.5"),
            )
    ax.set_xlim(left=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8, loc=legend)
    return fig


def plot_ring_sizes(table, models=(), title="Ring: time per step vs message size", ax=None):
    """µs per step (ring time / P) against message size, measured with spread; models:
    [(label, sizes, µs per step)]."""
    if ax is None:
        fig, ax = new_axes(title, "message size n (bytes)", "µs per step", logx=True, logy=True)
    else:
        fig = ax.figure
    df = table.sort_values("size_bytes")
    P = df["np"].to_numpy(float)
    measured(
        ax,
        df["size_bytes"],
        df["t_us"] / P,
        df["t_min_us"] / P,
        df["t_max_us"] / P,
        label=f"measured, P = {int(P[0])} (min-max bars)",
        color=SERIES_COLORS[0],
        elinewidth=1,
    )
    for i, (label, n, t) in enumerate(models):
        model_line(ax, n, t, label=label, color="k", ls=["-", "--", ":"][i % 3])
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------------------------------
# What the page's prose says about its own measurements, decided from them


def oversubscription_text(table, cores: int) -> str:
    """Per-step time with a core per rank against oversubscribed, from a ring sweep (np, t_us)."""
    per_step = (table.set_index("np")["t_us"] / table.set_index("np").index).sort_index()
    own = per_step[(per_step.index >= 2) & (per_step.index <= cores)]
    over = per_step[per_step.index > cores]
    if own.empty:
        return "This run has no ring of two or more ranks with a core each."
    text = f"As long as every rank has a core of its own, a step costs about {own.median():.2g} µs here."
    if over.empty:
        return text + (
            f" This machine has {cores} cores, so the sweep never oversubscribed; on a "
            "smaller one, a rank more than cores makes each step wait for the scheduler."
        )
    factor = over.median() / own.median()
    if factor >= 3:
        return text + (
            f" With more ranks than cores, a step needs both neighbours to have run since "
            f"the last one: each step waits for the operating system to schedule a rank "
            f"that was descheduled, and the time per step jumps by a factor of "
            f"{factor:.0f}."
        )
    if factor < 1.2:
        return text + (
            f" With more ranks than cores the time per step did not grow measurably in this "
            f"run (factor {factor:.1f}): the ranks that wait yielded their core quickly; a "
            "busier scheduler makes each step wait for a descheduled rank."
        )
    return text + (
        f" With more ranks than cores the time per step grew by a factor of only "
        f"{factor:.1f} in this run: the ranks that wait yielded their core quickly; on "
        "most machines the jump is larger."
    )


def model_agreement_text(measured_t, model_t) -> str:
    """How the ring model of the ping-pong fit compares with the measured rings."""
    import numpy as np

    r = np.asarray(measured_t, float) / np.asarray(model_t, float)
    r = r[np.isfinite(r)]
    if r.size == 0:
        return "There is no ring with a core per rank to compare."
    lo, hi = float(r.min()), float(r.max())
    span = f"{lo:.2f}" if abs(hi - lo) < 0.005 else f"{lo:.2f} to {hi:.2f}"
    if 0.8 <= lo and hi <= 1.25:
        return f"Here the model lands within 25 % of the measured rings (measured over model: {span})."
    if lo > 1.25:
        return f"The model lands below the measured rings, not on the points (measured over model: {span})."
    if hi < 0.8:
        return f"The model lands above the measured rings, not on the points (measured over model: {span})."
    return f"The model lands on some rings but not on the points (measured over model: {span})."


def size_agreement_text(n, measured_t, model_t) -> str:
    """The measured ring step against 2(λ + n/b) at the largest size."""
    import numpy as np

    n = np.asarray(n, float)
    k = int(np.argmax(n))
    r = float(np.asarray(measured_t, float)[k] / np.asarray(model_t, float)[k])
    from ...units import format_bytes

    if 0.8 <= r <= 1.25:
        return (
            f"At {format_bytes(n[k], exact=True)} the measured ring is {r:.2f} times the model: the bandwidth "
            "term has taken over and each step costs about two message transfers, as the "
            "model says."
        )
    return (
        f"At {format_bytes(n[k], exact=True)} the measured ring is {r:.2f} times the model: on this machine "
        "the two transfers of a step do not cost what the ping-pong predicts."
    )


def nodes_step_text(boundary_P: int, measured_jump_us: float, model_jump_us: float, closeness: str) -> str:
    """The step of the ring on two emulated nodes, measured against the link-class model.

    closeness: the words of nodes.boundary.closeness(measured / model)."""
    where = f"The ring crosses a node at *P* = {boundary_P}, where the placement says it must,"
    if measured_jump_us > 0.5 * model_jump_us > 0:
        return (
            f"{where} and the time per step jumps there by {measured_jump_us:.1f} µs. The model, "
            f"with the λ and *b* just measured, predicts a jump of {model_jump_us:.1f} µs: "
            f"the measured step is {closeness}. As on ORFEO, the position of the step is geometry "
            "and comes out right;"
        )
    return (
        f"{where} but in this run the time per step changes there by only {measured_jump_us:.1f} µs, "
        f"against the {model_jump_us:.1f} µs the model predicts with the λ and *b* just "
        "measured: here the step is lost in the run's noise, and one run cannot place it;"
    )
