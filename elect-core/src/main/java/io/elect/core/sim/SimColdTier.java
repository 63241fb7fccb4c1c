package io.elect.core.sim;

import java.time.Duration;

import io.elect.offload.ColdStore;
import io.elect.offload.ColdStoreOptions;
import io.elect.offload.FaultInjectingBlobStore;
import io.elect.offload.FramedColdStore;
import io.elect.offload.InMemoryBlobStore;

/**
 * The simulation's cold tier: the real {@link FramedColdStore} (framing, checksums, retries, put verification) over
 * a seeded fault-injecting in-memory blob store: transient errors, throttling, short reads, bits flipped in flight
 * and lost puts, never latency (time is the manual clock's) and never at-rest corruption (the system does not promise
 * to survive a corrupt cold object of a non-redundant primary; it promises to detect it). Retries have no back-off,
 * so nothing sleeps.
 */
final class SimColdTier
{
    private SimColdTier()
    {
    }

    static FaultInjectingBlobStore.Faults faults(boolean on)
    {
        return on ? new FaultInjectingBlobStore.Faults(0.03, 0.02, 0.02, 0.02, 0, 0.02, 0) : FaultInjectingBlobStore.Faults.NONE;
    }

    static ColdStore create(long seed)
    {
        FaultInjectingBlobStore blobs = new FaultInjectingBlobStore(new InMemoryBlobStore(), seed, faults(false));
        return new FramedColdStore("sim-cold", blobs, ColdStoreOptions.defaults().withMaxAttempts(12)
                                                                      .withBackoff(Duration.ZERO, Duration.ZERO)
                                                                      .withVerifyPuts(true));
    }

    /** Turns the blob store's faults on or off (the heal phase turns them off). */
    static void setFaults(ColdStore cold, boolean on)
    {
        ((FaultInjectingBlobStore) ((FramedColdStore) cold).blobStore()).setFaults(faults(on));
    }
}
