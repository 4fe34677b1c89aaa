"""Matplotlib figures for the book. Measured data are drawn as points with their spread,
models as lines whose legend label says "model". One section per chapter."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .orfeo import per_configuration

MEASURED_STYLE = dict(marker="o", ms=4, lw=0, capsize=2, elinewidth=1)
MODEL_STYLE = dict(lw=1.6)


def new_axes(title: str = "", xlabel: str = "", ylabel: str = "", logx=False, logy=False,
             figsize=(6.4, 4.0)):
    fig, ax = plt.subplots(figsize=figsize)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("symlog", linthresh=1, base=2) if logx == "symlog" else ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def measured(ax, x, y, ymin=None, ymax=None, label="measured", **kw):
    """Points with asymmetric error bars from min/max when given."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    style = {**MEASURED_STYLE, **kw}
    if ymin is not None and ymax is not None:
        yerr = np.vstack([y - np.asarray(ymin, float), np.asarray(ymax, float) - y])
        return ax.errorbar(x, y, yerr=np.clip(yerr, 0, None), label=label, **style)
    style.pop("capsize", None)
    style.pop("elinewidth", None)
    return ax.plot(x, y, label=label, **style)


def model_line(ax, x, y, label="model", **kw):
    if "model" not in label.lower():
        label = f"{label} (model)"
    return ax.plot(x, y, label=label, **{**MODEL_STYLE, **kw})


# --- ping-pong -----------------------------------------------------------------------------


def pingpong_points(data, times=None, t_min=None, t_max=None):
    """(sizes, t, t_min, t_max) sorted by size from a tidy table, a kernel table or arrays."""
    if hasattr(data, "columns"):
        tcol = "t_us" if "t_us" in data.columns else "t_median_us"
        if tcol not in data.columns or "size_bytes" not in data.columns:
            raise ValueError("table needs size_bytes and t_us (tidy) or t_median_us (kernel) columns")
        n, t = data["size_bytes"].to_numpy(float), data[tcol].to_numpy(float)
        lo = data["t_min_us"].to_numpy(float) if "t_min_us" in data.columns else None
        hi = data["t_max_us"].to_numpy(float) if "t_max_us" in data.columns else None
    else:
        if times is None:
            raise ValueError("give times along with sizes")
        n, t = np.asarray(data, float), np.asarray(times, float)
        lo = None if t_min is None else np.asarray(t_min, float)
        hi = None if t_max is None else np.asarray(t_max, float)
    if n.shape != t.shape:
        raise ValueError(f"{n.size} sizes but {t.size} times")
    order = np.argsort(n, kind="stable")
    pick = (lambda a: None if a is None else a[order])
    return n[order], t[order], pick(lo), pick(hi)


def _size_grid(n):
    top = max(float(np.max(n)), 2.0)
    return np.concatenate([[0.0], np.geomspace(1.0, top, 600)])


def _model_label(model, prefix="Hockney model"):
    segs = getattr(model, "segments", None)
    if segs is not None and not hasattr(model, "lambda_us"):
        return f"piecewise {prefix} ({len(segs)} segments)"
    lam, bw = model.lambda_us, model.bandwidth_MBps
    return f"{prefix}: λ = {lam:.3g} µs, b = {bw:.4g} MB/s"


def _model_of(fit):
    return getattr(fit, "model", fit)


def size_label(n: float) -> str:
    """1, 16, 256, 4K, 64K, 1M ... (binary prefixes, as MPI benchmarks print sizes)."""
    n = int(round(n))
    for unit, f in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= f and n % f == 0:
            return f"{n // f}{unit}"
    return str(n)


def _size_axis(ax):
    """Symlog base-2 size axis (0 B stays visible), labelled every 16x, ticked every 2x."""
    from matplotlib.ticker import FixedLocator, FuncFormatter
    ax.set_xscale("symlog", linthresh=1, base=2)
    ax.set_xlim(left=0)
    top = max(ax.get_xlim()[1], 2.0)
    powers = 2.0 ** np.arange(0, int(np.log2(top)) + 1)
    ax.xaxis.set_major_locator(FixedLocator(np.concatenate([[0], powers[::4]])))
    ax.xaxis.set_minor_locator(FixedLocator(powers))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: size_label(v)))
    ax.set_xlabel("message size n (bytes)")
    ax.grid(True, which="both", alpha=0.3)


