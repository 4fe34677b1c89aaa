"""Ping-pong chapter (book/pingpong.md): fits, residuals, allocation, ORFEO link classes and curves."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...orfeo import per_configuration
from ...plotting import measured, model_label, model_line, model_of, size_axis, size_grid
from ...units import format_bytes as bytes_text
from ...verdict import Verdict, cases


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
    pick = lambda a: None if a is None else a[order]
    return n[order], t[order], pick(lo), pick(hi)


def plot_pingpong_fit(
    data,
    fit=None,
    *,
    times=None,
    t_min=None,
    t_max=None,
    label="measured",
    others=None,
    title="Ping-pong",
    figsize=(11, 4.2),
):
    """Latency and bandwidth panels: measured points (median, min/max bars) and model lines.

    data is a tidy table, a kernel output table, or sizes with times=[...]. fit is a HockneyFit,
    PiecewiseFit or a model. others maps a label to more models to compare (e.g. the plain
    least-squares line from commbook.fit.ols_hockney); their negative times are not drawn.
    """
    n, t, lo, hi = pingpong_points(data, times, t_min, t_max)
    fig, (ax_t, ax_b) = plt.subplots(1, 2, figsize=figsize)
    fig.suptitle(title)
    grid = size_grid(n)
    models = {}
    if fit is not None:
        models[model_label(model_of(fit))] = model_of(fit)
    for name, m in (others or {}).items():
        models[name] = model_of(m)

    measured(ax_t, n, t, lo, hi, label=label)
    pos = n > 0
    bw = n[pos] / t[pos]
    bw_lo = None if hi is None else n[pos] / hi[pos]
    bw_hi = None if lo is None else n[pos] / lo[pos]
    measured(ax_b, n[pos], bw, bw_lo, bw_hi, label=label)
    for i, (name, m) in enumerate(models.items()):
        style = {"color": f"C{i + 1}", "ls": "-" if i == 0 else "--"}
        tm = np.asarray(m.time_us(grid), float)
        tm = np.where(tm > 0, tm, np.nan)  # an unphysical line cannot go on a log axis
        model_line(ax_t, grid, tm, label=name, **style)
        model_line(ax_b, grid[1:], grid[1:] / tm[1:], label=name, **style)
    model = model_of(fit) if fit is not None else None
    if model is not None and hasattr(model, "n_half"):
        ax_b.axhline(model.bandwidth_MBps, color="C1", lw=0.8, ls=":", label="b (model asymptote)")
        ax_b.axvline(model.n_half, color="0.4", lw=0.8, ls=":", label=f"n½ = {model.n_half:.3g} B (model)")
    for bp in getattr(model, "breakpoints", []) or []:
        for ax in (ax_t, ax_b):
            ax.axvline(bp, color="0.5", lw=0.8, ls="-.")
    ax_t.set_yscale("log")
    ax_t.set_ylabel("half-round-trip t (µs)")
    ax_t.set_title("latency")
    ax_b.set_yscale("log")
    ax_b.set_ylabel("n / t (MB/s)")
    ax_b.set_title("effective bandwidth")
    for ax in (ax_t, ax_b):
        size_axis(ax)
    ax_t.legend(fontsize=8, loc="upper left")
    ax_b.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def plot_residuals(fit, sizes, times=None, *, others=None, title="Relative residuals", ax=None):
    """(model - measured) / measured in % against size; piecewise breakpoints as lines."""
    n, t, _, _ = pingpong_points(sizes, times)
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
    else:
        fig = ax.figure
    models = {model_label(model_of(fit)): model_of(fit)}
    models.update({k: model_of(m) for k, m in (others or {}).items()})
    worst = 0.0
    for i, (name, m) in enumerate(models.items()):
        r = 100 * (np.asarray(m.time_us(n), float) - t) / t
        worst = max(worst, float(np.max(np.abs(r))))
        ax.plot(n, r, marker="os^v"[i % 4], ms=4, lw=0.8, color=f"C{i + 1}", label=name)
    ax.axhline(0, color="k", lw=0.8)
    band = getattr(fit, "f_scale", None) or getattr((getattr(fit, "segments", None) or [None])[0], "f_scale", None)
    if band:
        ax.axhspan(-100 * band, 100 * band, color="0.9", zorder=0, label=f"±{100 * band:.0f} % (robust loss scale)")
    for bp in getattr(model_of(fit), "breakpoints", []) or []:
        ax.axvline(bp, color="0.5", lw=0.8, ls="-.")
    if worst > 200:  # a bad line misses by orders of magnitude; keep the good one readable
        ax.set_yscale("symlog", linthresh=10)
    size_axis(ax)
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
        measured(ax, n, n / t["t_us"], n / t["t_max_us"], n / t["t_min_us"], label=label, color=f"C{i}", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size n (bytes)")
    ax.set_ylabel("n / t (MB/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Two buffer allocations")
    fig.tight_layout()
    return fig


def plot_link_classes(seed, here_fit=None, here_label="this machine", machine="orfeo-thin", figsize=(11, 4.2)):
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
    fig.suptitle(f"Seed report figures ({machines})", fontsize=10)
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
    fig, axes = plt.subplots(
        2, len(mappings), figsize=figsize, sharex=True, sharey="row", squeeze=False, layout="constrained"
    )
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
            size_axis(ax)
            ax.set_yscale("log")
        ax_t.set_xlabel("")
    axes[0, 0].set_ylabel("half-round-trip t (µs)")
    axes[1, 0].set_ylabel("n / t (MB/s)")
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncol=4, fontsize=8)
    fig.suptitle(f"{machine} ping-pong, IMB medians", fontsize=10)
    return fig


def plot_orfeo_machines(
    curves,
    transports=("ucx", "ob1-tcp", "ob1-vader"),
    library="Open MPI",
    machines=("orfeo-thin", "orfeo-gpu"),
    figsize=(12, 3.8),
):
    """Bandwidth of the same transports on two ORFEO node types, a panel per placement
    (median over students of each one's median run, per machine, placement and transport)."""
    curves = per_configuration(curves)
    d = curves[
        curves["transport"].isin(transports)
        & curves["machine"].isin(machines)
        & curves["mpi_library"].str.startswith(library)
    ]
    mappings = [m for m in ("core", "socket", "node") if m in set(d["mapping"])]
    fig, axes = plt.subplots(1, len(mappings), figsize=figsize, sharey=True, squeeze=False, layout="constrained")
    styles = {m: s for m, s in zip(machines, ("-", "--", ":"))}
    colors = {t: f"C{i}" for i, t in enumerate(transports)}
    for ax, mapping in zip(axes[0], mappings):
        for (machine, transport), g in d[d["mapping"] == mapping].groupby(["machine", "transport"]):
            g = g[g["size_bytes"] > 0].groupby("size_bytes", as_index=False)["t_us"].median()
            ax.plot(
                g["size_bytes"],
                g["size_bytes"] / g["t_us"],
                ls=styles[machine],
                color=colors[transport],
                lw=1.4,
                label=f"{transport}, {machine}",
            )
        size_axis(ax)
        ax.set_yscale("log")
        ax.set_title(f"map by {mapping}")
        ax.legend(fontsize=7)
    axes[0, 0].set_ylabel("n / t (MB/s)")
    fig.suptitle(f"{' against '.join(machines)}, {library}", fontsize=10)
    return fig


# ---------------------------------------------------------------------------------------
# What the page's prose says about its own measurements, decided from them


@cases("eager", "rendezvous", "mixed", "none", "noise")
def eager_against_rendezvous(moved, default_limit, moved_limit) -> Verdict:
    """Which protocol was cheaper (fastest repetition) at every size of the table from the default
    eager limit up to, not including, the moved one: sent eagerly in the moved run, by rendezvous
    in the default run. A limit counts the library's header, so a message of exactly the default
    limit already goes by rendezvous (and one of the moved limit in both runs). Sizes below the
    default limit go eagerly in both runs: if the two runs differ there by as much as the smallest
    gap between the limits, the case is noise. A library that reports no default limit (None)
    leaves no size known to lie between: none."""
    t = moved.pivot_table(index="size_bytes", columns="eager_limit", values="t_min_us")
    eager_col = [c for c in t.columns if c != "default"][0]
    between = t[(t.index >= (default_limit or moved_limit)) & (t.index < moved_limit)]
    numbers = {"default": bytes_text(default_limit or 0), "moved": bytes_text(moved_limit)}
    numbers |= {"same_size": "-", "same_factor": 0.0}
    if between.empty:  # every case's words are parsed: the numbers exist in every case
        return Verdict("none", {**numbers, "first": "-", "last": "-", "sizes": 0, "ratio_min": 0.0, "ratio_max": 0.0})
    ratio = between[eager_col] / between["default"]  # eager over rendezvous
    same = t[t.index < (default_limit or 0)]  # eager in both runs: the runs' own difference
    if not same.empty:
        factor = np.maximum(same[eager_col] / same["default"], same["default"] / same[eager_col])
        numbers |= {"same_size": bytes_text(factor.idxmax()), "same_factor": float(factor.max())}
    numbers.update(
        {
            "first": bytes_text(between.index.min()),
            "last": bytes_text(between.index.max()),
            "sizes": len(between),
            "ratio_min": float(ratio.min()),
            "ratio_max": float(ratio.max()),
        }
    )
    case = "eager" if (ratio < 1).all() else "rendezvous" if (ratio > 1).all() else "mixed"
    if case != "mixed" and numbers["same_factor"] >= float(np.maximum(ratio, 1 / ratio).min()):
        case = "noise"
    return Verdict(case, numbers)


@cases("reported", "unreported")
def library_limit(default_limit) -> Verdict:
    """Whether the MPI library reported its default shared-memory eager limit."""
    if default_limit:
        return Verdict("reported", {"bytes": float(default_limit)})
    return Verdict("unreported", {"bytes": 0.0})


def machines_compared(
    curves, mapping="node", transport="ucx", library="Open MPI", machines=("orfeo-thin", "orfeo-gpu")
):
    """Ping-pong time per size on two ORFEO node types (median over students of each one's
    median run, as plot_orfeo_machines draws it): a table, one column per machine."""
    curves = per_configuration(curves)
    d = curves[
        (curves["mapping"] == mapping)
        & (curves["transport"] == transport)
        & curves["machine"].isin(machines)
        & curves["mpi_library"].str.startswith(library)
    ]
    return d.pivot_table(index="size_bytes", columns="machine", values="t_us", aggfunc="median")[list(machines)]


def agree_from(compared, rel_tol=0.02) -> float:
    """The smallest size from which the two machines' times stay within rel_tol of each other."""
    ratio = (compared.iloc[:, 1] / compared.iloc[:, 0] - 1).abs().sort_index(ascending=False)
    start = float("nan")
    for size, gap in ratio.items():  # from the largest size down, while they agree
        if gap > rel_tol:
            break
        start = float(size)
    return start


@cases("slower", "faster", "same", "mixed")
def echo_verdict(ratio) -> Verdict:
    """Echo over own-buffer time at every size of the table: slower (all above 1.05), faster
    (all below 0.95), the same (all within 5 %), or mixed."""
    r = np.asarray([float(x) for x in ratio])
    numbers = {"ratio_min": float(r.min()), "ratio_max": float(r.max()), "tolerance_pct": 5.0}
    if (r > 1.05).all():
        return Verdict("slower", numbers)
    if (r < 0.95).all():
        return Verdict("faster", numbers)
    if (abs(r - 1) <= 0.05).all():
        return Verdict("same", numbers)
    return Verdict("mixed", numbers)


@cases("madvise", "always", "never", "unknown")
def hugepage_policy(policy: str) -> Verdict:
    """This machine's transparent huge pages setting, as a case the page words."""
    case = policy if policy in ("madvise", "always", "never") else "unknown"
    return Verdict(case, {"policy": str(policy)})


@cases("faster", "slower", "same", "mixed", "noise")
def allocation_verdict(plain, huge, policy: str | None = None) -> Verdict:
    """Huge-page over 4 KiB-page time at every size both runs measured. With transparent huge
    pages `never` or `always` (policy) both runs had the same pages, so a difference is noise."""
    a = plain.groupby("size_bytes")["t_us"].median()
    b = huge.groupby("size_bytes")["t_us"].median()
    sizes = sorted(set(a.index) & set(b.index))
    r = np.array([float(b[s] / a[s]) for s in sizes])
    numbers = {
        "ratio_min": float(r.min()),
        "ratio_max": float(r.max()),
        "first": bytes_text(sizes[0]),
        "last": bytes_text(sizes[-1]),
        "tolerance_pct": 5.0,
        "policy": str(policy),
    }
    if (abs(r - 1) <= 0.05).all():
        return Verdict("same", numbers)
    if policy in ("never", "always"):
        return Verdict("noise", numbers)
    if (r < 0.95).all():
        return Verdict("faster", numbers)
    if (r > 1.05).all():
        return Verdict("slower", numbers)
    return Verdict("mixed", numbers)


@cases("same_kind", "other_kind")
def reference_scope(ref_meta: dict, here: dict) -> Verdict:
    """How the shipped reference run relates to this machine (machine.describe()): the same kind
    (CPU model and core count) on another day, or another kind altogether."""
    cpu, cores = str(here.get("cpu", "?")), str(here.get("cores", "?"))
    ref_cpu, ref_cores = str(ref_meta.get("cpu", "?")), str(ref_meta.get("cores", "?"))
    numbers = {"cpu": cpu, "cores": cores, "ref_cpu": ref_cpu, "ref_cores": ref_cores}
    return Verdict("same_kind" if (ref_cpu, ref_cores) == (cpu, cores) else "other_kind", numbers)


# ---------------------------------------------------------------------------------------
# The lab's live run: the machinery behind its visible cells


def run_sweep(cluster, sizes, repetitions: int = 5, save: bool = True, **options):
    """Ping-pong once per size on the cluster's two engines (more kernel options, such as
    hugepages=1, as keywords); the tidy table, saved with its metadata
    (commbook.data.measurement_path("pingpong")) unless save=False."""
    from ... import data, kernels, machine

    outputs = cluster.sweep("pingpong", [f"{s}:{s}" for s in sizes], "sizes", {"repetitions": repetitions, **options})
    here = kernels.tidy_all(
        outputs, machine=machine.name(), mapping=machine.local_mapping(2), source="live run, book/pingpong_lab.md"
    )
    if save:
        meta = kernels.measurement_meta(outputs[0], "book/pingpong_lab.md")
        data.write_measurements(data.measurement_path("pingpong"), here, meta)
    return here


def model_against_measured(here, model, sizes):
    """Measured time (median of the repetitions), the model's and their ratio at `sizes`."""
    import pandas as pd

    t = here.groupby("size_bytes")["t_us"].median()
    rows = [
        {"size_bytes": int(s), "measured_us": float(t[s]), "model_us": float(np.asarray(model.time_us(s)).ravel()[0])}
        for s in sizes
    ]
    table = pd.DataFrame(rows).set_index("size_bytes")
    return table.assign(ratio=table.measured_us / table.model_us)


def glue_model_table(prefix: str, table) -> None:
    """Glue each cell of model_against_measured as <prefix>_<size>_<column>, and the size as
    <prefix>_<size>_size."""
    from ... import glued

    for size, row in table.iterrows():
        glued.text(f"{prefix}_{size}_size", bytes_text(size))
        for column in ("measured_us", "model_us", "ratio"):
            glued.number(f"{prefix}_{size}_{column}", row[column])


@cases("oversubscribed", "one_per_core")
def cores_for_the_pair(cores: int) -> Verdict:
    """Whether this machine has a core for each of the ping-pong's two ranks."""
    return Verdict("one_per_core" if cores >= 2 else "oversubscribed", {"cores": float(cores)})


def orfeo_curve(curves, mapping="node", transport="ucx", machine="orfeo-thin", library="Open MPI"):
    """One ORFEO ping-pong curve (size_bytes, t_us): the median per size over the students'
    median runs of one machine, placement, transport and library family."""
    d = per_configuration(curves)
    d = d[
        (d["machine"] == machine)
        & (d["mapping"] == mapping)
        & (d["transport"] == transport)
        & d["mpi_library"].str.startswith(library)
    ]
    if d.empty:
        raise LookupError(f"no ORFEO ping-pong curve for {machine}, {mapping}, {transport}, {library}")
    return d.groupby("size_bytes", as_index=False)["t_us"].median().sort_values("size_bytes")
