"""How the book's numbers are checked, counted: glued from the run, stated as claims, cited
as literature constants (`python -m commbook.claims.check --census`)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .prose import load_constants, prose_lines

# {glue:text}`name:.2f`, {glue}`name`, {glue:md}`name`, {glue:figure}`name` ...
GLUE_ROLE = re.compile(r"\{glue(?::(?P<kind>\w+))?\}`(?P<name>[^`:]+)(?::[^`]*)?`")
CLAIM_ROLE = re.compile(r"\{claim\}`[^`<]*<(?P<name>[^<>`]+)>`")


@dataclass
class Census:
    pages: int = 0
    glue_numbers: Counter = field(default_factory=Counter)  # page -> {glue:text}/{glue} roles
    glue_verdicts: Counter = field(default_factory=Counter)  # page -> {glue:md} roles
    glue_names: set = field(default_factory=set)
    claim_uses: Counter = field(default_factory=Counter)  # page -> {claim} roles
    claim_names: set = field(default_factory=set)
    constants: int = 0

    def lines(self) -> list[str]:
        per_page = ", ".join(
            f"{p} {self.glue_numbers[p]}+{self.glue_verdicts[p]}"
            for p in sorted(set(self.glue_numbers) | set(self.glue_verdicts))
        )
        return [
            f"glued: {sum(self.glue_numbers.values())} values ({{glue:text}}) and "
            f"{sum(self.glue_verdicts.values())} computed verdicts ({{glue:md}}) in the prose, "
            f"{len(self.glue_names)} names; {self.pages} pages carry glue or claims",
            f"  per page (numbers+verdicts): {per_page}",
            f"claims: {sum(self.claim_uses.values())} stated ({len(self.claim_names)} distinct)",
            f"cited literature constants: {self.constants}",
        ]


def count(book_dir: Path, constants_file: Path) -> Census:
    """Count the glue and claim roles in the prose of every page of book_dir (code cells,
    which only glue, are not counted), and the literature constants."""
    c = Census()
    for path in sorted(book_dir.glob("*.md")):
        if path.name.startswith("_"):
            continue
        prose = "\n".join(line for _, line in prose_lines(path.read_text(encoding="utf-8")))
        page = path.stem
        for m in GLUE_ROLE.finditer(prose):
            (c.glue_verdicts if m.group("kind") == "md" else c.glue_numbers)[page] += 1
            c.glue_names.add((page, m.group("name")))
        for m in CLAIM_ROLE.finditer(prose):
            c.claim_uses[page] += 1
            c.claim_names.add(m.group("name"))
        if c.glue_numbers[page] or c.glue_verdicts[page] or c.claim_uses[page]:
            c.pages += 1
    c.constants = len(load_constants(constants_file))
    return c
