"""ORFEO datasets: the shipped summary tables (figures quoted in the seed reports), the catalog
of the students' raw files (fetched with their hashes), and the derived tables built from them.

Summary tables live in ``data/orfeo/<name>.csv``: ``# key: value`` metadata lines, one header
row, data rows, every row naming its source document in a ``source`` column. Derived tables live
in ``data/orfeo/derived/`` (see commbook.orfeo_derive); :func:`load` reads them by default, so
every chapter works offline, and the raw files with ``raw=True``.
"""
from __future__ import annotations

import functools
import gzip
import io
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from . import config
from .data import DataFormatError, read_metadata_csv

TABLES_DIR = config.data_dir() / "orfeo"
DERIVED_DIR = TABLES_DIR / "derived"  # aggregates of the raw files: see commbook.orfeo_derive


def _numeric(values: list[str]):
    """The column as numbers when every non-empty cell is one, else None."""
    cells = [v.strip() for v in values]
    if not any(cells):
        return None
    try:
        return [float(v) if v else float("nan") for v in cells]
    except ValueError:
        return None


def read_table(path, required=()) -> pd.DataFrame:
    """Read a summary table; metadata lines go to ``df.attrs['meta']``.

    Numeric columns become floats (int when every value is integral), empty cells NaN.
    A malformed file raises DataFormatError naming the file and line.
    """
    path = Path(path)
    meta, header_line, header, all_rows = read_metadata_csv(path)
    if len(set(header)) != len(header) or any(not h for h in header):
        raise DataFormatError(path, header_line, f"header has empty or repeated names: {header}")
    for name in required:
        if name not in header:
            raise DataFormatError(path, header_line, f"missing column '{name}'")
    rows = []
    for n, row in all_rows:
        for name in required:
            if not row[header.index(name)].strip():
                raise DataFormatError(path, n, f"empty '{name}' (every row must say where it came from)")
        rows.append((n, row))
    columns = {}
    for j, name in enumerate(header):
        values = [row[j] for _, row in rows]
        nums = _numeric(values)
        if nums is None:
            columns[name] = [v.strip() for v in values]
        else:
            columns[name] = nums
    df = pd.DataFrame(columns, columns=header)
    for name in header:
        s = df[name]
        if s.dtype.kind == "f" and s.notna().all() and (s == s.round()).all():
            df[name] = s.astype("int64")
    df.attrs["meta"] = meta
    df.attrs["path"] = str(path)
    return df


def table_names() -> list[str]:
    """Names of the shipped summary tables (without .csv), catalog excluded."""
    return sorted(p.stem for p in TABLES_DIR.glob("*.csv") if p.stem != "catalog")


def summary_table(name: str) -> pd.DataFrame:
    """The shipped table ``data/orfeo/<name>.csv`` as a DataFrame (see read_table)."""
    path = TABLES_DIR / f"{name}.csv"
    if not path.exists():
        raise DataFormatError(path, 0, f"no summary table '{name}'; known: {table_names()}")
    return read_table(path, required=("source",))


# =============================================================================== the catalog
# One row per raw file of the ORFEO data (see the mirror's README.md): where it comes
# from (repository, commit, path), its sha256, what it measured and how to import it. It is
# generated from a mirror with `commbook data catalog --mirror DIR` using catalog_rules.toml and
# committed; fetching checks every file against it.
CATALOG = TABLES_DIR / "catalog.csv"
CATALOG_COLUMNS = [
    "key", "dataset", "role", "repository", "commit", "path", "sha256", "size", "format",
    "benchmark", "algorithm", "machine", "mapping", "transport", "mpi_library", "units",
    "hints", "label_problem", "skip",
]
# Which folder's files are what: data/orfeo/catalog_rules.toml (its header says how to read it).
RULES_FILE = TABLES_DIR / "catalog_rules.toml"
RULE_FIELDS = set(CATALOG_COLUMNS) - {"key", "repository", "commit", "path", "sha256", "size"}
_VERARDO_TRANSPORT = {"tcp": "ob1-tcp", "vader": "ob1-vader", "ucx": "ucx", "ib0": "ucx(ib0)",
                      "br0": "ucx(br0)", "mlx5_0": "ucx(mlx5_0:1)"}


