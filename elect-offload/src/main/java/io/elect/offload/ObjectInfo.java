package io.elect.offload;

/**
 * What the cold tier knows about one object.
 *
 * @param key          the object key
 * @param length       length of the user data in bytes (not of the stored, framed object)
 * @param storedLength length of the stored object (data, per-block checksums and footer; see
 *                     docs/formats/cold-objects.md)
 */
public record ObjectInfo(String key, long length, long storedLength)
{
}
