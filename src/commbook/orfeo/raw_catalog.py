"""The catalog of the raw ORFEO files (``data/orfeo/catalog.csv``): built from a mirror with the
rules of ``catalog_rules.toml``, read, looked up, and turned into importer hints."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pandas as pd

from ..data import DataFormatError
from .fixes import make_fix
from .tables import TABLES_DIR, read_table

# =============================================================================== the catalog
# One row per raw file of the ORFEO data (see the mirror's README.md): where it comes
# from (repository, commit, path), its sha256, what it measured and how to import it. It is
# generated from a mirror with `commbook data catalog --mirror DIR` using catalog_rules.toml and
# committed; fetching checks every file against it.
CATALOG = TABLES_DIR / "catalog.csv"
CATALOG_COLUMNS = [
    "key",
    "dataset",
    "role",
    "repository",
    "commit",
    "path",
    "sha256",
    "size",
    "format",
    "benchmark",
    "algorithm",
    "machine",
    "mapping",
    "transport",
    "mpi_library",
    "units",
    "hints",
    "label_problem",
    "skip",
]
# Which folder's files are what: data/orfeo/catalog_rules.toml (its header says how to read it).
RULES_FILE = TABLES_DIR / "catalog_rules.toml"
RULE_FIELDS = set(CATALOG_COLUMNS) - {"key", "repository", "commit", "path", "sha256", "size"}
# What a rule (or a folder) may say beyond the catalog fields: how the transport tokens of its
# file names read for Open MPI, what an Intel MPI run's transport is, which Open MPI it ran.
RULE_EXTRAS = {"transport_names": dict, "intel_transport": str, "openmpi_library": str}


def read_rules_file() -> dict:
    """RULES_FILE as a dict; DataFormatError naming the file when it cannot be read."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(RULES_FILE.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise DataFormatError(RULES_FILE, 0, f"cannot read the catalog rules: {e}") from None


@functools.lru_cache(maxsize=1)
def catalog_rules() -> tuple[dict, list[tuple[str, re.Pattern, dict]]]:
    """({folder: facts}, [(folder, compiled pattern, fields), ...]) from RULES_FILE.
    A malformed file raises DataFormatError naming the file and the rule."""
    d = read_rules_file()
    folders, rules = d.get("folders", {}), []
    for i, r in enumerate(d.get("rules", []), 1):
        where = f"rule {i} ({r.get('folder', '?')}: {r.get('pattern', '?')})"
        fields = {k: v for k, v in r.items() if k not in ("folder", "pattern")}
        if r.get("folder") not in folders or not isinstance(r.get("pattern"), str):
            raise DataFormatError(RULES_FILE, 0, f"{where}: needs a known folder and a pattern")
        if bad := sorted(set(fields) - RULE_FIELDS - set(RULE_EXTRAS)) or [
            k for k, v in fields.items() if not isinstance(v, RULE_EXTRAS.get(k, str))
        ]:
            raise DataFormatError(RULES_FILE, 0, f"{where}: unknown or non-text field(s) {bad}")
        try:
            rules.append((r["folder"], re.compile(r"(?:.*/)?" + r["pattern"]), fields))
        except re.error as e:
            raise DataFormatError(RULES_FILE, 0, f"{where}: bad regular expression: {e}") from None
    return folders, rules


@functools.lru_cache(maxsize=1)
def catalog_fixes() -> dict:
    """{name: function(rows) -> rows} of the [fixes.NAME] tables of RULES_FILE."""
    fixes = {}
    for name, spec in read_rules_file().get("fixes", {}).items():
        try:
            fixes[name] = make_fix(spec)
        except ValueError as e:
            raise DataFormatError(RULES_FILE, 0, f"fix {name}: {e}") from None
    return fixes


def _subst(text: str, groups: dict) -> str:
    """'{map}' -> the regex group's value; unknown {names} are left alone."""
    return re.sub(r"\{(\w+)\}", lambda m: (groups.get(m.group(1)) or "") if m.group(1) in groups else m.group(0), text)


def _provenance(folder_dir: Path) -> tuple[str, str]:
    text = (folder_dir / "PROVENANCE.md").read_text(encoding="utf-8")
    repo = re.search(r"Repository:\s*https://github\.com/([\w.-]+/[\w.-]+)", text)
    commit = re.search(r"Commit read:\s*`([0-9a-f]{40})`", text)
    if not repo or not commit:
        raise DataFormatError(folder_dir / "PROVENANCE.md", 0, "no 'Repository:' or 'Commit read:' line")
    return repo.group(1), commit.group(1)


