package io.elect.core.bridge;

import org.apache.cassandra.db.ClusteringComparator;
import org.apache.cassandra.db.DeletionTime;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Cells;
import org.apache.cassandra.db.rows.ColumnData;
import org.apache.cassandra.db.rows.ComplexColumnData;
import org.apache.cassandra.db.rows.RangeTombstoneMarker;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Rows;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.db.transform.Transformation;
import org.apache.cassandra.schema.ColumnMetadata;

/**
 * Drops from one partition of a local SSTable X everything a secondary stub holds a version of that wins over it, and
 * nothing else (see {@link SecondaryStubs#purge}). One instance per partition; the stub's partition is walked in
 * clustering order alongside X's, so neither is materialised.
 *
 * <p>The rule is exact Cassandra reconciliation, so a drop never changes what a read returns as long as the stub
 * stays live: an X cell is dropped iff {@code Cells.reconcile(stubCell, xCell)} returns the stub's cell (a newer
 * timestamp, or an equal one that wins the tie: tombstone over live, then value order); X's primary key liveness iff
 * it does not supersede the stub row's; a row, complex or partition deletion of X iff the stub's equal-scope deletion
 * is at least as strong. A row of X with nothing left is dropped. Range tombstone markers of X, rows and partitions
 * the stub lacks, and counter cells (merged, never shadowed) are always kept. Shadowing by the stub's deletions of a
 * wider scope (a partition deletion hiding an X row) is deliberately not used: keeping is always correct.
 */
final class StubShadowing extends Transformation<UnfilteredRowIterator>
{
    private final UnfilteredRowIterator stub; // the stub's version of this partition (possibly empty), consumed in order
    private final ClusteringComparator comparator;
    private Row stubRow; // the stub's next row at or after the last X row looked up, or null once exhausted
    private boolean stubStarted;

    long rowsDropped;
    long cellsDropped;
    long otherDropped; // liveness infos, row/complex/partition deletions

    StubShadowing(UnfilteredRowIterator stub, ClusteringComparator comparator)
    {
        this.stub = stub;
        this.comparator = comparator;
    }

    long dropped()
    {
        return rowsDropped + cellsDropped + otherDropped;
    }

    @Override
    protected DeletionTime applyToDeletion(DeletionTime x)
    {
        DeletionTime s = stub.partitionLevelDeletion();
        if (!x.isLive() && !s.isLive() && !x.supersedes(s))
        {
            otherDropped++;
            return DeletionTime.LIVE;
        }
        return x;
    }

    @Override
    protected Row applyToStatic(Row row)
    {
        if (row.isEmpty())
            return row;
        Row kept = shadow(row, stub.staticRow());
        return kept == null ? Rows.EMPTY_STATIC_ROW : kept;
    }

    @Override
    protected Row applyToRow(Row row)
    {
        return shadow(row, stubRowAt(row));
    }

    @Override
    protected RangeTombstoneMarker applyToMarker(RangeTombstoneMarker marker)
    {
        return marker;
    }

    /** The stub's row with row's clustering, or null; X's rows arrive in clustering order. */
    private Row stubRowAt(Row row)
    {
        if (!stubStarted)
        {
            stubStarted = true;
            stubRow = nextStubRow();
        }
        while (stubRow != null && comparator.compare(stubRow.clustering(), row.clustering()) < 0)
            stubRow = nextStubRow();
        return stubRow != null && comparator.compare(stubRow.clustering(), row.clustering()) == 0 ? stubRow : null;
    }

    private Row nextStubRow()
    {
        while (stub.hasNext())
        {
            Unfiltered u = stub.next();
            if (u.isRow())
                return (Row) u;
        }
        return null;
    }

    /** X's row without what stubRow shadows; null if nothing is left. */
    private Row shadow(Row x, Row s)
    {
        if (s == null || s.isEmpty())
            return x;
        Row.Builder b = BTreeRow.sortedBuilder();
        b.newRow(x.clustering());
        LivenessInfo xl = x.primaryKeyLivenessInfo(), sl = s.primaryKeyLivenessInfo();
        if (!xl.isEmpty() && !sl.isEmpty() && !xl.supersedes(sl))
            otherDropped++;
        else
            b.addPrimaryKeyLivenessInfo(xl);
        Row.Deletion xd = x.deletion(), sd = s.deletion();
        if (!xd.isLive() && !sd.isLive() && xd.isShadowable() == sd.isShadowable() && !xd.time().supersedes(sd.time()))
            otherDropped++;
        else
            b.addRowDeletion(xd);
        for (ColumnData cd : x)
        {
            ColumnMetadata column = cd.column();
            if (column.isSimple())
            {
                keepOrDrop(b, (Cell<?>) cd, s.getCell(column));
                continue;
            }
            ComplexColumnData xc = (ComplexColumnData) cd;
            ComplexColumnData sc = s.getComplexColumnData(column);
            DeletionTime xcd = xc.complexDeletion();
            if (!xcd.isLive())
            {
                if (sc != null && !sc.complexDeletion().isLive() && !xcd.supersedes(sc.complexDeletion()))
                    otherDropped++;
                else
                    b.addComplexDeletion(column, xcd);
            }
            for (Cell<?> cell : xc)
                keepOrDrop(b, cell, sc == null ? null : sc.getCell(cell.path()));
        }
        Row out = b.build();
        if (out.isEmpty())
        {
            rowsDropped++;
            return null;
        }
        return out;
    }

    private void keepOrDrop(Row.Builder b, Cell<?> x, Cell<?> s)
    {
        if (s != null && !x.isCounterCell() && !s.isCounterCell() && Cells.reconcile(s, x) == s)
            cellsDropped++;
        else
            b.addCell(x);
    }
}
