# Summarizes the rows of io.elect.tsue.bench.TsueBench (raw.json) into bench-results/tsue.json and the tsue section
# of docs/PERFORMANCE.md. Used by scripts/bench.d/tsue; not a suite of its own.
# Ratios are computed per repetition between rows of the same repetition (interleaved), then summarized as
# median (min..max). Storage operations and network bytes are per update (rows replay different prefixes of the trace
# within their time cap); storage operations leave out the trace's client reads (one chunk read each, the same for
# every policy).
import datetime
import json
import platform
import statistics
import sys

raw, out_json, out_md, cmd = sys.argv[1:5]
rows = json.load(open(raw))
device = [r for r in rows if r["policy"] == "DEVICE"]
rows = [r for r in rows if r["policy"] != "DEVICE"]
ORDER = ["IN_PLACE", "PARITY_LOGGING", "PLR", "PARIX", "DPU", "TSUE", "REPLICATED_LOG_2WAY"]
LEVELS = ["TSUE_BASE", "TSUE_O1", "TSUE_O2", "TSUE_O3", "TSUE_O4", "TSUE"]


def med(v):
    return statistics.median(v) if v else float("nan")


def per_update(r, f):
    return r[f] / r["updates"] if r["updates"] else float("nan")


def get(r, f):
    if f.endswith("/upd"):
        return per_update(r, f[:-4])
    return r[f]


codes = sorted({(r["k"], r["m"]) for r in rows}, key=lambda c: (c != (6, 4), c))
groups = {}
for r in rows:
    groups.setdefault((r["k"], r["m"], r["policy"]), []).append(r)

NUM = ["updates", "update_bytes", "seconds", "read_write_ops", "update_ops", "read_write_bytes", "read_bytes",
       "write_bytes", "overwrites", "overwrite_bytes", "syncs", "network_bytes", "updates_per_s",
       "updates_per_s_incl_drain", "p50_us", "p99_us", "p999_us", "p50_us_loaded", "p99_us_loaded", "log_mem_bytes",
       "log_mem_avg_bytes", "drain_s", "cpu_util", "device_util"]
summary = []
for (k, m, p), rs in groups.items():
    s = {"policy": p, "ablation": rs[0]["ablation"], "trace": rs[0]["trace"], "direct_io": rs[0]["direct_io"],
         "k": k, "m": m, "reps": len(rs)}
    for f in NUM:
        s[f] = med([r[f] for r in rs])
    s["ops"] = s["updates"]
    for f in ["update_ops", "network_bytes", "read_write_bytes", "write_bytes", "overwrite_bytes"]:
        s[f + "_per_update"] = med([per_update(r, f) for r in rs])
    s["updates_per_s_min"] = min(r["updates_per_s"] for r in rs)
    s["updates_per_s_max"] = max(r["updates_per_s"] for r in rs)
    s["p99_us_min"] = min(r["p99_us"] for r in rs)
    s["p99_us_max"] = max(r["p99_us"] for r in rs)
    cpu = [r["cpu_by_threads"] for r in rs if r.get("cpu_by_threads")]
    if cpu:
        s["cpu_by_threads"] = {g: [med([c[g][i] for c in cpu if g in c]) for i in (0, 1)]
                               for g in sorted({g for c in cpu for g in c})}
    mets = [r["metrics"] for r in rs if r.get("metrics")]
    if mets:
        s["metrics"] = {key: med([x[key] for x in mets if key in x]) for key in mets[0]}
    summary.append(s)


def ratio(k, m, num, den, field):
    vals = []
    for rep in sorted({r["rep"] for r in rows}):
        a = [r for r in rows if (r["k"], r["m"], r["policy"], r["rep"]) == (k, m, num, rep)]
        b = [r for r in rows if (r["k"], r["m"], r["policy"], r["rep"]) == (k, m, den, rep)]
        if a and b and get(b[0], field):
            vals.append(get(a[0], field) / get(b[0], field))
    return (med(vals), min(vals), max(vals)) if vals else (float("nan"),) * 3


def find(k, m, p):
    return next((x for x in summary if (x["k"], x["m"], x["policy"]) == (k, m, p)), None)


targets = {}
md = ["Command: `%s` (%s; %s; medians over repetitions, spread = min..max over interleaved repetitions)." %
      (cmd, datetime.date.today().isoformat(), ", ".join("RS(%d,%d) %d reps" % (k, m, max(
          x["reps"] for x in summary if (x["k"], x["m"]) == (k, m))) for k, m in codes)), "",
      "Real files on the VM disk: chunk files O_DIRECT (random reads cost what the device costs), logs buffered with "
      "fdatasync and group commit; in-memory transport counting node-to-node bytes. Each row replays the trace "
      "(`%s`, seed 42, see docs/design/tsue.md) from its start on the same volume: a throughput phase (8 closed-loop "
      "clients) and then a latency phase (1 client, queue depth 1, as DRC-DPU measures response times), with each "
      "policy's background work running, then a drain (every log recycled). updates/s: throughput phase; p50/p99: "
      "latency phase; p99 loaded: throughput phase. Ops, bytes and network per update include the drain; ops leave "
      "out the trace's client reads. cpu: JVM CPU over both cores; dev: device busy time (whole machine)." %
      rows[0]["trace"], ""]
