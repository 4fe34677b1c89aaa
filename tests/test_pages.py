"""The table of contents read in one place (commbook.pages): a chapter's lab page, nested as a
section, is a page of the book like any other."""

from commbook.pages import student_toc, toc_files


def test_sections_follow_their_chapter_in_reading_order():
    toc = {
        "root": "book/intro",
        "parts": [
            {"chapters": [{"file": "book/ring", "sections": [{"file": "book/ring_lab"}]}, {"file": "book/jacobi"}]},
            {"chapters": [{"file": "book/instructor"}]},
        ],
    }
    assert toc_files(toc) == ["book/intro", "book/ring", "book/ring_lab", "book/jacobi", "book/instructor"]
    assert toc_files(student_toc(toc))[-1] == "book/jacobi"
    assert toc_files({"root": "book/intro", "chapters": [{"file": "book/a"}]}) == ["book/intro", "book/a"]