def sha256_of(path) -> str:
    from pooch import file_hash

    return file_hash(str(path), alg="sha256")


def _classify(folder: str, rel: str) -> dict:
    for rule_folder, pattern, fields in catalog_rules()[1]:
        if rule_folder != folder:
            continue
        m = pattern.fullmatch(rel)
        if not m:
            continue
        groups = {k: (v or "") for k, v in m.groupdict().items()}
        out = {k: _subst(v, groups) if isinstance(v, str) else v for k, v in fields.items()}
        return _post(folder, rel, out)
    raise DataFormatError(f"{folder}/{rel}", 0, "no catalog rule matches this file")


def _post(folder: str, rel: str, f: dict) -> dict:
    """Normalise what the rules produced: machine, library, transport, mapping, params."""
    from ..importers import canonical_mapping, infer_machine

    facts = catalog_rules()[0][folder]
    f.setdefault("role", "raw")
    lib = f.get("mpi_library", "")
    if norm := lib.lower().replace("_", "").replace(" ", ""):
        f["mpi_library"] = (
            "Intel MPI" if norm.startswith("intel") else (facts["mpi_library"] if norm in ("openmpi",) else lib)
        )
    else:
        f["mpi_library"] = facts["mpi_library"]
    intel = f["mpi_library"].startswith("Intel")
    machine = f.get("machine", "")
    if not re.fullmatch(r"orfeo-(thin|gpu|epyc|fat)", machine):
        f["machine"] = infer_machine(machine) or infer_machine(rel) or facts["machine"]
    tr = f.get("transport", "") or facts.get("transport", "")
    names = f.pop("transport_names", None) or facts.get("transport_names", {})
    intel_transport = f.pop("intel_transport", None)
    openmpi_library = f.pop("openmpi_library", None)
    if intel and intel_transport is not None:
        tr = intel_transport
    elif not intel:
        tr = names.get(tr, tr)
        if openmpi_library:
            f["mpi_library"] = openmpi_library
    if tr == "infiniband":
        tr = "default"
        f["label_problem"] = (
            "Intel MPI run without I_MPI_OFI_PROVIDER (the file name says 'infiniband'): the library's default provider"
        )
    f["transport"] = tr
    hints = f.get("hints", "")
    mapping = f.get("mapping", "")
    if mapping == "def":  # Intel MPI run with -ppn 1: one rank per node
        mapping, hints = "node", (hints + ";params.variant=def").strip(";")
    f["mapping"] = canonical_mapping(mapping)[0] if mapping else ""
    items = []
    for item in filter(None, hints.split(";")):
        k, _, v = item.partition("=")
        if k.startswith("params."):
            v = v.strip("_/").lower() if k in ("params.variant", "params.set") else v.strip("_/")
            if not v:
                continue
        items.append(f"{k}={v}")
    f["hints"] = ";".join(items)
    if f["role"] in ("excluded", "license"):
        f.setdefault("skip", "not imported")
    return f


def build_catalog(mirror) -> pd.DataFrame:
    """Classify and hash every data file of a mirror laid out like ../shared/orfeo."""
    from ..importers import Refused, detect_format, read_text

    mirror = Path(mirror)
    rows = []
    folders = catalog_rules()[0]
    for folder in sorted(folders):
        fdir = mirror / folder
        if not fdir.is_dir():
            raise DataFormatError(fdir, 0, "folder missing from the mirror")
        repo, commit = _provenance(fdir)
        for path in sorted(p for p in fdir.rglob("*") if p.is_file() and p.name != "PROVENANCE.md"):
            rel = path.relative_to(fdir).as_posix()
            f = _classify(folder, rel)
            original = rel
            for old, new in folders[folder].get("path_fixes", []):
                original = original.replace(old, new)
            if not f.get("skip") and not f.get("format"):
                try:
                    f["format"] = detect_format(read_text(path), path)
                except Refused:
                    f["format"] = ""
            rows.append(
                {
                    **{c: "" for c in CATALOG_COLUMNS},
                    **f,
                    "key": f"{folder}/{rel}",
                    "repository": repo,
                    "commit": commit,
                    "path": original,
                    "sha256": sha256_of(path),
                    "size": path.stat().st_size,
                }
            )
    return pd.DataFrame(rows, columns=CATALOG_COLUMNS)