if device:
    md += ["Device (same run, one thread): " + "; ".join(
        "RS(%d,%d) volume: 4 KiB O_DIRECT random read p50 %.0f us / p99 %.0f us, synced 4 KiB append p50 %.0f / p99 "
        "%.0f us, 2-way synced append p50 %.0f / p99 %.0f us, the same while another thread writes %.0f MB/s: "
        "p50 %.0f / p99 %.0f us" % (d["k"], d["m"], d["rand_read_4k_p50_us"], d["rand_read_4k_p99_us"],
                                     d["synced_append_4k_p50_us"], d["synced_append_4k_p99_us"],
                                     d["synced_append_2way_p50_us"], d["synced_append_2way_p99_us"],
                                     d.get("bg_write_mb_per_s", float("nan")), d.get("synced_append_2way_bg_p50_us", float("nan")),
                                     d.get("synced_append_2way_bg_p99_us", float("nan"))) for d in device), ""]
HDR = ("| policy | updates | ops/update | R/W KiB/update | network KiB/update | updates/s (min..max) | updates/s incl. "
       "drain | p50 us | p99 us (min..max) | p99 loaded us | log MiB mean/peak | drain s | cpu | dev |")
SEP = "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"


def line(name, s):
    return "| %s | %d | %.2f | %.1f | %.1f | %.0f (%.0f..%.0f) | %.0f | %.0f | %.0f (%.0f..%.0f) | %.0f | %.0f / %.0f | %.1f | %.2f | %.2f |" % (
        name, s["updates"], s["update_ops_per_update"], s["read_write_bytes_per_update"] / 1024,
        s["network_bytes_per_update"] / 1024, s["updates_per_s"], s["updates_per_s_min"], s["updates_per_s_max"],
        s["updates_per_s_incl_drain"], s["p50_us"], s["p99_us"], s["p99_us_min"], s["p99_us_max"], s["p99_us_loaded"],
        s["log_mem_avg_bytes"] / 2 ** 20, s["log_mem_bytes"] / 2 ** 20, s["drain_s"], s["cpu_util"], s["device_util"])


def verdict(v, ok):
    return "met" if ok else "MISSED"


for (k, m) in codes:
    md += ["### RS(%d,%d)" % (k, m), "", HDR, SEP]
    for p in ORDER:
        s = find(k, m, p)
        if s:
            md.append(line(p, s))
    md.append("")
    t = ratio(k, m, "TSUE", "PARITY_LOGGING", "updates_per_s")
    t2 = ratio(k, m, "TSUE", "PARITY_LOGGING", "updates_per_s_incl_drain")
    best = all(ratio(k, m, "TSUE", p, "updates_per_s")[0] >= 1 for p in ORDER[:5] if find(k, m, p))
    a = ratio(k, m, "TSUE", "REPLICATED_LOG_2WAY", "p99_us")
    al = ratio(k, m, "TSUE", "REPLICATED_LOG_2WAY", "p99_us_loaded")
    d = ratio(k, m, "DPU", "REPLICATED_LOG_2WAY", "p99_us")
    dl = ratio(k, m, "DPU", "REPLICATED_LOG_2WAY", "p99_us_loaded")
    o = ratio(k, m, "TSUE", "IN_PLACE", "update_ops/upd")
    n = ratio(k, m, "TSUE", "IN_PLACE", "network_bytes/upd")
    targets["RS(%d,%d)" % (k, m)] = {"tsue_over_pl_throughput": t, "tsue_best": best, "tsue_p99_over_replicated": a,
                                    "dpu_p99_over_replicated": d, "tsue_over_inplace_ops": o,
                                    "tsue_over_inplace_network": n}
    md += ["Targets, RS(%d,%d), per-repetition ratios, median (min..max):" % (k, m), "",
           "- TSUE / PL update throughput: %.2fx (%.2f..%.2f); target >= 5x: %s (including the drain: %.2fx)" % (
               t + (verdict(t[0], t[0] >= 5), t2[0])),
           "- TSUE the best policy by throughput: %s" % ("yes" if best else "NO"),
           "- TSUE p99 / 2-way replicated append p99 (QD1): %.2fx (%.2f..%.2f); target <= 1.2x: %s (loaded, 8 clients: %.2fx)" % (
               a + (verdict(a[0], a[0] <= 1.2), al[0])),
           "- DPU p99 / 2-way replicated append p99 (QD1): %.2fx (%.2f..%.2f); target <= 1.5x: %s (loaded: %.2fx)" % (
               d + (verdict(d[0], d[0] <= 1.5), dl[0])),
           "- TSUE / IN_PLACE storage operations per update: %.2fx (%.2f..%.2f); target <= 0.3x: %s" % (
               o + (verdict(o[0], o[0] <= 0.3),)),
           "- TSUE / IN_PLACE network bytes per update: %.2fx (%.2f..%.2f); target <= 0.65x: %s" % (
               n + (verdict(n[0], n[0] <= 0.65),)),
           ""]

