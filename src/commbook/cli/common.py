"""What every command group shares: the error that becomes one clear line."""


class CLIError(Exception):
    """Bad arguments or input: printed as one line `commbook: error: ...`, exit status 2."""


def command_group(sub, name: str, help: str, dest: str = "action", metavar: str = "ACTION", **parser_options):
    """`commbook NAME WORD ...`: a command whose next word (an ACTION, MODEL, ...) picks what it
    does. Returns the sub-parsers to add those words to; one of them must be given."""
    parser = sub.add_parser(name, help=help, **parser_options)
    words = parser.add_subparsers(dest=dest, metavar=metavar)
    words.required = True
    return words


def parse_sizes(text: str) -> list[int]:
    """'0,8,1K' or '0:64M' (0 and powers of two between) or '1K:1M:4' (geometric step)."""

    def one(tok: str) -> int:
        tok = tok.strip()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        t = tok.upper().removesuffix("B")
        factor = 1
        if t and t[-1] in mult:
            factor, t = mult[t[-1]], t[:-1]
        try:
            v = int(float(t) * factor)
        except ValueError:
            raise CLIError(f"'{tok}' is not a size (use bytes with optional K, M, G)") from None
        if v < 0:
            raise CLIError(f"size {tok} is negative")
        return v

    text = str(text).strip()
    if ":" in text:
        parts = text.split(":")
        if len(parts) not in (2, 3):
            raise CLIError(f"'{text}' is not MIN:MAX or MIN:MAX:FACTOR")
        lo, hi = one(parts[0]), one(parts[1])
        factor = float(parts[2]) if len(parts) == 3 else 2.0
        if hi < lo or factor <= 1:
            raise CLIError(f"'{text}': need MIN <= MAX and FACTOR > 1")
        sizes, s = ([0] if lo == 0 else []), max(lo, 1)
        while s <= hi:
            sizes.append(int(s))
            s *= factor
        return sizes
    sizes = [one(t) for t in text.split(",") if t.strip()]
    if not sizes:
        raise CLIError("no sizes given")
    return sizes


# Building the parser must not import pandas, scipy or numpy (`commbook --help` stays fast;
# tests/test_cli_startup.py): choices and descriptions that come from heavy modules are
# computed when argparse first needs them.
class LazyChoices:
    """argparse choices produced by `make()` on first use (a check or a help text)."""

    def __init__(self, make):
        self._make, self._values = make, None

    def _get(self):
        if self._values is None:
            self._values = list(self._make())
        return self._values

    def __iter__(self):
        return iter(self._get())

    def __contains__(self, value):
        return value in self._get()

    def __len__(self):
        return len(self._get())


def lazy_description(parser, describe):
    """Set parser.description from describe() only when its help is shown."""
    show = parser.format_help

    def format_help():
        parser.description = describe()
        return show()

    parser.format_help = format_help
    return parser