@functools.lru_cache(maxsize=1)
def catalog_rules() -> tuple[dict, list[tuple[str, re.Pattern, dict]]]:
    """({folder: facts}, [(folder, compiled pattern, fields), ...]) from RULES_FILE.
    A malformed file raises DataFormatError naming the file and the rule."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        d = tomllib.loads(RULES_FILE.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise DataFormatError(RULES_FILE, 0, f"cannot read the catalog rules: {e}") from None
    folders, rules = d.get("folders", {}), []
    for i, r in enumerate(d.get("rules", []), 1):
        where = f"rule {i} ({r.get('folder', '?')}: {r.get('pattern', '?')})"
        fields = {k: v for k, v in r.items() if k not in ("folder", "pattern")}
        if r.get("folder") not in folders or not isinstance(r.get("pattern"), str):
            raise DataFormatError(RULES_FILE, 0, f"{where}: needs a known folder and a pattern")
        if bad := sorted(set(fields) - RULE_FIELDS) or [k for k, v in fields.items() if not isinstance(v, str)]:
            raise DataFormatError(RULES_FILE, 0, f"{where}: unknown or non-text field(s) {bad}")
        try:
            rules.append((r["folder"], re.compile(r"(?:.*/)?" + r["pattern"]), fields))
        except re.error as e:
            raise DataFormatError(RULES_FILE, 0, f"{where}: bad regular expression: {e}") from None
    return folders, rules


def _subst(text: str, groups: dict) -> str:
    """'{map}' -> the regex group's value; unknown {names} are left alone."""
    return re.sub(r"\{(\w+)\}", lambda m: (groups.get(m.group(1)) or "") if m.group(1) in groups
                  else m.group(0), text)


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
        out = {k: _subst(v, groups) for k, v in fields.items()}
        return _post(folder, rel, out)
    raise DataFormatError(f"{folder}/{rel}", 0, "no catalog rule matches this file")


def _post(folder: str, rel: str, f: dict) -> dict:
    """Normalise what the rules produced: machine, library, transport, mapping, params."""
    from .importers import canonical_mapping, infer_machine
    facts = catalog_rules()[0][folder]
    f.setdefault("role", "raw")
    lib = f.get("mpi_library", "")
    if norm := lib.lower().replace("_", "").replace(" ", ""):
        f["mpi_library"] = "Intel MPI" if norm.startswith("intel") else (
            facts["mpi_library"] if norm in ("openmpi",) else lib)
    else:
        f["mpi_library"] = facts["mpi_library"]
    intel = f["mpi_library"].startswith("Intel")
    machine = f.get("machine", "")
    if not re.fullmatch(r"orfeo-(thin|gpu|epyc|fat)", machine):
        f["machine"] = infer_machine(machine) or infer_machine(rel) or facts["machine"]
    tr = f.get("transport", "") or facts.get("transport", "")
    if folder == "francesc0rtu" and not intel:
        tr = {"tcp": "ob1-tcp", "vader": "ob1-vader"}.get(tr, tr)
    if folder == "thomasverardo" and "csv_out" in rel:
        tr = "default" if intel else _VERARDO_TRANSPORT.get(tr, tr)
        if not intel:
            f["mpi_library"] = "Open MPI 4.0.5"  # the ping-pong job scripts' module
    if tr == "infiniband":
        tr = "default"
        f["label_problem"] = ("Intel MPI run without I_MPI_OFI_PROVIDER (the file name says "
                              "'infiniband'): the library's default provider")
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
    from .importers import Refused, detect_format, read_text
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
            rows.append({**{c: "" for c in CATALOG_COLUMNS}, **f, "key": f"{folder}/{rel}",
                         "repository": repo, "commit": commit, "path": original,
                         "sha256": sha256_of(path), "size": path.stat().st_size})
    return pd.DataFrame(rows, columns=CATALOG_COLUMNS)


def write_catalog(df: pd.DataFrame, path=CATALOG) -> Path:
    from .data import atomic_write_text
    import io
    buf = io.StringIO()
    buf.write("# what: every raw ORFEO data file the book can use: origin, sha256, what it measured, how to import it\n")
    buf.write("# source: public student repositories (repository, commit, path); generated by `commbook data catalog --mirror DIR`\n")
    buf.write("# units: size in bytes; 'units' says what the file's times are; 'hints' are importer hints (key=value;...)\n")
    buf.write("# roles: raw = measurements; mean = a student's mean of raw runs; excluded/license = not imported ('skip' says why)\n")
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


# ------------------------------------------------------------------ importer hints and fixes
def _add_param(df: pd.DataFrame, mask, text: str) -> pd.DataFrame:
    cur = df.loc[mask, "params"]
    df.loc[mask, "params"] = cur.where(cur == "", cur + ";") + text
    return df


