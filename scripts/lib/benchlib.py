"""Helpers shared by the Python benchmark suites in scripts/bench.d (compare, storage, degraded).

A Suite owns its name (prefix of every log and error line) and its own cluster run directory
($ELECT_RUN_DIR, default run/bench-NAME), so that a benchmark never wipes the shared run/. Every command runs from the
repository root with that environment and ELECT_SKIP_BUILD=1 (the suite builds once, up front).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
YCSB = os.path.join(ROOT, "scripts", "ycsb")
CLUSTER = os.path.join(ROOT, "scripts", "elect-cluster")
ELECTTOOL = os.path.join(ROOT, "bin", "electtool")
# Stripe states of `electtool storage --json` that are still in flight (transitioning not settled), for messages;
# in_flight() counts every state that is not terminal, so that a state added later is never taken for settled.
NON_TERMINAL = ("planned", "chunks_shipped", "parity_built", "stubs_installed", "parity_durable", "secondaries_stubbed",
                "rolling_back")
TERMINAL = ("committed", "rolled_back")


def in_flight(stripes):
    """Stripes of a storage report's "stripes" map (state -> count) that are not in a terminal state."""
    return sum(int(n) for st, n in stripes.items() if st not in TERMINAL)


def jmx_port(i):
    """The JMX port of local node i (scripts/lib/elect_cluster.py: 7199 + 100*(i-1))."""
    return 7199 + 100 * (i - 1)


def transition_settings(k, m, alpha, default_hotness=False):
    """The elect.* settings of a benchmark cluster that transitions everything quickly: stripes of k + m chunks,
    storage saving target alpha, a transition round every 5 s, no minimum age, stripes formed after 10 s of waiting,
    cold_read_rate=1000 (nothing counts as hot; left at its default with default_hotness) and primaries offloaded at
    any age."""
    s = {"data_chunks": k, "parity_chunks": m, "storage_saving_target": alpha,
         "transition_interval_seconds": 5, "transition_min_age_seconds": 0, "stripe_fill_wait_seconds": 10,
         "cold_read_rate": 1000, "primary_offload_min_age_seconds": 0}
    if default_hotness:
        del s["cold_read_rate"]
    return s


def ycsb_record(workload, system, rnd, s):
    """One benchmark record from a ycsb_summary: ops/s and read/update/scan p50/p99 in ms (None when absent)."""
    def ms(section, pct):
        v = s.get((section, f"{pct}thPercentileLatency(us)"))
        return None if v is None else round(v / 1000.0, 3)
    return {"workload": workload, "system": system, "round": rnd,
            "ops_per_s": round(s[("OVERALL", "Throughput(ops/sec)")], 1),
            "read_p50_ms": ms("READ", 50), "read_p99_ms": ms("READ", 99),
            "update_p50_ms": ms("UPDATE", 50), "update_p99_ms": ms("UPDATE", 99),
            "scan_p50_ms": ms("SCAN", 50), "scan_p99_ms": ms("SCAN", 99)}


def spread(values):
    """'median [min..max]' of the non-None values (3 significant digits), '-' when there are none."""
    import statistics
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.3g}"
    return f"{med:.3g} [{min(values):.3g}..{max(values):.3g}]"


def ycsb_classpath():
    """The ycsb module's jar and runtime classpath (built by scripts/ycsb)."""
    target = os.path.join(ROOT, "ycsb", "target")
    return os.path.join(target, "ycsb-0.1.0-SNAPSHOT.jar") + ":" + open(
        os.path.join(target, "runtime-classpath.txt")).read().strip()


def interleaved_cmd(workload, tables, hosts, records, rounds, slice_seconds, warmup_seconds, threads, props=()):
    """io.elect.ycsb.bench.Interleaved (docs/ycsb.md): YCSB workload ycsb/workloads/workload<workload> over tables
    (in the order of odd rounds) in slices, write CL ALL, read and scan CL ONE; props: extra "key=value" strings."""
    cmd = ["java", "-Xmx1g", "-cp", ycsb_classpath(), "io.elect.ycsb.bench.Interleaved",
           "--workload", os.path.join(ROOT, "ycsb", "workloads", f"workload{workload}"),
           "--tables", ",".join(tables), "--rounds", str(rounds), "--slice-seconds", str(slice_seconds),
           "--warmup-seconds", str(warmup_seconds), "--threads", str(threads)]
    for kv in (f"hosts={hosts}", f"recordcount={records}", "cassandra.writeconsistencylevel=ALL",
               "cassandra.readconsistencylevel=ONE", "cassandra.scanconsistencylevel=ONE", *props):
        cmd += ["-p", kv]
    return cmd


def interleaved_ratios(stdout, base, other):
    """(per-round other/base ops/s ratios, slices) from Interleaved's output; raises ValueError naming the first
    failed operation (the driver reports failures per slice instead of stopping)."""
    slices = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    for sl in slices:
        if sl["failures"]:
            raise ValueError(f"{sl['table']}, round {sl['round']}: operations failed: {sl['failures']}")
    by_round = {}
    for sl in slices:
        by_round.setdefault(sl["round"], {})[sl["table"]] = sl["ops_per_s"]
    return [v[other] / v[base] for _, v in sorted(by_round.items()) if v.get(base) and other in v], slices


