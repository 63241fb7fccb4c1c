"""Pictures of the benchmark results: one function per suite of scripts/bench.d, each reading the suite's
bench-results/NAME.json and writing bench-results/NAME.png beside it (matplotlib, Agg backend, no display).

Called by every suite at its end (scripts/lib/perf-section.sh: plot_suite NAME; benchlib.Suite.plot) and runnable
alone, so that results can be drawn again without rerunning a benchmark:

    .venv/bin/python scripts/lib/plots.py bench-results/storage.json [more.json ...]
    scripts/bench plot [NAME ...]          (every suite with a JSON file when no NAME is given)

The pictures show what the suite's section of docs/PERFORMANCE.md states in numbers, with the same targets
drawn as lines; the tables stay the reference. This module imports matplotlib only when drawing, so that
perfdoc.py (run by any python3) can ask which suites have a picture (SUITES).
"""
import json
import os
import statistics
import sys

SUITES = ("coding", "offload", "tsue", "storage", "compare", "degraded", "tiered", "readpath", "tls", "hotness")

# One colour per system or backend, the same in every picture.
COLOURS = {"c-isal": "#4d4d4d", "isal": "#1f77b4", "jerasure": "#ff7f0e", "java": "#2ca02c", "memcpy": "#bbbbbb",
           "plain": "#7f7f7f", "plain2": "#bcbd22", "elect": "#1f77b4", "plain-tr": "#c7c7c7", "elect-tr": "#9467bd",
           "normal": "#1f77b4", "degraded": "#d62728", "s3proxy": "#1f77b4", "fs": "#ff7f0e",
           "local-file-copy": "#7f7f7f"}


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "figure.dpi": 110, "axes.grid": True,
                         "grid.alpha": 0.3, "axes.axisbelow": True})
    return plt


def _save(fig, out, title=None):
    for ax in fig.axes:
        _draw_labels(ax)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(out)
    import matplotlib.pyplot as plt
    plt.close(fig)


def _label_later(ax, bars, texts, tops=None):
    """Queues value labels for bars; _save writes them once the axis limits are final (see _draw_labels)."""
    if not hasattr(ax, "elect_labels"):
        ax.elect_labels = []
    tops = tops or [b.get_height() for b in bars]
    ax.elect_labels += list(zip(bars, texts, tops))


def _draw_labels(ax):
    """Writes each queued value inside its bar, upright along the bar from its foot (so that it never collides
    with a whisker, a legend or a neighbour); a bar too short for its text gets it above its whisker instead."""
    lo, hi = ax.get_ylim()
    log = ax.get_yscale() == "log"
    import math
    span = (math.log10(hi) - math.log10(lo)) if log else (hi - lo)

    def frac(y):  # position of y on the axis, 0..1
        return ((math.log10(max(y, lo)) - math.log10(lo)) if log else (y - lo)) / span
    for bar, text, top in getattr(ax, "elect_labels", []):
        x = bar.get_x() + bar.get_width() / 2
        need = 0.018 * len(text) + 0.025  # axis fraction the upright text needs (fontsize 7, ~300 px axes)
        if frac(bar.get_height()) >= need:
            foot = lo * 10 ** (0.015 * span) if log else lo + 0.015 * span
            ax.text(x, foot, text, rotation=90, ha="center", va="bottom", fontsize=7, color="white",
                    fontweight="bold")
        else:
            ax.text(x, top, text, rotation=90, ha="center", va="bottom", fontsize=7)
    ax.elect_labels = []


def _headroom(ax, share=0.22):
    """Raises the top of the axis so that a legend in the upper corner covers no bar."""
    lo, hi = ax.get_ylim()
    if ax.get_yscale() == "log":
        ax.set_ylim(lo, hi * (hi / lo) ** share)
    else:
        ax.set_ylim(lo, hi + (hi - lo) * share)


def _med(values):
    return statistics.median(values) if values else float("nan")


def _errs(meds, lows, highs):
    """matplotlib yerr from medians and min/max (never negative)."""
    return [[max(0.0, m - lo) for m, lo in zip(meds, lows)], [max(0.0, hi - m) for m, hi in zip(meds, highs)]]


