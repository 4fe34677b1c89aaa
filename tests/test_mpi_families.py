"""One object per MPI family (commbook.mpi_env.MPIFamily): nothing outside mpi_env branches on a
family's name, each family's settings are the ones the runs need, and a new family is one
registered class. Runs no MPI (this environment's family is never asked), so `make test-fast` runs it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import commbook
from commbook import algorithms, collective_runs, mpi_env, protocols, scheduler
from commbook.nodes import launch

PACKAGE = Path(commbook.__file__).parent
NAMES = set(mpi_env.FAMILIES)  # not UNKNOWN's "unknown", a word many tables use
# Comparisons with a family's name that are not about this environment's MPI: {file: count}.
NOT_THE_FAMILY = {"orfeo/raw_catalog.py": 1}  # how ORFEO's file names spell the library they used

OPENMPI_VERSION = "mpiexec (Open MPI) 5.0.11\n\nReport bugs to https://www.open-mpi.org/community/help/\n"
MPICH_VERSION = "HYDRA build details:\n    Version:                                 5.0.2\n    Release Date: ...\n"


def _names_in(node) -> bool:
    """True if node is a family's name, or a tuple/list/set holding one."""
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_in(e) for e in node.elts)
    return False


def family_branches(source: str) -> list[int]:
    """Lines that compare with a family's name (==, !=, in), key a dict by family names (a
    branch written as a lookup), or read the old `.flavour`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(_names_in(x) for x in (node.left, *node.comparators)):
            lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(k is not None and _names_in(k) for k in node.keys):
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "flavour":
            lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_finds_the_branches_it_forbids():
    code = (
        'a = info.flavour == "openmpi"\nb = name in ("mpich",)\nc = {"openmpi": 1}\n'
        'd = "openmpi" if x else "mpich"\ne = FAMILIES["mpich"]\n'
    )
    assert family_branches(code) == [1, 1, 2, 3]


def test_no_module_outside_mpi_env_branches_on_the_family_name():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "mpi_env.py":
            continue
        lines = family_branches(path.read_text(encoding="utf-8"))
        if len(lines) != NOT_THE_FAMILY.get(rel, 0):
            found[rel] = lines
    assert not found, f"ask the family (commbook.mpi_env.MPIFamily) instead of comparing its name: {found}"


def test_each_family_is_recognised_from_its_launcher():
    openmpi, mpich = mpi_env.FAMILIES["openmpi"], mpi_env.FAMILIES["mpich"]
    assert openmpi.recognises(OPENMPI_VERSION) and not mpich.recognises(OPENMPI_VERSION)
    assert mpich.recognises(MPICH_VERSION) and not openmpi.recognises(MPICH_VERSION)
    assert (openmpi.version(OPENMPI_VERSION), mpich.version(MPICH_VERSION)) == ("Open MPI 5.0.11", "MPICH 5.0.2")
    assert mpi_env.family("mpich") is mpich and mpi_env.family(mpich) is mpich
    with pytest.raises(ValueError, match="no MPI family 'lam'; known: openmpi, mpich"):
        mpi_env.family("lam")


def test_launcher_settings_per_family(monkeypatch):
    monkeypatch.setattr(mpi_env, "hostfile", lambda: "hosts")
    expected = {
        "openmpi": (
            ["--hostfile", "hosts", "--map-by", "node"],
            "--bind-to",
            "pmix",
            {"PRTE_MCA_hwloc_default_binding_policy": "core", "OMPI_MCA_hwloc_base_binding_policy": "core"},
        ),
        "mpich": (["-f", "hosts", "-map-by", "node"], "-bind-to", "mpiexec", {"HYDRA_BINDING": "core"}),
    }
    for name, (placement, bind, srun, binding) in expected.items():
        family = mpi_env.FAMILIES[name]
        monkeypatch.setattr(mpi_env, "detect", lambda f=family: mpi_env.MPIInfo(f, name, "mpiexec", None))
        monkeypatch.setattr(scheduler.config, "get", lambda key: "")
        assert mpi_env.placement_args("node") == placement
        assert (family.bind_to_flag, scheduler.mpi_plugin(), launch.one_node_binding()) == (bind, srun, binding)
    assert set(mpi_env.single_machine_variables()) == {
        "OMPI_MCA_btl",
        "HYDRA_IFACE",
        "FI_TCP_IFACE",
        "FI_SOCKETS_IFACE",
        "UCX_NET_DEVICES",
        "PRTE_MCA_rmaps_default_mapping_policy",
        "OMPI_MCA_rmaps_base_oversubscribe",
    }


def test_run_environment_per_family(monkeypatch):
    monkeypatch.setattr(mpi_env, "runs_here", lambda: True)
    monkeypatch.setattr(mpi_env, "cores", lambda: 2)
    monkeypatch.setattr(mpi_env.os, "geteuid", lambda: 0)
    for key in (*mpi_env.single_machine_variables(), *mpi_env.oversubscribed_variables()):
        monkeypatch.delenv(key, raising=False)
    openmpi, mpich = mpi_env.FAMILIES["openmpi"], mpi_env.FAMILIES["mpich"]
    monkeypatch.setattr(mpi_env, "detect", lambda: mpi_env.MPIInfo(openmpi, "Open MPI 5", "mpiexec", None))
    env = mpi_env.run_environment(4)
    env.pop("PATH")
    assert env == {
        "OMPI_MCA_btl": "^tcp,ofi",
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        "PRTE_MCA_rmaps_default_mapping_policy": ":oversubscribe",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        "OMPI_MCA_btl_base_warn_component_unused": "0",
    }
    monkeypatch.setattr(mpi_env, "detect", lambda: mpi_env.MPIInfo(mpich, "MPICH 5", "mpiexec", None))
    env = mpi_env.run_environment(2, local=False)
    assert set(env) == {"PATH"}  # fits the cores, over the network: nothing to set


def test_algorithm_tables_read_each_familys_columns():
    assert algorithms.library_table("openmpi", "bcast") is not algorithms.OMPI_COLL_TUNED["bcast"]
    assert algorithms.library_table("openmpi", "bcast") == algorithms.OMPI_COLL_TUNED["bcast"]
    mpich = algorithms.library_table("mpich", "allreduce")
    assert mpich[0] == "auto" and list(mpich) == list(range(len(mpich)))
    ring = algorithms.library_record("openmpi", "allreduce", "4")
    assert algorithms.library_ident("openmpi", ring) == 4 and algorithms.library_ident("mpich", ring) == "ring"
    assert algorithms.library_record("mpich", "allreduce", "8") is None  # MPICH forces by name only
    assert algorithms.library_table(mpi_env.UNKNOWN, "bcast") == {}
    with pytest.raises(collective_runs.SelectionError, match="needs Open MPI or MPICH, not unknown"):
        collective_runs.library_env("bcast", "library:1", "unknown")


def test_the_library_reports_the_forced_algorithm_for_each_family():
    six = collective_runs.library_env("bcast", "library:binomial", "openmpi")
    out = "# library_cvar: coll_tuned_bcast_algorithm = 6 (binomial)\n"
    assert collective_runs.check_selection(out, "bcast", six).endswith("coll_tuned_bcast_algorithm = 6 (binomial)")
    ring = collective_runs.library_env("allreduce", "library:ring", "mpich")
    index = algorithms.library_record("mpich", "allreduce", "ring").mpich_index
    said = f"# library_cvar: MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM = {index}\n# library_cvar: MPIR_CVAR_DEVICE_COLLECTIVES = 1\n"
    assert "ring" in collective_runs.check_selection(said, "allreduce", ring)
    with pytest.raises(collective_runs.SelectionError, match="did not take effect"):
        collective_runs.check_selection(said.replace("= 1", "= 0"), "allreduce", ring)


def test_a_new_family_is_one_registered_class(monkeypatch):
    """What the simulated family (SimGrid SMPI) needs: a subclass, registered; every caller
    then asks it, with no other module changed."""
    monkeypatch.setattr(mpi_env, "FAMILIES", dict(mpi_env.FAMILIES))

    @mpi_env.register
    class Simulated(mpi_env.MPIFamily):
        name = "simulated"
        title = "a simulated MPI"
        map_by_flag = "-map-by-simulated"
        eager_limit_variable = "SIMULATED_EAGER"

        def recognises(self, version_text):
            return "Simulated" in version_text

    assert mpi_env.family("simulated").title == "a simulated MPI"
    assert protocols.eager_env(1024, "simulated") == {"SIMULATED_EAGER": "1024"}
    assert mpi_env.eager_limit_variables()["simulated"] == "SIMULATED_EAGER"
    monkeypatch.setattr(mpi_env, "detect", lambda: mpi_env.MPIInfo(mpi_env.family("simulated"), "", "x", None))
    monkeypatch.setattr(mpi_env, "hostfile", lambda: None)
    assert mpi_env.placement_args("core") == ["-map-by-simulated", "core"]
    with pytest.raises(collective_runs.SelectionError, match="not simulated"):
        collective_runs.library_env("bcast", "library:1")
