"""commbook.units: the one byte formatter and the one size reader."""

import pytest

from commbook.units import format_bytes, parse_size, parse_sizes


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


@pytest.mark.parametrize("text, n", [("4", 4), ("64K", 65536), ("1M", 1 << 20), ("1MiB", 1 << 20), ("1.5k", 1536)])
def test_parse_size(text, n):
    assert parse_size(text) == n
    assert format_bytes(n, compact=True) in (text.upper(), "1M", "1536")


def test_parse_sizes_reads_ranges_and_lists():
    assert parse_sizes("0:16") == [0, 1, 2, 4, 8, 16]
    assert parse_sizes("3:16") == [3, 6, 12]
    assert parse_sizes("1K:1M:32") == [1024, 32768, 1 << 20]
    assert parse_sizes("1M, 8,8") == [8, 1 << 20]


@pytest.mark.parametrize(
    "text, why",
    [
        ("lots", "'lots' is not a byte count"),
        ("-8", "is not a byte count"),
        ("", "no sizes given"),
        ("1M:8", "MIN 1048576 B is larger than MAX 8 B"),
        ("1:8:1", "FACTOR must be larger than 1"),
        ("1:8:x", "FACTOR 'x' is not a number"),
        ("1:2:3:4", "is not MIN:MAX"),
    ],
)
def test_parse_sizes_refuses_with_one_line(text, why):
    with pytest.raises(ValueError, match=why) as e:
        parse_sizes(text)
    assert "\n" not in str(e.value)
