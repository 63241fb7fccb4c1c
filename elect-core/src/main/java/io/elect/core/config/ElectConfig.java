package io.elect.core.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The validated {@code elect:} section of cassandra.yaml. Immutable.
 *
 * <p>Every key, its default and its allowed range is listed in README.md ("Configuration reference"); keep
 * the two in step. Any invalid value raises {@link ElectConfigException} with one line naming the key.
 */
public final class ElectConfig
{
    /**
     * Largest k+m: GF(2^8) has 256 elements and a Cauchy matrix needs k+m distinct ones; ISA-L and Jerasure
     * accept at most 255 chunks per stripe.
     */
    public static final int CODEC_MAX_CHUNKS = 255;

    public static final Set<String> CODERS = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("auto", "isal", "jerasure", "java")));
    /** Values of {@code transport_encryption}; leaving the key out follows Cassandra's internode encryption. */
    public static final Set<String> TRANSPORT_ENCRYPTIONS = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("none", "tls")));

    public final int dataChunks;
    public final int parityChunks;
    public final double storageSavingTarget;
    public final boolean erasureCodingEnabled;
    public final boolean offloadEnabled;
    public final int transportPort;
    public final String coder;
    public final ColdTierConfig coldTier;
    // Transitioning (issue 8): hotness, stripe formation, transport. Seconds and milliseconds as named.
    public final int hotnessHalfLifeSeconds;
    public final double coldReadRate;
    public final double hotnessHysteresis;
    public final int transitionMinAgeSeconds;
    public final int primaryOffloadMinAgeSeconds;
    public final int stripeFillWaitSeconds;
    /** A stripe's code length is its longest member rounded up to this (parity chunks are about that long). */
    public final int stripeAlignmentBytes;
    public final int transportMaxFrameBytes;
    public final int transportRequestTimeoutMillis;
    public final int transportRetries;
    public final int transitionIntervalSeconds;
    /**
     * Member merges (issue 16, docs/design/updates.md): replace an encoded member whose obsolete share reaches
     * {@link #memberMergeMinObsoleteShare} by its next version. On by default since 2026-11-27 (covered by the
     * simulation, single-node tests, the updates benchmark and MergeIT's kills of the member's node, a parity node and
     * the coordinator mid-change); without it, encoded members keep their obsolete versions until retired or removed.
     */
    public final boolean memberMergeEnabled;
    /**
     * Virtual-slot fills (issue 18, docs/design/scaling.md): a round's chosen candidates first fill virtual slots of
     * committed stripes (no new parity bytes) before forming new stripes. On by default.
     */
    public final boolean fillVirtualSlots;
    public final double memberMergeMinObsoleteShare;
    /**
     * The merge policy's age term (MemberMerges.Policy): a member whose version has been in its stripe this long merges
     * at half the share; 0 turns the term off. Its read-cost term uses {@link #coldReadRate}: a member read more often
     * merges at half the share (a quarter when both apply).
     */
    public final int memberMergeAgeSeconds;
    /**
     * How a parity node computes the next parity generation when one member of a stripe changes (a merge or a
     * removal, docs/design/updates.md): {@code delta} = the old generation plus coefficient x (old member XOR new
     * member), reading the difference the member's node pushes (or both versions); {@code reencode} = encoded afresh
     * from the k members of the new plan (ELECT's way); {@code auto} (default) = per change, whichever brings fewer
     * bytes to the parity node (ParityUpdateCost). Same parity either way; each parity node follows its own setting.
     */
    public final String updatePolicy;
    public static final Set<String> UPDATE_POLICIES = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("auto", "delta", "reencode")));
    /**
     * "none", "tls", or null when the key is left out: then the ELECT transport uses TLS exactly when Cassandra's
     * {@code server_encryption_options.internode_encryption} is not {@code none} (resolved by the bridge, which
     * reads Cassandra's settings; see docs/security.md).
     */
    public final String transportEncryption;

    private ElectConfig(ConfigReader r)
    {
        dataChunks = r.intIn("data_chunks", 4, 1, CODEC_MAX_CHUNKS - 1);
        parityChunks = r.intIn("parity_chunks", 2, 1, CODEC_MAX_CHUNKS - 1);
        if (dataChunks + parityChunks > CODEC_MAX_CHUNKS)
            throw new ElectConfigException(r.key("parity_chunks"), "data_chunks + parity_chunks = " + (dataChunks + parityChunks)
                                                                   + " exceeds the codec limit; allowed: data_chunks + parity_chunks <= " + CODEC_MAX_CHUNKS);
        storageSavingTarget = r.doubleIn("storage_saving_target", 0.6, 0.0, 1.0, true);
        erasureCodingEnabled = r.bool("erasure_coding_enabled", true);
        offloadEnabled = r.bool("offload_enabled", true);
        transportPort = r.intIn("transport_port", 7070, 1, 65535);
        coder = r.oneOf("coder", "auto", CODERS);
        coldTier = new ColdTierConfig(new ConfigReader(r.key("cold_tier"), r.mapping("cold_tier")));
        hotnessHalfLifeSeconds = r.intIn("hotness_half_life_seconds", 600, 1, 7 * 86400);
        coldReadRate = r.doubleIn("cold_read_rate", 0.01, 0.0, 1e6, false);
        hotnessHysteresis = r.doubleIn("hotness_hysteresis", 2.0, 1.0, 100.0, false);
        transitionMinAgeSeconds = r.intIn("transition_min_age_seconds", 3600, 0, Integer.MAX_VALUE);
        primaryOffloadMinAgeSeconds = r.intIn("primary_offload_min_age_seconds", 86400, 0, Integer.MAX_VALUE);
        stripeFillWaitSeconds = r.intIn("stripe_fill_wait_seconds", 300, 0, Integer.MAX_VALUE);
        stripeAlignmentBytes = r.intIn("stripe_alignment_bytes", 4096, 1, 1 << 20);
        transportMaxFrameBytes = r.intIn("transport_max_frame_bytes", 16 << 20, 1024, 1 << 30);
        transportRequestTimeoutMillis = r.intIn("transport_request_timeout_ms", 10_000, 1, 3_600_000);
        transportRetries = r.intIn("transport_retries", 3, 0, 100);
        transitionIntervalSeconds = r.intIn("transition_interval_seconds", 60, 1, 86400);
        memberMergeEnabled = r.bool("member_merge_enabled", true);
        fillVirtualSlots = r.bool("fill_virtual_slots", true);
        memberMergeMinObsoleteShare = r.doubleIn("member_merge_min_obsolete_share", 0.25, 0.0, 1.0, false);
        memberMergeAgeSeconds = r.intIn("member_merge_age_seconds", 86400, 0, Integer.MAX_VALUE);
        updatePolicy = r.oneOf("update_policy", "auto", UPDATE_POLICIES);
        transportEncryption = r.oneOf("transport_encryption", null, TRANSPORT_ENCRYPTIONS);
        r.rejectUnknownKeys();
    }

    /** The defaults, as if the section were empty. */
    public static ElectConfig defaults()
    {
        return fromMap(Map.of());
    }

    /**
     * Validates a parsed {@code elect:} mapping (null or empty means all defaults).
     *
     * @throws ElectConfigException naming the first invalid key
     */
    public static ElectConfig fromMap(Map<?, ?> section)
    {
        return new ElectConfig(new ConfigReader("elect", section));
    }

    /** The configuration in effect, for {@code electtool status}; holds no secret (credentials are never here). */
    public Map<String, Object> toMap()
    {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("data_chunks", dataChunks);
        m.put("parity_chunks", parityChunks);
        m.put("storage_saving_target", storageSavingTarget);
        m.put("erasure_coding_enabled", erasureCodingEnabled);
        m.put("offload_enabled", offloadEnabled);
        m.put("transport_port", transportPort);
        m.put("coder", coder);
        m.put("cold_tier", coldTier.toMap());
        m.put("hotness_half_life_seconds", hotnessHalfLifeSeconds);
        m.put("cold_read_rate", coldReadRate);
        m.put("hotness_hysteresis", hotnessHysteresis);
        m.put("transition_min_age_seconds", transitionMinAgeSeconds);
        m.put("primary_offload_min_age_seconds", primaryOffloadMinAgeSeconds);
        m.put("stripe_fill_wait_seconds", stripeFillWaitSeconds);
        m.put("stripe_alignment_bytes", stripeAlignmentBytes);
        m.put("transport_max_frame_bytes", transportMaxFrameBytes);
        m.put("transport_request_timeout_ms", transportRequestTimeoutMillis);
        m.put("transport_retries", transportRetries);
        m.put("transition_interval_seconds", transitionIntervalSeconds);
        m.put("member_merge_enabled", memberMergeEnabled);
        m.put("fill_virtual_slots", fillVirtualSlots);
        m.put("member_merge_min_obsolete_share", memberMergeMinObsoleteShare);
        m.put("member_merge_age_seconds", memberMergeAgeSeconds);
        m.put("update_policy", updatePolicy);
        m.put("transport_encryption", transportEncryption == null ? "default (tls if internode_encryption is not none)" : transportEncryption);
        return m;
    }

    @Override
    public String toString()
    {
        return Json.write(toMap());
    }
}