def _set_algorithm(df, mask, name, ident, note):
    df.loc[mask, "algorithm"] = name
    df.loc[mask, "params"] = df.loc[mask, "params"].str.replace(
        r"coll_tuned_id=\d+", f"coll_tuned_id={ident}", regex=True)
    return _add_param(df, mask, note)


def _fix_linear_is_binomial(df):
    mask = df.algorithm == "basic_linear"
    return _set_algorithm(df, mask, "binomial", 6, "label_fix=file says linear; job set algorithm 6")


def _fix_gabrynho_allreduce(df):
    mask = df.benchmark == "reduce"
    df.loc[mask, "benchmark"] = "allreduce"
    df.loc[mask, "algorithm"] = "default"
    df.loc[mask, "params"] = df.loc[mask, "params"].str.replace(
        r"coll_tuned_id=(\d+)", r"requested_reduce_algorithm=\1", regex=True)
    return _add_param(df, mask, "label_fix=labelled Reduce; measured with osu_allreduce")


def _algo_map(table: dict, bench: str):
    from .importers import COLL_TUNED

    def fix(df):
        for label, ident in table.items():
            mask = df.algorithm == label
            df = _set_algorithm(df, mask, COLL_TUNED[bench][ident], ident, "") if mask.any() else df
            df.loc[mask, "params"] = df.loc[mask, "params"].str.rstrip(";")
            if "coll_tuned_id" not in "".join(df.loc[mask, "params"].head(1)):
                df = _add_param(df, mask, f"coll_tuned_id={ident}")
            df = _add_param(df, mask, f"file_label={label}")
        return df
    return fix


def _fix_epyc_core_layout(df):
    core_to = df.params.str.extract(r"core_to=(\d+)")[0].astype(float)
    df.loc[core_to < 64, "mapping"] = "core"
    df.loc[core_to >= 64, "mapping"] = "socket"
    return df


FIXES = {
    "linear_is_binomial": _fix_linear_is_binomial,
    "gabrynho_allreduce": _fix_gabrynho_allreduce,
    "mmunini_bcast": _algo_map({"algo1": 1, "algo2": 3, "algo3": 5}, "bcast"),
    "mmunini_reduce": _algo_map({"algo1": 4, "algo2": 5, "algo3": 7}, "reduce"),
    "epyc_core_layout": _fix_epyc_core_layout,
}


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
            h[k] = FIXES[v]
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


# ----------------------------------------------------------------------------------- fetch
class FetchError(RuntimeError):
    """A catalogued file that could not be fetched or failed its sha256 check (one line)."""


def mirror_from_env() -> str | None:
    """$COMMBOOK_ORFEO_MIRROR, or None when unset or 'none' (offline: no mirror, no download)."""
    return config.orfeo_mirror()


def cache_dir(cache=None) -> Path:
    return Path(cache) if cache else config.data_cache()


def raw_url(e) -> str:
    return f"https://raw.githubusercontent.com/{e['repository']}/{e['commit']}/{quote(e['path'])}"


def _copy_downloader(url, output_file, pooch_obj, check_only=False):
    """pooch downloader for a local mirror directory: 'url' is a file path."""
    src = Path(url)
    if check_only:
        return src.is_file()
    if not src.is_file():
        raise FileNotFoundError(f"not in the mirror: {src}")
    if hasattr(output_file, "write"):
        output_file.write(src.read_bytes())
    else:
        shutil.copyfile(src, output_file)
    return None


def fetch_one(e, mirror=None, cache=None) -> Path:
    """Download one catalogued file into the cache and check its sha256 (pooch)."""
    import pooch
    pooch.get_logger().setLevel("WARNING")  # one summary line from us, not one per file
    target = cache_dir(cache) / e["key"]
    mirror = mirror if mirror is not None else mirror_from_env()
    downloader = None
    if mirror and not re.match(r"https?://", str(mirror)):
        url, downloader = str(Path(mirror) / e["key"]), _copy_downloader
    elif mirror:
        url = str(mirror).rstrip("/") + "/" + quote(e["key"])
    else:
        url = raw_url(e)
    try:
        got = pooch.retrieve(url, known_hash=f"sha256:{e['sha256']}", fname=target.name,
                             path=target.parent, downloader=downloader, progressbar=False)
    except ValueError as err:
        if "hash" in str(err).lower():
            raise FetchError(f"{e['key']}: sha256 mismatch: the copy at {url} is not the "
                             f"catalogued version (expected {e['sha256'][:16]}...)") from None
        raise FetchError(f"{e['key']}: {err}") from None
    except FileNotFoundError as err:
        raise FetchError(f"{e['key']}: {err}") from None
    except Exception as err:  # requests' HTTP and connection errors
        raise FetchError(f"{e['key']}: cannot download {url}: {_why(err)}") from None
    return Path(got)