def _grouped_bars(ax, groups, series, value, colour=None, width=0.8, log=False, label_values=False, fmt="{:.2g}"):
    """Bars of value(group, series) -> (median, low, high) or None, one cluster per group, one bar per series."""
    n = max(1, len(series))
    w = width / n
    for i, s in enumerate(series):
        xs, meds, lows, highs = [], [], [], []
        for g_i, g in enumerate(groups):
            v = value(g, s)
            if v is None:
                continue
            xs.append(g_i - width / 2 + w * (i + 0.5))
            meds.append(v[0]); lows.append(v[1]); highs.append(v[2])
        if not xs:
            continue
        bars = ax.bar(xs, meds, w, yerr=_errs(meds, lows, highs), capsize=2, label=s,
                      color=(colour(s) if colour else COLOURS.get(s)), error_kw={"elinewidth": 0.8})
        if label_values:
            _label_later(ax, bars, [fmt.format(m) for m in meds], highs)
    ax.set_xticks(range(len(groups)))
    if log:
        ax.set_yscale("log")


# ----------------------------------------------------------------------------------------------- coding
def plot_coding(data, out):
    """GB/s per core per shape (k,m and chunk size) and backend, one panel per operation; bars are medians,
    whiskers min..max over iterations; memcpy of the k data chunks in the encode panel."""
    plt = _plt()
    g = {(r["backend"], r["op"], r["k"], r["m"], r["chunk_bytes"]): r for r in data}
    shapes = sorted({(r["k"], r["m"], r["chunk_bytes"]) for r in data})
    labels = [f"({k},{m})\n{s // 1024} KiB" for k, m, s in shapes]
    ops = [op for op in ("encode", "reconstruct", "update") if any(r["op"] == op for r in data)]
    fig, axes = plt.subplots(len(ops), 1, figsize=(11, 3.2 * len(ops)), squeeze=False)
    for ax, op in zip(axes[:, 0], ops):
        series = [b for b in ("c-isal", "isal", "jerasure", "java") if any(k[0] == b and k[1] == op for k in g)]
        if op == "encode" and any(k[0] == "memcpy" for k in g):
            series.append("memcpy")

        def value(shape, b, op=op):
            r = g.get((b, "copy" if b == "memcpy" else op) + shape)
            return None if r is None else (r["gbps"], r["gbps_min"], r["gbps_max"])
        _grouped_bars(ax, shapes, series, value)
        if op == "encode":
            ax.axhline(2.0, color=COLOURS["java"], ls="--", lw=1,
                       label="java target: 2 GB/s ((4,2), (6,3), chunks >= 64 KiB)")
        ax.set_xticklabels(labels)
        ax.set_ylabel("GB/s per core")
        _headroom(ax, 0.18)
        ax.set_title(f"{op} (data bytes per CPU-second; {'one chunk' if op == 'update' else 'k x chunk'} per op)")
        ax.legend(ncol=len(series) + 1, fontsize=8, loc="upper right")
    _save(fig, out, "coding: Reed-Solomon codec throughput per shape and backend (median, min..max)")


