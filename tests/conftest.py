"""Shared fixtures. MPI tests use the environment's own mpiexec (commbook.mpi_env)."""

import os
import signal
from pathlib import Path

import chromium
import pytest

REPO = Path(__file__).resolve().parents[1]
# slurm_cluster / slurm: a real single-node Slurm; emulated_cluster / on_nodes: 3 emulated nodes
pytest_plugins = ["slurm_fixture", "nodes_fixture", "verdict_numbers"]
os.environ.setdefault("IPP_NONINTERACTIVE", "1")
# Started by nohup or as a background job (`make test &`), the suite inherits SIGHUP or SIGINT
# ignored, and so would every command it starts: the tests that stop one with those signals
# would see it carry on. The commands under test get the signals a terminal gives.
for _sig, _handler in ((signal.SIGHUP, signal.SIG_DFL), (signal.SIGINT, signal.default_int_handler)):
    if signal.getsignal(_sig) == signal.SIG_IGN:
        signal.signal(_sig, _handler)


@pytest.fixture(scope="session", autouse=True)
def ipython_dir(tmp_path_factory):
    """Clusters (and the book's kernels) keep their profiles in a temporary IPython directory,
    not the user's ~/.ipython (tests/test_harness.py)."""
    with pytest.MonkeyPatch.context() as mp:
        path = tmp_path_factory.mktemp("ipython")
        mp.setenv("IPYTHONDIR", str(path))
        yield path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A skip must say why: a skip without a reason fails (tests/test_harness.py)."""
    report = (yield).get_result()
    if report.skipped and not hasattr(report, "wasxfail") and isinstance(report.longrepr, tuple):
        reason = report.longrepr[2].removeprefix("Skipped").lstrip(":").strip()
        if reason in ("", "unconditional skip"):
            report.outcome = "failed"
            report.longrepr = f"{item.nodeid} skipped without a reason: give the skip one"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def orfeo_mirror() -> Path:
    """The raw ORFEO files: $COMMBOOK_ORFEO_MIRROR, or shared/orfeo beside the checkout
    (commbook.config.orfeo_mirror; 'none' = offline, so the tests that need them skip)."""
    from commbook import config

    found = config.orfeo_mirror(beside=REPO)
    if found is None or not Path(found).is_dir():
        pytest.skip(f"no ORFEO mirror directory ({found or 'none beside the checkout'}; set COMMBOOK_ORFEO_MIRROR)")
    return Path(found)


@pytest.fixture(scope="session")
def mpi_cluster():
    """One 2-engine MPI cluster for the session, always stopped (as ipyparallel's own tests do)."""
    from commbook.cluster import MPICluster

    cluster = MPICluster(n=2)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def browser():
    """One headless Debian chromium for the session (Playwright's sync API allows one running
    instance per thread, so the book and explorer tests share it)."""
    if chromium.CHROMIUM is None:
        if os.environ.get("COMMBOOK_REQUIRE_BROWSER"):
            pytest.fail("chromium is required here (COMMBOOK_REQUIRE_BROWSER) but not installed")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = chromium.launch(p)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def smpi(tmp_path_factory, monkeypatch):
    """SimGrid's SMPI (its status), or a skip (a failure under COMMBOOK_REQUIRE_SMPI, as CI sets);
    builds and results in a folder of the test session, so nothing comes from the user's cache."""
    from commbook.simulate import runner

    if not runner.status().ok:
        if os.environ.get("COMMBOOK_REQUIRE_SMPI"):
            pytest.fail("SimGrid's SMPI is required here (COMMBOOK_REQUIRE_SMPI) but smpirun/smpicc are missing")
        pytest.skip("SimGrid's SMPI is not installed (apt-get install libsimgrid-dev)")
    monkeypatch.setenv("COMMBOOK_BUILD_DIR", str(tmp_path_factory.getbasetemp() / "smpi-build"))
    return runner.status()


def pytest_collection_modifyitems(config, items):
    """Tests marked starts_first run first (stable order otherwise): under pytest-xdist a long
    test collected last would end the pass alone on one core."""
    items.sort(key=lambda item: item.get_closest_marker("starts_first") is None)
