"""Every {claim} in the book holds against its source; breaking a source or the prose fails.

Fast, no MPI: the claims compute from data/, the models and the code."""

from __future__ import annotations

import shutil

import pytest

from commbook import claims, orfeo
from commbook.claims import check
from commbook.claims.quantity import StatedError, agrees, parse_number, parse_stated


@pytest.fixture(scope="module")
def book(repo):
    return repo / "book"


@pytest.fixture(scope="module")
def checked(book):
    """Every stated claim computed and compared once (about 15 s): two tests read it."""
    return check.check_book(book)


def test_every_stated_claim_holds(checked):
    # every registered claim is stated (next test), so this computes each of them
    bad = [str(r) for r in checked if not r.ok]
    assert not bad, "claims the book states wrongly:\n" + "\n".join(bad)


def test_every_registered_claim_is_stated_somewhere(book):
    assert not check.unused_claims(book), "registered claims no page states"


@pytest.mark.parametrize(
    "text, rounded, value, half",
    [
        ("12 060", False, 12060, 0.5),
        ("12 060", True, 12060, 5),
        ("0.20", False, 0.2, 0.005),
        ("200", False, 200, 0.5),
        ("200", True, 200, 50),
        ("4096", True, 4096, 0.5),
        ("12,060", False, 12060, 0.5),
        ("1.5e3", False, 1500, 50),
        ("0", False, 0, 0.5),
    ],
)
def test_number_and_its_digits(text, rounded, value, half):
    v, h = parse_number(text, rounded)
    assert v == pytest.approx(value) and h == pytest.approx(half)


def test_units_convert_and_refuse_other_dimensions():
    s = parse_stated("12 GB/s")
    assert agrees(s, 12060, "MB/s", None)[0]
    assert not agrees(s, 13000, "MB/s", None)[0]
    assert agrees(parse_stated("×1.5"), 1.46, "×", None)[0]
    assert agrees(parse_stated("97 %"), 0.9652 * 100, "%", None)[0]
    with pytest.raises(StatedError):
        parse_stated("12 GB/s").in_unit("us")
    with pytest.raises(StatedError):
        parse_stated("nearly 12 GB/s")


def test_a_round_number_claims_its_digits_unless_the_prose_says_about():
    # "40 %" passed for 43.46 when trailing zeros counted as rounding
    assert not agrees(parse_stated("40 %"), 43.46, "%", None)[0]
    assert agrees(parse_stated("40 %"), 39.76, "%", None)[0]
    assert agrees(parse_stated("about 40 %"), 43.46, "%", None)[0]
    assert not agrees(parse_stated("about 40 %"), 46, "%", None)[0]


def _one_stated_claim(book):
    """A page, its text, and one claim use on it (the first that holds)."""
    for path in check.book_pages(book):
        text = path.read_text(encoding="utf-8")
        for r in check.check_text(text, path.stem):
            if r.ok and not isinstance(claims.REGISTRY[r.use.name].value(), str):
                return path.stem, text, r.use
    pytest.skip("no page states a numeric claim yet")


def test_a_wrong_number_in_the_prose_fails_naming_page_line_and_values(book):
    page, text, use = _one_stated_claim(book)
    stated = parse_stated(use.stated)
    wrong = use.stated.replace(stated.text.split()[0], f"{stated.value * 3 + 7:g}", 1)
    broken = text.replace(f"{{claim}}`{use.stated} <{use.name}>`", f"{{claim}}`{wrong} <{use.name}>`", 1)
    bad = [r for r in check.check_text(broken, page) if not r.ok]
    assert len(bad) == 1
    msg = str(bad[0])
    assert msg.startswith(f"{page}.md:{use.line}:") and use.name in msg and wrong in msg


def test_an_unknown_claim_or_a_role_without_a_name_fails():
    bad = check.check_text("a {claim}`1 µs <no-such-claim>` and {claim}`2 µs`\n", "pingpong")
    assert [r.ok for r in bad] == [False, False]
    assert "unknown claim 'no-such-claim'" in str(bad[0]) and "names no claim" in str(bad[1])


def test_a_claim_on_a_page_it_is_not_registered_for_fails(book):
    page, text, use = _one_stated_claim(book)
    other = "no-such-page"
    (r,) = check.check_text(f"{{claim}}`{use.stated} <{use.name}>`", other)
    assert not r.ok and "registered for" in str(r)


def test_a_changed_data_file_makes_its_claims_fail(book, checked, repo, tmp_path, monkeypatch):
    """Copy data/orfeo to a temp folder, multiply every number of one seed table by 3: the
    claims drawn from that table no longer hold."""
    tables = tmp_path / "orfeo"
    shutil.copytree(repo / "data" / "orfeo", tables, ignore=shutil.ignore_patterns("derived"))
    (tables / "derived").symlink_to(repo / "data" / "orfeo" / "derived")
    target = tables / "pingpong_seed.csv"
    lines = target.read_text().splitlines(keepends=True)
    import re

    scaled = [
        ln
        if ln.startswith("#") or ln.startswith("machine,")
        else re.sub(r"(?<=,)(\d+(?:\.\d+)?)(?=,)", lambda m: f"{float(m.group(1)) * 3:g}", ln)
        for ln in lines
    ]
    target.write_text("".join(scaled))
    before = {(r.use.page, r.use.line) for r in checked if r.ok}
    monkeypatch.setattr(orfeo, "TABLES_DIR", tables)
    monkeypatch.setattr(orfeo.tables, "TABLES_DIR", tables)
    after = check.check_book(book)
    now_wrong = [r for r in after if not r.ok and (r.use.page, r.use.line) in before]
    assert now_wrong, "tripling the ping-pong seed table broke no claim"
    assert any("pingpong_seed" in r.message for r in now_wrong)


def test_a_cached_source_is_read_again_from_another_tables_folder(tmp_path, monkeypatch):
    from commbook.claims.sources import per_tables_dir

    reads = []

    @per_tables_dir
    def read(dataset):
        reads.append(dataset)
        return len(reads)

    assert read("a") == read("a") == 1 and read("b") == 2
    monkeypatch.setattr(orfeo.tables, "TABLES_DIR", tmp_path)
    assert read("a") == 3


def test_each_mpi_family_has_its_own_execution_cache(tmp_path):
    from commbook.execution.cache import select

    build = tmp_path / "_build"
    (build / ".jupyter_cache").mkdir(parents=True)  # an older build's cache: family unknown
    (build / ".jupyter_cache" / "old").write_text("x")
    ompi = select(build, "openmpi")
    (ompi / "page").write_text("measured with Open MPI")
    assert (build / ".jupyter_cache" / "page").exists() and not (build / ".jupyter_cache" / "old").exists()
    mpich = select(build, "mpich")
    assert mpich != ompi and not (build / ".jupyter_cache" / "page").exists()
    assert select(build, "openmpi") == ompi and (build / ".jupyter_cache" / "page").exists()