def _why(err) -> str:
    text = str(err)
    status = getattr(getattr(err, "response", None), "status_code", None)
    if status:
        return f"HTTP {status}"
    if "Failed to resolve" in text or "Name or service not known" in text:
        return "host not found (no network?)"
    if "Connection refused" in text:
        return "connection refused"
    if "timed out" in text.lower():
        return "timed out"
    return f"{type(err).__name__}: {text.splitlines()[0][:120] if text else ''}"


def fetch(keys=None, mirror=None, cache=None, on_error=None) -> tuple[list[Path], list[str]]:
    """Fetch catalogued files (all, or the given keys); returns (paths, error lines)."""
    cat = catalog()
    if keys is not None:
        cat = cat[cat.key.isin(list(keys))]
    paths, errors, unreachable = [], [], 0
    for _, e in cat.iterrows():
        try:
            paths.append(fetch_one(e, mirror, cache))
            unreachable = 0
        except FetchError as err:
            errors.append(str(err))
            if on_error:
                on_error(str(err))
            unreachable = unreachable + 1 if ("host not found" in str(err)
                                              or "connection refused" in str(err)) else 0
            if unreachable == 3:  # the server is not there; do not print a line per file
                rest = len(cat) - len(paths) - len(errors)
                if rest:
                    msg = f"stopped: 3 files in a row could not reach the server; {rest} not tried"
                    errors.append(msg)
                    if on_error:
                        on_error(msg)
                break
    return paths, errors


_VERIFIED: set = set()


def raw_dataset(key: str, cache=None, fetch_missing: bool = True) -> Path | None:
    """The cached raw file of a catalog key, fetched from $COMMBOOK_ORFEO_MIRROR when needed.

    None when it is not cached and no mirror is configured (or fetching fails)."""
    e = entry(key)
    path = cache_dir(cache) / key
    if path.is_file():
        if (str(path), e["sha256"]) in _VERIFIED or sha256_of(path) == e["sha256"]:
            _VERIFIED.add((str(path), e["sha256"]))
            return path
    if fetch_missing and mirror_from_env():
        try:
            got = fetch_one(e, cache=cache)
        except FetchError:
            return None
        _VERIFIED.add((str(got), e["sha256"]))
        return got
    return None


# ------------------------------------------------------------------------------------ load
class DataUnavailable(LookupError):
    """Neither raw ORFEO data nor a shipped summary table can answer the request."""


def _select(key_or_benchmark: str, roles) -> pd.DataFrame:
    cat = catalog()
    usable = cat[cat.skip == ""]
    if key_or_benchmark in set(cat.key):
        return cat[cat.key == key_or_benchmark]
    if key_or_benchmark in set(cat.dataset):  # a dataset named explicitly: whatever its role
        return usable[usable.dataset == key_or_benchmark]
    from .importers import canonical_benchmark
    bench = canonical_benchmark(key_or_benchmark)
    sel = usable[(usable.benchmark == bench) | (usable.dataset.str.contains(bench, regex=False)
                                               & (usable.benchmark == ""))]
    return sel[sel.role.isin(roles)] if roles else sel


def import_entry(e, path) -> pd.DataFrame:
    """Tidy rows of one catalogued raw file (its catalog hints applied), with its 'dataset'."""
    from .importers import import_file
    return import_file(path, hints=hints_for(e)).assign(dataset=e["dataset"])


@functools.lru_cache(maxsize=32)
def _import_entries(keys: tuple, cache_key: str) -> pd.DataFrame:
    tables = []
    for key in keys:
        e = entry(key)
        tables.append(import_entry(e, raw_dataset(key)))
    return pd.concat(tables, ignore_index=True)


def _derived_text(path: Path) -> str:
    try:
        data = path.read_bytes()
        return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as e:
        raise DataFormatError(path, 0, f"cannot read derived table: {e}") from None


