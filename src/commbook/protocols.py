"""Protocols and duplex, measured: the eager limit moved, the deadlock it hides, both ways at once.

* :func:`eager_env` -- the environment that moves the MPI library's shared-memory eager limit
  (each MPI family names its variable: :attr:`commbook.mpi_env.MPIFamily.eager_limit_variable`);
* :func:`pingpong_sweep` -- ping-pong with the limit at several values, one tidy table;
* :func:`deadlock_table` -- ``kernels_c/examples/deadlock.c --order send-first`` at several
  sizes and limits; a run that has not finished after `timeout` seconds is killed and reported
  as a deadlock (it is one: both ranks wait in MPI_Send for a receive nobody posts);
* :func:`duplex_table` -- ``bandwidth`` one way and both ways at once: the measured B/b that the
  Jacobi model's full-duplex assumption (B = 2b) takes for granted.
"""

from __future__ import annotations

import pandas as pd

from . import kernels, mpi_env


def library_eager_limit() -> int | None:
    """The shared-memory eager limit the MPI library uses by default, as it reports it
    (Open MPI: `ompi_info`, btl_sm_eager_limit); None when the library does not say."""
    return mpi_env.detect().family.reported_eager_limit()


def eager_env(limit: int | None, family: mpi_env.MPIFamily | str | None = None) -> dict:
    """Environment variables that set the shared-memory eager limit to `limit` bytes
    (None: the library's default, no variable) on `family` (default: this environment's)."""
    if limit is None:
        return {}
    if int(limit) <= 0:
        raise ValueError(f"eager limit must be a positive number of bytes, not {limit!r}")
    return mpi_env.family(family).eager_env(int(limit))


def _label(limit) -> str:
    return "default" if limit is None else str(int(limit))


def pingpong_sweep(
    limits, sizes: str = "256:256K", repetitions: int = 5, iterations: int = 500, timeout: float = 300.0
) -> pd.DataFrame:
    """Ping-pong (2 ranks) once per eager limit (None = the default); the tidy rows with a
    column eager_limit."""
    frames = []
    for limit in limits:
        out = kernels.run_mpiexec(
            "pingpong",
            2,
            {"sizes": sizes, "repetitions": repetitions, "iterations": iterations},
            timeout=timeout,
            env=eager_env(limit),
        )
        frames.append(out.to_tidy().assign(eager_limit=_label(limit)))
    return pd.concat(frames, ignore_index=True)


def deadlocks(size: int, limit: int | None = None, timeout: float = 10.0, np: int = 2, watchdog: int = 0) -> bool:
    """True if every rank calling a blocking MPI_Send of `size` bytes to its neighbour before
    its MPI_Recv hangs, False if it completes correctly. A hang ends when a rank has waited
    `watchdog` s in the exchange (the program's own watchdog: the launch is not counted), or else
    when the whole run passes `timeout` s (killed)."""
    options = {"order": "send-first", "size": int(size), "watchdog": int(watchdog)}
    try:
        kernels.run_mpiexec("examples/deadlock", np, options, timeout=timeout, env=eager_env(limit))
    except kernels.KernelTimeout:
        return True
    except kernels.KernelFailed as e:
        if "DEADLOCK" in (e.stderr or ""):
            return True
        raise
    return False


def deadlock_table(sizes, limits, timeout: float = 10.0, watchdog: int = 0) -> pd.DataFrame:
    """size_bytes x eager_limit -> 'completes' or 'deadlock (...)', how the hang was ended."""
    from concurrent.futures import ThreadPoolExecutor

    hung_text = f"deadlock (stuck {watchdog} s, ended)" if watchdog else f"deadlock (killed after {timeout:g} s)"
    cases = [(limit, int(size)) for limit in limits for size in sizes]
    kernels.compile_kernel("examples/deadlock", "executable")  # once, before the runs share it
    # Two runs at a time: whether an exchange completes or hangs depends on the protocol, not on
    # the cores it gets, and a hang lasts its watchdog's seconds either way (halves the wait).
    with ThreadPoolExecutor(max_workers=2) as pool:
        hung = list(pool.map(lambda case: deadlocks(case[1], case[0], timeout, watchdog=watchdog), cases))
    rows = [
        {"eager_limit": _label(limit), "size_bytes": size, "send-first exchange": hung_text if h else "completes"}
        for (limit, size), h in zip(cases, hung)
    ]
    return pd.DataFrame(rows).pivot(index="size_bytes", columns="eager_limit", values="send-first exchange")