def plot_pingpong_fit(data, fit=None, *, times=None, t_min=None, t_max=None,
                      label="measured", others=None, title="Ping-pong", figsize=(11, 4.2)):
    """Latency and bandwidth panels: measured points (median, min/max bars) and model lines.

    data is a tidy table, a kernel output table, or sizes with times=[...]. fit is a HockneyFit,
    PiecewiseFit or a model. others maps a label to more models to compare (e.g. the plain
    least-squares line from commbook.fit.ols_hockney); their negative times are not drawn.
    """
    n, t, lo, hi = pingpong_points(data, times, t_min, t_max)
    fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=figsize)
    fig.suptitle(title)
    grid = _size_grid(n)
    models = {}
    if fit is not None:
        models[_model_label(_model_of(fit))] = _model_of(fit)
    for name, m in (others or {}).items():
        models[name] = _model_of(m)

    measured(ax_t, n, t, lo, hi, label=label)
    pos = n > 0
    bw = n[pos] / t[pos]
    bw_lo = None if hi is None else n[pos] / hi[pos]
    bw_hi = None if lo is None else n[pos] / lo[pos]
    measured(ax_b, n[pos], bw, bw_lo, bw_hi, label=label)
    for i, (name, m) in enumerate(models.items()):
        style = {"color": f"C{i + 1}", "ls": "-" if i == 0 else "--"}
        tm = np.asarray(m.time_us(grid), float)
        tm = np.where(tm > 0, tm, np.nan)   # an unphysical line cannot go on a log axis
        model_line(ax_t, grid, tm, label=name, **style)
        model_line(ax_b, grid[1:], grid[1:] / tm[1:], label=name, **style)
    model = _model_of(fit) if fit is not None else None
    if model is not None and hasattr(model, "n_half"):
        ax_b.axhline(model.bandwidth_MBps, color="C1", lw=0.8, ls=":", label="b (model asymptote)")
        ax_b.axvline(model.n_half, color="0.4", lw=0.8, ls=":",
                     label=f"n½ = λ·b = {model.n_half:.3g} B (model)")
    for bp in getattr(model, "breakpoints", []) or []:
        for ax in (ax_t, ax_b):
            ax.axvline(bp, color="0.5", lw=0.8, ls="-.")
    ax_t.set_yscale("log")
    ax_t.set_ylabel("time t (µs, half round trip)")
    ax_t.set_title("latency")
    ax_b.set_yscale("log")
    ax_b.set_ylabel("bandwidth n / t (MB/s)")
    ax_b.set_title("effective bandwidth")
    for ax in (ax_t, ax_b):
        _size_axis(ax)
    ax_t.legend(fontsize=8, loc="upper left")
    ax_b.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def plot_residuals(fit, sizes, times=None, *, others=None, title="Relative residuals of the fit",
                   ax=None):
    """(model - measured) / measured in % against size; piecewise breakpoints as lines."""
    n, t, _, _ = pingpong_points(sizes, times)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
    else:
        fig = ax.figure
    models = {_model_label(_model_of(fit)): _model_of(fit)}
    models.update({k: _model_of(m) for k, m in (others or {}).items()})
    worst = 0.0
    for i, (name, m) in enumerate(models.items()):
        r = 100 * (np.asarray(m.time_us(n), float) - t) / t
        worst = max(worst, float(np.max(np.abs(r))))
        ax.plot(n, r, marker="os^v"[i % 4], ms=4, lw=0.8, color=f"C{i + 1}", label=name)
    ax.axhline(0, color="k", lw=0.8)
    band = getattr(fit, "f_scale", None) or getattr(
        (getattr(fit, "segments", None) or [None])[0], "f_scale", None)
    if band:
        ax.axhspan(-100 * band, 100 * band, color="0.9", zorder=0,
                   label=f"±{100 * band:.0f} % (robust loss scale)")
    for bp in getattr(_model_of(fit), "breakpoints", []) or []:
        ax.axvline(bp, color="0.5", lw=0.8, ls="-.")
    if worst > 200:    # a bad line misses by orders of magnitude; keep the good one readable
        ax.set_yscale("symlog", linthresh=10)
    _size_axis(ax)
    ax.set_ylabel("(model - measured) / measured (%)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig

def plot_allocation_effect(tables: dict, figsize=(6.4, 4.0)):
    """Effective bandwidth against size for several runs (label -> tidy table)."""
    fig, ax = plt.subplots(figsize=figsize)
    for i, (label, t) in enumerate(tables.items()):
        t = t[t["size_bytes"] > 0].sort_values("size_bytes")
        n = t["size_bytes"].to_numpy(float)
        measured(ax, n, n / t["t_us"], n / t["t_max_us"], n / t["t_min_us"], label=label,
                 color=f"C{i}", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size n (bytes)")
    ax.set_ylabel("bandwidth n / t (MB/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Same kernel, two ways to allocate the buffers")
    fig.tight_layout()
    return fig


def plot_link_classes(seed, here_fit=None, here_label="this machine", machine="orfeo-thin",
                      figsize=(11, 4.2)):
    """Latency and bandwidth per placement and transport of one machine in a summary table
    (such as ORFEO's pingpong_seed), with this machine's fitted values as reference lines."""
    rows = seed[seed["machine"] == machine].copy()
    rows["bw"] = rows["bandwidth_fit_MBps"].fillna(rows.get("bandwidth_asymptotic_MBps"))
    rows["label"] = rows["transport"] + " (" + rows["mpi_library"].str.replace(r" [\d.]+$", "", regex=True) + ")"
    mappings = [m for m in ("core", "socket", "node") if m in set(rows["mapping"])]
    labels = list(dict.fromkeys(rows["label"]))
    fig, (ax_l, ax_b) = plt.subplots(1, 2, figsize=figsize)
    width = 0.8 / max(len(mappings), 1)
    x = np.arange(len(labels))
    for i, m in enumerate(mappings):
        sub = rows[rows["mapping"] == m].set_index("label").reindex(labels)
        for ax, col in ((ax_l, "latency_us"), (ax_b, "bw")):
            ax.bar(x + (i - (len(mappings) - 1) / 2) * width, sub[col], width, label=f"map by {m}")
    if here_fit is not None:
        ax_l.axhline(here_fit.lambda_us, color="k", ls="--", lw=1, label=f"{here_label} (fit)")
        ax_b.axhline(here_fit.bandwidth_MBps, color="k", ls="--", lw=1, label=f"{here_label} (fit)")
    for ax, ylabel in ((ax_l, "zero-size latency (µs)"), (ax_b, "bandwidth (MB/s)")):
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.grid(True, axis="y", alpha=0.3)
    ax_l.set_yscale("log")
    ax_l.set_title("latency λ")
    ax_b.set_title("bandwidth b")
    ax_l.legend(fontsize=8)
    machines = ", ".join(sorted(set(rows["machine"])))
    fig.suptitle(f"ORFEO ping-pong ({machines}): figures quoted in the seed report", fontsize=10)
    fig.tight_layout()
    return fig


def plot_orfeo_pingpong(curves, here=None, machine="orfeo-thin", figsize=(12, 6.5)):
    """Raw ORFEO ping-pong curves of one machine: a column per placement (core, socket, node),
    time above and bandwidth below, one line per transport and library family (the median over
    the students who measured it of each one's median run: orfeo.per_configuration, so raw and
    derived tables draw the same lines). This machine's live curve sits in the core column:
    its two ranks share one socket."""
    curves = per_configuration(curves)
    d = curves[curves["machine"] == machine].copy()
    d["family"] = d["mpi_library"].str.extract(r"^(Open MPI|Intel MPI)", expand=False).fillna(d["mpi_library"])
    d["line"] = d["transport"] + " (" + d["family"] + ")"
    lines = sorted(set(d["line"]))
    colors = {name: f"C{i % 10}" for i, name in enumerate(lines)}
    mappings = [m for m in ("core", "socket", "node") if m in set(d["mapping"])]
    fig, axes = plt.subplots(2, len(mappings), figsize=figsize, sharex=True, sharey="row",
                             squeeze=False, layout="constrained")
    handles = {}
    for j, mapping in enumerate(mappings):
        ax_t, ax_b = axes[0, j], axes[1, j]
        sub = d[d["mapping"] == mapping]
        for name, g in sub.groupby("line"):
            g = g.groupby("size_bytes", as_index=False)["t_us"].median().sort_values("size_bytes")
            style = dict(lw=1.2, color=colors[name], ls="--" if "Intel" in name else "-")
            (h,) = ax_t.plot(g["size_bytes"], g["t_us"], **style)
            pos = g["size_bytes"] > 0
            ax_b.plot(g["size_bytes"][pos], g["size_bytes"][pos] / g["t_us"][pos], **style)
            handles[name] = h
        if here is not None and mapping == "core":
            h = here.sort_values("size_bytes")
            (hh,) = ax_t.plot(h["size_bytes"], h["t_us"], "k-", lw=2.2)
            pos = h["size_bytes"] > 0
            ax_b.plot(h["size_bytes"][pos], h["size_bytes"][pos] / h["t_us"][pos], "k-", lw=2.2)
            handles["this machine (live run)"] = hh
        ax_t.set_title(f"map by {mapping}")
        for ax in (ax_t, ax_b):
            _size_axis(ax)
            ax.set_yscale("log")
        ax_t.set_xlabel("")
    axes[0, 0].set_ylabel("time t (µs, half round trip)")
    axes[1, 0].set_ylabel("bandwidth n / t (MB/s)")
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncol=4, fontsize=8)
    fig.suptitle(f"ORFEO {machine} ping-pong (IMB), median over students of each one's median run",
                 fontsize=10)
    return fig


def plot_orfeo_machines(curves, transports=("ucx", "ob1-tcp", "ob1-vader"), library="Open MPI",
                        machines=("orfeo-thin", "orfeo-gpu"), figsize=(12, 3.8)):
    """Bandwidth of the same transports on two ORFEO node types, a panel per placement
    (median over students of each one's median run, per machine, placement and transport)."""
    curves = per_configuration(curves)
    d = curves[curves["transport"].isin(transports) & curves["machine"].isin(machines)
               & curves["mpi_library"].str.startswith(library)]
    mappings = [m for m in ("core", "socket", "node") if m in set(d["mapping"])]
    fig, axes = plt.subplots(1, len(mappings), figsize=figsize, sharey=True, squeeze=False,
                             layout="constrained")
    styles = {m: s for m, s in zip(machines, ("-", "--", ":"))}
    colors = {t: f"C{i}" for i, t in enumerate(transports)}
    for ax, mapping in zip(axes[0], mappings):
        for (machine, transport), g in d[d["mapping"] == mapping].groupby(["machine", "transport"]):
            g = g[g["size_bytes"] > 0].groupby("size_bytes", as_index=False)["t_us"].median()
            ax.plot(g["size_bytes"], g["size_bytes"] / g["t_us"], ls=styles[machine],
                    color=colors[transport], lw=1.4, label=f"{transport}, {machine}")
        _size_axis(ax)
        ax.set_yscale("log")
        ax.set_title(f"map by {mapping}")
        ax.legend(fontsize=7)
    axes[0, 0].set_ylabel("bandwidth n / t (MB/s)")
    fig.suptitle(f"ORFEO {' against '.join(machines)} ({library}, IMB PingPong)", fontsize=10)
    return fig


# --- ring ----------------------------------------------------------------------------------

from matplotlib.ticker import MaxNLocator  # noqa: E402

CLASS_COLORS = {"self": "0.6", "core": "C2", "socket": "C1", "node": "C3"}
SERIES_COLORS = ["C0", "C9", "C4", "C5", "C6", "C8"]  # not the link-class colours


def plot_ring(series, models=(), boundaries=(), title="Ring: time of one ring vs processes",
              ax=None, logy=False, per_step=False, legend="best"):
    """Ring time against P: measured series as points with their spread, models as lines.

    series: [(label, table with np, t_us, t_min_us, t_max_us)], models: [(label, P, t_us)],
    boundaries: [(P, class)] where the ring first uses a dearer link (drawn as dotted lines).
    per_step divides every time by P (µs per step).
    """
    if ax is None:
        fig, ax = new_axes(title, "processes P", "µs per step" if per_step else "time of one ring (µs)",
                           logy=logy)
    else:
        fig = ax.figure
    for i, (label, df) in enumerate(series):
        df = df.sort_values("np")
        P = df["np"].to_numpy(float)
        k = P if per_step else 1.0
        measured(ax, P, df["t_us"] / k, df["t_min_us"] / k, df["t_max_us"] / k, label=label,
                 color=SERIES_COLORS[i % len(SERIES_COLORS)], elinewidth=1)
    styles = ["-", "--", "-.", ":"]
    for i, (label, P, t) in enumerate(models):
        P = np.asarray(P, float)
        model_line(ax, P, np.asarray(t, float) / (P if per_step else 1.0), label=label,
                   color="k", ls=styles[i % len(styles)])
    for P, cls in boundaries:
        if P > 1:
            ax.axvline(P - 0.5, color=CLASS_COLORS.get(cls, "0.5"), ls=":", lw=1.2)
            ax.annotate(f"{cls} from P={P}", (P - 0.5, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(3, -12), textcoords="offset points", fontsize=8, rotation=90,
                        va="top", color=CLASS_COLORS.get(cls, "0.5"))
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
    measured(ax, df["size_bytes"], df["t_us"] / P, df["t_min_us"] / P, df["t_max_us"] / P,
             label=f"measured, P = {int(P[0])} (min-max bars)", color=SERIES_COLORS[0],
             elinewidth=1)
    for i, (label, n, t) in enumerate(models):
        model_line(ax, n, t, label=label, color="k", ls=["-", "--", ":"][i % 3])
    ax.legend(fontsize=8)
    return fig


# --- matrix addition -------------------------------------------------------------------------

PHASE_COLORS = {"scatter": "C0", "add": "C2", "gather": "C1"}


def plot_matrix_phases(rows, model=None, title="Matrix addition: where the time goes", ax=None,
                       label_col="grid"):
    """Stacked bars of the median scatter, add and gather time per row (one kernel run each),
    the total's min-max as an error bar, and model totals as black markers.

    rows: the kernel's table(s) (columns grid, t_scatter_median_us, ...); model: {label: µs}
    keyed like rows[label_col].
    """
    if ax is None:
        fig, ax = plt.subplots(figsize=(8.6, 4.0))
    else:
        fig = ax.figure
    labels = [str(v) for v in rows[label_col]]
    x = np.arange(len(rows))
    bottom = np.zeros(len(rows))
    for phase in ("scatter", "add", "gather"):
        v = rows[f"t_{phase}_median_us"].to_numpy(float) / 1e3
        ax.bar(x, v, 0.6, bottom=bottom, label=f"{phase} (measured)", color=PHASE_COLORS[phase])
        bottom += v
    t = rows["t_us"] if "t_us" in rows else rows["t_median_us"]
    tmin = rows["t_min_us"].to_numpy(float) / 1e3
    tmax = rows["t_max_us"].to_numpy(float) / 1e3
    t = t.to_numpy(float) / 1e3
    ax.errorbar(x, t, yerr=np.vstack([t - tmin, tmax - t]).clip(0), fmt="none", ecolor="k",
                capsize=3, lw=1, label="total: min-max over repetitions")
    if model:
        ax.plot(x, [model.get(lab, np.nan) / 1e3 for lab in labels], "kD", ms=6, mfc="white",
                label="total (model)")
    ax.set_xticks(x, labels, rotation=30 if len(x) > 6 else 0)
    ax.set_ylabel("time (ms)")
    ax.set_xlabel(label_col)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def plot_orfeo_matrix(table, value="t_us", title="ORFEO, 24 processes: time per process grid",
                      ax=None, models=None):
    """One marker per (grid, matrix shape): table with columns grid, matrix, t_us (µs),
    source_label. Grids are ordered 1-D, 2-D, 3-D so a trend with dimensionality would show.
    models: {label: µs} drawn as horizontal lines (the model does not depend on the grid)."""
    from .models.matrix import grid_dimensionality

    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 3.8))
    else:
        fig = ax.figure
    grids = sorted(dict.fromkeys(table["grid"]), key=lambda g: (grid_dimensionality(g), g))
    pos = {g: i for i, g in enumerate(grids)}
    markers = ["o", "s", "^", "v", "D"]
    for i, ((src, shape), g) in enumerate(table.groupby(["source_label", "matrix"], sort=False)):
        ax.plot([pos[v] for v in g["grid"]], g[value] / 1e3, markers[i % 5], ms=5, ls="none",
                label=f"{src}: {shape}", color=f"C{i}")
    for j, (label, t) in enumerate((models or {}).items()):
        ax.axhline(t / 1e3, color="k", lw=1.2, ls=["-", "--", ":"][j % 3],
                   label=label if "model" in label.lower() else f"{label} (model)")
    dims = [grid_dimensionality(g) for g in grids]
    for d in (2, 3):
        if d in dims:
            ax.axvline(dims.index(d) - 0.5, color="0.6", lw=1, ls=":")
    ax.set_xticks(range(len(grids)), grids, rotation=60, fontsize=8)
    ax.set_ylabel("time (ms)")
    ax.set_xlabel("process grid (1-D, then 2-D, then 3-D)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def plot_halo_vs_collective(shape, P, title=None, ax=None):
    """Per grid of P processes: elements a halo exchange moves (depends on the grid) against the
    elements one scatter of the matrix moves (does not)."""
    from .models import matrix as M

    if ax is None:
        fig, ax = plt.subplots(figsize=(7.2, 3.8))
    else:
        fig = ax.figure
    gs = [g for g in M.grids(P) if all(a <= b for a, b in zip(g, M._dims("shape", shape)))]
    gs.sort(key=lambda g: M.halo_elements(shape, g))
    halo = [M.halo_elements(shape, g) for g in gs]
    blocks = M.block_sizes(shape, gs[0])
    scatter = int(blocks.sum() - blocks[0])
    x = np.arange(len(gs))
    ax.bar(x, halo, 0.6, color="C4", label="one halo exchange (width 1), all ranks")
    ax.axhline(scatter, color="C0", lw=2, label="one scatter of the matrix (any grid)")
    ax.set_xticks(x, [M.grid_name(g) for g in gs], rotation=60, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("elements moved")
    ax.set_title(title or f"{M.grid_name(shape)} matrix on {P} processes")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig

# --- collectives and topology ---------------------------------------------------------------

# topology part (book/topology.md): drawings of interconnects with an algorithm's messages

def _steps_of(messages):
    """Accept a schedule (steps of Message) or a flat list of (src, dst) pairs (one step)."""
    if not messages:
        return []
    first = messages[0]
    if isinstance(first, (list, tuple)) and first and not isinstance(first[0], (int, np.integer)):
        return [[(m.src, m.dst) if hasattr(m, "src") else tuple(m) for m in step] for step in messages]
    return [[(m.src, m.dst) if hasattr(m, "src") else tuple(m) for m in messages]]


def draw_topology(graph, messages=None, ax=None, placement=None, routed=True, title=None,
                  labels=True, legend=True):
    """Draw a commbook.topology graph; with `messages` (a collectives schedule, i.e. steps of
    messages between ranks, or a list of (src, dst) pairs), draw one arrow per message
    coloured by step. routed=True follows each message's route link by link (so shared links
    show); otherwise one curved arrow from source to destination. placement maps ranks to
    processors (default: rank r on processor r)."""
    import networkx as nx
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    from . import topology as topo

    G = graph
    if ax is None:
        width = 7.0 if G.number_of_nodes() > 20 else 5.5
        _, ax = plt.subplots(figsize=(width, 4.2))
    pos = nx.get_node_attributes(G, "pos") or nx.spring_layout(G, seed=1)
    xs = np.array([p[0] for p in pos.values()])
    for u, v, d in G.edges(data=True):
        (x1, y1), (x2, y2) = pos[u], pos[v]
        if d.get("wrap"):  # a stub out of each side of the grid instead of a line across it
            dx, dy = np.sign(x1 - x2) * 0.35, np.sign(y1 - y2) * 0.35
            for (x, y), sgn in (((x1, y1), 1), ((x2, y2), -1)):
                ax.plot([x, x + sgn * dx], [y, y + sgn * dy], color="0.6", lw=1.2, ls="--", zorder=1)
        else:
            style = {"socket": dict(lw=2.0, color="0.55"), "node": dict(lw=3.0, color="0.35")}
            ax.plot([x1, x2], [y1, y2], zorder=1, **style.get(d.get("link"), dict(lw=1.2, color="0.7")))
    procs = topo.processors(G)
    switches = [u for u in G if u not in set(procs)]
    small = len(procs) > 24
    dense = G.graph.get("kind") == "cluster" or len(procs) > 16
    ax.scatter([pos[u][0] for u in procs], [pos[u][1] for u in procs],
               s=40 if small else 130 if dense else 260,
               c="white", edgecolors="C0", linewidths=1.5, zorder=3)
    if switches:
        ax.scatter([pos[u][0] for u in switches], [pos[u][1] for u in switches], marker="s",
                   s=90, c="0.85", edgecolors="0.4", zorder=3)
    if labels and not small:
        for u in procs:
            ax.text(*pos[u], str(u), ha="center", va="center", fontsize=6 if dense else 8, zorder=4)
    steps = _steps_of(messages)
    cmap = plt.get_cmap("viridis" if len(steps) > 10 else "tab10")
    handles = []
    place = list(placement) if placement is not None else None
    for s, step in enumerate(steps):
        color = cmap(s / max(len(steps) - 1, 1)) if len(steps) > 10 else cmap(s % 10)
        for j, (a, b) in enumerate(step):
            pa, pb = (place[a], place[b]) if place else (a, b)
            path = topo.route(G, pa, pb) if routed else [pa, pb]
            hopsegs = list(zip(path, path[1:]))
            for k, (u, v) in enumerate(hopsegs):
                last = k == len(hopsegs) - 1
                rad = 0.08 + 0.04 * (j % 3) if routed else 0.25
                ax.add_patch(FancyArrowPatch(
                    pos[u], pos[v], arrowstyle="-|>" if last else "-", mutation_scale=12,
                    color=color, lw=1.8, alpha=0.85, shrinkA=9 if k == 0 else 2,
                    shrinkB=9 if last else 2, connectionstyle=f"arc3,rad={rad}", zorder=2))
        handles.append(Line2D([], [], color=color, lw=2, label=f"step {s + 1}"))
    if handles and legend:
        ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                  frameon=False, ncol=1 if len(handles) <= 12 else 2)
    ys = np.array([p[1] for p in pos.values()])
    xpad, ypad = 0.05 * np.ptp(xs) + 0.5, 0.08 * np.ptp(ys) + 0.5
    ax.set_xlim(xs.min() - xpad, xs.max() + xpad)
    ax.set_ylim(ys.min() - ypad, ys.max() + ypad)
    if G.graph.get("kind") in ("linear", "ring", "mesh", "torus", "hypercube"):
        ax.set_aspect("equal", adjustable="box")
    ax.axis("off")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return ax


def plot_routing_modes(t_s: float, t_h: float, t_w: float, sizes=(64, 4096, 65536), max_hops=10,
                       ax=None):
    """Store-and-forward against cut-through: time against the number of links for a few
    message sizes (lecture model t_s + l t_h + n/t_w and t_s + l (t_h + n/t_w))."""
    from . import topology as topo

    if ax is None:
        _, ax = plt.subplots(figsize=(7.4, 4.0))
    from matplotlib.lines import Line2D

    hops = np.arange(1, max_hops + 1)
    for i, n in enumerate(sizes):
        for routing, ls in (("store-and-forward", "--"), ("cut-through", "-")):
            t = topo.message_time(n, hops, t_s, t_h, t_w, routing)
            ax.plot(hops, t, color=f"C{i}", ls=ls, **MODEL_STYLE,
                    label=f"n = {size_label(n)} B (model)" if ls == "-" else None)
    styles = [Line2D([], [], color="k", ls="-", label="cut-through (model)"),
              Line2D([], [], color="k", ls="--", label="store-and-forward (model)")]
    first = ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.add_artist(first)
    ax.legend(handles=styles, fontsize=7, loc="lower left", bbox_to_anchor=(1.0, 0.0), frameon=False)
    ax.set_yscale("log")
    ax.set_xlabel("links on the path l")
    ax.set_ylabel("message time (µs)")
    ax.set_title(f"t_s = {t_s:g} µs, t_h = {t_h:g} µs, t_w = {t_w:,.0f} MB/s", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.figure.tight_layout()
    return ax


def plot_latency_matrix(L, ax=None, title="core-to-core latency", boundaries=(), vmax=None):
    """Heat map of a P x P latency matrix in µs; `boundaries` draws lines between sockets/nodes."""
    L = np.asarray(L, float)
    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 4.4))
    im = ax.imshow(L, cmap="magma_r", origin="upper", interpolation="nearest", vmin=0, vmax=vmax)
    plt.colorbar(im, ax=ax, label="latency (µs)", shrink=0.85)
    for b in boundaries:
        ax.axhline(b - 0.5, color="w", lw=1)
        ax.axvline(b - 0.5, color="w", lw=1)
    ax.set_xlabel("core j")
    ax.set_ylabel("core i")
    ax.set_title(title, fontsize=10)
    return ax

