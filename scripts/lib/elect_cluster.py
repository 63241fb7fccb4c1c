#!/usr/bin/env python3
"""Local ELECT cluster on one machine: N nodes on 127.0.0.1..N plus the embedded cold tier (S3Proxy).

Only this script (and the local demo/benchmark scripts) assume one machine. Every node uses the same ports on its
own address (storage 7000, CQL 9042). On loopback (the default) each has its own JMX port (7199 + 100*(i-1)) on
127.0.0.1; with `start --netns` each node runs in a network namespace of its own with address 198.18.0.i and JMX on
198.18.0.i:7199, as on separate hosts (scripts/lib/netns.py). State lives in one git-ignored folder, $ELECT_RUN_DIR (default <repo>/run), under cluster/:
cluster.json records what was started (PIDs, ports) so that stop and status never guess, and never kill by name.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.abspath(os.environ.get("ELECT_RUN_DIR", os.path.join(HOME, "run")))
CLUSTER = os.path.join(RUN, "cluster")
STATE = os.path.join(CLUSTER, "cluster.json")
COLD_DIR = os.path.join(CLUSTER, "cold")
COLD_PORT = 9000
CQL_PORT = 9042
STORAGE_PORT = 7000
MAX_NODES = 16
FAST_START = ["-Dcassandra.skip_wait_for_gossip_to_settle=0", "-Dcassandra.ring_delay_ms=5000",
              "-Delect.console.level=WARN"]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def die(msg, code=1):
    print(f"elect-cluster: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


# Where the nodes live: set once per command, from `start --netns` or from the recorded cluster (main()).
NET = netns.Loopback()


def ip(i):
    return NET.ip(i)


def jmx_port(i):
    return NET.jmx_port(i)


def node_dir(i):
    return os.path.join(CLUSTER, f"node{i}")


def tokens(n):
    """Evenly spaced Murmur3 tokens, one per node."""
    step = 2 ** 64 // n
    return [-2 ** 63 + k * step for k in range(n)]


# ----------------------------------------------------------------------------------------------- yaml text edits
def set_yaml(text, dotted, value):
    """Sets a block-style key (dotted path, two-space indentation) in a YAML text, keeping everything else.
    Adds the key under its parent if missing. Good for our own template; not a general YAML editor."""
    parts = dotted.split(".")
    lines = text.split("\n")
    start, end, indent = 0, len(lines), 0
    for depth, part in enumerate(parts):
        pat = re.compile(r"^" + " " * indent + re.escape(part) + r":(\s.*)?$")
        found = None
        for k in range(start, end):
            if pat.match(lines[k]):
                found = k
                break
        last = depth == len(parts) - 1
        if found is None:
            if last:
                lines.insert(end if depth == 0 else start, " " * indent + f"{part}: {value}")
            else:
                lines.insert(end if depth == 0 else start, " " * indent + f"{part}:")
                found = end if depth == 0 else start
                start, end = found + 1, found + 1
                indent += 2
                continue
            return "\n".join(lines)
        if last:
            lines[found] = " " * indent + f"{part}: {value}"
            return "\n".join(lines)
        # the child block: following lines that are blank, comments, or indented deeper
        blk_end = found + 1
        while blk_end < end and (lines[blk_end].strip() == "" or lines[blk_end].lstrip().startswith("#")
                                 or len(lines[blk_end]) - len(lines[blk_end].lstrip()) > indent):
            blk_end += 1
        start, end = found + 1, blk_end
        indent += 2
    return "\n".join(lines)


TLS_DIR = os.path.join(CLUSTER, "tls")


def make_certificates(n):
    """A throw-away CA and one certificate per node naming its address (scripts/lib/gen-certs.sh); kept across
    restarts of the same cluster. Never for production: docs/security.md says how to make real ones."""
    log(f"tls: certificates for {n} node(s) under {TLS_DIR}")
    subprocess.run([os.path.join(HOME, "scripts", "lib", "gen-certs.sh"), TLS_DIR,
                    *[f"n{k}:{ip(k)}" for k in range(1, n + 1)]], check=True)


def tls_settings(i):
    """server_encryption_options of node i: internode encryption `all` (so the ELECT port uses TLS too), mutual
    authentication with the node's own keystore and the CA's truststore."""
    pw = open(os.path.join(TLS_DIR, "password")).read().strip()
    return [f"server_encryption_options.internode_encryption=all",
            f"server_encryption_options.keystore={os.path.join(TLS_DIR, f'n{i}.p12')}",
            f"server_encryption_options.keystore_password={pw}",
            f"server_encryption_options.truststore={os.path.join(TLS_DIR, 'truststore.p12')}",
            f"server_encryption_options.truststore_password={pw}",
            "server_encryption_options.store_type=PKCS12",
            "server_encryption_options.require_client_auth=true",
            "server_encryption_options.require_endpoint_verification=false"]  # Cassandra refuses it with client auth (server side); the ELECT port checks identity itself


def node_tokens(i, n, num_tokens=1):
    """Node i's initial tokens in a cluster of n nodes with num_tokens each: n * num_tokens evenly spaced tokens dealt
    round-robin, so that every node's ranges are interleaved with the others' (vnodes) and balanced."""
    all_tokens = tokens(n * num_tokens)
    return [all_tokens[(i - 1) + j * n] for j in range(num_tokens)]


RACKDC = "cassandra-rackdc.properties"


def write_rackdc(i, racks):
    """Racks (start --racks R): node i in rack ((i - 1) % R) + 1 of datacenter1, read by GossipingPropertyFileSnitch
    from the node's own directory (start_node passes -Dcassandra-rackdc.properties), so restarts and replacements
    keep it."""
    with open(os.path.join(node_dir(i), RACKDC), "w") as f:
        f.write(f"dc=datacenter1\nrack=rack{(i - 1) % racks + 1}\n")


def node_config(template, i, n, cold, extra, cold_port=None, num_tokens=1):
    text = open(template).read()
    text = set_yaml(text, "cluster_name", "'ELECT Local Cluster'")
    text = set_yaml(text, "listen_address", ip(i))
    text = set_yaml(text, "rpc_address", ip(i))
    text = set_yaml(text, "initial_token", ",".join(str(t) for t in node_tokens(i, n, num_tokens)))
    text = set_yaml(text, "num_tokens", str(num_tokens))
    text = set_yaml(text, "auto_bootstrap", "false")
    seeds = ",".join(f"{ip(k)}:{STORAGE_PORT}" for k in range(1, n + 1))
    text = re.sub(r'- seeds: ".*"', f'- seeds: "{seeds}"', text)
    if cold:
        text = set_yaml(text, "elect.cold_tier.endpoint", f"http://{NET.cold_host}:{cold_port or COLD_PORT}")
        text = set_yaml(text, "elect.cold_tier.credentials_file", os.path.join(COLD_DIR, "credentials"))
    for kv in extra:
        k, _, v = kv.partition("=")
        text = set_yaml(text, k.strip(), v.strip())
    return text


# ----------------------------------------------------------------------------------------------- processes
def alive(pid, marker):
    """True if pid runs and its command line contains marker (guards against a recycled PID)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return marker.encode() in f.read()
    except OSError:
        return False


