package io.elect.core.node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.Json;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.StripeStateMachine;
import io.elect.core.transition.WideningPlanner;
import io.elect.core.transition.WideningPlanner.Addition;
import io.elect.core.transition.WideningPlanner.Outcome;
import io.elect.core.transition.WideningPlanner.StripePlan;

/**
 * {@code electtool widen --to K} (without {@code --dry-run}): carries out the Scale-RS widening plan of the cluster's
 * stripes (docs/design/scaling.md "Widening"). Per stripe the plan widens: first a widening change to k' under the
 * wider Cauchy codec (its parity keeps its bytes: {@link StripeStateMachine#reshape}), then one fill per added member
 * ({@link StripeStateMachine#fill}: each parity node reads the member once, Scale-RS's m * L; a member longer than
 * the parity chunks grows them). An addition longer than the stripe's recorded code length is skipped with its reason
 * (the record's code length does not change); a
 * fill whose member is gone is abandoned by the state machine and reported. Runs on the coordinator, under its round
 * lock; a stripe another change moved in the meantime is reported as such. Every step is a recorded stripe change:
 * a crash mid-run leaves at most one stripe CHANGING, which recovery finishes; running the command again plans from
 * the records as they are.
 */
final class WideningRun
{
    private static final Logger logger = LoggerFactory.getLogger(WideningRun.class);

    private WideningRun()
    {
    }

    static String apply(NodeContext node, TransitionService transitions, StripeStateMachine machine, int targetK)
    {
        long start = node.clock().nanoTime();
        List<Node> ring = WideningReport.liveRing(node);
        List<WideningPlanner.Candidate> candidates = WideningReport.candidates(node, transitions, ring);
        List<StripeRecord> records = node.store().ready() ? node.store().list() : List.of();
        WideningPlanner.Plan plan = WideningPlanner.plan(records, ring, candidates, targetK, transitions.settings().alignment());
        int reshaped = 0, filled = 0, skipped = 0, failed = 0;
        long filledBytes = 0, boundOfDone = 0;
        List<Object> stripes = new ArrayList<>();
        for (StripePlan p : plan.stripes())
        {
            if (p.outcome() != Outcome.WIDENED && p.outcome() != Outcome.PARTIAL)
                continue;
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("id", p.id().toString());
            List<Object> steps = new ArrayList<>();
            try
            {
                StripeRecord r = node.store().get(p.id()).orElseThrow(() -> new IllegalStateException("no record"));
                long codeLength = r.codeLength();
                if (p.additions().stream().noneMatch(a -> a.bytes() <= codeLength))
                {
                    // nothing would fill it: a widening alone would only add virtual slots
                    for (Addition a : p.additions())
                    {
                        skipped++;
                        steps.add(skippedStep(a, codeLength));
                    }
                    s.put("steps", steps);
                    stripes.add(s);
                    continue;
                }
                if (r.k() < p.toK())
                {
                    if (!machine.reshape(r, p.toK(), p.toCodec()))
                        throw new IllegalStateException("the stripe is " + node.store().get(p.id()).map(x -> x.state() + " at k=" + x.k()).orElse("gone")
                                                        + ": another change moved it");
                    reshaped++;
                    steps.add(Map.of("step", "widened", "k", p.toK(), "codec", p.toCodec()));
                }
                for (Addition a : p.additions())
                {
                    r = node.store().get(p.id()).orElseThrow(() -> new IllegalStateException("no record"));
                    Map<String, Object> step = new LinkedHashMap<>();
                    step.put("slot", a.slot());
                    step.put("member", a.node() + "/" + a.sstable());
                    step.put("bytes", a.bytes());
                    if (a.bytes() > r.codeLength())
                    {
                        skipped++;
                        step = skippedStep(a, r.codeLength());
                    }
                    else if (machine.fill(r, a.slot(), new Member(a.node(), a.sstable(), a.bytes())))
                    {
                        filled++;
                        filledBytes += a.bytes();
                        boundOfDone += (long) r.m() * a.bytes();
                        step.put("step", "filled");
                    }
                    else
                    {
                        skipped++;
                        step.put("step", "not filled");
                        step.put("reason", "the member is gone from its node or another change moved the stripe");
                    }
                    steps.add(step);
                }
            }
            catch (RuntimeException e)
            {
                failed++;
                s.put("error", e.getMessage());
                logger.warn("widening of stripe {} to k={} stopped (recovery finishes a recorded change): {}", p.id(), p.toK(), e.toString());
            }
            s.put("steps", steps);
            stripes.add(s);
        }
        long millis = node.clock().millisSince(start);
        logger.info("widening to k={}: {} stripes widened, {} members filled ({} bytes, Scale-RS bound {} bytes), {} skipped, {} failed ({} ms)",
                    targetK, reshaped, filled, filledBytes, boundOfDone, skipped, failed, millis);
        node.metrics().counter("Transitioning", "StripesWidened", null).inc(reshaped);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("target_k", targetK);
        doc.put("dry_run", false);
        doc.put("stripes_widened", reshaped);
        doc.put("members_filled", filled);
        doc.put("member_bytes_filled", filledBytes);
        // each parity node reads each filled member once (PARITY_CHANGE): m * L per fill, Scale-RS's bound for it
        doc.put("lower_bound_of_done", boundOfDone);
        doc.put("planned_bytes_moved", plan.bytesMoved());
        doc.put("planned_lower_bound", plan.lowerBound());
        doc.put("skipped", skipped);
        doc.put("failed", failed);
        doc.put("millis", millis);
        doc.put("stripes", stripes);
        return Json.write(doc);
    }

    private static Map<String, Object> skippedStep(Addition a, long codeLength)
    {
        Map<String, Object> step = new LinkedHashMap<>();
        step.put("slot", a.slot());
        step.put("member", a.node() + "/" + a.sstable());
        step.put("bytes", a.bytes());
        step.put("step", "skipped");
        step.put("reason", "longer than the stripe's code length (" + codeLength + " bytes, its longest member aligned): "
                           + "the record's code length does not change (not built)");
        return step;
    }
}
