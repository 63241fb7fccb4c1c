"""Where the nodes of a local cluster live: on loopback addresses of this host, or each in a network namespace of its
own ("many hosts, not one").

Two topologies with one interface, used by elect_cluster.py:

  Loopback    node i on 127.0.0.i, JMX on 127.0.0.1:7199+100*(i-1) (loopback only), the cold tier on 127.0.0.1.
  Namespaces  node i in network namespace elect-nsI with address 198.18.0.I/24 on one end of a veth pair whose
              other end (elect-vI) is a port of the bridge elect-br0 in the root namespace; the bridge has
              198.18.0.254/24, so clients on the host (drivers, nodetool, electtool over JMX) reach every node, and
              the nodes reach the cold tier, which listens on the bridge address. Every node binds Cassandra's
              ports, the ELECT transport and JMX (7199) to its own address: nothing can work through 127.0.0.1.

Contract of the namespace topology: 198.18.0.0/15 is the benchmarking range (RFC 2544), never routed on the
Internet; the addresses exist only on the bridge and inside the namespaces. The namespaces get no default route,
nothing is NATed or forwarded: a packet to any other address has no route, so traffic never leaves the machine.
No other interface, address or route of the host is touched. Every object has a fixed name (elect-nsI, elect-vI,
elect-pI, elect-br0) so that teardown() can remove leftovers of a crashed run by name; setup() is idempotent.
Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and iproute2's `ip`.
"""
import os
import re
import shutil
import subprocess

SUBNET = "198.18.0"
BRIDGE = "elect-br0"
BRIDGE_IP = f"{SUBNET}.254"
NS_PREFIX = "elect-ns"
HOST_VETH = "elect-v"   # + i: the bridge's end, in the root namespace
NODE_VETH = "elect-p"   # + i: the node's end, inside elect-nsI
JMX_PORT = 7199         # the same on every namespace node, as on real hosts


class NetnsError(Exception):
    pass


def _ip(*args, check=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise NetnsError(f"`ip {' '.join(args)}` failed: {(r.stderr or r.stdout).strip()}")
    return r


class Loopback:
    name = "loopback"
    cold_host = "127.0.0.1"

    def ip(self, i):
        return f"127.0.0.{i}"

    def jmx_host(self, i):
        return "127.0.0.1"  # Cassandra's local JMX listens on loopback only

    def jmx_port(self, i):
        return 7199 + 100 * (i - 1)

    def jmx_args(self, i):
        return []

    def wrap(self, i, cmd):
        return cmd

    def setup(self, n):
        pass

    def teardown(self, log):
        pass

    def describe(self, n):
        return f"127.0.0.1..{n}"


class Namespaces:
    name = "netns"
    cold_host = BRIDGE_IP

    def ip(self, i):
        return f"{SUBNET}.{i}"

    def jmx_host(self, i):
        return self.ip(i)

    def jmx_port(self, i):
        return JMX_PORT

    def jmx_args(self, i):
        """bin/elect binds JMX to the node's own address (instead of Cassandra's loopback-only local JMX)."""
        return ["--jmx-address", self.ip(i)]

    def ns(self, i):
        return f"{NS_PREFIX}{i}"

    def wrap(self, i, cmd):
        """cmd run inside node i's namespace (`ip netns exec` execs it: the PID stays the command's)."""
        return ["ip", "netns", "exec", self.ns(i), *cmd]

    @staticmethod
    def check_capability():
        """Raises NetnsError naming what is missing when namespaces cannot be made here."""
        if shutil.which("ip") is None:
            raise NetnsError("--netns needs iproute2's `ip` (Debian package iproute2)")
        if os.geteuid() != 0:
            raise NetnsError("--netns needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN to create network namespaces, "
                             "veth pairs and a bridge)")

    def setup(self, n):
        """Creates (or completes) the bridge and n namespaces with their veth pairs and addresses; idempotent."""
        self.check_capability()
        try:
            self._setup(n)
        except NetnsError as e:  # root without the capabilities (e.g. an unprivileged container) ends here
            raise NetnsError(f"{e} (network namespaces, veth pairs and a bridge need CAP_NET_ADMIN and CAP_SYS_ADMIN)")

    def _setup(self, n):
        links = _links()
        if BRIDGE not in links:
            _ip("link", "add", BRIDGE, "type", "bridge")
        if f"{BRIDGE_IP}/24" not in _ip("-o", "addr", "show", "dev", BRIDGE).stdout:
            _ip("addr", "add", f"{BRIDGE_IP}/24", "dev", BRIDGE)
        _ip("link", "set", BRIDGE, "up")
        namespaces = list_namespaces()
        for i in range(1, n + 1):
            ns, hv, nv = self.ns(i), f"{HOST_VETH}{i}", f"{NODE_VETH}{i}"
            if ns not in namespaces:
                _ip("netns", "add", ns)
            ns_links = _links(ns)
            if nv not in ns_links:
                if hv in links:  # half-made pair of an interrupted setup
                    _ip("link", "del", hv)
                _ip("link", "add", hv, "type", "veth", "peer", "name", nv)
                _ip("link", "set", nv, "netns", ns)
            _ip("link", "set", hv, "master", BRIDGE)
            _ip("link", "set", hv, "up")
            if f"{self.ip(i)}/24" not in _ip("-n", ns, "-o", "addr", "show", "dev", nv).stdout:
                _ip("-n", ns, "addr", "add", f"{self.ip(i)}/24", "dev", nv)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", nv, "up")

    def teardown(self, log):
        teardown(log)

    def describe(self, n):
        return f"{self.ip(1)}..{n} in namespaces {self.ns(1)}..{n} (bridge {BRIDGE} {BRIDGE_IP})"


def _links(ns=None):
    args = (["-n", ns] if ns else []) + ["-o", "link", "show"]
    r = _ip(*args, check=False)
    return {m.group(1) for m in re.finditer(r"^\d+: ([^:@\s]+)", r.stdout, re.M)}


def list_namespaces():
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True) if shutil.which("ip") else None
    if r is None or r.returncode != 0:
        return []
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def ours(name):
    """True for the names this module creates, and only those."""
    return re.fullmatch(rf"{NS_PREFIX}\d+|{HOST_VETH}\d+|{NODE_VETH}\d+|{BRIDGE}", name) is not None


def leftovers():
    """Namespaces and links of ours that exist now (e.g. after a crash of the script)."""
    return ([n for n in list_namespaces() if ours(n)], sorted(l for l in _links() if ours(l)))


def pids_in(ns):
    r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
    return [int(p) for p in r.stdout.split()] if r.returncode == 0 else []


def teardown(log):
    """Removes every namespace, veth and the bridge of ours, recognised by name. Callers stop the processes first:
    a namespace still holding processes is reported and kept (its processes are not ours to guess about)."""
    if shutil.which("ip") is None:
        return
    namespaces, links = leftovers()
    kept = set()
    for ns in namespaces:
        busy = pids_in(ns)
        if busy:
            log(f"netns: {ns} still has processes {busy}; not removed (stop them, then `elect-cluster stop` again)")
            kept.update({f"{HOST_VETH}{ns[len(NS_PREFIX):]}", BRIDGE})  # its link to the bridge stays too
            continue
        _ip("netns", "del", ns, check=False)  # removes its veth end, and with it the pair
    for l in links:
        if l not in kept and l in _links():
            _ip("link", "del", l, check=False)
    left = leftovers()
    if left[0] or left[1]:
        log(f"netns: left: namespaces {left[0]}, links {left[1]}")
    elif namespaces or links:
        log(f"netns: removed namespaces {namespaces} and links {links}")
