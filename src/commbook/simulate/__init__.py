"""The book's kernels on simulated clusters: SimGrid's SMPI, calibrated on ORFEO's ping-pong.

* ``platforms``    SimGrid XML generated from data/orfeo/hardware_seed.csv (a host per socket)
  and the topology chapter's interconnects; hostfiles for --map-by core|socket|node;
* ``calibration``  SMPI's network parameters fitted to ORFEO's ping-pong (data/simulated/);
* ``runner``       smpicc and smpirun (timeout, cache, the kernels' parser), ``status()``;
* ``cluster``      ``SimulatedCluster`` for chapter cells, the shipped fallback without SMPI;
* ``validation``   the simulated ring against ORFEO's measured rings (data/validation/).

Every row these produce says "simulated" (machine column, params ``simulated=1``).
"""

from .cluster import REFERENCE_NOTE, SimulatedCluster
from .platforms import Platform, PlatformError, platform
from .runner import SimulatedRun, status

__all__ = ["REFERENCE_NOTE", "Platform", "PlatformError", "SimulatedCluster", "SimulatedRun", "platform", "status"]