@functools.lru_cache(maxsize=32)
def _derived_cached(path: str, mtime: float) -> pd.DataFrame:
    from .data import FLOAT_COLUMNS, INT_COLUMNS
    text = _derived_text(Path(path))
    lines = text.splitlines(keepends=True)
    skip = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    ints = INT_COLUMNS + ["runs", "files", "rows"]
    try:
        df = pd.read_csv(io.StringIO("".join(lines[skip:])), keep_default_na=False, dtype=str)
        for c in df.columns:
            if c in ints:
                df[c] = df[c].astype("int64")
            elif c in FLOAT_COLUMNS:
                df[c] = df[c].astype(float)
    except (ValueError, pd.errors.ParserError) as e:
        raise DataFormatError(path, skip + 1, f"malformed derived table: {e}") from None
    return df


def derived_table(name: str) -> pd.DataFrame:
    """data/orfeo/derived/<name>.csv.gz (a benchmark) or index.csv, as a DataFrame."""
    path = DERIVED_DIR / (name if name.endswith(".csv") else f"{name}.csv.gz")
    if not path.is_file():
        raise DataUnavailable(f"no derived ORFEO table {path.name} in {DERIVED_DIR} "
                              f"(regenerate with `commbook data derive`)")
    return _derived_cached(str(path), path.stat().st_mtime).copy()


def _repositories(sel: pd.DataFrame) -> str:
    repos = sorted(set(sel.repository))
    return (f"{len(repos)} student repositor{'y' if len(repos) == 1 else 'ies'} "
            f"({', '.join(r.split('/')[0] for r in repos)})")


def _load_derived(sel: pd.DataFrame, machine: str | None) -> tuple[pd.DataFrame, str]:
    index = derived_table("index.csv")
    datasets = set(sel.dataset)
    benches = sorted(set(index[index.dataset.isin(datasets)].benchmark))
    if not benches:
        raise DataUnavailable(f"no derived ORFEO rows for {sorted(datasets)}")
    df = pd.concat([derived_table(b) for b in benches], ignore_index=True)
    df = df[df.dataset.isin(datasets)]
    cat = catalog()
    whole = cat[(cat.skip == "") & cat.dataset.isin(datasets) & cat.role.isin(["raw", "mean"])]
    if set(whole.key) != set(sel.key):  # only some files of a dataset: keep the rows from them
        wanted = set(sel.path)
        df = df[df.source.str.partition(":")[2].str.split("|").map(lambda ps: bool(wanted & set(ps)))]
    if machine:
        df = df[df.machine == machine]
    if df.empty:
        raise DataUnavailable(f"no derived ORFEO rows for {sorted(datasets)}"
                              f"{f' on {machine}' if machine else ''}")
    caption = (f"ORFEO data: {len(df)} rows derived from {len(sel)} raw file(s) of "
               f"{_repositories(sel)} (median, min, max over repeated runs; "
               f"data/orfeo/derived/{', '.join(b + '.csv.gz' for b in benches)})")
    return df.reset_index(drop=True), caption


RUN_PARAMS = {"run", "block"}  # which of several runs a row is: merged, counted in 'runs'
DROPPED_PARAMS = {"bw_MBps"}   # n / t of one run: recomputed from t_us by whoever needs it
CONFIG_KEY = ["dataset", "benchmark", "algorithm", "mapping", "transport", "machine", "mpi_library",
              "np", "size_bytes", "params"]


def _config_params(params: str) -> str:
    return ";".join(item for item in str(params).split(";")
                    if item and item.partition("=")[0] not in RUN_PARAMS | DROPPED_PARAMS)


def _join_sources(sources) -> str:
    """'repo@c:a', 'repo@c:b|c' -> 'repo@c:a|b|c' (the files of one dataset share a repository
    and commit); sources of several repositories are kept whole."""
    heads, paths = set(), set()
    for s in sources:
        head, _, tail = s.partition(":")
        heads.add(head)
        paths.update(tail.split("|"))
    if len(heads) == 1:
        return f"{heads.pop()}:{'|'.join(sorted(paths))}"
    return "|".join(sorted(set(sources)))