# ---------------------------------------------------------------------------------------------- offload
def plot_offload(data, out):
    """MB/s of put/get per store (single stream and parallel) per object size, local file copy as the reference
    line; ranged-read latency p50/p99 per store and read size."""
    plt = _plt()
    sizes = sorted({r["object_bytes"] for r in data if r["op"] != "ranged-read"})
    ranged = [r for r in data if r["op"] == "ranged-read"]
    fig, axes = plt.subplots(1, len(sizes) + (1 if ranged else 0), figsize=(4.6 * (len(sizes) + 1), 4.2),
                             squeeze=False)
    ops = ["put-single", "get-single", "put-parallel", "get-parallel"]
    for ax, size in zip(axes[0], sizes):
        rows = {(r["store"], r["op"]): r for r in data if r["object_bytes"] == size}
        stores = [s for s in ("s3proxy", "fs") if any(k[0] == s for k in rows)]
        present = [op for op in ops if any(k[1] == op for k in rows)]

        def value(op, store, rows=rows):
            r = rows.get((store, op))
            return None if r is None else (r["mbps"], r["mbps_min"], r["mbps_max"])
        _grouped_bars(ax, present, stores, value, log=True, label_values=True, fmt="{:.0f}")
        ax.set_xticklabels([op.replace("-", "\n") for op in present])
        copy = rows.get(("local-file-copy", "copy"))
        if copy:
            ax.axhline(copy["mbps"], color=COLOURS["local-file-copy"], ls="--", lw=1,
                       label=f"local file copy {copy['mbps']:.0f} MB/s")
        ax.set_ylabel("MB/s (log)")
        ax.set_title(f"{size / 2**20:g} MiB objects")
        _headroom(ax, 0.3)
        ax.legend(fontsize=7, loc="upper left", ncol=2)
    if ranged:
        ax = axes[0][-1]
        groups = sorted({(r["store"], r["object_bytes"]) for r in ranged})
        rows = {(r["store"], r["object_bytes"]): r for r in ranged}
        xs = range(len(groups))
        p50 = [rows[g]["p50_ms"] for g in groups]
        p99 = [rows[g]["p99_ms"] for g in groups]
        ax.bar([x - 0.2 for x in xs], p50, 0.4, label="p50", color="#1f77b4")
        ax.bar([x + 0.2 for x in xs], p99, 0.4, label="p99", color="#aec7e8")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{s}\n{b // 1024} KiB" for s, b in groups])
        ax.set_yscale("log")
        ax.set_ylabel("ms per ranged read (log)")
        ax.set_title("ranged reads of a 64 MiB object")
        _headroom(ax, 0.15)
        ax.legend(fontsize=7, loc="upper left")
    _save(fig, out, "offload: cold-tier throughput (median, min..max over repetitions) and ranged-read latency")


# ------------------------------------------------------------------------------------------------- tsue
# Fields of a tsue result row that describe what was measured rather than a measurement: rows that differ in
# one of them (a trace, direct I/O, an ablation) are drawn as separate bars or panels. Unknown fields are ignored.
TSUE_PANEL_FIELDS = ("trace",)
TSUE_VARIANT_FIELDS = ("direct_io", "ablation")
TSUE_ORDER = ["IN_PLACE", "PARITY_LOGGING", "PLR", "PARIX", "DPU", "TSUE", "REPLICATED_LOG_2WAY"]


def _variant(row, fields):
    parts = []
    for f in fields:
        v = row.get(f)
        if v in (None, False, "", "none"):
            continue
        parts.append(f if v is True else f"{f}={v}")
    return ", ".join(parts)


def plot_tsue(data, out):
    """Update throughput (updates/s, median, min..max) and p99 latency per policy, one row of panels per stripe
    shape (and trace, if the rows carry one); the 2-way replicated log append is the latency yardstick."""
    plt = _plt()
    rows = data["results"] if isinstance(data, dict) else data
    panels = sorted({(r["k"], r["m"], _variant(r, TSUE_PANEL_FIELDS)) for r in rows},
                    key=lambda p: (-p[0], -p[1], p[2]))
    fig, axes = plt.subplots(len(panels), 2, figsize=(12, 3.4 * len(panels)), squeeze=False)
    for (k, m, trace), (ax_t, ax_l) in zip(panels, axes):
        mine = [r for r in rows if (r["k"], r["m"], _variant(r, TSUE_PANEL_FIELDS)) == (k, m, trace)]
        # a variant field with one value in the whole panel goes to its title, one that varies to the bars
        shared = tuple(f for f in TSUE_VARIANT_FIELDS if len({json.dumps(r.get(f)) for r in mine}) == 1)
        varying = tuple(f for f in TSUE_VARIANT_FIELDS if f not in shared)
        trace = ", ".join(x for x in (trace, _variant(mine[0], shared)) if x)
        keyed = {}
        for r in mine:
            label = r["policy"] + (f"\n{_variant(r, varying)}" if _variant(r, varying) else "")
            keyed[label] = r
        labels = sorted(keyed, key=lambda s: (TSUE_ORDER.index(s.split("\n")[0]) if s.split("\n")[0] in TSUE_ORDER
                                              else len(TSUE_ORDER), s))
        xs = range(len(labels))
        colours = ["#d62728" if lb.startswith("TSUE") else "#7f7f7f" if lb.startswith("REPLICATED") else "#1f77b4"
                   for lb in labels]
        ups = [keyed[lb]["updates_per_s"] for lb in labels]
        ax_t.bar(xs, ups, color=colours,
                 yerr=_errs(ups, [keyed[lb].get("updates_per_s_min", keyed[lb]["updates_per_s"]) for lb in labels],
                            [keyed[lb].get("updates_per_s_max", keyed[lb]["updates_per_s"]) for lb in labels]),
                 capsize=2)
        p99 = [keyed[lb]["p99_us"] / 1000 for lb in labels]
        ax_l.bar(xs, p99, color=colours,
                 yerr=_errs(p99, [keyed[lb].get("p99_us_min", keyed[lb]["p99_us"]) / 1000 for lb in labels],
                            [keyed[lb].get("p99_us_max", keyed[lb]["p99_us"]) / 1000 for lb in labels]), capsize=2)
        repl = keyed.get("REPLICATED_LOG_2WAY")
        if repl:
            ax_l.axhline(1.2 * repl["p99_us"] / 1000, color="k", ls="--", lw=1,
                         label="1.2 x 2-way replicated append p99 (target)")
            ax_l.legend(fontsize=7)
        pl = keyed.get("PARITY_LOGGING")
        if pl:
            ax_t.axhline(5 * pl["updates_per_s"], color="k", ls="--", lw=1, label="5 x parity logging (TSUE target)")
            ax_t.legend(fontsize=7)
        where = f"RS({k},{m})" + (f", {trace}" if trace else "")
        for ax, title, unit in ((ax_t, "update throughput", "updates/s"), (ax_l, "update latency p99", "ms")):
            ax.set_xticks(list(xs))
            ax.set_xticklabels([lb.replace("_", "_\u200b") for lb in labels], rotation=30, ha="right", fontsize=7)
            ax.set_ylabel(unit)
            ax.set_title(f"{where}: {title}")
    _save(fig, out, "tsue: update policies on the same trace (median, min..max over interleaved repetitions)")


# ---------------------------------------------------------------------------------------------- storage
def plot_storage(data, out):
    """Achieved hot-tier saving vs the storage-saving target alpha, one series per cluster shape; the target
    y = alpha as a line, with the +-2-point band the suite's tolerance allows."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 5))
    shape = lambda r: (r["nodes"], r["k"], r["m"], r["rf"], r.get("field_length", 1000))  # noqa: E731
    shapes = sorted({shape(r) for r in data})
    markers = "osD^v<>"
    alphas = sorted({r["alpha"] for r in data})
    lo, hi = min(alphas + [0.0]) - 0.05, max(alphas + [0.9]) + 0.05
    ax.plot([lo, hi], [lo, hi], color="k", lw=1, label="target: saving = alpha")
    ax.fill_between([lo, hi], [lo - 0.02, hi - 0.02], [lo + 0.02, hi + 0.02], color="k", alpha=0.08,
                    label="alpha +- 0.02")
    for i, (nodes, k, m, rf, value) in enumerate(shapes):
        rows = sorted((r for r in data if shape(r) == (nodes, k, m, rf, value)
                       and r.get("achieved_saving") is not None), key=lambda r: r["alpha"])
        if not rows:
            continue
        xs = [r["alpha"] for r in rows]
        ys = [r["achieved_saving"] for r in rows]
        line, = ax.plot(xs, ys, marker=markers[i % len(markers)], ls=":", ms=7,
                        label=f"{nodes} nodes, k={k} m={m}, RF={rf}" + ("" if value == 1000 else f", {value} B values"))
        for x, y in zip(xs, ys):
            ax.annotate(f"{100 * y:.1f}%", (x, y), textcoords="offset points",
                        xytext=(10, -14) if i % 2 == 0 else (-34, 8), fontsize=7, color=line.get_color())
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("storage_saving_target alpha")
    ax.set_ylabel("achieved saving = 1 - ELECT hot bytes / plain bytes")
    ax.set_title("storage: saving reached by redundancy transitioning")
    ax.legend(fontsize=8, loc="upper left")
    _save(fig, out)


# ---------------------------------------------------------------------------------------------- compare
COMPARE_TARGETS = {"a": 0.97, "b": 0.97, "c": 0.97, "d": 0.97, "e": 1.5, "f": 0.97}  # scripts/bench.d/compare


def _round_ratios(data, workload, base, other):
    by_round = {}
    for r in data:
        if r["workload"] == workload and r["system"] in (base, other) and r.get("ops_per_s"):
            by_round.setdefault(r["round"], {})[r["system"]] = r["ops_per_s"]
    return [v[other] / v[base] for v in by_round.values() if base in v and other in v]


def plot_compare(data, out):
    """Throughput ratio ELECT/plain per YCSB workload (median of the per-round ratios, min..max), with each
    workload's target as a line (0.97; E: 1.5); elect-tr/plain-tr beside it when the run had transitioning."""
    plt = _plt()
    workloads = sorted({r["workload"] for r in data if r["workload"] != "load"})
    pairs = [(b, o) for b, o in (("plain", "elect"), ("plain", "plain2"), ("plain-tr", "elect-tr"))
             if any(r["system"] == o for r in data)]
    fig, (ax, ax_abs) = plt.subplots(1, 2, figsize=(12, 4.4), gridspec_kw={"width_ratios": [3, 2]})

    def value(w, pair):
        rs = _round_ratios(data, w, *pair)
        return None if not rs else (_med(rs), min(rs), max(rs))
    labels = [f"{o}/{b}" + (" (A/A control)" if o == "plain2" else "") for b, o in pairs]
    n = len(pairs)
    width = 0.8 / max(1, n)
    for i, (pair, label) in enumerate(zip(pairs, labels)):
        xs, meds, lows, highs = [], [], [], []
        for j, w in enumerate(workloads):
            v = value(w, pair)
            if v:
                xs.append(j - 0.4 + width * (i + 0.5)); meds.append(v[0]); lows.append(v[1]); highs.append(v[2])
        bars = ax.bar(xs, meds, width, yerr=_errs(meds, lows, highs), capsize=3, label=label,
                      color=COLOURS[pair[1]])
        _label_later(ax, bars, [f"{m:.2f}" for m in meds], highs)
    for j, w in enumerate(workloads):  # the targets are for elect/plain (no target is set for elect-tr)
        t = COMPARE_TARGETS.get(w)
        if t:
            ax.hlines(t, j - 0.45, j - 0.4 + width, color="k", ls="--", lw=1.4,
                      label="target of elect/plain (0.97; E: 1.5)" if j == 0 else None)
    ax.axhline(1.0, color="#999999", lw=0.8)
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([w.upper() for w in workloads])
    ax.set_xlabel("YCSB workload")
    ax.set_ylabel("throughput ratio (per round; median, min..max)")
    ax.set_title("ELECT / plain Cassandra throughput, same cluster, interleaved rounds")
    _headroom(ax, 0.2)
    ax.legend(fontsize=8, loc="upper left", ncol=3)
    systems = [s for s in ("plain", "elect", "plain2", "plain-tr", "elect-tr") if any(r["system"] == s for r in data)]

    def ops(w, s):
        v = [r["ops_per_s"] for r in data if r["workload"] == w and r["system"] == s and r.get("ops_per_s")]
        return None if not v else (_med(v), min(v), max(v))
    _grouped_bars(ax_abs, workloads, systems, ops)
    ax_abs.set_xticklabels([w.upper() for w in workloads])
    ax_abs.set_ylabel("ops/s (median, min..max)")
    ax_abs.set_title("absolute throughput (2-core VM: low, noisy)")
    _headroom(ax_abs, 0.15)
    ax_abs.legend(fontsize=7, ncol=4, loc="upper left")
    _save(fig, out, "compare: YCSB throughput, ELECT tables vs plain LCS tables")


# --------------------------------------------------------------------------------------------- degraded
def plot_degraded(data, out):
    """Read latency p50 and p99 per round, all nodes up vs one node down (bars per round, the round's order in
    the label when recorded); rebuild time of a wiped node, ELECT vs plain Cassandra, as measured by each
    server (when recorded) and by the wall clock of the tool."""
    plt = _plt()
    lat = data.get("latency", [])
    reb = data.get("rebuild", [])
    fig, axes = plt.subplots(1, 3 if reb else 2, figsize=(15 if reb else 10, 4.4), squeeze=False)
    axes = axes[0]
    rounds = sorted({r["round"] for r in lat})
    for ax, pct in zip(axes[:2], ("p50_ms", "p99_ms")):
        for i, mode in enumerate(("normal", "degraded")):
            rows = {r["round"]: r for r in lat if r["mode"] == mode}
            xs = [j - 0.2 + 0.4 * i for j, rnd in enumerate(rounds) if rnd in rows]
            ys = [rows[rnd][pct] for rnd in rounds if rnd in rows]
            bars = ax.bar(xs, ys, 0.4, color=COLOURS[mode], label=mode)
            _label_later(ax, bars, [f"{y:.1f}" for y in ys])
        for mode, ls in (("normal", "-"), ("degraded", "--")):
            v = [r[pct] for r in lat if r["mode"] == mode]
            if v:
                ax.axhline(_med(v), color=COLOURS[mode], ls=ls, lw=0.8, alpha=0.7)
        ax.set_xticks(range(len(rounds)))
        ax.set_xticklabels([_round_label(lat, rnd) for rnd in rounds], fontsize=8)
        ax.set_ylabel("ms")
        ax.set_title(f"YCSB read latency {pct.split('_')[0]} per round (lines: medians over rounds)")
        _headroom(ax, 0.15)
        ax.legend(fontsize=8, loc="upper right", ncol=2)
    if reb:
        _plot_rebuild(axes[2], reb)
    _save(fig, out, "degraded: reads with one node down (stubs decode) vs all up; rebuild of a wiped node")


def _round_label(lat, rnd):
    """'round 2\\nnormal first' when the rows record which mode ran first in that round."""
    rows = [r for r in lat if r["round"] == rnd and "order" in r]
    first = min(rows, key=lambda r: r["order"])["mode"] if rows else None
    return f"round {rnd}" + (f"\n{first} first" if first else "")


def _plot_rebuild(ax, reb):
    """Per system: median seconds (min..max over rounds) of each measure the rows carry: server-side (ELECT's
    own elapsed_ms; plain Cassandra's stream session duration), wall clock minus the tool's start-up, wall."""
    measures = [("server_s", "server-side"), ("wall_minus_start_s", "wall - tool start-up"), ("rebuild_s", "wall")]
    for r in reb:  # rows of older runs: derive what they allow
        if "wall_minus_start_s" not in r and "rebuild_s" in r and "tool_start_s" in r:
            r["wall_minus_start_s"] = round(r["rebuild_s"] - r["tool_start_s"], 3)
        if "server_s" not in r and (r.get("electtool") or {}).get("elapsed_ms") is not None:
            r["server_s"] = r["electtool"]["elapsed_ms"] / 1000
    present = [(k, lab) for k, lab in measures if any(r.get(k) is not None for r in reb)]
    systems = [s for s in ("elect", "plain") if any(r["system"] == s for r in reb)]
    width = 0.8 / max(1, len(systems))
    for i, s in enumerate(systems):
        meds, lows, highs, xs = [], [], [], []
        for j, (key, _) in enumerate(present):
            v = [r[key] for r in reb if r["system"] == s and r.get(key) is not None]
            if v:
                xs.append(j - 0.4 + width * (i + 0.5)); meds.append(_med(v)); lows.append(min(v)); highs.append(max(v))
        bars = ax.bar(xs, meds, width, yerr=_errs(meds, lows, highs), capsize=3, label=s, color=COLOURS[s])
        _label_later(ax, bars, [f"{m:.2f}" for m in meds], highs)
    ratios = []
    for key, lab in present:
        e = [r[key] for r in reb if r["system"] == "elect" and r.get(key) is not None]
        p = [r[key] for r in reb if r["system"] == "plain" and r.get(key) is not None]
        if e and p:
            ratios.append(f"{lab}: {_med(e) / _med(p):.2f}x")
    ax.set_xticks(range(len(present)))
    ax.set_xticklabels([lab for _, lab in present], fontsize=8)
    ax.set_ylabel("seconds (median, min..max over rounds)")
    ax.set_title("rebuild of the wiped node")
    _headroom(ax, 0.25)
    ax.legend(fontsize=8, loc="upper left")
    if ratios:
        ax.text(0.99, 0.98, "ELECT / plain (medians)\n" + "\n".join(ratios), transform=ax.transAxes, ha="right",
                va="top", fontsize=7, bbox={"boxstyle": "round", "fc": "white", "ec": "#999999"})


# ----------------------------------------------------------------------------------------------- tiered
def plot_tiered(data, out):
    """Point-read latency p50 (median, min..max of the per-repetition p50) and p99 per data source, log scale;
    bytes fetched per read beside it."""
    plt = _plt()
    fig, (ax, ax_b) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    labels = [r["source"].replace("-", "\n", 1) + (f"\n({r['cache']} cache)" if r["cache"] != "n/a" else "")
              for r in data]
    xs = range(len(data))
    p50 = [r["p50_ms"] for r in data]
    reps = [r.get("p50_ms_per_rep") or [r["p50_ms"]] for r in data]
    ax.bar([x - 0.2 for x in xs], p50, 0.4, label="p50", color="#1f77b4",
           yerr=_errs(p50, [min(v) for v in reps], [max(v) for v in reps]), capsize=3)
    ax.bar([x + 0.2 for x in xs], [r["p99_ms"] for r in data], 0.4, label="p99", color="#aec7e8")
    local = next((r for r in data if r["source"] == "LOCAL"), None)
    if local:
        ax.axhline(3 * local["p50_ms"], color="k", ls="--", lw=1, label="3 x LOCAL p50 (DECODED target)")
    ax.set_yscale("log")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("ms per point read (log)")
    far = (data[0].get("cold_latency_ms") or 0) if data else 0
    ax.set_title("point-read latency per data source" + (f" (cold tier +{far:g} ms per request)" if far else ""))
    _headroom(ax, 0.2)
    ax.legend(fontsize=7, loc="upper left", ncol=3)
    kib = [r["bytes_per_read"] / 1024 for r in data]
    bars = ax_b.bar(xs, kib, 0.6, color="#ff7f0e")
    _label_later(ax_b, bars, [f"{v:.0f}" for v in kib])
    ax_b.axhline(32, color="k", ls="--", lw=1, label="2 chunks of 16 KiB (COLD target)")
    ax_b.set_xticks(list(xs))
    ax_b.set_xticklabels(labels, fontsize=7)
    ax_b.set_ylabel("KiB fetched per read")
    ax_b.set_title("bytes fetched from the cold tier / stripe members")
    _headroom(ax_b, 0.15)
    ax_b.legend(fontsize=7, loc="upper left")
    _save(fig, out, "tiered: point reads of LOCAL, COLD and DECODED data files (one node)")


def plot_tls(data, out):
    """TLS / plaintext per path of the ELECT transport (median of the interleaved repetitions, min..max), with the
    10% cost target: throughput should stay >= 0.9x, latencies <= 1.1x."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    paths = [("transitioning\nthroughput", "transitioning_mb_s", "tls_over_plain_transitioning_throughput_median", "throughput", 0.9),
             ("degraded read\np50", "degraded_read_p50_ms", "tls_over_plain_degraded_p50_median", "p50", 1.1),
             ("degraded read\np99", "degraded_read_p99_ms", "tls_over_plain_degraded_p99_median", "p99", 1.1)]
    meds = [data[m] for _, _, m, _, _ in paths]
    lows = [data["ratio_ranges"][r][0] for _, _, _, r, _ in paths]
    highs = [data["ratio_ranges"][r][1] for _, _, _, r, _ in paths]
    bars = ax.bar(range(len(paths)), meds, 0.6, yerr=_errs(meds, lows, highs), capsize=4, color="#1f77b4")
    _label_later(ax, bars, [f"{m:.2f}x" for m in meds], highs)
    for i, (_, _, _, _, t) in enumerate(paths):
        ax.hlines(t, i - 0.35, i + 0.35, color="k", ls="--", lw=1.4, label="target (10% cost)" if i == 0 else None)
    ax.axhline(1.0, color="#999999", lw=0.8)
    ax.set_xticks(range(len(paths)))
    ax.set_xticklabels([p[0] for p in paths])
    ax.set_ylabel("TLS / plaintext (median, min..max over repetitions)")
    ax.set_yscale("log")
    ax.legend(fontsize=8, loc="upper left")
    _save(fig, out, f"tls: mutual TLS 1.3 ({data.get('provider', '?')}) on the ELECT transport, {data['reps']} repetitions")


def plot_hotness(data, out):
    """Read p99 ELECT/plain per phase (median of the per-round ratios, min..max) with the 1.1x target, and the share
    of the ELECT table's file reads by where the file's data was, per phase (stacked)."""
    plt = _plt()
    runs = data["runs"]
    phases = [p for p in ("zipfian", "latest") if any(r["workload"] == p for r in runs)]
    fig, (ax, ax_src) = plt.subplots(1, 2, figsize=(11, 4.2))
    meds, lows, highs = [], [], []
    for p in phases:
        pl = [r for r in runs if r["workload"] == p and r["system"] == "plain"]
        el = [r for r in runs if r["workload"] == p and r["system"] == "elect"]
        rs = [e["read_p99_ms"] / b["read_p99_ms"] for b, e in zip(pl, el) if b.get("read_p99_ms") and e.get("read_p99_ms")]
        meds.append(_med(rs) if rs else 0); lows.append(min(rs) if rs else 0); highs.append(max(rs) if rs else 0)
    bars = ax.bar(range(len(phases)), meds, 0.5, yerr=_errs(meds, lows, highs), capsize=4, color=COLOURS["elect"])
    _label_later(ax, bars, [f"{m:.2f}" for m in meds], highs)
    ax.axhline(1.1, color="k", ls="--", lw=1.4, label="target <= 1.1")
    ax.axhline(1.0, color="#999999", lw=0.8)
    ax.set_xticks(range(len(phases)))
    ax.set_xticklabels(phases)
    ax.set_ylabel("read p99 ELECT / plain (per round; median, min..max)")
    tr = data.get("transitioning", {})
    ax.set_title(f"saving {100 * tr.get('saving', 0):.1f}% of target {100 * data['settings']['storage_saving_target']:g}%")
    ax.legend(fontsize=8, loc="upper left")
    _headroom(ax, 0.2)
    classes = ("primary", "secondary", "encoded", "cold", "stub")
    colours = {"primary": "#7f7f7f", "secondary": "#c7c7c7", "encoded": "#1f77b4", "cold": "#17becf", "stub": "#d62728"}
    bottom = [0.0] * len(phases)
    for c in classes:
        vals = []
        for p in phases:
            tot = {k: sum(r["reads"][k] for r in runs if r["workload"] == p and "reads" in r) for k in classes}
            n = sum(tot.values())
            vals.append(100.0 * tot[c] / n if n else 0.0)
        ax_src.bar(range(len(phases)), vals, 0.5, bottom=bottom, label=c, color=colours[c])
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax_src.set_xticks(range(len(phases)))
    ax_src.set_xticklabels(phases)
    ax_src.set_ylabel("% of the ELECT table's file reads")
    ax_src.set_title("where reads were served from (electtool reads)")
    ax_src.legend(fontsize=8, loc="lower right")
    _save(fig, out, "hotness: default hotness settings, ELECT vs an all-replicated table")


PLOTTERS = {"coding": plot_coding, "offload": plot_offload, "tsue": plot_tsue, "storage": plot_storage,
            "compare": plot_compare, "degraded": plot_degraded, "tiered": plot_tiered,
            "readpath": plot_compare, "tls": plot_tls, "hotness": plot_hotness}  # readpath's records have compare's shape (systems plain, elect)
assert set(PLOTTERS) == set(SUITES)


def plot(json_path, out=None):
    """Draws json_path (bench-results/NAME.json) into out (default: NAME.png beside it); returns out."""
    name = os.path.splitext(os.path.basename(json_path))[0]
    if name not in PLOTTERS:
        raise SystemExit(f"plots: no picture for '{name}' (suites: {', '.join(SUITES)})")
    with open(json_path) as f:
        data = json.load(f)
    out = out or os.path.splitext(json_path)[0] + ".png"
    PLOTTERS[name](data, out)
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    for path in argv:
        print(f"plots: wrote {plot(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
