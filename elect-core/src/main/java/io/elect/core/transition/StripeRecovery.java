package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up (and periodic) recovery: every stripe not in a terminal state is driven to COMMITTED, ROLLED_BACK or (a
 * RETIRING one) RETIRED, and the rows of ROLLED_BACK and RETIRED stripes are removed once their files are gone.
 * {@code committed} counts the stripes that went forward (to COMMITTED or RETIRED). A stripe whose participants cannot be
 * reached stays pending and is retried by the next run.
 */
public final class StripeRecovery
{
    private static final Logger logger = LoggerFactory.getLogger(StripeRecovery.class);

    public record Summary(int committed, int rolledBack, int removed, List<StripeId> pending)
    {
    }

    private StripeRecovery()
    {
    }

    public static Summary recover(StripeStore store, StripeStateMachine machine)
    {
        int committed = 0, rolledBack = 0, removed = 0;
        List<StripeId> pending = new ArrayList<>();
        for (StripeRecord r : store.list())
        {
            StripeState end = r.state();
            if (!end.isTerminal())
            {
                try
                {
                    end = machine.recover(r.id());
                    if (end == StripeState.COMMITTED || end == StripeState.RETIRED)
                        committed++;
                    else
                        rolledBack++;
                    logger.info("recovery: stripe {} {} -> {}", r.id(), r.state(), end);
                }
                catch (RuntimeException e)
                {
                    logger.info("recovery: stripe {} stays {} for now: {}", r.id(), r.state(), e.toString());
                    pending.add(r.id());
                    continue;
                }
            }
            if (end == StripeState.ROLLED_BACK || end == StripeState.RETIRED)
            {
                try
                {
                    if (store.delete(r.id()))
                        removed++;
                }
                catch (RuntimeException e)
                {
                    logger.info("recovery: row of rolled-back stripe {} not removed yet: {}", r.id(), e.toString());
                }
            }
        }
        return new Summary(committed, rolledBack, removed, List.copyOf(pending));
    }
}
