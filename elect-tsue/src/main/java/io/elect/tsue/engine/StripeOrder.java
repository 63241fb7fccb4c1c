package io.elect.tsue.engine;

import java.io.IOException;

/**
 * Orders the index insertions of one stripe's concurrent updates by their tickets (= seq order), while their
 * appends run in parallel. A failed update still passes its turn.
 */
final class StripeOrder
{
    long issued, inserted;

    synchronized void await(long ticket) throws IOException
    {
        while (inserted != ticket)
        {
            try
            {
                wait();
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted waiting for earlier updates of the stripe", e);
            }
        }
    }

    synchronized void done(long ticket)
    {
        while (inserted != ticket)
        {
            try
            {
                wait();
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
        inserted++;
        notifyAll();
    }
}
