"""`commbook notebooks --out DIR`: every chapter as a Jupyter notebook (.ipynb) with its C
excerpts as code, for a JupyterLab that is not this book's (a JupyterHub with the kernel of
`commbook kernel install`)."""

from __future__ import annotations

from pathlib import Path

from .common import CLIError


def register(sub):
    p = sub.add_parser("notebooks", help="write the chapters as .ipynb notebooks, C excerpts as code")
    p.add_argument("--out", required=True, help="folder to write into (created)")
    p.add_argument(
        "--kernel",
        default="commbook",
        help="kernel the notebooks ask for (default %(default)s: `commbook kernel install`)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from .. import config, notebook_code

    root = config.checkout()
    if root is None or not (root / "_toc.yml").is_file():
        raise CLIError("the chapters are not here: run from a checkout of the book (pip install -e .)")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {out}: not a folder")
    out.mkdir(parents=True, exist_ok=True)
    written = notebook_code.write_notebooks(root, out, args.kernel)
    print(f"commbook: {len(written)} notebooks written to {out}")
    return 0
