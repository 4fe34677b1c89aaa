"""The Hockney (postal) model of a point-to-point message, and its piecewise form.

    t(n) = λ + n / b

with n in bytes, λ (the latency) in microseconds and b (the asymptotic bandwidth) in MB/s,
where 1 MB/s = 1e6 B/s as in IMB and OSU. Since 1 MB/s = 1 B/µs, n / b is already in µs.

Derived quantities:

* n½ = λ·b, the half-performance length: the message size at which the effective bandwidth
  n / t(n) reaches half of b (and at which latency and transfer take equal time).
* the effective bandwidth n / t(n), in MB/s, which only approaches b for n >> n½.

A real network is rarely one straight line over nine decades of sizes: MPI libraries switch
protocol (eager to rendezvous) and messages stop fitting in caches. :class:`PiecewiseHockney`
keeps one (λ, b) per size range. Both models serialise to JSON; a fit file written by
``commbook fit hockney --out FIT.json`` is one of these objects plus a ``"fit"`` entry, and is
what ``commbook predict hockney --model FIT.json`` reads.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

KIND_SINGLE = "hockney"
KIND_PIECEWISE = "hockney-piecewise"


def _finite(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, not {value!r}")
    return v


def as_sizes(sizes) -> np.ndarray:
    """Message sizes as a float array; negative or non-finite sizes are refused."""
    n = np.atleast_1d(np.asarray(sizes, dtype=float))
    if n.ndim != 1:
        raise ValueError(f"sizes must be a list of numbers, not an array of shape {n.shape}")
    if not np.all(np.isfinite(n)):
        raise ValueError("sizes must be finite numbers of bytes")
    if np.any(n < 0):
        raise ValueError(f"sizes must be >= 0 bytes, got {n[n < 0][0]:g}")
    return n


@dataclass(frozen=True)
class Hockney:
    """t(n) = lambda_us + n / bandwidth_MBps (µs, for n in bytes). A model, not a measurement."""

    lambda_us: float
    bandwidth_MBps: float

    def __post_init__(self):
        lam = _finite("latency lambda_us", self.lambda_us)
        bw = _finite("bandwidth_MBps", self.bandwidth_MBps)
        if lam < 0:
            raise ValueError(f"latency must be >= 0 µs, not {lam:g}")
        if bw <= 0:
            raise ValueError(f"bandwidth must be > 0 MB/s, not {bw:g}")
        object.__setattr__(self, "lambda_us", lam)
        object.__setattr__(self, "bandwidth_MBps", bw)

    @property
    def n_half(self) -> float:
        """Half-performance length λ·b in bytes (µs × B/µs)."""
        return self.lambda_us * self.bandwidth_MBps

    def time_us(self, sizes) -> np.ndarray:
        return self.lambda_us + as_sizes(sizes) / self.bandwidth_MBps

    def effective_bandwidth(self, sizes) -> np.ndarray:
        """n / t(n) in MB/s (0 for n = 0)."""
        n = as_sizes(sizes)
        return n / self.time_us(n)

    def to_dict(self) -> dict:
        return {
            "model": KIND_SINGLE,
            "lambda_us": self.lambda_us,
            "bandwidth_MBps": self.bandwidth_MBps,
            "n_half_bytes": self.n_half,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, d: dict) -> "Hockney":
        return cls(_field(d, "lambda_us"), _field(d, "bandwidth_MBps"))

    @classmethod
    def from_json(cls, text: str) -> "Hockney":
        model = model_from_json(text)
        if not isinstance(model, cls):
            raise ValueError(f"expected a '{KIND_SINGLE}' model, got a piecewise one")
        return model

    def __str__(self):
        return (
            f"Hockney model: λ = {self.lambda_us:.4g} µs, b = {self.bandwidth_MBps:.5g} MB/s, n½ = {self.n_half:.4g} B"
        )


@dataclass(frozen=True)
class Segment:
    """One size range [min_bytes, max_bytes] (max None: no upper limit) with its own model."""

    min_bytes: int
    max_bytes: int | None
    model: Hockney

    def __post_init__(self):
        if self.min_bytes < 0:
            raise ValueError(f"segment starts at {self.min_bytes} bytes; must be >= 0")
        if self.max_bytes is not None and self.max_bytes < self.min_bytes:
            raise ValueError(f"segment range {self.min_bytes}..{self.max_bytes} bytes is empty")

    def to_dict(self) -> dict:
        return {
            "min_bytes": int(self.min_bytes),
            "max_bytes": None if self.max_bytes is None else int(self.max_bytes),
            "lambda_us": self.model.lambda_us,
            "bandwidth_MBps": self.model.bandwidth_MBps,
            "n_half_bytes": self.model.n_half,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Segment":
        lo = _field(d, "min_bytes")
        hi = d.get("max_bytes")
        if not float(lo).is_integer() or (hi is not None and not float(_finite("max_bytes", hi)).is_integer()):
            raise ValueError("segment bounds min_bytes/max_bytes must be whole numbers of bytes")
        return cls(
            int(lo), None if hi is None else int(hi), Hockney(_field(d, "lambda_us"), _field(d, "bandwidth_MBps"))
        )


@dataclass(frozen=True)
class PiecewiseHockney:
    """Contiguous size ranges, each with its own (λ, b); a size is evaluated by its range.

    Segments must start at 0, follow each other without gaps (next min = previous max + 1)
    and the last one is open-ended (max_bytes None), so every size has exactly one model.
    """

    segments: tuple = field(default_factory=tuple)

    def __post_init__(self):
        segs = tuple(self.segments)
        if not segs:
            raise ValueError("a piecewise model needs at least one segment")
        if segs[0].min_bytes != 0:
            raise ValueError(f"the first segment must start at 0 bytes, not {segs[0].min_bytes}")
        for a, b in zip(segs, segs[1:]):
            if a.max_bytes is None or b.min_bytes != a.max_bytes + 1:
                raise ValueError(
                    f"segments {a.min_bytes}..{a.max_bytes} and {b.min_bytes}..{b.max_bytes} bytes are not contiguous"
                )
        if segs[-1].max_bytes is not None:
            raise ValueError("the last segment must be open-ended (max_bytes null)")
        object.__setattr__(self, "segments", segs)

    @property
    def breakpoints(self) -> list[int]:
        """The last size of every segment but the last."""
        return [s.max_bytes for s in self.segments[:-1]]

    def segment_index(self, sizes) -> np.ndarray:
        n = as_sizes(sizes)
        return np.searchsorted(np.asarray(self.breakpoints, float), n, side="left")

    def time_us(self, sizes) -> np.ndarray:
        n = as_sizes(sizes)
        idx = self.segment_index(n)
        lam = np.array([s.model.lambda_us for s in self.segments])[idx]
        bw = np.array([s.model.bandwidth_MBps for s in self.segments])[idx]
        return lam + n / bw

    def effective_bandwidth(self, sizes) -> np.ndarray:
        n = as_sizes(sizes)
        return n / self.time_us(n)

    def to_dict(self) -> dict:
        return {"model": KIND_PIECEWISE, "segments": [s.to_dict() for s in self.segments]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, d: dict) -> "PiecewiseHockney":
        segs = d.get("segments")
        if not isinstance(segs, list):
            raise ValueError("'segments' must be a list of {min_bytes, max_bytes, lambda_us, bandwidth_MBps}")
        out = []
        for i, s in enumerate(segs, start=1):
            if not isinstance(s, dict):
                raise ValueError(f"segment {i} is not an object")
            try:
                out.append(Segment.from_dict(s))
            except ValueError as e:
                raise ValueError(f"segment {i}: {e}") from None
        return cls(tuple(out))

    @classmethod
    def from_json(cls, text: str) -> "PiecewiseHockney":
        model = model_from_json(text)
        if not isinstance(model, cls):
            model = cls((Segment(0, None, model),))
        return model

    def __str__(self):
        lines = [f"Piecewise Hockney model, {len(self.segments)} segment(s):"]
        for s in self.segments:
            rng = f"{s.min_bytes} B and up" if s.max_bytes is None else f"{s.min_bytes}..{s.max_bytes} B"
            lines.append(f"  {rng}: λ = {s.model.lambda_us:.4g} µs, b = {s.model.bandwidth_MBps:.5g} MB/s")
        return "\n".join(lines)


def _field(d: dict, key: str) -> float:
    if key not in d:
        raise ValueError(f"missing '{key}'")
    return _finite(key, d[key])


def model_from_dict(d) -> Hockney | PiecewiseHockney:
    """A model from its dict; the "model" key says which (extra keys such as "fit" are ignored)."""
    if not isinstance(d, dict):
        raise ValueError("expected a JSON object with a 'model' key")
    kind = d.get("model")
    if kind == KIND_SINGLE:
        return Hockney.from_dict(d)
    if kind == KIND_PIECEWISE:
        return PiecewiseHockney.from_dict(d)
    raise ValueError(f"'model' is {kind!r}; expected '{KIND_SINGLE}' or '{KIND_PIECEWISE}'")


def model_from_json(text: str) -> Hockney | PiecewiseHockney:
    return model_from_dict(json.loads(text))