def per_configuration(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per dataset, configuration and size: t_us the median over the runs merged,
    t_min_us/t_max_us their min/max, reps summed, 'runs' counted, sources joined; sorted.
    Rows that differ only in run=/block= (or the file) are merged; bw_MBps (n / t) is dropped.
    Idempotent, so derived tables and raw rows go through it alike (figures pool students)."""
    df = rows.copy()
    if "dataset" not in df.columns:
        df["dataset"] = ""
    df["params"] = df["params"].map(_config_params)
    if "runs" not in df.columns:
        df["runs"] = 1
    for c in CONFIG_KEY:
        if df[c].dtype == object:
            df[c] = df[c].fillna("")
    g = df.groupby(CONFIG_KEY, sort=True, dropna=False)
    out = g.agg(t_us=("t_us", "median"), t_min_us=("t_min_us", "min"), t_max_us=("t_max_us", "max"),
                reps=("reps", "sum"), runs=("runs", "sum"), source=("source", _join_sources))
    out = out.reset_index()
    return out[CONFIG_KEY + ["t_us", "t_min_us", "t_max_us", "reps", "runs", "source"]]


def load(key_or_benchmark: str, machine: str | None = None, roles=("raw",),
         cache=None, raw: bool = False) -> tuple[pd.DataFrame, str]:
    """(tidy table, provenance caption) for a catalog key, a dataset or a benchmark name.

    By default from the derived tables shipped in data/orfeo/derived/ (always there, offline):
    one row per configuration and size, t_us the median over repeated runs, t_min_us/t_max_us
    their range, plus 'runs' and 'dataset' columns. raw=True reads the raw files instead
    (fetched with their hashes, from $COMMBOOK_ORFEO_MIRROR if set): one row per run.
    """
    sel = _select(key_or_benchmark, roles)
    if machine:
        sel = sel[sel.machine == machine]
    if not len(sel):
        raise DataUnavailable(f"'{key_or_benchmark}' is not a catalog key, dataset or benchmark "
                              f"with ORFEO data{f' on {machine}' if machine else ''}")
    if not raw:
        return _load_derived(sel, machine)
    paths = {k: raw_dataset(k, cache) for k in sel.key}
    if not all(paths.values()):
        missing = sum(1 for p in paths.values() if p is None)
        raise DataUnavailable(f"{missing} raw ORFEO file(s) of '{key_or_benchmark}' are not in the "
                              f"cache: run `commbook data fetch orfeo` (or set COMMBOOK_ORFEO_MIRROR)")
    df = _import_entries(tuple(sel.key), str(cache_dir(cache)))
    if machine:
        df = df[df.machine == machine].reset_index(drop=True)
    fixed = int((sel.label_problem != "").sum())
    caption = (f"ORFEO raw data: {len(sel)} file(s) from {_repositories(sel)}, "
               f"sha256-checked; {fixed} with known label problems (see data/orfeo/catalog.csv)")
    return df.copy(), caption


# ------------------------------------------------------------------- views for the data page


def overview(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per dataset: course year, node types, benchmark, files, role, label problems."""
    cat = catalog() if cat is None else cat
    g = cat.assign(folder=cat.key.str.split("/").str[0]).groupby("dataset", sort=True)
    folders = catalog_rules()[0]
    out = g.agg(year=("folder", lambda s: folders[s.iloc[0]]["year"]),
                machine=("machine", lambda s: ", ".join(sorted(set(m.removeprefix("orfeo-") for m in s)))),
                benchmark=("benchmark", lambda s: ", ".join(sorted(set(s) - {""})) or "mixed"),
                files=("key", "size"), role=("role", "first"),
                kB=("size", lambda s: round(s.astype(int).sum() / 1000)),
                label_problems=("label_problem", lambda s: int((s != "").sum())))
    return out.reset_index()


def coverage(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """Files per benchmark and node type (imported raw measurements only)."""
    cat = catalog() if cat is None else cat
    raw = cat[(cat.role == "raw") & (cat.skip == "")]
    raw = raw.assign(benchmark=raw.benchmark.replace("", "bcast/allreduce"),
                     machine=raw.machine.str.removeprefix("orfeo-"))
    return pd.crosstab(raw.benchmark, raw.machine)


def known_problems(cat: pd.DataFrame | None = None) -> pd.DataFrame:
    """Each distinct label problem or exclusion with the datasets and number of files it concerns."""
    cat = catalog() if cat is None else cat
    rows = []
    for what, col in (("label problem", "label_problem"), ("not imported", "skip")):
        sub = cat[cat[col] != ""]
        for text, g in sub.groupby(col, sort=False):
            rows.append({"kind": what, "datasets": ", ".join(sorted(set(g.dataset))),
                         "files": len(g), "what": text})
    return pd.DataFrame(rows, columns=["kind", "datasets", "files", "what"])
