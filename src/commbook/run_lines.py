"""The one line `commbook measure` (and a chapter) prints after a kernel run: its headline."""

from __future__ import annotations


def ring(out) -> str:
    rows = out.table
    if rows.empty:
        return ""
    r = rows.iloc[0]
    return (
        f"ring of {int(r['np'])} ranks ({out.meta.get('algorithm', '')}), {int(r['size_bytes'])} B: "
        f"{r['t_median_us']:.2f} µs per ring, {r['t_step_us']:.3f} µs per step (median)"
    )


def matrix_add(out) -> str:
    if out.table.empty:
        return ""
    r = out.table.iloc[0]
    speedup = r["t_serial_add_us"] / r["t_median_us"] if r["t_median_us"] > 0 else float("nan")
    return (
        f"grid {r['grid']}, shape {r['shape']}: scatter {r['t_scatter_median_us']:.0f} µs, "
        f"add {r['t_add_median_us']:.0f} µs, gather {r['t_gather_median_us']:.0f} µs, "
        f"total {r['t_median_us']:.0f} µs; serial add {r['t_serial_add_us']:.0f} µs "
        f"(speedup {speedup:.2f})"
    )


def stream(out) -> str:
    rows = out.table.set_index("algorithm")
    parts = [f"{name} {rows.loc[name, 'bandwidth_MBps']:,.0f} MB/s" for name in rows.index]
    return (
        f"stream on {out.meta.get('np')} ranks, {out.meta.get('array_bytes', '').split(' (')[0]}"
        f" (best of {out.meta.get('repetitions')}, STREAM byte counting): " + ", ".join(parts)
    )
