"""Helpers shared by the Python benchmark suites in scripts/bench.d (compare, storage).

A Suite owns its name (prefix of every log and error line) and its own cluster run directory
($ELECT_RUN_DIR, default run/bench-NAME), so that a benchmark never wipes the shared run/. Every command runs from the
repository root with that environment and ELECT_SKIP_BUILD=1 (the suite builds once, up front).
"""
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
YCSB = os.path.join(ROOT, "scripts", "ycsb")
CLUSTER = os.path.join(ROOT, "scripts", "elect-cluster")


def jmx_port(i):
    """The JMX port of local node i (scripts/lib/elect_cluster.py: 7199 + 100*(i-1))."""
    return 7199 + 100 * (i - 1)


class Suite:
    def __init__(self, name, run_dir_name):
        self.name = name
        self.env = dict(os.environ, ELECT_RUN_DIR=os.environ.get("ELECT_RUN_DIR", os.path.join(ROOT, "run", run_dir_name)),
                        ELECT_SKIP_BUILD="1")
        self.run_dir = os.path.abspath(self.env["ELECT_RUN_DIR"])

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

    def cluster_running(self):
        return self.run([CLUSTER, "status"], check=False).returncode == 0

    def flush_and_settle(self, nodes, timeout=900, compact=None):
        """Flushes keyspace ycsb on every node (and, if compact lists tables, runs a major compaction of them),
        then waits until no node has a pending or running ycsb compaction, at most timeout seconds."""
        for i in range(1, nodes + 1):
            self.run([CLUSTER, "nodetool", str(i), "flush", "ycsb"], timeout=300)
        for i in range(1, nodes + 1) if compact else ():
            self.run([CLUSTER, "nodetool", str(i), "compact", "ycsb", *compact], timeout=3600)
        deadline = time.time() + timeout
        while time.time() < deadline:
            pending = 0
            for i in range(1, nodes + 1):
                out = self.run([CLUSTER, "nodetool", str(i), "compactionstats"], timeout=120).stdout
                m = re.search(r"pending tasks:\s*(\d+)", out)
                pending += int(m.group(1)) if m else 0
                pending += sum(1 for line in out.splitlines() if " ycsb " in f" {line} ")  # compactions running
            if pending == 0:
                return
            time.sleep(5)
        self.log(f"compactions still pending after {timeout} s; measuring anyway")

    def ycsb_summary(self, text, what):
        """YCSB's summary lines '[SECTION], metric, value' -> {(SECTION, metric): float}; errors are fatal."""
        s = {}
        for m in re.finditer(r"^\[([A-Z-]+)\], ([^,]+), ([-0-9.Ee]+)$", text, re.M):
            s[(m.group(1), m.group(2).strip())] = float(m.group(3))
        if ("OVERALL", "Throughput(ops/sec)") not in s:
            self.die(f"no YCSB summary from {what}:\n{text[-2000:]}")
        failed = {k: v for k, v in s.items() if k[1].startswith("Return=") and k[1] != "Return=OK" and v > 0}
        if failed:
            self.die(f"{what}: operations failed: {failed}")
        return s

    def replace_perf_section(self, md):
        """Replaces this suite's section of docs/PERFORMANCE.md (scripts/lib/perf-section.sh)."""
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write(md)
        try:
            subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/lib/perf-section.sh"; '
                                          f'replace_perf_section {self.name} "{f.name}"'], check=True)
        finally:
            os.remove(f.name)