def write_catalog(df: pd.DataFrame, path=CATALOG) -> Path:
    import io

    from ..data import atomic_write_text

    buf = io.StringIO()
    buf.write(
        "# what: every raw ORFEO data file the book can use: origin, sha256, what it measured, how to import it\n"
    )
    buf.write(
        "# source: public student repositories (repository, commit, path); generated by `commbook data catalog --mirror DIR`\n"
    )
    buf.write(
        "# units: size in bytes; 'units' says what the file's times are; 'hints' are importer hints (key=value;...)\n"
    )
    buf.write(
        "# roles: raw = measurements; mean = a student's mean of raw runs; excluded/license = not imported ('skip' says why)\n"
    )
    df.to_csv(buf, index=False, lineterminator="\n")
    atomic_write_text(path, buf.getvalue())
    return Path(path)


@functools.lru_cache(maxsize=4)
def _catalog_cached(path: str, mtime: float) -> pd.DataFrame:
    df = read_table(path, required=("key", "sha256", "repository", "commit", "path"))
    for c in CATALOG_COLUMNS:
        if c not in df.columns:
            raise DataFormatError(path, 0, f"catalog has no '{c}' column")
        if c != "size":
            df[c] = df[c].astype(str).where(df[c].notna(), "").replace("nan", "")
    bad = ~df["sha256"].str.fullmatch(r"[0-9a-f]{64}")
    if bad.any():
        raise DataFormatError(path, 0, f"row for '{df.key[bad].iloc[0]}' has no valid sha256")
    return df


def catalog(path=None) -> pd.DataFrame:
    """The catalog of raw ORFEO files (data/orfeo/catalog.csv)."""
    path = Path(path or CATALOG)
    if not path.exists():
        raise DataFormatError(path, 0, "no catalog (generate it with `commbook data catalog --mirror DIR`)")
    return _catalog_cached(str(path), path.stat().st_mtime).copy()


def entry(key: str) -> pd.Series:
    cat = catalog()
    hit = cat[cat.key == key]
    if hit.empty:
        raise KeyError(f"'{key}' is not in the ORFEO catalog")
    return hit.iloc[0]


def source_of(e) -> str:
    return f"{e['repository']}@{e['commit'][:7]}:{e['path']}"


def hints_for(e) -> dict:
    """Importer hints for one catalog entry (a row of catalog())."""
    h: dict = {"source": source_of(e), "infer_name": True}
    if e["skip"]:
        h["skip"] = e["skip"]
    for c in ("format", "benchmark", "algorithm", "mapping", "transport", "machine", "mpi_library"):
        if e[c]:
            h[c] = e[c]
    params = {}
    for item in filter(None, str(e["hints"]).split(";")):
        k, _, v = item.partition("=")
        if k.startswith("params."):
            params[k[7:]] = v
        elif k in ("np_start", "np_step", "size_bytes", "reps", "np"):
            h[k] = int(v)
        elif k == "wide":
            h[k] = dict(x.split(":", 1) for x in v.split(","))
        elif k in ("blocks", "series"):
            labels = []
            for x in v.split(","):
                label, star, count = x.rpartition("*")
                labels += [label] * int(count) if star else [x]
            h[k] = labels
        elif k == "fix":
            h[k] = catalog_fixes()[v]
        else:
            h[k] = v
    if params:
        h["params"] = params
    return h


@functools.lru_cache(maxsize=2)
def _by_sha(path: str, mtime: float) -> dict:
    cat = _catalog_cached(path, mtime)
    return {sha: i for i, sha in enumerate(cat.sha256)}


def lookup(path) -> pd.Series | None:
    """The catalog entry of a file with the same bytes, or None (an unknown file)."""
    if not CATALOG.exists():
        return None
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size > 50 << 20:  # /dev/zero, a FIFO: never hash
            return None
        sha = sha256_of(p)
    except OSError:
        return None
    index = _by_sha(str(CATALOG), CATALOG.stat().st_mtime)
    if sha not in index:
        return None
    return _catalog_cached(str(CATALOG), CATALOG.stat().st_mtime).iloc[index[sha]]


def import_entry(e, path) -> pd.DataFrame:
    """Tidy rows of one catalogued raw file (its catalog hints applied), with its 'dataset'."""
    from ..importers import import_file

    return import_file(path, hints=hints_for(e)).assign(dataset=e["dataset"])
