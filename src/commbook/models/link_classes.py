"""Collectives on a machine with link classes (core, socket, node): each message of a schedule
pays the Hockney cost of the link it crosses (calibrated by commbook.fit.calibrate_link_classes
or taken from orfeo.link_parameters)."""

from __future__ import annotations

import numpy as np


def link_class_time(steps, n, G, placement, params: dict):
    """Time of a schedule when each message costs lambda + n/b of its link class: the
    dearest link on its path ('core', 'socket', 'node', from commbook.topology.pair_class).
    A step costs its slowest message; steps add up. n may be an array."""
    from .. import topology as topo
    from . import collective_costs

    place = list(placement)
    cls: dict = {}

    def link(m):
        key = (place[m.src], place[m.dst])
        if key not in cls:
            cls[key] = topo.pair_class(G, *key)
        if cls[key] not in params:
            raise ValueError(f"no (lambda, b) for link class '{cls[key]}'")
        return params[cls[key]]

    lam0, b0 = params["core"]
    return collective_costs.schedule_time(
        steps,
        n,
        lam0,
        b0,
        extra_us=lambda m: link(m)[0] - lam0,
        beta_factor=lambda step: [b0 / link(m)[1] for m in step],
    )


def rank_finish_times(
    steps, n, G, placement, params: dict, send_overhead: float | None = None, eager_limit: float = 4096
):
    """When each rank is done with one call, in the link-class model. A rank that receives is
    done at the end of the step of its last receive; its later sends add `send_overhead`
    each (default: lambda of the 'core' class) when the message is at most `eager_limit`
    bytes (eager: the library buffers it and returns), or keep it busy to the end of the
    step of the send when larger (rendezvous: the send waits for the receiver). A gather's
    root is done when the last block is in. The slowest rank is the collective's time; OSU
    reports the mean over ranks."""
    place = list(placement)
    P = len(place)
    o = params["core"][0] if send_overhead is None else float(send_overhead)
    ends = np.cumsum([float(link_class_time([step], n, G, place, params)) for step in steps])
    finish = np.zeros(P)
    last_recv = np.full(P, -1)
    for s, step in enumerate(steps):
        for m in step:
            last_recv[m.dst] = s
            finish[m.dst] = ends[s]
    for s, step in enumerate(steps):
        for m in step:
            if s > last_recv[m.src]:
                if m.frac * n <= eager_limit:
                    finish[m.src] += o
                else:
                    finish[m.src] = max(finish[m.src], ends[s])
    return finish
