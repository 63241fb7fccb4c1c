package io.elect.coding;

/** Raised when a reconstruction is asked of fewer than k surviving chunks (more than m erasures). */
public class TooFewChunksException extends IllegalArgumentException
{
    public TooFewChunksException(String message)
    {
        super(message);
    }
}
