package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Candidate selection for transitioning: a pure function over a snapshot.
 *
 * <p>An SSTable is a candidate when it is in the last level of its primary tree (role 0), its age is at least
 * {@code minAgeMillis}, and it is cold. "Cold" has hysteresis so that nothing flaps: an SSTable that was not a
 * candidate in the previous round must have rate <= {@code enterRate}; one that was a candidate stays one while its
 * rate is <= {@code enterRate * hysteresis}. Candidates are ordered coldest first (lowest rate), then oldest, then by
 * id, so the order is total and the same on every run.
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

    /**
     * The candidates of this round, coldest first.
     *
     * @param sstables          the live SSTables of one table on this node
     * @param previousCandidates ids selected in the previous round (empty on the first)
     */
    public List<SSTableInfo> select(List<SSTableInfo> sstables, Set<String> previousCandidates)
    {
        Objects.requireNonNull(sstables, "sstables");
        Objects.requireNonNull(previousCandidates, "previousCandidates");
        List<SSTableInfo> out = new ArrayList<>();
        for (SSTableInfo s : sstables)
        {
            if (!s.lastLevel() || s.role() != 0 || s.ageMillis() < minAgeMillis)
                continue;
            double limit = previousCandidates.contains(s.id()) ? exitRate : enterRate;
            if (s.readRate() <= limit)
                out.add(s);
        }
        out.sort(Comparator.comparingDouble(SSTableInfo::readRate)
                           .thenComparing(Comparator.comparingLong(SSTableInfo::ageMillis).reversed())
                           .thenComparing(SSTableInfo::id));
        return out;
    }
}
