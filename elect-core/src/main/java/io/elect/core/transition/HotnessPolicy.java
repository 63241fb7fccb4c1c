package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Candidate order for transitioning: a pure function over a snapshot.
 *
 * <p>An SSTable is a candidate when it is in the last level of its primary tree (role 0) and its age is at least
 * {@code minAgeMillis}. Hotness ORDERS the candidates; it does not exclude them: the storage-saving target alpha
 * decides how many bytes are encoded, and the order decides which. Candidates are split into a cold class and a hot
 * class, cold first. "Cold" has hysteresis so that the classes do not flap: an SSTable that was not cold in the
 * previous round must have rate <= {@code enterRate}; one that was cold stays cold while its rate is <=
 * {@code enterRate * hysteresis}. Within a class the order is coldest first (lowest rate), then oldest, then by id,
 * so the order is total and the same on every run.
 *
 * <p>Why not exclude hot files: with Murmur3 partitioning a skewed key popularity spreads over every last-level
 * SSTable, so under any steady read load every file is read at a similar, non-zero rate; an absolute threshold then
 * blocks alpha entirely. Encoding keeps the primary on local disk (normal reads of an encoded file cost the same), so
 * encoding a hot file only costs degraded-read speed for it; offloading does cost normal reads, and there the
 * threshold is strict (see {@link OffloadSelection}: a file read more than the cold rate is never offloaded).
 */
public final class HotnessPolicy
{
    /** One live SSTable as seen at snapshot time. */
    public record SSTableInfo(String id, int level, boolean lastLevel, int role, long ageMillis, long bytes, double readRate)
    {
        public SSTableInfo
        {
            Objects.requireNonNull(id, "id");
            if (bytes < 0)
                throw new IllegalArgumentException("bytes must be >= 0, was " + bytes + " for " + id);
            if (Double.isNaN(readRate) || readRate < 0)
                throw new IllegalArgumentException("readRate must be >= 0, was " + readRate + " for " + id);
        }
    }

    private final long minAgeMillis;
    private final double enterRate;
    private final double exitRate;

    /**
     * @param minAgeMillis SSTables younger than this are never candidates (>= 0)
     * @param enterRate    reads/s at or below which an SSTable becomes a candidate (>= 0)
     * @param hysteresis   a candidate stays one until its rate exceeds {@code enterRate * hysteresis} (>= 1)
     */
    public HotnessPolicy(long minAgeMillis, double enterRate, double hysteresis)
    {
        if (minAgeMillis < 0)
            throw new IllegalArgumentException("minAgeMillis must be >= 0, was " + minAgeMillis);
        if (Double.isNaN(enterRate) || enterRate < 0)
            throw new IllegalArgumentException("enterRate must be >= 0, was " + enterRate);
        if (Double.isNaN(hysteresis) || hysteresis < 1)
            throw new IllegalArgumentException("hysteresis must be >= 1, was " + hysteresis);
        this.minAgeMillis = minAgeMillis;
        this.enterRate = enterRate;
        this.exitRate = enterRate * hysteresis;
    }

    /** The candidates of one round in order, and which of them are cold (feed {@link #cold()} to the next round). */
    public record Selection(List<SSTableInfo> ordered, Set<String> cold)
    {
    }

    /**
     * The candidates of this round: the cold class (coldest first), then the hot class (coldest first).
     *
     * @param sstables     the live SSTables of one table on this node
     * @param previousCold ids classified cold in the previous round (empty on the first)
     */
    public Selection select(List<SSTableInfo> sstables, Set<String> previousCold)
    {
        Objects.requireNonNull(sstables, "sstables");
        Objects.requireNonNull(previousCold, "previousCold");
        List<SSTableInfo> cold = new ArrayList<>();
        List<SSTableInfo> hot = new ArrayList<>();
        for (SSTableInfo s : sstables)
        {
            if (!s.lastLevel() || s.role() != 0 || s.ageMillis() < minAgeMillis)
                continue;
            double limit = previousCold.contains(s.id()) ? exitRate : enterRate;
            (s.readRate() <= limit ? cold : hot).add(s);
        }
        Comparator<SSTableInfo> order = Comparator.comparingDouble(SSTableInfo::readRate)
                                                  .thenComparing(Comparator.comparingLong(SSTableInfo::ageMillis).reversed())
                                                  .thenComparing(SSTableInfo::id);
        cold.sort(order);
        hot.sort(order);
        Set<String> coldIds = new HashSet<>();
        for (SSTableInfo s : cold)
            coldIds.add(s.id());
        List<SSTableInfo> all = new ArrayList<>(cold);
        all.addAll(hot);
        return new Selection(List.copyOf(all), Set.copyOf(coldIds));
    }
}
