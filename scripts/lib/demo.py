#!/usr/bin/env python3
"""scripts/elect demo: a local ELECT cluster end to end, for real.

Starts N nodes on 127.0.0.1..N with the embedded cold tier, creates a plain Cassandra table and an ELECT table
side by side (same keyspace, RF=3, same leveled settings), loads the same YCSB data set (24-byte keys, one
1000-byte field) into each at write CL ALL, reads it back with YCSB workload C at CL ONE, flushes, prints
throughput and bytes per node and tier, and stops everything (also on Ctrl-C or failure).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.abspath(os.environ.get("ELECT_RUN_DIR", os.path.join(HOME, "run")))
CLUSTER = os.path.join(RUN, "cluster")
TABLES = [("plain", "usertable", []), ("elect", "usertable_elect", ["--elect"])]


def log(msg):
    print(f"[demo {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def sh(*cmd, capture=False):
    r = subprocess.run(list(cmd), cwd=HOME, text=True, capture_output=capture)
    if r.returncode != 0:
        if capture:
            sys.stderr.write(r.stdout[-3000:] + r.stderr[-3000:])
        raise SystemExit(f"demo: '{' '.join(cmd[:3])} ...' failed with exit code {r.returncode}")
    return r.stdout if capture else ""


def ycsb(phase, table, hosts, args):
    out = sh(os.path.join(HOME, "scripts", "ycsb"), phase, *args, "--hosts", hosts, "--table", table, "--no-build",
             capture=True)
    m = re.search(r"\[OVERALL\], Throughput\(ops/sec\), ([0-9.]+)", out)
    ops = re.search(r"\[OVERALL\], RunTime\(ms\), ([0-9.]+)", out)
    errors = re.findall(r"\[(\w+)-FAILED\], Operations, (\d+)", out)
    if not m:
        raise SystemExit("demo: YCSB printed no throughput:\n" + out[-2000:])
    return float(m.group(1)), float(ops.group(1)) / 1000 if ops else 0.0, sum(int(n) for _, n in errors)


def dir_bytes(path):
    total = 0
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d not in ("snapshots", "backups")]
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def table_bytes(node, table):
    base = os.path.join(CLUSTER, f"node{node}", "data", "ycsb")
    if not os.path.isdir(base):
        return 0
    return sum(dir_bytes(os.path.join(base, d)) for d in os.listdir(base) if d.startswith(table + "-"))


def role_bytes(node, table):
    """(primary, secondary) live SSTable bytes of an ELECT table on one node, from electtool tables --json."""
    r = subprocess.run([os.path.join(HOME, "bin", "electtool"), "-p", str(7199 + 100 * (node - 1)), "tables", "--json",
                        f"ycsb.{table}"], cwd=HOME, text=True, capture_output=True)
    if r.returncode != 0:
        return None
    doc = json.loads(r.stdout)
    primary = secondary = 0
    for t in doc.get("tables", []):
        for role in t.get("roles", []):
            b = sum(level.get("bytes", 0) for level in role.get("levels", []))
            if role.get("role") == 0:
                primary += b
            else:
                secondary += b
    return primary, secondary


def cold_bytes():
    """Bytes the cold tier stores (S3Proxy's filesystem backend, under the cluster's cold/ folder)."""
    return dir_bytes(os.path.join(CLUSTER, "cold", "data"))


def parity_bytes(node):
    """Hot parity members a node keeps for ELECT tables (outside the table directories)."""
    return dir_bytes(os.path.join(CLUSTER, f"node{node}", "elect", "parity"))


def wait_for_transitioning(seconds):
    """Polls `electtool storage --json` until no stripe is in flight and the saving is within 2 points of the
    target (or the plan says it cannot get closer), at most `seconds`; returns the last report (None if unavailable)."""
    log(f"waiting up to {seconds} s for redundancy transitioning (electtool storage)")
    deadline, report = time.time() + seconds, None
    while time.time() < deadline:
        r = subprocess.run([os.path.join(HOME, "bin", "electtool"), "-h", "127.0.0.1", "-p", "7199", "storage", "--json"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            report = json.loads(r.stdout)
            t = next((t for t in report["tables"] if t["table"] == "ycsb.usertable_elect"), None)
            st = report["stripes"]
            busy = sum(n for k, n in st.items() if k not in ("committed", "rolled_back"))  # every non-terminal state
            if t and busy == 0 and st.get("committed", 0) > 0 and (
                    abs(t["achieved_saving"] - report["target_saving"]) <= 0.02 or not t["plan"]["reachable"]):
                log(f"transitioning settled: {t['achieved_saving'] * 100:.1f}% saved, {st['committed']} stripes committed")
                return report
            if t:
                log(f"  {t['achieved_saving'] * 100:.1f}% saved so far, stripes {st}")
        time.sleep(5)
    log("transitioning did not settle in time; showing the state reached")
    return report


def mib(n):
    return f"{n / 2 ** 20:8.2f}"


def main():
    p = argparse.ArgumentParser(prog="scripts/elect demo", description=__doc__.split("\n")[0])
    p.add_argument("--nodes", type=int, default=6)
    p.add_argument("--records", type=int, default=20000)
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--keep", action="store_true", help="leave the cluster running at the end")
    p.add_argument("--transition-wait", type=int, default=300, help="seconds to wait for transitioning to settle")
    a = p.parse_args()
    if a.nodes < 3:
        raise SystemExit("demo: --nodes must be at least 3 (the tables use RF=3)")
    sh(os.path.join(HOME, "scripts", "setup"))
    sh(os.path.join(HOME, "scripts", "build"))
    cluster = os.path.join(HOME, "scripts", "elect-cluster")
    hosts = ",".join(f"127.0.0.{i}" for i in range(1, a.nodes + 1))
    # Transitioning settings for a short demo: encode at once (no minimum age), rounds every 5 s, no SSTable counts
    # as hot; RS(4,2) (the default) needs 6 nodes, fewer nodes use RS(2,1).
    code = [] if a.nodes >= 6 else ["--set", "elect.data_chunks=2", "--set", "elect.parity_chunks=1"]
    demo_settings = [*code, "--set", "elect.transition_min_age_seconds=0", "--set", "elect.transition_interval_seconds=5",
                     "--set", "elect.stripe_fill_wait_seconds=10", "--set", "elect.cold_read_rate=1000",
                     "--set", "elect.primary_offload_min_age_seconds=0"]
    sh(cluster, "start", "--nodes", str(a.nodes), "--fresh", *demo_settings)
    try:
        results = {}
        for name, table, extra in TABLES:
            sh(os.path.join(HOME, "scripts", "ycsb"), "create-table", "--table", table, "--rf", "3", "--drop",
               "--hosts", "127.0.0.1", *extra, capture=True)
        for name, table, _ in TABLES:
            log(f"loading {a.records} records into ycsb.{table} ({name}) at write CL ALL")
            load = ycsb("load", table, hosts, ["a", "--records", str(a.records), "--threads", str(a.threads),
                                               "--write-cl", "ALL"])
            log(f"reading {a.records // 2} records from ycsb.{table} ({name}) at CL ONE (workload C)")
            run = ycsb("run", table, hosts, ["c", "--records", str(a.records), "--ops", str(a.records // 2),
                                             "--threads", str(a.threads), "--read-cl", "ONE"])
            results[name] = (load, run)
        log("flushing memtables and compacting on every node")
        for i in range(1, a.nodes + 1):
            sh(cluster, "nodetool", str(i), "flush", "ycsb", capture=True)
            sh(cluster, "nodetool", str(i), "compact", "ycsb", capture=True)
        report = wait_for_transitioning(a.transition_wait)

        print()
        print("Throughput (ops/s; same cluster and data, tables run one after the other, not interleaved:")
        print("  a first look, not a benchmark; scripts/bench compare measures the ratio properly):")
        print(f"  {'table':<8} {'load (CL ALL)':>14} {'read (CL ONE)':>14} {'failed ops':>11}")
        for name, _, _ in TABLES:
            (lt, _, le), (rt, _, re_) = results[name]
            print(f"  {name:<8} {lt:>14.0f} {rt:>14.0f} {le + re_:>11}")
        print()
        print("Storage (MiB on disk, after flush):")
        print(f"  {'node':<12} {'plain':>8} {'ELECT hot':>10} {'(primary':>9} {'secondary)':>10}")
        tot_plain = tot_elect = 0
        for i in range(1, a.nodes + 1):
            pb, eb = table_bytes(i, "usertable"), table_bytes(i, "usertable_elect") + parity_bytes(i)
            roles = role_bytes(i, "usertable_elect")
            tot_plain += pb
            tot_elect += eb
            split = f"{mib(roles[0])} {mib(roles[1]):>10}" if roles else "         ?          ?"
            print(f"  127.0.0.{i:<4} {mib(pb)} {mib(eb):>10} {split}")
        print(f"  {'total':<12} {mib(tot_plain)} {mib(tot_elect):>10}")
        print("  (plain and ELECT hot: every file of the table on disk; primary/secondary: live SSTable bytes per role)")
        print(f"  cold tier (S3Proxy): {mib(cold_bytes()).strip()} MiB")
        saving = 1 - tot_elect / tot_plain if tot_plain else 0.0
        print(f"  hot-tier saving of the ELECT table vs plain: {saving * 100:.1f}% (parity files included in ELECT hot)")
        if report:
            t = next((t for t in report["tables"] if t["table"] == "ycsb.usertable_elect"), None)
            if t:
                print(f"  electtool storage: achieved {t['achieved_saving'] * 100:.1f}% of target "
                      f"{report['target_saving'] * 100:.0f}%; stripes {report['stripes']}")
        print()
    finally:
        if not a.keep:
            sh(cluster, "stop")


if __name__ == "__main__":
    main()
