package io.elect.tsue.engine;

/** How updates of erasure-coded chunks reach the parity. DO NOT CHANGE the names: they are configuration values. */
public enum UpdatePolicy
{
    /** FO: read old data and parity, write new data and parity in place before acknowledging. */
    IN_PLACE,
    /** PL: data in place; parity deltas appended to a log at each parity node, applied later. */
    PARITY_LOGGING,
    /** PLR: like PL, with each parity chunk's deltas kept in space reserved next to it. */
    PLR,
    /** PARIX: data in place; new data (and, on a location's first write, its original) logged at parity nodes. */
    PARIX,
    /** DRC-DPU: writes redirected to replicated differential pages, merged into EC data in LRU order later. */
    DPU,
    /** TSUE: replicated data log (front end); data, delta and parity log recycling (back end). */
    TSUE
}