def storage_report_cmd(node=1):
    """`bin/electtool storage --json` against local node `node` (JMX)."""
    return [ELECTTOOL, "-h", "127.0.0.1", "-p", str(jmx_port(node)), "storage", "--json"]


def report_table(report, name="ycsb.elect"):
    """The entry of table `name` in a parsed storage report, or None."""
    return next((t for t in report.get("tables", []) if t.get("table") == name), None)


class Suite:
    def __init__(self, name, run_dir_name):
        self.name = name
        self.env = dict(os.environ, ELECT_RUN_DIR=os.environ.get("ELECT_RUN_DIR", os.path.join(ROOT, "run", run_dir_name)),
                        ELECT_SKIP_BUILD="1")
        self.run_dir = os.path.abspath(self.env["ELECT_RUN_DIR"])
        # what this run builds and measures: HEAD (+ "-dirty") when the suite starts, before its build
        self.start_commit = self.built_commit()

    def log(self, msg):
        print(f"[{time.strftime('%H:%M:%S')}] {self.name}: {msg}", flush=True)

    def die(self, msg):
        """Exits with status 1 (SystemExit, so callers' finally blocks still stop the cluster)."""
        print(f"{self.name}: {msg}", file=sys.stderr, flush=True)
        sys.exit(1)

    def run(self, cmd, timeout=None, check=True, quiet=False):
        """Runs cmd, capturing its output. check: a failure or timeout is fatal (die, naming the command);
        otherwise a timeout returns exit code 124. quiet is accepted for compatibility and ignored."""
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=self.env, cwd=ROOT)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            if check:
                self.die(f"{' '.join(cmd)} timed out after {timeout} s:\n{out[-3000:]}\n{err[-3000:]}")
            r = subprocess.CompletedProcess(cmd, 124, out, err + f"\ntimed out after {timeout} s")
        if check and r.returncode != 0:
            self.die(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        return r

    def built_commit(self):
        """The commit the measured build comes from (+ "-dirty" when the sources differ from it). Take it once, right
        after scripts/build: a commit made while a benchmark runs must not be credited with numbers of the code
        built before it (the clusters run the jar built at the start)."""
        c = self.run(["git", "rev-parse", "--short", "HEAD"], check=False).stdout.strip()
        if self.run(["git", "status", "--porcelain", "--", "elect-coding", "elect-core", "elect-offload", "elect-tsue",
                     "ycsb", "pom.xml"], check=False).stdout.strip():
            c += "-dirty"
        return c

    def cluster_running(self):
        return self.run([CLUSTER, "status"], check=False).returncode == 0

    def flush_and_settle(self, nodes, timeout=900, compact=None, keyspace="ycsb"):
        """Flushes keyspace (default ycsb) on every node (and, if compact lists tables, runs a major compaction of
        them), then waits until no node has a pending task or a running compaction of keyspace, at most timeout
        seconds."""
        for i in range(1, nodes + 1):
            self.run([CLUSTER, "nodetool", str(i), "flush", keyspace], timeout=300)
        for i in range(1, nodes + 1) if compact else ():
            self.run([CLUSTER, "nodetool", str(i), "compact", keyspace, *compact], timeout=3600)
        deadline = time.time() + timeout
        while time.time() < deadline:
            pending = 0
            for i in range(1, nodes + 1):
                out = self.run([CLUSTER, "nodetool", str(i), "compactionstats"], timeout=120).stdout
                m = re.search(r"pending tasks:\s*(\d+)", out)
                pending += int(m.group(1)) if m else 0
                pending += sum(1 for line in out.splitlines() if f" {keyspace} " in f" {line} ")  # compactions running
            if pending == 0:
                return
            time.sleep(5)
        self.log(f"compactions still pending after {timeout} s; measuring anyway")

    def ycsb_summary(self, text, what, fail_on_errors=True):
        """YCSB's summary lines '[SECTION], metric, value' -> {(SECTION, metric): float}. A missing summary is
        fatal; so are failed operations (a Return= other than OK) unless fail_on_errors is False (see failed_ops)."""
        s = {}
        for m in re.finditer(r"^\[([A-Z-]+)\], ([^,]+), ([-0-9.Ee]+)$", text, re.M):
            s[(m.group(1), m.group(2).strip())] = float(m.group(3))
        if ("OVERALL", "Throughput(ops/sec)") not in s:
            self.die(f"no YCSB summary from {what}:\n{text[-2000:]}")
        failed = {k: v for k, v in s.items() if k[1].startswith("Return=") and k[1] != "Return=OK" and v > 0}
        if failed and fail_on_errors:
            self.die(f"{what}: operations failed: {failed}")
        return s

    @staticmethod
    def failed_ops(summary):
        """Operations of a ycsb_summary that did not return OK (errors, NOT_FOUND, ...), over all sections."""
        return int(sum(v for k, v in summary.items() if k[1].startswith("Return=") and k[1] != "Return=OK"))

    def replace_perf_section(self, md):
        """Replaces this suite's section of docs/PERFORMANCE.md (scripts/lib/perf-section.sh)."""
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write(md)
        try:
            subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/lib/perf-section.sh"; '
                                          f'replace_perf_section {self.name} "{f.name}"'], check=True)
        finally:
            os.remove(f.name)

    def plot(self):
        """Draws bench-results/NAME.png from this suite's JSON and links it from its section (perf-section.sh
        plot_suite). A failure (matplotlib missing: run scripts/setup) is reported, not fatal: the JSON and the
        section are written already, and `scripts/bench plot NAME` draws it later."""
        r = subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/lib/perf-section.sh"; plot_suite {self.name}'],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.log(f"no picture: {(r.stderr or r.stdout).strip()[-500:]}")
        return r.returncode == 0

    # -------------------------------------------------------------------------------- cluster state
    def ring_view(self, i):
        """{address: 'UN'|'DN'|...} as node i sees the ring, or None if it cannot be asked."""
        r = self.run([CLUSTER, "nodetool", str(i), "status"], timeout=60, check=False)
        if r.returncode != 0:
            return None
        return {m.group(2): m.group(1) for m in re.finditer(r"^([UD][NLJM])\s+(\S+)", r.stdout, re.M)}

    def wait_ring(self, observers, want, what, timeout):
        """Waits until every node in observers sees every address of want (address -> state) in that state; dies
        naming what is missing after timeout seconds."""
        deadline = time.time() + timeout
        while True:
            views = {i: self.ring_view(i) for i in observers}
            missing = [f"node {i} sees {addr} {(v or {}).get(addr, '?') if v is not None else 'nothing (nodetool failed)'}"
                       for i, v in views.items() for addr, state in want.items() if v is None or v.get(addr) != state]
            if not missing:
                return
            if time.time() >= deadline:
                self.die(f"{what}: not seen within {timeout} s: {'; '.join(missing[:6])}")
            time.sleep(3)

    # -------------------------------------------------------------------------------- redundancy transitioning
    def storage_report(self, node=1):
        """The parsed `electtool storage --json` report of node, or None (with the reason logged) if electtool
        failed or printed no JSON."""
        r = self.run(storage_report_cmd(node), timeout=120, check=False)
        if r.returncode != 0:
            self.log(f"electtool storage failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-300:]}")
            return None
        try:
            return json.loads(r.stdout)
        except ValueError:
            self.log(f"electtool storage printed no JSON: {r.stdout.strip()[-300:]}")
            return None

    def wait_for_saving(self, alpha, timeout, what, table="ycsb.elect", tolerance=0.02, poll_seconds=5,
                        unreachable_polls=3, report_failures=3):
        """Polls node 1's storage report every poll_seconds until table's achieved saving is within tolerance of
        alpha with no stripe in a NON_TERMINAL state, or the plan is unreachable for unreachable_polls polls in a
        row, or timeout seconds have passed. report_failures consecutive electtool failures are fatal (a node busy
        compacting may fail one). Progress lines are prefixed by what. Returns (seconds until the target was
        reached, or None if it was not; the last report entry of table, or None)."""
        t0 = time.time()
        unreachable, failures, entry = 0, 0, None
        self.last_report_stripes = {}
        while True:
            report = self.storage_report()
            if report is None:
                failures += 1
                if failures >= report_failures:
                    self.die(f"{what}: polling the storage report: electtool failed {failures} times in a row")
            else:
                failures = 0
                stripes = report.get("stripes", {})
                self.last_report_stripes = stripes
                busy = in_flight(stripes)
                entry = report_table(report, table) or entry
                if entry is None:
                    self.log(f"{what}: {table} not in the storage report yet")
                else:
                    saving = float(entry.get("achieved_saving", 0.0))
                    plan = entry.get("plan") or {}
                    self.log(f"{what}: {100 * saving:.1f}% saved of target {100 * alpha:g}% "
                             f"({stripes.get('committed', 0)} stripes committed"
                             + (f", {busy} in flight" if busy else "")
                             + ("" if plan.get("reachable", True) else f", plan unreachable: {plan.get('limit')}")
                             + ")")
                    if abs(saving - alpha) <= tolerance and busy == 0:
                        return time.time() - t0, entry
                    if saving > alpha + tolerance and busy == 0 and plan.get("reachable", True):
                        # an overshoot never shrinks (nothing is decoded back): measure it rather than wait
                        self.log(f"{what}: saving {saving * 100:.1f}% overshoots the target; measuring what was achieved")
                        return time.time() - t0, entry
                    unreachable = unreachable + 1 if plan.get("reachable", True) is False else 0
                    if unreachable >= unreachable_polls:
                        self.log(f"{what}: plan unreachable for {unreachable} polls in a row ({plan.get('limit')}); "
                                 f"measuring what was achieved")
                        return None, entry
            if time.time() - t0 >= timeout:
                self.log(f"{what}: target not reached within {timeout} s; measuring what was achieved")
                return None, entry
            time.sleep(poll_seconds)
