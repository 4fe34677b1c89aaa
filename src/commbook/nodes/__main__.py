"""`python -m commbook.nodes keep|watch ...`: an emulated cluster's keeper and its watchdog
(started by commbook.nodes.lifecycle, not by hand)."""

import signal
import sys
from pathlib import Path

from .lifecycle import keep, watch

signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the owner, which tells the keeper
if sys.argv[1] == "keep":
    b, n, r, s, h = sys.argv[2:7]
    sys.exit(keep(Path(b), int(n), "" if r == "-" else r, s == "slurm", h == "hold"))
elif sys.argv[1] == "watch":
    watch(Path(sys.argv[2]), Path(sys.argv[3]))
