"""`commbook kernel install|remove`: this environment as a Jupyter kernel for the site's
JupyterLab (a JupyterHub, Open OnDemand, any other JupyterLab on the machine)."""

from __future__ import annotations

from .common import CLIError, command_group


def register(sub):
    actions = command_group(sub, "kernel", "register this environment as a Jupyter kernel (or remove it)")
    i = actions.add_parser(
        "install", help="install the kernelspec (default: for every user of this Jupyter; --user for you only)"
    )
    where = i.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="in your own Jupyter data directory")
    where.add_argument("--prefix", help="under PREFIX/share/jupyter/kernels (another environment)")
    i.add_argument("--name", default="commbook", help="kernel name (default %(default)s)")
    i.set_defaults(func=run_install)
    r = actions.add_parser("remove", help="remove a kernelspec installed by `commbook kernel install`")
    r.add_argument("--name", default="commbook", help="kernel name (default %(default)s)")
    r.add_argument("--prefix", help="the PREFIX it was installed under with --prefix")
    r.set_defaults(func=run_remove)


def run_install(args) -> int:
    from .. import jupyter_kernel

    try:
        path = jupyter_kernel.install(args.name, user=args.user, prefix=args.prefix)
    except jupyter_kernel.KernelSpecError as e:
        raise CLIError(str(e)) from None
    print(
        f"commbook: kernel '{args.name}' installed in {path}; choose "
        f'"{jupyter_kernel.display_name(args.name)}" in JupyterLab\'s kernel menu'
    )
    return 0


def run_remove(args) -> int:
    from .. import jupyter_kernel

    try:
        path = jupyter_kernel.remove(args.name, prefix=args.prefix)
    except jupyter_kernel.KernelSpecError as e:
        raise CLIError(str(e)) from None
    print(f"commbook: kernel '{args.name}' removed ({path})")
    return 0
