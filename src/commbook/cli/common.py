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


def add_kernel_options(parser, spec, default=None, label: str = "") -> None:
    """The kernel's own options (read from its C table) as `--flags` of a subcommand, stored as
    `k_<name>`; `default(opt)` replaces the kernel's default (named in the help after `label`)."""
    for opt in spec.options:
        dest = "k_" + opt.kernel_name
        if opt.flag_only:
            parser.add_argument(
                opt.flag, dest=dest, action="store_const", const=opt.set_value, default=None, help=opt.help
            )
        elif default is None:
            parser.add_argument(opt.flag, dest=dest, default=opt.default, help=opt.help)
        else:
            value = default(opt)
            parser.add_argument(
                opt.flag, dest=dest, default=value, help=opt.help + (f" ({label}: {value})" if value else "")
            )


def parse_sizes(text: str) -> list[int]:
    """commbook.units.parse_sizes, its refusal as the one-line CLI error."""
    from ..units import parse_sizes as read

    try:
        return read(text)
    except ValueError as e:
        raise CLIError(str(e)) from None


def parse_np_list(text: str) -> list[int]:
    """'24', '1,4,12,24' or 'MIN:MAX' (every count from MIN to MAX) -> process counts, in the
    order given; a one-line CLI error for anything else."""
    text = str(text).strip()
    if ":" in text:
        lo, _, hi = text.partition(":")
        a, b = parse_np_list(lo), parse_np_list(hi)
        if len(a) != 1 or len(b) != 1 or a[0] > b[0]:
            raise CLIError(f"--np: '{text}' is not MIN:MAX with MIN <= MAX (e.g. 2:48)")
        return list(range(a[0], b[0] + 1))
    out = []
    for tok in text.split(","):
        tok = tok.strip()
        if not tok:
            continue
        try:
            n = int(tok)
        except ValueError:
            raise CLIError(f"--np: '{tok}' is not a whole number") from None
        if n < 1:
            raise CLIError(f"--np: {n} processes is impossible (at least 1)")
        out.append(n)
    if not out:
        raise CLIError("--np: no process counts given")
    return out


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
