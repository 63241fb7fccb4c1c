package io.elect.core.transport;

import java.util.Objects;

/**
 * One transport message (docs/formats/transport.md). {@code verb} names the operation (application-defined, 0..65535);
 * {@code requestId} pairs a response with its request on one connection.
 */
public record Frame(Kind kind, long requestId, int verb, byte[] payload)
{
    /** DO NOT CHANGE the codes: they are on the wire. */
    public enum Kind
    {
        REQUEST(1), RESPONSE(2), ERROR(3);

        public final int code;

        Kind(int code)
        {
            this.code = code;
        }

        static Kind ofCode(int code)
        {
            for (Kind k : values())
                if (k.code == code)
                    return k;
            return null;
        }
    }

    public Frame
    {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payload, "payload");
        if (verb < 0 || verb > 0xffff)
            throw new IllegalArgumentException("verb must be in [0, 65535], was " + verb);
    }
}
