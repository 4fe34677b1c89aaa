"""commbook.units: the one byte formatter (and glued's byte text and size parser)."""

import pytest

from commbook import glued
from commbook.units import format_bytes


def test_format_bytes_in_text_and_on_axes():
    assert [format_bytes(n) for n in (0, 512, 4096, 2355, 3 << 20, 2 << 30)] == [
        "0 B",
        "512 B",
        "4 KiB",
        "2.3 KiB",
        "3 MiB",
        "2 GiB",
    ]
    assert format_bytes(float("inf")) == "never"
    assert [format_bytes(n, exact=True) for n in (4096, 4097)] == ["4 KiB", "4097 B"]
    assert [format_bytes(n, compact=True) for n in (1, 1536, 65536, 1 << 20)] == ["1", "1536", "64K", "1M"]


@pytest.mark.parametrize("n, text", [(4096, "4 KiB"), (2**26, "64 MiB"), (100, "100 B"), (0, "0 B")])
def test_bytes_text(n, text):
    assert glued.bytes_text(n) == text
    assert glued.size_value("64K") == 65536 and glued.size_value("4") == 4