def port_open(host, port, timeout=0.5):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def load_state():
    if not os.path.exists(STATE):
        return None
    with open(STATE) as f:
        return json.load(f)


def save_state(st):
    os.makedirs(CLUSTER, exist_ok=True)
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        json.dump(st, f, indent=2)
    os.replace(tmp, STATE)


def offload_cmd(*args):
    jars = [f for f in os.listdir(os.path.join(HOME, "elect-offload", "target"))
            if re.match(r"elect-offload-.*\.jar$", f) and "sources" not in f and "tests" not in f]
    cp = os.path.join(HOME, "elect-offload", "target", jars[0])
    cpfile = os.path.join(HOME, "elect-offload", "target", "classpath.txt")
    if os.path.exists(cpfile):
        cp += ":" + open(cpfile).read().strip()
    return ["java", "-Xmx128m", "-cp", cp, "io.elect.offload.s3proxy.S3ProxyCli", *args]


def start_cold_tier():
    os.makedirs(COLD_DIR, exist_ok=True)
    log(f"cold tier: starting S3Proxy on {NET.cold_host}:{COLD_PORT}")
    r = subprocess.run(offload_cmd("start", "--run-dir", COLD_DIR, "--host", NET.cold_host, "--port", str(COLD_PORT)),
                       capture_output=True, text=True)
    if r.returncode != 0:
        die(f"cold tier did not start: {r.stderr.strip() or r.stdout.strip()} (log: {COLD_DIR}/s3proxy.log)")
    pid = int(open(os.path.join(COLD_DIR, "s3proxy.pid")).read().strip())
    return pid