def duplex_table(out: kernels.KernelOutput) -> pd.DataFrame:
    """From a `bandwidth` run with modes uni and bi: per size the one-way bandwidth b, the
    both-ways total B and their ratio B/b (2 if a link is full duplex)."""
    t = out.table
    wide = t.pivot_table(index="size_bytes", columns="algorithm", values="bandwidth_MBps")
    if not {"uni", "bi"} <= set(wide.columns):
        raise ValueError("duplex_table needs a bandwidth run with --mode uni,bi")
    return pd.DataFrame(
        {"b_MBps (one way)": wide["uni"], "B_MBps (both ways)": wide["bi"], "B / b": wide["bi"] / wide["uni"]}
    )


def plot_eager_sweep(table: pd.DataFrame, limits_bytes=(), ax=None, title: str = ""):
    """Ping-pong time against size, one line per eager limit (the fastest repetition of each
    size, the least disturbed by other jobs), with each limit marked."""
    import matplotlib.pyplot as plt

    from .plotting import label_axes

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.5))
    for i, (label, g) in enumerate(table.groupby("eager_limit", sort=False)):
        g = g.sort_values("size_bytes")
        name = "default eager limit" if label == "default" else f"eager limit {int(label):,} B"
        ax.loglog(g.size_bytes, g.t_min_us, "o-", color=f"C{i}", label=f"{name} (measured)")
    for i, limit in enumerate(limits_bytes):
        ax.axvline(limit, color=f"C{i}", ls=":", lw=1)
    return label_axes(ax, title, "message size (bytes)", "half round trip, fastest repetition (µs)", legend=True)


def plot_duplex(duplex: pd.DataFrame, ax=None, title: str = ""):
    """B / b against size: 2 means the link is full duplex (the Jacobi model's B = 2b)."""
    import matplotlib.pyplot as plt

    from .plotting import label_axes

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.8))
    ax.semilogx(duplex.index, duplex["B / b"], "o-", label="measured B / b (bandwidth kernel)")
    ax.axhline(2, color="grey", ls="--", lw=1, label="full duplex: B = 2b (Jacobi model)")
    ax.axhline(1, color="grey", ls=":", lw=1, label="half duplex: B = b")
    ax.set_ylim(0, max(2.5, float(duplex["B / b"].max()) * 1.1))
    return label_axes(ax, title, "message size (bytes)", "both ways / one way", legend=True)


def echo_comparison(run, sizes, rounds: int = 3, repetitions: int = 5) -> pd.DataFrame:
    """Ping-pong replying from the own send buffer against echoing the received one, runs
    alternating (own, echo, own, echo, ... per size, `rounds` times) so a busy spell of the
    machine hits both. `run(kernel, options)` is e.g. MPICluster.run. Per size: the fastest
    repetition of each reply and their ratio."""
    rows = []
    for _ in range(rounds):
        for size in sizes:
            for echo in (0, 1):
                out = run("pingpong", {"sizes": f"{size}:{size}", "repetitions": repetitions, "echo": echo})
                r = out.table.iloc[0]
                rows.append({"size_bytes": int(r.size_bytes), "echo": echo, "t_min_us": r.t_min_us})
    best = pd.DataFrame(rows).pivot_table(index="size_bytes", columns="echo", values="t_min_us", aggfunc="min")
    return pd.DataFrame(
        {"own send buffer (OSU, IMB), µs": best[0], "echo, µs": best[1], "echo / own buffer": best[1] / best[0]}
    )
