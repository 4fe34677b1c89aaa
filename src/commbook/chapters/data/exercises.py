"""The references of the exercises of the data page (book/data.md): computed from the shipped ORFEO tables and raw files."""

from __future__ import annotations

from ...exercises.core import _exercise


@_exercise("data-gather", "data", kind="choice")
def _data_gather():
    """Which operation the files labelled "gather" measured: the one whose medians at 16, 32
    and 48 processes they are closest to (mean |log ratio|), from the derived tables of the
    ORFEO files (data/orfeo/derived).
    """
    import numpy as np

    from ... import orfeo

    def medians(dataset, algorithm=None):
        df = orfeo.load(dataset)[0]
        if "mapping" in df and algorithm is not None:
            df = df[(df.mapping == "core") & (df.algorithm == algorithm)]
        if not len(df):
            raise orfeo.DataUnavailable(f"no raw rows for {dataset} (fetch the ORFEO files)")
        return df.groupby("np").t_us.median().reindex([16, 32, 48]).to_numpy(float)

    labelled = medians("barbaralol/barrier")
    distance = {
        op: float(np.nanmean(np.abs(np.log(labelled / medians(ds, alg)))))
        for op, ds, alg in (
            ("barrier", "giuliofantuzzi/barrier", "default"),
            ("gather", "marcobarrasso1/gather", "basic_linear"),
        )
    }
    return min(distance, key=distance.get)


@_exercise(
    "data-bcast-files",
    "data",
    rel_tol=0,
    unit="files",
    giveaways=('catalog().benchmark == "bcast"', 'cat.benchmark == "bcast"'),
)
def _data_bcast_files():
    from ... import orfeo

    cat = orfeo.catalog()
    return int((cat.benchmark == "bcast").sum())


@_exercise("data-runs", "data", rel_tol=0, unit="runs")
def _data_runs():
    from ... import orfeo

    return int(orfeo.load("pingpong")[0].runs.max())
