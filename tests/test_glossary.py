"""The glossary: every term is linked from at least one page, every {term} link has a target."""

import re

_TERM_ROLE = re.compile(r"\{term\}`([^`]+)`")


def glossary_terms(repo) -> set[str]:
    """The terms defined in book/glossary.md's glossary directives (lines at column 0 inside one)."""
    text = (repo / "book" / "glossary.md").read_text()
    terms = set()
    for block in re.findall(r"```\{glossary\}\n(.*?)```", text, flags=re.S):
        terms |= {l.strip() for l in block.splitlines() if l.strip() and not l.startswith(" ")}
    return terms


def term_links(text: str) -> list[str]:
    """The targets of the {term} roles of a page: `word` or `text <word>`."""
    out = []
    for inner in _TERM_ROLE.findall(text):
        m = re.search(r"<([^>]+)>\s*$", inner)
        out.append((m.group(1) if m else inner).strip())
    return out


def test_every_term_link_has_a_target(repo):
    terms = {t.lower() for t in glossary_terms(repo)}
    missing = [
        f"{p.name}: {t}"
        for p in sorted((repo / "book").glob("*.md"))
        for t in term_links(p.read_text())
        if t.lower() not in terms
    ]
    assert not missing, "links to no glossary term:\n" + "\n".join(missing)


def test_every_term_is_linked_from_a_page(repo):
    linked = {
        t.lower() for p in (repo / "book").glob("*.md") if p.name != "glossary.md" for t in term_links(p.read_text())
    }
    unlinked = sorted(t for t in glossary_terms(repo) if t.lower() not in linked)
    assert not unlinked, f"glossary terms no page links to: {unlinked}"


def test_the_glossary_holds_the_issues_list(repo):
    required = {
        "UCX",
        "ob1",
        "BTL",
        "PML",
        "MTL",
        "vader",
        "sm",
        "CMA",
        "XPMEM",
        "MCA",
        "PMIx",
        "PRRTE",
        "Hydra",
        "coll_tuned",
        "cvar",
        "pvar",
        "eager",
        "rendezvous",
        "THP",
        "NUMA",
        "UPI",
        "socket",
        "core",
        "hyperthread",
        "InfiniBand",
        "RDMA",
        "bisection",
        "diameter",
        "fat tree",
        "e-cube routing",
        "max-flow",
        "Kernighan-Lin",
        "roofline",
        "write-allocate",
        "strong scaling",
        "weak scaling",
        # the models and algorithms the chapters rely on (issue 31)
        "Hockney model",
        "α-β-γ model",
        "LogP",
        "LogGP",
        "Bruck",
        "Rabenseifner",
        "recursive doubling",
        "Amdahl's law",
        "Gustafson's law",
        "Karp-Flatt metric",
        "layer condition",
        "code balance",
        "bisection width",
    }
    assert required <= glossary_terms(repo), sorted(required - glossary_terms(repo))


def test_the_scan_sees_links_and_aliases():
    assert term_links("a {term}`eager` and {term}`performance variables <pvar>`") == ["eager", "pvar"]
