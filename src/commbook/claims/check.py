"""Check every `{claim}` role of the book against its registered function.

`python -m commbook.claims.check [PAGE ...]` prints one line per claim that fails (page, line,
stated and computed value) and exits 1 if any does; with no page, every `book/*.md`.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from . import REGISTRY, load_all
from .quantity import StatedError, agrees, parse_stated

# {claim}`0.20 µs <name>`: the stated text, then the claim's name in angle brackets
ROLE = re.compile(r"\{claim\}`(?P<body>[^`]*)`")
_BODY = re.compile(r"^(?P<stated>.*?)\s*<(?P<name>[^<>]+)>\s*$", re.S)


@dataclass(frozen=True)
class Use:
    page: str
    line: int
    stated: str
    name: str


@dataclass(frozen=True)
class Result:
    use: Use
    ok: bool
    message: str

    def __str__(self) -> str:
        return f"{self.use.page}.md:{self.use.line}: {self.message}"


def split_role(body: str) -> tuple[str, str]:
    """'0.20 µs <name>' -> ('0.20 µs', 'name'); ValueError without '<name>'."""
    m = _BODY.match(body)
    if not m:
        raise ValueError(f"{{claim}}`{body}` names no claim: write {{claim}}`0.20 µs <name>`")
    return m.group("stated").strip(), m.group("name").strip()


def find_uses(text: str, page: str) -> list[Use]:
    """Every {claim} role in a page's MyST text, with its line number (1-based)."""
    uses = []
    for m in ROLE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        try:
            stated, name = split_role(m.group("body"))
        except ValueError:
            stated, name = m.group("body"), ""
        uses.append(Use(page, line, stated, name))
    return uses


def check_use(use: Use) -> Result:
    if not use.name:
        return Result(use, False, f"{{claim}}`{use.stated}` names no claim (write `text <name>`)")
    claim = REGISTRY.get(use.name)
    if claim is None:
        return Result(use, False, f"unknown claim {use.name!r} (stated {use.stated!r})")
    if use.page not in claim.pages:
        return Result(use, False, f"claim {use.name!r} is registered for {claim.pages}, used on {use.page!r}")
    try:
        computed = claim.value()
    except Exception as e:  # a claim whose source cannot be read fails, naming why
        return Result(
            use,
            False,
            f"{use.name}: stated {use.stated!r}, computing it failed: {type(e).__name__}: {e} [{claim.source}]",
        )
    if isinstance(computed, str):
        ok = use.stated.strip().casefold() == computed.strip().casefold()
        return Result(use, ok, f"{use.name}: stated {use.stated!r}, computed {computed!r} [{claim.source}]")
    try:
        stated = parse_stated(use.stated)
        ok, tol = agrees(stated, float(computed), claim.unit, claim.rel_tol)
    except StatedError as e:
        return Result(use, False, f"{use.name}: {e}")
    unit = f" {claim.unit}" if claim.unit else ""
    return Result(
        use,
        ok,
        f"{use.name}: stated {use.stated!r}, computed {float(computed):.6g}{unit} "
        f"(tolerance ±{tol:.3g}{unit}) [{claim.source}]",
    )


def check_text(text: str, page: str) -> list[Result]:
    load_all()
    return [check_use(u) for u in find_uses(text, page)]


def book_pages(book_dir: Path) -> list[Path]:
    return sorted(p for p in book_dir.glob("*.md") if not p.name.startswith("_"))


def check_book(book_dir: Path, pages: list[str] | None = None) -> list[Result]:
    results = []
    for path in book_pages(book_dir):
        if pages and path.stem not in pages:
            continue
        results += check_text(path.read_text(encoding="utf-8"), path.stem)
    return results


def unused_claims(book_dir: Path) -> list[str]:
    """Registered claims no page states (a claim nobody reads checks nothing)."""
    load_all()
    used = {u.name for p in book_pages(book_dir) for u in find_uses(p.read_text(encoding="utf-8"), p.stem)}
    return sorted(set(REGISTRY) - used)


def main(argv=None) -> int:
    from .. import config

    p = argparse.ArgumentParser(
        prog="python -m commbook.claims.check", description="check the book's {claim} roles against their sources"
    )
    p.add_argument("pages", nargs="*", help="page names (pingpong, ring, ...); default: all")
    p.add_argument("--book", type=Path, default=None, help="the book folder (default: the checkout's book/)")
    p.add_argument("-v", "--verbose", action="store_true", help="print the claims that hold too")
    p.add_argument(
        "--census", action="store_true", help="also count glued numbers, verdicts, claims and cited constants"
    )
    args = p.parse_args(argv)
    book = args.book or (config.checkout() or Path.cwd()) / "book"
    if args.census:
        from .census import count

        print("\n".join(count(book, config.data_dir() / "literature_constants.toml").lines()))
    results = check_book(book, args.pages)
    bad = [r for r in results if not r.ok]
    for r in results if args.verbose else bad:
        print(("ok   " if r.ok else "FAIL ") + str(r))
    print(f"claims: {len(results)} stated, {len(bad)} wrong, {len(REGISTRY)} registered")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
