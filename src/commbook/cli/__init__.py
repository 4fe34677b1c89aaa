"""The `commbook` command. Each command group lives in its own module with register(sub).

Bad arguments and bad files give one clear line on stderr and a non-zero exit, never a
traceback (set COMMBOOK_DEBUG=1 to see one)."""

from __future__ import annotations

import argparse
import sys

from .. import config
from .common import CLIError


def build_parser() -> argparse.ArgumentParser:
    # Command groups, one module each; every module defines register(subparsers).
    from . import course, data, doctor, fit, kernel, measure, nodes, notebooks, predict, simulate, validate

    parser = argparse.ArgumentParser(prog="commbook", description="Measure MPI communication and fit models to it.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in (measure, fit, predict, data, doctor, validate, course, nodes, kernel, notebooks, simulate):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    from ..data import DataFormatError  # after parsing: `commbook --help` imports no pandas
    from ..kernels import KernelError

    args.argv = argv  # for the `# command:` line of the files we write
    try:
        return int(args.func(args) or 0)
    except (CLIError, DataFormatError, KernelError, FileNotFoundError, ValueError) as e:
        if config.get("COMMBOOK_DEBUG"):
            raise
        print(f"commbook: error: {e}", file=sys.stderr)
        return 1 if isinstance(e, KernelError) else 2
    except KeyboardInterrupt:
        print("commbook: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
