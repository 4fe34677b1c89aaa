"""`commbook --help` stays fast: building the parser imports no heavy library.

A behaviour, not a timing: each command module imports pandas, scipy, numpy, ... inside the
functions that need them, and choices or descriptions drawn from heavy modules are computed
only when a command's own help or a check needs them."""

import subprocess
import sys

import pytest

from commbook import cli

HEAVY = ("pandas", "scipy", "numpy", "matplotlib", "ipyparallel", "networkx", "mpi4py", "ipywidgets", "pooch")


def _loaded_after(code: str) -> list[str]:
    probe = code + f"\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_building_the_parser_imports_no_heavy_library():
    assert _loaded_after("from commbook.cli import build_parser\nbuild_parser()") == []


def test_commbook_help_imports_no_heavy_library():
    code = (
        "import contextlib, io\nfrom commbook.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
        "assert 'measure' in out.getvalue()"
    )
    assert _loaded_after(code) == []


def test_the_probe_sees_a_heavy_import():  # the tests above must be able to fail
    assert "pandas" in _loaded_after("import commbook.data")


@pytest.mark.parametrize(
    "argv, shown",
    [
        (["import", "--help"], "osu"),  # --format choices, from importers
        (["import", "--help"], "time-unit UNIT"),
        (["predict", "collective", "--help"], "binomial"),  # description, from models.collective_schedules
        (["measure", "pingpong", "--help"], "--sizes"),  # options, from the kernel registry
    ],
)
def test_command_help_still_shows_what_heavy_modules_know(argv, shown, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 0
    assert shown in capsys.readouterr().out


def test_lazy_choices_are_still_checked(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["import", "--format", "nope", "x.txt"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nope'" in err and "'osu'" in err
