"""Matplotlib figures for the book. Measured data are drawn as points with their spread,
models as lines whose legend label says "model". One section per chapter."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

MEASURED_STYLE = dict(marker="o", ms=4, lw=0, capsize=2)
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

def plot_link_classes(seed, here_fit=None, here_label="this machine", figsize=(11, 4.2)):
    """Latency and bandwidth per placement and transport (a summary table such as ORFEO's
    pingpong_seed), with this machine's fitted values as a reference line."""
    rows = seed.copy()
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


def plot_orfeo_pingpong(curves, here=None, figsize=(11, 4.2)):
    """Raw ORFEO ping-pong curves (tidy: one line per machine/mapping/transport/library)."""
    fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=figsize)
    keys = ["machine", "mapping", "transport", "mpi_library"]
    groups = curves.groupby(keys, sort=True)
    for i, (key, g) in enumerate(groups):
        g = g.groupby("size_bytes", as_index=False)["t_us"].median().sort_values("size_bytes")
        label = f"{key[0]} {key[1]} {key[2]} ({key[3]})"
        style = dict(lw=1, marker=".", ms=3, color=f"C{i % 10}", ls="-" if i < 10 else "--")
        ax_t.plot(g["size_bytes"], g["t_us"], label=label, **style)
        pos = g["size_bytes"] > 0
        ax_b.plot(g["size_bytes"][pos], g["size_bytes"][pos] / g["t_us"][pos], label=label, **style)
    if here is not None:
        h = here.sort_values("size_bytes")
        ax_t.plot(h["size_bytes"], h["t_us"], "k-", lw=2, label="this machine (live)")
        pos = h["size_bytes"] > 0
        ax_b.plot(h["size_bytes"][pos], h["size_bytes"][pos] / h["t_us"][pos], "k-", lw=2,
                  label="this machine (live)")
    for ax in (ax_t, ax_b):
        _size_axis(ax)
        ax.set_yscale("log")
    ax_t.set_ylabel("time t (µs)")
    ax_b.set_ylabel("bandwidth n / t (MB/s)")
    ax_t.set_title("measured latency")
    ax_b.set_title("measured bandwidth")
    ax_b.legend(fontsize=6, ncol=1, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return fig


# --- ring ----------------------------------------------------------------------------------

# --- matrix addition -------------------------------------------------------------------------

# --- collectives and topology ---------------------------------------------------------------

# --- jacobi --------------------------------------------------------------------------------
