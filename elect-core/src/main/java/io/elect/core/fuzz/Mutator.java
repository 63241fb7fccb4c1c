package io.elect.core.fuzz;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A seeded, structure-aware mutator: one to four edits of a valid encoding. Byte edits (bit flips, interesting
 * bytes, interesting 16/32/64-bit big-endian values at any offset: 0, -1, MIN, MAX, 2^30, lengths just past the
 * input), truncation, insertion, deletion and duplication of ranges, splicing with another seed; for text formats
 * also line edits (delete, duplicate, swap) and number edits (huge, negative, empty, non-digits). Deterministic for
 * a given {@link Random}: a failing input is reproduced from the run's seed and index.
 */
public final class Mutator
{
    private static final byte[] BYTES = { 0, 1, 0x7f, (byte) 0x80, (byte) 0xff, '\n', ' ', '=', '-', '9', ',', '/', '.', ':' };
    private static final long[] VALUES = { 0, 1, -1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffffL, 0x80000000L, 0xffffffffL, 1L << 30,
                                           Long.MAX_VALUE, Long.MIN_VALUE, 4096, 65535, 1 << 24 };
    private static final String[] NUMBERS = { "0", "-1", "99999999999999999999", "2147483648", "-2147483649", "", "1e9", "0x10",
                                              "9223372036854775807", "NaN", "1.5" };

    private Mutator()
    {
    }

    public static byte[] mutate(byte[] seed, List<byte[]> corpus, boolean text, Random r)
    {
        byte[] b = seed;
        int edits = 1 + r.nextInt(4);
        for (int i = 0; i < edits; i++)
            b = text && r.nextInt(3) == 0 ? textEdit(b, r) : byteEdit(b, corpus, r);
        return b;
    }

    private static byte[] byteEdit(byte[] b, List<byte[]> corpus, Random r)
    {
        int n = b.length;
        switch (r.nextInt(10))
        {
            case 0:
                if (n == 0)
                    return new byte[]{ (byte) r.nextInt() };
                b = b.clone();
                b[r.nextInt(n)] ^= (byte) (1 << r.nextInt(8));
                return b;
            case 1:
                if (n == 0)
                    return b;
                b = b.clone();
                b[r.nextInt(n)] = BYTES[r.nextInt(BYTES.length)];
                return b;
            case 2:
            {
                int width = new int[]{ 2, 4, 8 }[r.nextInt(3)];
                if (n < width)
                    return b;
                b = b.clone();
                long v = r.nextInt(4) == 0 ? n + r.nextInt(64) - 8 : VALUES[r.nextInt(VALUES.length)];
                ByteBuffer bb = ByteBuffer.wrap(b);
                int at = r.nextInt(n - width + 1);
                if (width == 2)
                    bb.putShort(at, (short) v);
                else if (width == 4)
                    bb.putInt(at, (int) v);
                else
                    bb.putLong(at, v);
                return b;
            }
            case 3:
                return Arrays.copyOf(b, n == 0 ? 0 : r.nextInt(n));
            case 4:
            {
                byte[] ins = new byte[1 + r.nextInt(16)];
                r.nextBytes(ins);
                return insert(b, r.nextInt(n + 1), ins);
            }
            case 5:
            {
                if (n == 0)
                    return b;
                int from = r.nextInt(n), len = 1 + r.nextInt(Math.min(32, n - from));
                byte[] out = new byte[n - len];
                System.arraycopy(b, 0, out, 0, from);
                System.arraycopy(b, from + len, out, from, n - from - len);
                return out;
            }
            case 6:
            {
                if (n == 0)
                    return b;
                int from = r.nextInt(n), len = 1 + r.nextInt(Math.min(64, n - from));
                return insert(b, r.nextInt(n + 1), Arrays.copyOfRange(b, from, from + len));
            }
            case 7:
            {
                byte[] other = corpus.get(r.nextInt(corpus.size()));
                int cut = n == 0 ? 0 : r.nextInt(n + 1), from = other.length == 0 ? 0 : r.nextInt(other.length + 1);
                byte[] out = Arrays.copyOf(b, cut + other.length - from);
                System.arraycopy(other, from, out, cut, other.length - from);
                return out;
            }
            case 8:
            {
                if (n < 2)
                    return b;
                b = b.clone();
                int i = r.nextInt(n), j = r.nextInt(n);
                byte t = b[i];
                b[i] = b[j];
                b[j] = t;
                return b;
            }
            default:
            {
                byte[] out = b.clone();
                for (int i = 0; i < 1 + r.nextInt(8) && n > 0; i++)
                    out[r.nextInt(n)] = (byte) r.nextInt();
                return out;
            }
        }
    }

    private static byte[] textEdit(byte[] b, Random r)
    {
        String s = new String(b, StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>(Arrays.asList(s.split("\n", -1)));
        int n = lines.size();
        switch (r.nextInt(5))
        {
            case 0:
                if (n > 1)
                    lines.remove(r.nextInt(n - 1));
                break;
            case 1:
                lines.add(r.nextInt(n), lines.get(r.nextInt(n)));
                break;
            case 2:
                if (n > 2)
                    java.util.Collections.swap(lines, r.nextInt(n - 1), r.nextInt(n - 1));
                break;
            default:
            {
                int i = r.nextInt(n);
                String line = lines.get(i);
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("-?[0-9]+").matcher(line);
                List<int[]> spans = new ArrayList<>();
                while (m.find())
                    spans.add(new int[]{ m.start(), m.end() });
                if (spans.isEmpty())
                    break;
                int[] sp = spans.get(r.nextInt(spans.size()));
                lines.set(i, line.substring(0, sp[0]) + NUMBERS[r.nextInt(NUMBERS.length)] + line.substring(sp[1]));
            }
        }
        return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] insert(byte[] b, int at, byte[] ins)
    {
        byte[] out = new byte[b.length + ins.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(ins, 0, out, at, ins.length);
        System.arraycopy(b, at, out, at + ins.length, b.length - at);
        return out;
    }
}
