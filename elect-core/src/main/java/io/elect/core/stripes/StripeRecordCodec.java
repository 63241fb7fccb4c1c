package io.elect.core.stripes;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;


/**
 * The binary form of a {@link StripeRecord}, version 1 (docs/formats/stripe-metadata.md). Big-endian; strings are
 * u16 length + UTF-8; the last 4 bytes are the CRC32C of everything before them. DO NOT CHANGE the layout of
 * version 1: add a version.
 */
public final class StripeRecordCodec
{
    public static final int MAGIC = 0x45535452; // "ESTR"
    public static final int VERSION = 1;

    /** A stored record that fails its checksum or does not parse. */
    public static final class CorruptRecordException extends RuntimeException
    {
        public CorruptRecordException(String message)
        {
            super(message);
        }
    }

    private StripeRecordCodec()
    {
    }

    public static byte[] encode(StripeRecord r)
    {
        ByteBuffer b = ByteBuffer.allocate(size(r));
        b.putInt(MAGIC).put((byte) VERSION).put(r.id().toBytes()).put((byte) r.state().code)
         .putLong(r.version()).putLong(r.updatedAtMillis());
        putString(b, r.codecId());
        b.putShort((short) r.k()).putShort((short) r.m()).putLong(r.codeLength());
        for (Member mem : r.members())
        {
            b.put((byte) (mem.isVirtual() ? 1 : 0));
            if (!mem.isVirtual())
            {
                putString(b, mem.node());
                putString(b, mem.sstable());
                b.putLong(mem.realBytes());
            }
        }
        for (String p : r.parityNodes())
            putString(b, p);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    public static StripeRecord decode(byte[] bytes)
    {
        if (bytes == null || bytes.length < 9)
            throw new CorruptRecordException("stripe record: " + (bytes == null ? "null" : bytes.length + " bytes") + ", too short");
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.getInt(bytes.length - 4) != (int) crc.getValue())
            throw new CorruptRecordException("stripe record: CRC32C mismatch");
        try
        {
            if (b.getInt() != MAGIC)
                throw new CorruptRecordException("stripe record: bad magic");
            int version = b.get() & 0xff;
            if (version != VERSION)
                throw new CorruptRecordException("stripe record: unsupported format version " + version);
            byte[] id = new byte[16];
            b.get(id);
            StripeState state = StripeState.ofCode(b.get() & 0xff);
            long ver = b.getLong();
            long at = b.getLong();
            String codec = getString(b);
            int k = b.getShort() & 0xffff;
            int m = b.getShort() & 0xffff;
            long codeLength = b.getLong();
            List<Member> members = new ArrayList<>(k);
            for (int i = 0; i < k; i++)
            {
                int flags = b.get() & 0xff;
                if (flags == 1)
                    members.add(Member.virtual());
                else if (flags == 0)
                    members.add(new Member(getString(b), getString(b), b.getLong()));
                else
                    throw new CorruptRecordException("stripe record: bad member flags " + flags);
            }
            List<String> parity = new ArrayList<>(m);
            for (int i = 0; i < m; i++)
                parity.add(getString(b));
            if (b.position() != bytes.length - 4)
                throw new CorruptRecordException("stripe record: " + (bytes.length - 4 - b.position()) + " trailing bytes");
            return new StripeRecord(StripeId.fromBytes(id), codec, k, m, codeLength, members, parity, state, ver, at);
        }
        catch (BufferUnderflowException | IllegalArgumentException e)
        {
            throw new CorruptRecordException("stripe record: " + e);
        }
    }

    private static int size(StripeRecord r)
    {
        int n = 4 + 1 + 16 + 1 + 8 + 8 + strSize(r.codecId()) + 2 + 2 + 8 + 4;
        for (Member mem : r.members())
            n += 1 + (mem.isVirtual() ? 0 : strSize(mem.node()) + strSize(mem.sstable()) + 8);
        for (String p : r.parityNodes())
            n += strSize(p);
        return n;
    }

    private static int strSize(String s)
    {
        int len = s.getBytes(StandardCharsets.UTF_8).length;
        if (len > 0xffff)
            throw new IllegalArgumentException("string of " + len + " bytes exceeds 65535: " + s.substring(0, 40) + "...");
        return 2 + len;
    }

    private static void putString(ByteBuffer b, String s)
    {
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        b.putShort((short) u.length).put(u);
    }

    private static String getString(ByteBuffer b)
    {
        byte[] u = new byte[b.getShort() & 0xffff];
        b.get(u);
        return new String(u, StandardCharsets.UTF_8);
    }
}
