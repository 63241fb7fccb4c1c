package io.elect.offload;

/** The object (or its bucket) does not exist. Not retried. */
public class ObjectNotFoundException extends ColdStoreException
{
    public ObjectNotFoundException(String message)
    {
        super(message);
    }
}