# collectives part (book/collectives.md): measured times, message patterns, communication diagrams

_COLL_STYLE = {  # one colour per algorithm family across kernel, library and ORFEO names
    "linear": "C0", "basic_linear": "C0", "library:1": "C0",
    "chain": "C1", "library:2": "C1", "pipeline": "C2", "library:3": "C2",
    "binary": "C3", "binary_tree": "C3", "library:5": "C3",
    "binomial": "C4", "library:6": "C4",
    "butterfly-lh": "C5", "butterfly-hl": "C6", "recursive_doubling": "C5",
    "library": "k", "default": "k",
}


def collective_color(algorithm: str, i: int = 0) -> str:
    return _COLL_STYLE.get(str(algorithm), f"C{(i + 7) % 10}")


def plot_collective_times(table, x="size_bytes", models=None, title="", ax=None, label_suffix="",
                          logy=True):
    """Measured time per call (median, bars from min to max over repetitions) of every
    algorithm in a tidy table, against message size (x="size_bytes") or processes (x="np").
    `models`: a table algorithm, np, size_bytes, t_us (commbook.collectives.predict_table)
    drawn as lines labelled "model"."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7.2, 4.2))
    for i, (alg, g) in enumerate(table.groupby("algorithm", sort=False)):
        g = g.sort_values(x)
        xs = g[x].to_numpy(float)
        measured(ax, xs, g["t_us"], g["t_min_us"], g["t_max_us"], color=collective_color(alg, i),
                 label=f"{alg}{label_suffix}")
    if models is not None and len(models):
        for i, (alg, g) in enumerate(models.groupby("algorithm", sort=False)):
            g = g.sort_values(x)
            xs = g[x].to_numpy(float)
            model_line(ax, xs, g["t_us"], label=f"{alg} (model)", color=collective_color(alg, i),
                       ls="--")
    if x == "size_bytes":
        _size_axis(ax)
    else:
        ax.set_xlabel("processes P")
    if logy:
        ax.set_yscale("log")
    ax.set_ylabel("time per call (µs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.figure.tight_layout()
    return ax


def plot_message_matrices(messages, P: int, algorithms=None, titles=None, ncols=4):
    """Who sent to whom in one call: a P x P grid per algorithm, from the library's own
    message counters (commbook.collectives.parse_messages). Row = sender, column = receiver."""
    from .collectives import message_matrix

    algorithms = list(algorithms or dict.fromkeys(messages.algorithm))
    n = len(algorithms)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols + 0.4, 2.6 * nrows + 0.3),
                             squeeze=False)
    for k, ax in enumerate(axes.flat):
        if k >= n:
            ax.axis("off")
            continue
        alg = algorithms[k]
        M = message_matrix(messages, alg, P)
        ax.imshow(M > 0, cmap="Blues", vmin=0, vmax=1.6, interpolation="nearest")
        for i, j in zip(*np.nonzero(M)):
            ax.text(j, i, str(M[i, j]) if M[i, j] > 1 else "•", ha="center", va="center",
                    fontsize=8, color="k")
        ax.set_xticks(range(P))
        ax.set_yticks(range(P))
        ax.tick_params(labelsize=7)
        ax.set_xlabel("to rank", fontsize=8)
        if k % ncols == 0:
            ax.set_ylabel("from rank", fontsize=8)
        ax.set_title((titles or {}).get(alg, alg), fontsize=9)
    fig.tight_layout()
    return fig


def plot_communication_diagram(trace, algorithm: str, P: int, ax=None, title=None):
    """The homework's drawing of a butterfly (seeds/004): ranks across, time down; each step
    is a row of arrows from sender to receiver (both directions of an exchange show)."""
    t = trace[trace.algorithm == algorithm]
    if t.empty:
        raise ValueError(f"no trace for '{algorithm}'")
    steps = sorted(t.step.unique())
    if ax is None:
        _, ax = plt.subplots(figsize=(0.55 * P + 2.2, 0.75 * len(steps) + 1.0))
    from matplotlib.patches import FancyArrowPatch
    for k, step in enumerate(steps):
        y0, y1 = -k, -(k + 1)
        for r in t[t.step == step].itertuples():
            bend = 0.15 if r.src < r.dst else -0.15
            ax.add_patch(FancyArrowPatch((r.src, y0), (r.dst, y1), arrowstyle="-|>",
                                         mutation_scale=10, color=f"C{k % 10}", lw=1.3,
                                         connectionstyle=f"arc3,rad={bend}", shrinkA=5, shrinkB=5))
        phase = ", ".join(sorted(set(t[t.step == step].phase)))
        ax.text(P - 0.4, (y0 + y1) / 2, f"step {step}: {phase}", fontsize=7, va="center")
    for y in range(len(steps) + 1):
        ax.scatter(range(P), [-y] * P, s=60, c="white", edgecolors="0.3", zorder=3)
    ax.set_xticks(range(P))
    ax.set_xticklabels([str(r) for r in range(P)], fontsize=8)
    ax.set_xlabel("rank")
    ax.set_yticks([])
    ax.set_xlim(-0.6, P + 1.8)
    ax.set_ylim(-len(steps) - 0.4, 0.4)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or f"{algorithm}: who sends to whom, step by step (P = {P})", fontsize=10)
    ax.figure.tight_layout()
    return ax


def plot_ratio(ratios, x="size_bytes", label="ratio", title="", ax=None, color="C5"):
    """A ratio of two algorithms' times (commbook.collectives.ratio_table) with its range;
    1 (no difference) drawn as a line."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    r = ratios.sort_values(x)
    xs = r[x].to_numpy(float)
    measured(ax, xs, r["ratio"], r["ratio_low"], r["ratio_high"], color=color,
             label=f"{label}: medians (bars: worst-case range)")
    ax.plot(xs, r["ratio_of_minima"], "x", color=color, label=f"{label}: fastest repetitions")
    ax.axhline(1.0, color="0.3", lw=1)
    if x == "size_bytes":
        _size_axis(ax)
    else:
        ax.set_xlabel("processes P")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("time ratio")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    ax.figure.tight_layout()
    return ax

