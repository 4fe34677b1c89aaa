"""Fetching the catalogued raw files into the cache, each checked against its sha256 (pooch)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import quote

from .. import config
from .raw_catalog import catalog, entry, sha256_of


# ----------------------------------------------------------------------------------- fetch
class FetchError(RuntimeError):
    """A catalogued file that could not be fetched or failed its sha256 check (one line)."""


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
    mirror = mirror if mirror is not None else config.orfeo_mirror()
    downloader = None
    if mirror and not re.match(r"https?://", str(mirror)):
        url, downloader = str(Path(mirror) / e["key"]), _copy_downloader
    elif mirror:
        url = str(mirror).rstrip("/") + "/" + quote(e["key"])
    else:
        url = raw_url(e)
    try:
        got = pooch.retrieve(
            url,
            known_hash=f"sha256:{e['sha256']}",
            fname=target.name,
            path=target.parent,
            downloader=downloader,
            progressbar=False,
        )
    except ValueError as err:
        if "hash" in str(err).lower():
            raise FetchError(
                f"{e['key']}: sha256 mismatch: the copy at {url} is not the "
                f"catalogued version (expected {e['sha256'][:16]}...)"
            ) from None
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
            unreachable = unreachable + 1 if ("host not found" in str(err) or "connection refused" in str(err)) else 0
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
    if fetch_missing and config.orfeo_mirror():
        try:
            got = fetch_one(e, cache=cache)
        except FetchError:
            return None
        _VERIFIED.add((str(got), e["sha256"]))
        return got
    return None
