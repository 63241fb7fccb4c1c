package io.elect.core.fuzz;

public final class LiveFrameFuzzer
{
    public static void main(String[] args) throws Exception
    {
        throw new UnsupportedOperationException("not yet");
    }
}