# end of the collectives part

# --- jacobi --------------------------------------------------------------------------------
def plot_jacobi_convergence(runs, title="Jacobi: distance to the known solution, sweep by sweep"):
    """runs: [(label, error_rms_history, residual_rms_history)]; both on a log axis."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for i, (label, err, res) in enumerate(runs):
        style = dict(marker="o", ms=3, lw=1, color=SERIES_COLORS[i % len(SERIES_COLORS)],
                     ls=["-", "--", ":", "-."][i % 4])
        axes[0].plot(np.arange(len(err)), err, label=label, **style)
        axes[1].plot(np.arange(len(res)), res, label=label, **style)
    for ax, what in zip(axes, ["RMS error against the exact solution", "RMS residual"]):
        ax.set_yscale("log")
        ax.set_xlabel("sweep")
        ax.set_title(what, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


JACOBI_BALANCES = [(16, "16 B/LUP (layer cond., no write-alloc.)"),
                   (24, "24 B/LUP (layer cond. + write-alloc.)"),
                   (40, "40 B/LUP (no layer cond.)")]


def plot_jacobi_roofline(L, mlups, bandwidth_MBps, mlups_min=None, mlups_max=None,
                         caches=(), title="One process: measured MLUP/s against the roofline"):
    """MLUP/s of single-process sweeps against the grid edge L, with the memory roofline
    bandwidth / code balance for each balance, and where two grids outgrow each cache.

    caches: [(name, bytes)] e.g. [("L2", 512 KiB), ("L3", 32 MiB)].
    """
    fig, ax = new_axes(title, "grid edge L (L^3 points, 2 arrays of doubles)", "MLUP/s", logx=True)
    L = np.asarray(L, float)
    measured(ax, L, mlups, mlups_min, mlups_max, label="measured, 1 process (median sweep)",
             color="C0", ms=6, elinewidth=1)
    for (balance, label), ls in zip(JACOBI_BALANCES, ["--", "-", ":"]):
        model_line(ax, [L.min() / 1.3, L.max() * 1.3], [bandwidth_MBps / balance] * 2,
                   label=f"roofline model, {label}", color="k", ls=ls, lw=1.2)
    for name, size in caches:
        edge = (size / 16) ** (1 / 3)  # two arrays of L^3 doubles
        if L.min() / 1.3 < edge < L.max() * 1.3:
            ax.axvline(edge, color="0.5", ls=":", lw=1)
            ax.annotate(f"2 grids > {name}", (edge, 0.0), xycoords=("data", "axes fraction"),
                        xytext=(3, 6), textcoords="offset points", fontsize=8, rotation=90,
                        va="bottom", color="0.4")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    fig.set_size_inches(7.0, 5.0)
    fig.tight_layout()
    return fig


def plot_jacobi_time_split(labels, compute_us, halo_us, title="Where a sweep's time goes"):
    """Stacked bars per run: compute and halo exchange (µs per sweep, slowest rank)."""
    fig, ax = new_axes(title, "", "µs per sweep (slowest rank, median)", figsize=(6.4, 3.6))
    x = np.arange(len(labels))
    compute_us, halo_us = np.asarray(compute_us, float), np.asarray(halo_us, float)
    ax.bar(x, compute_us, color="C2", label="compute (measured)")
    ax.bar(x, halo_us, bottom=compute_us, color="C1", label="halo exchange (measured)")
    for xi, c, h in zip(x, compute_us, halo_us):
        ax.annotate(f"{h / (c + h):.0%}", (xi, c + h), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.legend(fontsize=8)
    ax.grid(True, axis="x", alpha=0)
    return fig


def plot_jacobi_scaling(series=(), models=(), title="Jacobi: MLUP/s against processes",
                        ax=None, highlight=None, logy=False, legend_loc="upper left"):
    """MLUP/s against N: series [(label, N, mlups)] as points, models [(label, N, mlups)] as
    lines (labelled model), highlight = (N, mlups) of the selected point."""
    if ax is None:
        fig, ax = new_axes(title, "processes N", "MLUP/s", logy=logy)
    else:
        fig = ax.figure
    markers = ["o", "s", "^", "D", "v", "P"]
    for i, (label, N, p) in enumerate(series):
        measured(ax, N, p, label=label, color=SERIES_COLORS[i % len(SERIES_COLORS)],
                 marker=markers[i % len(markers)], ms=6)
    styles = ["-", "--", "-.", ":"]
    for i, (label, N, p) in enumerate(models):
        model_line(ax, N, p, label=label, color=["k", "C3", "C7", "C4"][i % 4],
                   ls=styles[i % len(styles)])
    if highlight is not None:
        ax.plot([highlight[0]], [highlight[1]], marker="*", ms=14, color="C3", lw=0,
                label=f"N = {highlight[0]}: {highlight[1]:,.0f} MLUP/s (model)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc=legend_loc)
    return fig


def plot_jacobi_report_check(labels, measured_mlups, report_mlups, consistent_mlups,
                             title="Model / measured for the report's ORFEO runs (L = 1200)"):
    """For each run, prediction / measurement of the report's arithmetic and of the same
    formula in consistent units (1 = perfect; below 1 the model underestimates)."""
    fig, ax = new_axes(title, "", "model / measured", figsize=(9, 3.8))
    x = np.arange(len(labels))
    m = np.asarray(measured_mlups, float)
    ax.bar(x - 0.2, np.asarray(report_mlups, float) / m, 0.4, color="C7",
           label="the report's numbers (model)")
    ax.bar(x + 0.2, np.asarray(consistent_mlups, float) / m, 0.4, color="C0",
           label="same formula, consistent units (model)")
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xticks(x, labels, fontsize=8, rotation=30, ha="right")
    ax.set_ylim(0.6, 1.45)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="x", alpha=0)
    fig.tight_layout()
    return fig


def plot_jacobi_noncompute(labels, noncompute_s, imbalance_s, model_tc_s,
                           title="Per sweep: time outside the stencil against the model's T_c"):
    """Measured time per sweep outside the slowest rank's stencil, the compute imbalance
    between ranks, and the model's communication time, per run (log scale)."""
    fig, ax = new_axes(title, "", "seconds per sweep", logy=True, figsize=(9, 3.8))
    x = np.arange(len(labels))

    def shown(v):  # nothing to draw for zero (one process has no imbalance and no T_c)
        v = np.asarray(v, float)
        return np.where(v > 0, v, np.nan)

    noncompute_s, imbalance_s, model_tc_s = shown(noncompute_s), shown(imbalance_s), shown(model_tc_s)
    ax.bar(x - 0.27, noncompute_s, 0.27, color="C1", label="sweep - slowest compute (measured)")
    ax.bar(x, imbalance_s, 0.27, color="C4", label="slowest - fastest compute (measured)")
    ax.bar(x + 0.27, model_tc_s, 0.27, color="0.6", label="T_c = c/B + k T_l (model)")
    ax.set_xticks(x, labels, fontsize=8, rotation=30, ha="right")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(True, axis="x", alpha=0)
    fig.tight_layout()
    return fig


