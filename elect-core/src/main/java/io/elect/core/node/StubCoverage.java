package io.elect.core.node;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.TransitionMessages.StripeStatus;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * After a ring change, a node that replicates (or is about to replicate) part of an encoded member's span gets the
 * member's stub (issue 18). Cassandra's streams leave tiered SSTables out, so a node that takes over a range from a
 * node that held only stubs of it (a decommission, or a stripe committed while a joiner caught up) would otherwise
 * hold none of the member's rows. Part of the node's periodic maintenance: once per ring version, every member of
 * another node in a COMMITTED stripe without a stub here is looked up (its span comes with another node's stub,
 * {@link MemberRestore#findStub}); where {@link Ring#willReplicate} says so, the stub is installed, and the
 * maintenance's re-purge then drops the local copies it shadows, as for any new stub. A member with no live stub
 * source is retried at the next pass. Metrics: {@code Transitioning.StubCoverageStubs} and
 * {@code Transitioning.StubCoverageBytes} (stub component bytes copied). Not thread-safe: callers serialize
 * ({@link LocalTransitionOps#coverStubs}).
 */
final class StubCoverage
{
    private static final Logger logger = LoggerFactory.getLogger(StubCoverage.class);

    private final NodeContext node;
    private final LocalTransitionOps ops;
    /** The ring version of the last scan that resolved every member; a new version scans again. */
    private long scannedVersion = Long.MIN_VALUE;
    /** stripe/slot/member keys found not to need a stub here, under {@link #notNeededVersion}. */
    private final Set<String> notNeeded = new HashSet<>();
    private long notNeededVersion = Long.MIN_VALUE;

    StubCoverage(NodeContext node, LocalTransitionOps ops)
    {
        this.node = node;
        this.ops = ops;
    }

    /** One pass; returns the stubs installed. */
    int run()
    {
        long version = node.ring().version();
        if (version == scannedVersion || !node.store().ready())
            return 0;
        if (version != notNeededVersion)
        {
            notNeeded.clear();
            notNeededVersion = version;
        }
        Map<TableRef, Set<String>> have = new HashMap<>();
        Set<TableRef> tables = new HashSet<>(node.tables().electTables());
        boolean unresolved = false;
        int installed = 0;
        MemberRestore restore = new MemberRestore(ops, b -> { }, what -> { });
        for (StripeRecord r : node.store().list())
        {
            if (r.state() != StripeState.COMMITTED)
                continue;
            for (int i = 0; i < r.k(); i++)
            {
                Member m = r.members().get(i);
                if (m.isVirtual() || m.node().equals(node.self()))
                    continue;
                TableRef t = RemoteStripeParticipant.tableOf(m.sstable());
                String key = r.id() + "/" + i + "/" + m.sstable();
                if (!tables.contains(t) || !node.tables().exists(t) || notNeeded.contains(key))
                    continue;
                try
                {
                    if (stubsHere(t, have).contains(r.id() + "/" + i))
                        continue;
                    StripeStatus s = restore.findStub(t, r, i);
                    if (s == null)
                    {
                        unresolved = true; // no live node answered with a stub: next pass
                        continue;
                    }
                    if (!node.ring().willReplicate(t.keyspace(), s.firstToken(), s.lastToken()))
                    {
                        notNeeded.add(key);
                        continue;
                    }
                    long start = node.clock().nanoTime();
                    ops.stubInstall(s.stub());
                    have.remove(t);
                    installed++;
                    long bytes = 0;
                    for (io.elect.core.transition.wire.TransitionMessages.ComponentRef c : s.stub().components())
                        bytes += c.length();
                    node.metrics().counter("Transitioning", "StubCoverageStubs", null).inc();
                    node.metrics().counter("Transitioning", "StubCoverageBytes", null).inc(bytes);
                    logger.info("stub of member {} of stripe {} ({}, on {}) installed: this node replicates part of its span [{}, {}] "
                                + "after a ring change ({} ms)", i, r.id(), t, m.node(), s.firstToken(), s.lastToken(),
                                node.clock().millisSince(start));
                }
                catch (IOException | RuntimeException e)
                {
                    unresolved = true;
                    logger.warn("stub coverage of member {} of stripe {} ({}) failed (retried next time): {}", i, r.id(), t, e.toString());
                }
            }
        }
        if (!unresolved)
            scannedVersion = version;
        return installed;
    }

    /** "stripe/slot" of every stub of the table on this node. */
    private Set<String> stubsHere(TableRef t, Map<TableRef, Set<String>> have) throws IOException
    {
        Set<String> out = have.get(t);
        if (out != null)
            return out;
        out = new HashSet<>();
        for (LocalTables.TableFile f : node.tables().files(t))
            if (f.isStub() && f.frozenTag() != null && f.sidecar() != null)
                out.add(f.frozenTag() + "/" + f.sidecar().self());
        have.put(t, out);
        return out;
    }
}
