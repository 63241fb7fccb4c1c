package io.elect.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Splits a cassandra.yaml text into the {@code elect:} section (validated into an {@link ElectConfig}) and
 * the rest, which is handed unchanged, byte for byte, to Cassandra's own loader.
 *
 * <p>The split is textual so that Cassandra sees exactly what the operator wrote (comments, quoting, number
 * formats): the section is the top-level line {@code elect:} plus every following line that is blank, a
 * comment or indented; it ends at the next line that starts in column 0 with anything but {@code #}.
 */
public final class ElectYaml
{
    public static final String SECTION = "elect";

    /** The outcome of a split: the validated section and Cassandra's part of the file. */
    public static final class Split
    {
        public final ElectConfig config;
        public final String cassandraYaml;

        Split(ElectConfig config, String cassandraYaml)
        {
            this.config = config;
            this.cassandraYaml = cassandraYaml;
        }
    }

    private ElectYaml()
    {
    }

    /**
     * @throws ElectConfigException if the section is invalid, is not valid YAML, or appears twice
     */
    public static Split split(String yamlText)
    {
        String[] lines = yamlText.split("\n", -1);
        List<String> rest = new ArrayList<>(lines.length);
        StringBuilder section = null;
        boolean inSection = false;
        for (String line : lines)
        {
            boolean topLevel = !line.isEmpty() && !Character.isWhitespace(line.charAt(0)) && line.charAt(0) != '#';
            if (topLevel)
                inSection = false;
            if (topLevel && isSectionStart(line))
            {
                if (section != null)
                    throw new ElectConfigException(SECTION, "appears more than once in the file; allowed: one elect: section");
                section = new StringBuilder();
                inSection = true;
            }
            if (inSection)
                section.append(line).append('\n');
            else
                rest.add(line);
        }
        ElectConfig config = ElectConfig.fromMap(section == null ? Map.of() : parseSection(section.toString()));
        return new Split(config, String.join("\n", rest));
    }

    private static boolean isSectionStart(String line)
    {
        if (!line.startsWith(SECTION))
            return false;
        String after = line.substring(SECTION.length()).stripLeading();
        return after.startsWith(":");
    }

    private static Map<?, ?> parseSection(String text)
    {
        Object doc;
        try
        {
            doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        }
        catch (YAMLException e)
        {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage().replaceAll("\\s+", " ").trim();
            throw new ElectConfigException(SECTION, "is not valid YAML: " + msg);
        }
        if (!(doc instanceof Map))
            throw new ElectConfigException(SECTION, "must be a mapping of keys to values");
        Object value = ((Map<?, ?>) doc).get(SECTION);
        if (value == null)
            return Map.of();
        if (!(value instanceof Map))
            throw new ElectConfigException(SECTION, "must be a mapping of keys to values");
        return (Map<?, ?>) value;
    }
}