# --- data (ORFEO datasets page) ---------------------------------------------------------------
def plot_core_latency(table, size_bytes=None, title="osu_latency from core 0", ax=None):
    """Latency from core 0 to each core (params core_to), coloured by where the core is
    (params channel when the data name it, else the mapping)."""
    from .data import params_to_dict
    rows = table if size_bytes is None else table[table["size_bytes"] == size_bytes]
    params = rows["params"].map(params_to_dict)
    rows = rows.assign(core_to=params.map(lambda p: p.get("core_to")).astype(float),
                       level=[p.get("channel", m) for p, m in zip(params, rows["mapping"])])
    rows = rows.dropna(subset=["core_to"])
    if ax is None:
        fig, ax = new_axes(title, "destination core (core_to)", "time t (µs)")
    else:
        fig = ax.figure
    order = {"cache": 0, "core": 1, "socket": 2, "node": 3}
    for level, g in sorted(rows.groupby("level"), key=lambda kv: order.get(kv[0], 9)):
        g = g.groupby("core_to", as_index=False).agg(t=("t_us", "median"), lo=("t_min_us", "min"),
                                                      hi=("t_max_us", "max"))
        measured(ax, g["core_to"], g["t"], g["lo"], g["hi"], label=f"{level} (measured)")
    ax.legend(fontsize=8)
    return fig