k, m = 6, 4
if any(find(k, m, l) for l in LEVELS[:-1]):
    md += ["### Breakdown, RS(6,4) (TSUE paper's O1..O5; each level adds one optimization; O5 is the TSUE row)", "",
           "BASE: data log + parity log, every update recycled on its own, one log that appends wait for while it is "
           "recycled, one pool, each data node sending its parity deltas. O1 + data-log merging; O2 + parity-log "
           "merging; O3 + log pool; O4 + 4 pools; O5 + delta log.", "",
           "| level | updates/s (min..max) | vs BASE | ops/update | network KiB/update | p99 us | log MiB mean |",
           "|---|---|---|---|---|---|---|"]
    for l in LEVELS:
        s = find(k, m, l)
        if not s:
            continue
        vb = ratio(k, m, l, "TSUE_BASE", "updates_per_s")
        md.append("| %s | %.0f (%.0f..%.0f) | %.2fx | %.2f | %.1f | %.0f | %.0f |" % (
            "O5 (TSUE)" if l == "TSUE" else l.replace("TSUE_", ""), s["updates_per_s"], s["updates_per_s_min"],
            s["updates_per_s_max"], vb[0], s["update_ops_per_update"], s["network_bytes_per_update"] / 1024,
            s["p99_us"], s["log_mem_avg_bytes"] / 2 ** 20))
    md.append("")

GROUPS = ["clients", "io", "background", "jvm"]
if any(find(k, m, p) and "cpu_by_threads" in find(k, m, p) for (k, m) in codes for p in ORDER):
    md += ["### CPU by thread group (throughput phase)", "",
           "Share of both cores, user + system (system in parentheses), median over repetitions, from "
           "/proc/self/task. clients: the benchmark's client threads (they run the update call; for TSUE and the "
           "yardstick one of the two appends); io: the engines' I/O helper pool (the other append, and parallel chunk "
           "and log I/O of the back ends); background: recycling, forwarding, applying and merging threads; jvm: JIT "
           "compilers, GC and the rest.", "",
           "| code | policy | updates/s | " + " | ".join(GROUPS) + " | total |", "|---|---|---|" + "---|" * (len(GROUPS) + 1)]
    for (k, m) in codes:
        for p in ORDER:
            s = find(k, m, p)
            if not s or "cpu_by_threads" not in s:
                continue
            c = s["cpu_by_threads"]
            cells = ["%.2f (%.2f)" % (sum(c.get(g, [0, 0])), c.get(g, [0, 0])[1]) for g in GROUPS]
            tot = sum(sum(v) for v in c.values())
            md.append("| RS(%d,%d) | %s | %.0f | %s | %.2f |" % (k, m, p, s["updates_per_s"], " | ".join(cells), tot))
    md.append("")

md += ["### Lifespan and Table II view", "",
       "Write and overwrite volume per byte of update (device wear), and, for TSUE, the byte-weighted mean time a data "
       "byte spends in each log (append until durable, buffered until its recycling starts, recycling pass).", "",
       "| code | policy | written / updated byte | overwritten / updated byte |", "|---|---|---|---|"]
for (k, m) in codes:
    for p in ORDER:
        s = find(k, m, p)
        if s and s["update_bytes"]:
            md.append("| RS(%d,%d) | %s | %.2f | %.2f |" % (k, m, p, s["write_bytes"] / s["update_bytes"],
                                                           s["overwrite_bytes"] / s["update_bytes"]))
md += ["", "| code | log | append us | buffer us | recycle us | bytes through it / updated byte |", "|---|---|---|---|---|---|"]
for (k, m) in codes:
    s = find(k, m, "TSUE")
    if not s or "metrics" not in s:
        continue
    for log in ["data_log", "delta_log", "parity_log"]:
        mt = s["metrics"]
        if log + "_bytes" in mt:
            md.append("| RS(%d,%d) | %s | %.0f | %.0f | %.0f | %.2f |" % (
                k, m, log.replace("_", " "), mt[log + "_append_us"], mt[log + "_buffer_us"], mt[log + "_recycle_us"],
                mt[log + "_bytes"] / max(1, s["update_bytes"])))
md.append("")

json.dump({"command": cmd, "date": datetime.datetime.utcnow().isoformat() + "Z", "host": platform.node(),
           "device": device, "targets": targets, "results": summary, "samples": rows}, open(out_json, "w"), indent=1)
open(out_md, "w").write("\n".join(md) + "\n")
print("\n".join(md))
