package io.elect.core.config;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** A minimal JSON writer for the plain values ELECT reports (maps, collections, strings, numbers, booleans). */
public final class Json
{
    private Json()
    {
    }

    public static String write(Object value)
    {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v)
    {
        if (v == null)
            sb.append("null");
        else if (v instanceof Number || v instanceof Boolean)
            sb.append(v);
        else if (v instanceof Map)
        {
            sb.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = ((Map<?, ?>) v).entrySet().iterator();
            while (it.hasNext())
            {
                Map.Entry<?, ?> e = it.next();
                string(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
                if (it.hasNext())
                    sb.append(',');
            }
            sb.append('}');
        }
        else if (v instanceof Collection)
        {
            sb.append('[');
            Iterator<?> it = ((Collection<?>) v).iterator();
            while (it.hasNext())
            {
                write(sb, it.next());
                if (it.hasNext())
                    sb.append(',');
            }
            sb.append(']');
        }
        else
            string(sb, v.toString());
    }

    private static void string(StringBuilder sb, String s)
    {
        sb.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            char c = s.charAt(i);
            switch (c)
            {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20)
                        sb.append(String.format("\\u%04x", (int) c));
                    else
                        sb.append(c);
            }
        }
        sb.append('"');
    }
}
