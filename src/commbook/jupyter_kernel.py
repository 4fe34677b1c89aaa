"""This environment as a Jupyter kernel any JupyterLab on the machine can use (a JupyterHub,
Open OnDemand, another venv's JupyterLab): ipykernel's kernelspec with this interpreter and the
environment variables the MPI and the package need.

* PATH with this environment's bin directory first (mpiexec and mpicc of the MPI wheel, or the
  system MPI found after it: commbook.mpi_env.bin_path), VIRTUAL_ENV;
* LD_LIBRARY_PATH when set at install time (a system MPI loaded with `module load`);
* every COMMBOOK_* variable set at install time (e.g. COMMBOOK_ENGINES=slurm on a login node).

The spec's metadata marks it as ours, so `remove` and `commbook doctor` find it and nothing else.
"""

from __future__ import annotations

import getpass
import os
import socket
import sys
from dataclasses import dataclass

from . import config, mpi_env

DEFAULT_NAME = "commbook"
_MARK = "commbook"
_NOT_CARRIED = {"COMMBOOK_REQUIRE_BROWSER", "COMMBOOK_REQUIRE_SLURM", "COMMBOOK_DEBUG"}


class KernelSpecError(ValueError):
    """A kernelspec that cannot be installed or removed; one line."""


def kernel_environment() -> dict:
    env = {"PATH": mpi_env.bin_path(), "VIRTUAL_ENV": sys.prefix}
    if os.environ.get("LD_LIBRARY_PATH"):
        env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
    env.update({k: v for k, v in os.environ.items() if k in config.VARIABLES and k not in _NOT_CARRIED and v})
    return env


def display_name(name: str) -> str:
    return (
        f"commbook ({mpi_env.detect().version}, {os.path.basename(sys.prefix)})"
        if name == DEFAULT_NAME
        else f"commbook: {name}"
    )


def install(name: str = DEFAULT_NAME, user: bool = False, prefix: str | None = None) -> str:
    """Register this environment as kernel `name`; returns the spec's directory."""
    import json

    from ipykernel.kernelspec import install as ipykernel_install

    if not name or not all(c.isalnum() or c in "-_." for c in name):
        raise KernelSpecError(f"kernel name '{name}': use letters, digits, '-', '_' or '.'")
    if user and prefix:
        raise KernelSpecError("--user and --prefix exclude each other")
    try:
        path = ipykernel_install(
            user=user, prefix=prefix, kernel_name=name, display_name=display_name(name), env=kernel_environment()
        )
    except PermissionError as e:
        raise KernelSpecError(f"cannot write the kernelspec ({e.filename}): use --user or --prefix DIR") from None
    spec_file = os.path.join(path, "kernel.json")
    with open(spec_file) as f:
        spec = json.load(f)
    spec.setdefault("metadata", {})[_MARK] = {"prefix": sys.prefix}
    with open(spec_file, "w") as f:
        json.dump(spec, f, indent=1)
    return path


@dataclass
class Installed:
    name: str
    path: str
    python: str
    ours_here: bool  # this very environment's interpreter


def installed() -> list[Installed]:
    """commbook kernelspecs Jupyter finds (user, environment and system paths)."""
    from jupyter_client.kernelspec import KernelSpecManager

    found = []
    for name, info in KernelSpecManager().get_all_specs().items():
        spec = info.get("spec", {})
        if _MARK in spec.get("metadata", {}):
            python = (spec.get("argv") or [""])[0]
            found.append(
                Installed(
                    name, info["resource_dir"], python, os.path.realpath(python) == os.path.realpath(sys.executable)
                )
            )
    return found


def remove(name: str = DEFAULT_NAME, prefix: str | None = None) -> str:
    """Remove the commbook kernelspec `name` (from PREFIX when installed with --prefix);
    returns where it was."""
    import json
    import shutil

    from jupyter_client.kernelspec import KernelSpecManager

    if prefix:
        path = os.path.join(prefix, "share", "jupyter", "kernels", name)
        try:
            with open(os.path.join(path, "kernel.json")) as f:
                ours = _MARK in json.load(f).get("metadata", {})
        except (OSError, ValueError):
            ours = False
        if not ours:
            raise KernelSpecError(f"no commbook kernel named '{name}' in {prefix}")
        shutil.rmtree(path)
        return path
    found = {k.name: k for k in installed()}
    if name not in found:
        raise KernelSpecError(
            f"no commbook kernel named '{name}' is installed" + (f" (installed: {', '.join(found)})" if found else "")
        )
    try:
        return KernelSpecManager().remove_kernel_spec(name)
    except PermissionError as e:
        raise KernelSpecError(f"cannot remove {e.filename}: permission denied") from None


def ssh_tunnel_line(port: int) -> str:
    """What to type on one's own machine to reach a JupyterLab on this host's localhost:port."""
    host = socket.getfqdn() or socket.gethostname()
    return (
        f"JupyterLab on {host}, port {port}. From your own machine open a tunnel:\n"
        f"    ssh -N -L {port}:localhost:{port} {getpass.getuser()}@{host}\n"
        f"then open the http://localhost:{port}/lab?token=... link JupyterLab prints below."
    )