COLD_PROXY_PORT = COLD_PORT + 1


def start_cold_proxy(delay_ms):
    """A delaying proxy in front of S3Proxy (a far cold tier, scripts/lib/delay_proxy.py); returns its PID."""
    host = NET.cold_host
    log(f"cold tier: +{delay_ms} ms per request through a proxy on {host}:{COLD_PROXY_PORT}")
    out = open(os.path.join(COLD_DIR, "delay-proxy.log"), "ab")
    proc = subprocess.Popen([sys.executable, os.path.join(HOME, "scripts", "lib", "delay_proxy.py"),
                             "--listen", f"{host}:{COLD_PROXY_PORT}", "--target", f"{host}:{COLD_PORT}",
                             "--delay-ms", str(delay_ms)], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 20
    while not port_open(host, COLD_PROXY_PORT):
        if proc.poll() is not None or time.time() > deadline:
            die(f"the cold-tier delay proxy did not start (log: {COLD_DIR}/delay-proxy.log)")
        time.sleep(0.1)
    return proc.pid


def start_node(st, i, heap, jvm_extra=()):
    d = node_dir(i)
    os.makedirs(d, exist_ok=True)
    out = open(os.path.join(d, "stdout.log"), "ab")
    rackdc = os.path.join(d, RACKDC)
    racks = ["-Dcassandra-rackdc.properties=file://" + rackdc] if os.path.exists(rackdc) else []
    cmd = [os.path.join(HOME, "bin", "elect"), "--config", os.path.join(d, "cassandra.yaml"), "--data-dir", d,
           "--heap", heap, "--jmx-port", str(jmx_port(i)), *NET.jmx_args(i), "--", *FAST_START, *racks, *jvm_extra]
    p = subprocess.Popen(NET.wrap(i, cmd), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True, cwd=HOME)
    st["nodes"][str(i)] = {"pid": p.pid, "ip": ip(i), "jmx_port": jmx_port(i), "dir": d}
    save_state(st)
    return p


def nodetool(i, *args, timeout=60):
    return subprocess.run([os.path.join(HOME, "bin", "nodetool"), "-h", NET.jmx_host(i), "-p", str(jmx_port(i)), *args],
                          capture_output=True, text=True, timeout=timeout)


def ring_view(i):
    """{address: 'UN'|'DN'|...} as node i sees the ring, or None if it cannot be asked."""
    try:
        r = nodetool(i, "status")
    except subprocess.TimeoutExpired:
        return None
    if r.returncode != 0:
        return None
    view = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^([UD][NLJM])\s+(\S+)", line)
        if m:
            view[m.group(2)] = m.group(1)
    return view


def wait_until_up(st, n, procs, timeout):
    deadline = time.time() + timeout
    want = {ip(k) for k in range(1, n + 1)}
    while time.time() < deadline:
        for k, p in procs.items():
            if p.poll() is not None:
                tail = open(os.path.join(node_dir(k), "stdout.log"), errors="replace").read()[-1500:]
                die(f"node {k} exited with code {p.returncode} during start-up; last output:\n{tail}")
        if all(port_open(ip(k), CQL_PORT) for k in range(1, n + 1)):
            view = ring_view(1)
            if view is not None:
                up = {a for a, s in view.items() if s == "UN"}
                if want <= up:
                    return
                log(f"waiting: {len(up & want)}/{n} nodes UN")
        time.sleep(3)
    die(f"cluster not up after {timeout} s; logs under {CLUSTER}/node*/logs/system.log")


# ----------------------------------------------------------------------------------------------- commands
def busy_ports(a):
    busy = [f"{ip(k)}:{port}" for k in range(1, a.nodes + 1) for port in (CQL_PORT, STORAGE_PORT)
            if port_open(ip(k), port)]
    if not a.no_cold_tier and port_open(NET.cold_host, COLD_PORT):
        busy.append(f"{NET.cold_host}:{COLD_PORT} (cold tier)")
    return busy


def wait_for_free_ports(a):
    """Another local cluster (e.g. another test run) may hold the ports: wait up to --wait-for-ports seconds."""
    deadline = time.time() + a.wait_for_ports
    busy = busy_ports(a)
    while busy and time.time() < deadline:
        log(f"waiting for {busy[0]} to be released by another process")
        time.sleep(5)
        busy = busy_ports(a)
    if busy:
        die(f"{busy[0]} is already in use by another process; stop it first")


def cmd_start(a):
    st = load_state()
    if st and any(alive(v["pid"], v["dir"]) for v in st.get("nodes", {}).values()):
        die("a cluster is already running (scripts/elect-cluster status); stop it first")
    if not 1 <= a.nodes <= MAX_NODES:
        die(f"--nodes {a.nodes}: allowed 1..{MAX_NODES}", 2)
    if not 1 <= a.num_tokens <= 256:
        die(f"--num-tokens {a.num_tokens}: allowed 1..256", 2)
    if not 0 <= a.racks <= a.nodes:
        die(f"--racks {a.racks}: allowed 0 (no racks: SimpleSnitch) .. {a.nodes} (the node count)", 2)
    if a.netns:
        global NET
        NET = netns.Namespaces()
        try:
            NET.check_capability()
            busy = [ns for ns in netns.leftovers()[0] if netns.pids_in(ns)]
            if busy:
                die(f"--netns: namespace {busy[0]} has processes {netns.pids_in(busy[0])}: another --netns cluster "
                    f"(another ELECT_RUN_DIR?) runs; stop it first")
            netns.teardown(log)  # leftovers of a crashed run: start from nothing
            NET.setup(a.nodes)
        except netns.NetnsError as e:
            die(f"--netns: {e}")
        log(f"netns: {NET.describe(a.nodes)}")
    wait_for_free_ports(a)
    if os.environ.get("ELECT_SKIP_BUILD") != "1":  # set by the integration tests, which run inside Maven
        subprocess.run([os.path.join(HOME, "scripts", "build")], check=True)
    if a.fresh and os.path.isdir(CLUSTER):
        shutil.rmtree(CLUSTER)
    os.makedirs(CLUSTER, exist_ok=True)
    st = {"version": 1, "nodes": {}, "n": a.nodes, "heap": a.heap, "cold_tier": None, "started": time.time(),
          "net": NET.name}
    save_state(st)
    t0 = time.time()
    if not a.no_cold_tier:
        st["cold_tier"] = {"pid": start_cold_tier(), "endpoint": f"http://{NET.cold_host}:{COLD_PORT}", "dir": COLD_DIR}
        save_state(st)
        if a.cold_latency_ms:
            st["cold_tier"]["proxy_pid"] = start_cold_proxy(a.cold_latency_ms)
            st["cold_tier"]["endpoint"] = f"http://{NET.cold_host}:{COLD_PROXY_PORT}"
            st["cold_tier"]["latency_ms"] = a.cold_latency_ms
            save_state(st)
    template = os.path.abspath(a.config)
    if a.tls:
        make_certificates(a.nodes)
    st["tls"] = bool(a.tls)
    st["racks"] = a.racks
    save_state(st)
    procs = {}
    snitch = ["endpoint_snitch=GossipingPropertyFileSnitch"] if a.racks else []
    for k in range(1, a.nodes + 1):
        os.makedirs(node_dir(k), exist_ok=True)
        path = os.path.join(node_dir(k), "cassandra.yaml")
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:  # may hold keystore passwords
            f.write(node_config(template, k, a.nodes, not a.no_cold_tier, (tls_settings(k) if a.tls else []) + snitch + a.set,
                                COLD_PROXY_PORT if a.cold_latency_ms and not a.no_cold_tier else None, a.num_tokens))
        if a.racks:
            write_rackdc(k, a.racks)
        elif os.path.exists(os.path.join(node_dir(k), RACKDC)):
            os.remove(os.path.join(node_dir(k), RACKDC))
    log(f"starting {a.nodes} node(s) on {NET.describe(a.nodes)} (heap {a.heap}, data under {CLUSTER}"
        + (", TLS on the internode and ELECT ports)" if a.tls else ")"))
    for k in range(1, a.nodes + 1):
        procs[k] = start_node(st, k, a.heap)
    wait_until_up(st, a.nodes, procs, a.timeout)
    log(f"cluster up: {a.nodes} node(s) UN in {time.time() - t0:.0f} s; CQL on {ip(1)}..{a.nodes}:{CQL_PORT}"
        + ("" if a.no_cold_tier else f"; cold tier at {st['cold_tier']['endpoint']}"
           + (f" (+{a.cold_latency_ms} ms per request)" if a.cold_latency_ms else "")))


def stop_pid(pid, marker, what, grace):
    if not alive(pid, marker):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + grace
    while time.time() < deadline and alive(pid, marker):
        time.sleep(0.5)
    if alive(pid, marker):
        log(f"{what} (pid {pid}) did not stop in {grace} s; killing it")
        os.kill(pid, signal.SIGKILL)
        while alive(pid, marker):
            time.sleep(0.2)


def cmd_stop(a):
    st = load_state()
    if not st:
        netns.teardown(log)  # namespaces of a run whose state is gone (e.g. a crash during start), by name
        log("nothing to stop")
        return
    nodes = st.get("nodes", {})
    # --kill: SIGKILL, no drain. Cassandra's graceful stop waits up to request_timeout (20 s here) for messages to
    # peers that stop at the same moment; a throwaway test cluster does not need it (what was not flushed replays
    # from the commit log on a later start, within its periodic sync window).
    sig = signal.SIGKILL if a.kill else signal.SIGTERM
    for k, v in sorted(nodes.items(), key=lambda kv: int(kv[0])):
        if alive(v["pid"], v["dir"]):
            log(f"{'killing' if a.kill else 'stopping'} node {k} (pid {v['pid']})")
            os.kill(v["pid"], sig)
    for k, v in nodes.items():
        stop_pid(v["pid"], v["dir"], f"node {k}", a.grace)
    ct = st.get("cold_tier")
    if ct and ct.get("proxy_pid"):
        stop_pid(ct["proxy_pid"], "delay_proxy.py", "cold-tier delay proxy", 10)
    if ct:
        r = subprocess.run(offload_cmd("stop", "--run-dir", ct["dir"]), capture_output=True, text=True)
        stop_pid(ct["pid"], ct["dir"], "cold tier", 20)  # in case the launcher could not
        log(f"cold tier stopped (pid {ct['pid']})" + ("" if r.returncode == 0 else f": {r.stderr.strip()}"))
    os.remove(STATE)
    netns.teardown(log)  # ours by name, also leftovers of an earlier crashed run; a loopback cluster has none
    log("cluster stopped; data kept under " + CLUSTER + " (scripts/elect-cluster wipe removes it)")


def running(st):
    if not st:
        return {}, None
    nodes = {int(k): v for k, v in st.get("nodes", {}).items() if alive(v["pid"], v["dir"])}
    ct = st.get("cold_tier")
    return nodes, (ct if ct and alive(ct["pid"], ct["dir"]) else None)


def cmd_status(a):
    st = load_state()
    nodes, ct = running(st)
    if not nodes and not ct:
        if a.json:
            print(json.dumps({"running": False, "nodes": [], "cold_tier": None}))
        else:
            print("nothing running")
        return 3
    view = ring_view(min(nodes)) if nodes else None
    rows = []
    for k in range(1, st["n"] + 1):
        v = nodes.get(k)
        rows.append({"node": k, "ip": ip(k), "pid": v["pid"] if v else None, "running": bool(v),
                     "cql": port_open(ip(k), CQL_PORT) if v else False, "jmx": f"{NET.jmx_host(k)}:{jmx_port(k)}",
                     "jmx_port": jmx_port(k),
                     "ring": (view or {}).get(ip(k), "?")})
    if a.json:
        print(json.dumps({"running": True, "net": NET.name, "nodes": rows, "cold_tier": ct}))
        return 0
    print(f"{'node':<5} {'address':<11} {'pid':>8} {'state':<8} {'ring':<5} {'cql':<4} jmx")
    for r in rows:
        print(f"{r['node']:<5} {r['ip']:<11} {str(r['pid'] or '-'):>8} {'running' if r['running'] else 'stopped':<8} "
              f"{r['ring']:<5} {'up' if r['cql'] else 'down':<4} {r['jmx']}")
    if NET.name == "netns":
        print(f"network: {NET.describe(st['n'])}")
    print(f"cold tier: {'running, pid %d, %s' % (ct['pid'], ct['endpoint']) if ct else 'not running'}")
    return 0


def cmd_nodetool(a):
    os.execv(os.path.join(HOME, "bin", "nodetool"), ["nodetool", "-h", NET.jmx_host(a.node), "-p", str(jmx_port(a.node)), *a.args])


def cmd_electtool(a):
    os.execv(os.path.join(HOME, "bin", "electtool"),
             ["electtool", "-h", NET.jmx_host(a.node), "-p", str(jmx_port(a.node)), *a.args])


def cmd_cqlsh(a):
    subprocess.run([os.path.join(HOME, "scripts", "setup")], check=True)
    cqlsh = os.path.join(HOME, ".venv", "bin", "cqlsh")
    os.execv(cqlsh, ["cqlsh", ip(a.node), str(CQL_PORT), "--request-timeout=60", *a.args])


def cmd_kill(a):
    st = load_state()
    v = (st or {}).get("nodes", {}).get(str(a.node))
    if not v or not alive(v["pid"], v["dir"]):
        die(f"node {a.node} is not running")
    os.kill(v["pid"], signal.SIGKILL if a.hard else signal.SIGTERM)
    stop_pid(v["pid"], v["dir"], f"node {a.node}", 60)
    log(f"node {a.node} (pid {v['pid']}) stopped" + (" with SIGKILL" if a.hard else ""))


def cmd_restart_node(a, jvm_extra=()):
    st = load_state()
    if not st or str(a.node) not in st.get("nodes", {}):
        die(f"node {a.node} is not part of the recorded cluster")
    v = st["nodes"][str(a.node)]
    if alive(v["pid"], v["dir"]):
        die(f"node {a.node} is running (pid {v['pid']})")
    p = start_node(st, a.node, st["heap"], jvm_extra)
    deadline = time.time() + a.timeout
    while time.time() < deadline:
        if p.poll() is not None:
            die(f"node {a.node} exited with code {p.returncode}; see {node_dir(a.node)}/stdout.log")
        if port_open(ip(a.node), CQL_PORT):
            log(f"node {a.node} up (pid {p.pid})")
            return
        time.sleep(2)
    die(f"node {a.node} not up after {a.timeout} s")


def cmd_replace_node(a):
    """A replacement for a lost node: same address and token, empty disk (everything but cassandra.yaml and its rack
    file removed).
    Cassandra takes over the old node's host id and tokens without streaming (replace_address_first_boot with
    allow_unsafe_replace: nodes here are seeds and never bootstrap); the data comes back with `electtool rebuild`
    (ELECT) or `nodetool rebuild` (plain Cassandra)."""
    st = load_state()
    if not st or str(a.node) not in st.get("nodes", {}):
        die(f"node {a.node} is not part of the recorded cluster")
    v = st["nodes"][str(a.node)]
    if alive(v["pid"], v["dir"]):
        die(f"node {a.node} is running (pid {v['pid']}); kill it first")
    d = node_dir(a.node)
    removed = 0
    for name in os.listdir(d):
        if name in ("cassandra.yaml", RACKDC):  # its configuration: a replacement keeps its rack
            continue
        path = os.path.join(d, name)
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
        removed += 1
    log(f"node {a.node}: wiped {d} ({removed} entries; its configuration kept); starting it as a replacement of {ip(a.node)}")
    cmd_restart_node(a, [f"-Dcassandra.replace_address_first_boot={ip(a.node)}", "-Dcassandra.allow_unsafe_replace=true"])


def joining_tokens(existing, num_tokens):
    """Tokens for a node joining a ring that holds `existing` tokens: the midpoints of the num_tokens widest ranges
    (the ring wraps from the largest token to the smallest), so the joiner halves the widest ranges."""
    ring = sorted(existing)
    span = 2 ** 64
    gaps = []
    for k, t in enumerate(ring):
        nxt = ring[(k + 1) % len(ring)] + (span if k + 1 == len(ring) else 0)
        gaps.append((nxt - t, t))
    out = []
    for width, start in sorted(gaps, key=lambda g: (-g[0], g[1]))[:num_tokens]:
        mid = start + width // 2
        out.append(mid - span if mid >= 2 ** 63 else mid)
    return sorted(out)


def cmd_add_node(a):
    """Node n+1 joins the running cluster by bootstrapping (Cassandra streams it its ranges from the current
    replicas), with node 1's configuration on its own address and tokens halving the widest ranges."""
    st = load_state()
    nodes, _ = running(st)
    if not nodes:
        die("no cluster is running (scripts/elect-cluster start)")
    if NET.name != "loopback" or st.get("tls"):
        die("add-node supports loopback clusters without --tls only (the joiner would need its own namespace or "
            "certificate)", 2)
    i = st["n"] + 1
    if i > MAX_NODES:
        die(f"add-node: the cluster has {st['n']} nodes, at most {MAX_NODES} are allowed", 2)
    if port_open(ip(i), CQL_PORT) or port_open(ip(i), STORAGE_PORT):
        die(f"{ip(i)} already has a process on port {CQL_PORT} or {STORAGE_PORT}; stop it first")
    text = open(os.path.join(node_dir(min(nodes)), "cassandra.yaml")).read()
    existing = []
    for k in range(1, st["n"] + 1):
        m = re.search(r"^initial_token:\s*(\S+)", open(os.path.join(node_dir(k), "cassandra.yaml")).read(), re.M)
        if not m:
            die(f"node {k}'s cassandra.yaml has no initial_token; add-node needs the tokens of every node")
        existing += [int(t) for t in m.group(1).strip("'\"").split(",")]
    num_tokens = int(re.search(r"^num_tokens:\s*(\d+)", text, re.M).group(1))
    toks = joining_tokens(existing, num_tokens)
    text = set_yaml(text, "listen_address", ip(i))
    text = set_yaml(text, "rpc_address", ip(i))
    text = set_yaml(text, "initial_token", ",".join(str(t) for t in toks))
    text = set_yaml(text, "auto_bootstrap", "true")  # not a seed (the seeds stay nodes 1..n): it streams its ranges
    os.makedirs(node_dir(i), exist_ok=True)
    with open(os.open(os.path.join(node_dir(i), "cassandra.yaml"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)
    if st.get("racks"):
        write_rackdc(i, st["racks"])
    st["n"] = i
    save_state(st)
    t0 = time.time()
    log(f"node {i} joins on {ip(i)} with token(s) {','.join(str(t) for t in toks)}; bootstrapping")
    p = start_node(st, i, st["heap"])
    if a.no_wait:
        log(f"node {i} started (pid {p.pid}); not waiting for it to join (--no-wait)")
        return
    deadline = time.time() + a.timeout
    while time.time() < deadline:
        if p.poll() is not None:
            die(f"node {i} exited with code {p.returncode} while joining; see {node_dir(i)}/logs/system.log")
        if port_open(ip(i), CQL_PORT):
            view = ring_view(min(nodes))
            if view and view.get(ip(i)) == "UN":
                log(f"node {i} joined (UN) in {time.time() - t0:.1f} s (pid {p.pid})")
                return
        time.sleep(2)
    die(f"node {i} did not join within {a.timeout} s (still bootstrapping? see {node_dir(i)}/logs/system.log)")


def cmd_wipe(a):
    nodes, ct = running(load_state())
    if nodes or ct:
        die("the cluster is running; stop it first")
    if os.path.isdir(CLUSTER):
        shutil.rmtree(CLUSTER)
    log(f"removed {CLUSTER}")


def main():
    p = argparse.ArgumentParser(prog="elect-cluster", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start", help="start N nodes and the cold tier; wait until every node is UN")
    s.add_argument("--nodes", type=int, default=3)
    s.add_argument("--heap", default=os.environ.get("ELECT_HEAP", "512m"))
    s.add_argument("--config", default=os.path.join(HOME, "conf", "cassandra.yaml"), help="template cassandra.yaml")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key in every node, e.g. --set elect.data_chunks=2 (repeatable)")
    s.add_argument("--no-cold-tier", action="store_true")
    s.add_argument("--cold-latency-ms", type=float, default=0, metavar="MS",
                   help="put the cold tier MS milliseconds away: a delaying proxy in front of S3Proxy (ELECT's evaluation: ~45)")
    s.add_argument("--tls", action="store_true",
                   help="throw-away CA and node certificates; mutual TLS on Cassandra's internode port and the ELECT port")
    s.add_argument("--num-tokens", type=int, default=1, metavar="N",
                   help="vnodes: N tokens per node, interleaved and evenly spaced (default 1)")
    s.add_argument("--racks", type=int, default=0, metavar="R",
                   help="R racks of datacenter1 (GossipingPropertyFileSnitch; node i in rack ((i-1) %% R) + 1); "
                        "default 0: SimpleSnitch, no racks")
    s.add_argument("--fresh", action="store_true", help="remove data of an earlier cluster first")
    s.add_argument("--netns", action="store_true",
                   help="each node in its own network namespace with address 198.18.0.I (a bridge 198.18.0.254 on "
                        "this host for clients and the cold tier; nothing leaves the machine); needs root")
    s.add_argument("--timeout", type=int, default=240)
    s.add_argument("--wait-for-ports", type=int, default=0, metavar="SECONDS",
                   help="wait that long for ports held by another local cluster to be released")
    s.set_defaults(fn=cmd_start)
    s = sub.add_parser("stop", help="stop every recorded node and the cold tier, by PID; data is kept")
    s.add_argument("--grace", type=int, default=90, help="seconds to wait for a node to drain before SIGKILL")
    s.add_argument("--kill", action="store_true",
                   help="SIGKILL the nodes at once, without draining (test clusters: saves Cassandra's ~20 s shutdown)")
    s.set_defaults(fn=cmd_stop)
    s = sub.add_parser("status", help="what runs (exit 3 when nothing does)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_status)
    s = sub.add_parser("nodetool", help="nodetool against node I")
    s.add_argument("node", type=int)
    s.add_argument("args", nargs=argparse.REMAINDER)
    s.set_defaults(fn=cmd_nodetool)
    s = sub.add_parser("electtool", help="bin/electtool against node I (its JMX address and port)")
    s.add_argument("node", type=int)
    s.add_argument("args", nargs=argparse.REMAINDER)
    s.set_defaults(fn=cmd_electtool)
    s = sub.add_parser("cqlsh", help="cqlsh to node I (default 1)")
    s.add_argument("node", type=int, nargs="?", default=1)
    s.add_argument("args", nargs=argparse.REMAINDER)
    s.set_defaults(fn=cmd_cqlsh)
    s = sub.add_parser("kill", help="stop node I (SIGTERM, or SIGKILL with --hard), for failure tests")
    s.add_argument("node", type=int)
    s.add_argument("--hard", action="store_true")
    s.set_defaults(fn=cmd_kill)
    s = sub.add_parser("restart-node", help="start a stopped node I again with its data")
    s.add_argument("node", type=int)
    s.add_argument("--timeout", type=int, default=180)
    s.set_defaults(fn=cmd_restart_node)
    s = sub.add_parser("replace-node", help="wipe stopped node I's disk and start it as its own replacement "
                                            "(same address and token, no data; then electtool/nodetool rebuild)")
    s.add_argument("node", type=int)
    s.add_argument("--timeout", type=int, default=300)
    s.set_defaults(fn=cmd_replace_node)
    s = sub.add_parser("add-node", help="a new node N+1 joins the running cluster by bootstrapping (streams its ranges)")
    s.add_argument("--timeout", type=int, default=1800)
    s.add_argument("--no-wait", action="store_true", help="return once the node's process runs (failure tests)")
    s.set_defaults(fn=cmd_add_node)
    s = sub.add_parser("wipe", help="remove the stopped cluster's data")
    s.set_defaults(fn=cmd_wipe)
    a = p.parse_args()
    global NET
    st = load_state()
    if a.cmd != "start" and st and st.get("net") == "netns":
        NET = netns.Namespaces()
    sys.exit(a.fn(a) or 0)


if __name__ == "__main__":
    main()
