"""The kernel registry reads each kernel's own C option table: nothing copied by hand."""

import re

import pytest

from commbook import config, kernels, registry


def test_every_c_option_is_on_the_command_line_once():
    for spec in registry.KERNELS.values():
        names = [o.kernel_name for o in spec.options]
        assert len(names) == len(set(names)), spec.name
        assert names, f"{spec.name}: no options read from its C table"


def test_table_parser_joins_strings_and_refuses_bad_rows(tmp_path):
    src = tmp_path / "k.c"
    src.write_text(
        "static const cb_optspec CB_OPTIONS[] = {\n"
        '    {"a", "1", "first " "half, with a comma"},\n'
        '    {"b", "x,y", "testing only: hidden"},\n    {NULL, NULL, NULL}};\n'
    )
    rows = registry.c_option_table(src)
    assert [(r.name, r.default, r.help) for r in rows] == [
        ("a", "1", "first half, with a comma"),
        ("b", "x,y", "testing only: hidden"),
    ]
    assert rows[1].testing_only and not rows[0].testing_only
    bad = tmp_path / "bad.c"
    bad.write_text('static const cb_optspec CB_OPTIONS[] = {\n    {"a", "1"},\n    {NULL}};\n')
    with pytest.raises(ValueError, match="not {name, default, help}"):
        registry.c_option_table(bad)
    with pytest.raises(ValueError, match="no option table"):
        registry.c_option_table(src, "OTHER")


def test_defaults_are_left_to_the_kernel():
    # an option the user did not give is not passed: jacobi refuses --grid with --decomp
    for spec in registry.KERNELS.values():
        assert all(o.default is None for o in spec.options), spec.name
    jacobi = {o.flag: o for o in registry.KERNELS["jacobi"].options}
    assert "(default auto)" in jacobi["--grid"].help
    assert jacobi["--inject"].help == registry.HIDDEN
    assert jacobi["--no-check"].set_value == 0


@pytest.mark.mpi
@pytest.mark.parametrize("name", sorted(registry.KERNELS))
def test_registry_matches_what_the_compiled_kernel_prints(name):
    """The kernel's --help (printed by commbench.h from the table the compiler saw) lists the
    same options with the same defaults as the registry read from the source."""
    spec = registry.KERNELS[name]
    exe = kernels.compile_kernel(spec.source, "executable")
    proc = kernels.mpiexec_raw(1, [str(exe), "--help"], timeout=120)
    printed = dict(re.findall(r"^#   --(\S+)\s+.*\(default (.*)\)$", proc.stdout, re.M))
    assert printed, proc.stdout + proc.stderr
    table = {
        r.name: r.default
        for r in registry.c_option_table(
            config.kernels_dir() / ("collectives_algos.c" if name == "allreduce" else f"{spec.source}.c"),
            "CC_ALLREDUCE_OPTIONS" if name == "allreduce" else "CB_OPTIONS",
        )
    }
    assert printed == table
    assert {o.kernel_name for o in spec.options} == set(table)
