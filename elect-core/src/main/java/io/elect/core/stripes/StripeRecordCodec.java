package io.elect.core.stripes;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;


/**
 * The binary form of a {@link StripeRecord} (docs/formats/stripe-metadata.md). Big-endian; strings are u16 length +
 * UTF-8; the last 4 bytes are the CRC32C of everything before them. Version 1: parity generation 0 (implicit);
 * version 2 = version 1 plus the parity generation (i64) after the parity nodes; version 3 = version 2 plus the
 * change under way (u16 slot, then the previous member encoded like a member), written only while a change is under
 * way (CHANGING, CHANGED). Each record is written with the lowest version that holds it, so that nodes which only
 * know an older version keep reading every stripe that does not need a newer one. DO NOT CHANGE the layout of a
 * version: add one.
 */
public final class StripeRecordCodec
{
    public static final int MAGIC = 0x45535452; // "ESTR"
    /** The highest version this codec reads and writes. */
    public static final int VERSION = 3;
    static final int VERSION_1 = 1;
    static final int VERSION_2 = 2;

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
        int version = r.change() != null ? VERSION : r.parityGeneration() != 0 ? VERSION_2 : VERSION_1;
        b.putInt(MAGIC).put((byte) version).put(r.id().toBytes()).put((byte) r.state().code)
         .putLong(r.version()).putLong(r.updatedAtMillis());
        putString(b, r.codecId());
        b.putShort((short) r.k()).putShort((short) r.m()).putLong(r.codeLength());
        for (Member mem : r.members())
            putMember(b, mem);
        for (String p : r.parityNodes())
            putString(b, p);
        if (version >= VERSION_2)
            b.putLong(r.parityGeneration());
        if (version >= VERSION)
        {
            b.putShort((short) r.change().slot());
            putMember(b, r.change().previous());
        }
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
            if (version < VERSION_1 || version > VERSION)
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
                members.add(getMember(b));
            List<String> parity = new ArrayList<>(m);
            for (int i = 0; i < m; i++)
                parity.add(getString(b));
            long generation = 0;
            if (version >= 2)
            {
                generation = b.getLong();
                if (generation < 1)
                    throw new CorruptRecordException("stripe record: version " + version + " with parity generation " + generation + " (must be >= 1)");
            }
            StripeRecord.Change change = null;
            if (version >= VERSION)
                change = new StripeRecord.Change(b.getShort() & 0xffff, getMember(b));
            if (b.position() != bytes.length - 4)
                throw new CorruptRecordException("stripe record: " + (bytes.length - 4 - b.position()) + " trailing bytes");
            return new StripeRecord(StripeId.fromBytes(id), codec, k, m, codeLength, members, parity, generation, change, state, ver, at);
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
            n += memberSize(mem);
        for (String p : r.parityNodes())
            n += strSize(p);
        if (r.change() != null)
            n += 2 + memberSize(r.change().previous());
        return n + (r.parityGeneration() == 0 && r.change() == null ? 0 : 8);
    }

    private static int memberSize(Member mem)
    {
        return 1 + (mem.isVirtual() ? 0 : strSize(mem.node()) + strSize(mem.sstable()) + 8);
    }

    private static void putMember(ByteBuffer b, Member mem)
    {
        b.put((byte) (mem.isVirtual() ? 1 : 0));
        if (!mem.isVirtual())
        {
            putString(b, mem.node());
            putString(b, mem.sstable());
            b.putLong(mem.realBytes());
        }
    }

    private static Member getMember(ByteBuffer b)
    {
        int flags = b.get() & 0xff;
        if (flags == 1)
            return Member.virtual();
        if (flags == 0)
            return new Member(getString(b), getString(b), b.getLong());
        throw new CorruptRecordException("stripe record: bad member flags " + flags);
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
