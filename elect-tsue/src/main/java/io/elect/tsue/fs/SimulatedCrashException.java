package io.elect.tsue.fs;

import java.io.IOException;

/** Raised by {@link FaultInjectingFileLayer} at its crash point and by every operation after it. */
public class SimulatedCrashException extends IOException
{
    public SimulatedCrashException(String message)
    {
        super(message);
    }
}
