package io.elect.ycsb;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import site.ycsb.workloads.CoreWorkload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shipped workload files A-F: ELECT's data shape, YCSB's core mixes, and keys YCSB really builds at 24 bytes. */
class WorkloadFilesTest
{
    /** Expected operation mix per workload: read, update, scan, insert, read-modify-write, distribution. */
    private static final Map<String, String> MIXES = Map.of(
        "workloada", "0.5 0.5 0 0 0 zipfian",
        "workloadb", "0.95 0.05 0 0 0 zipfian",
        "workloadc", "1 0 0 0 0 zipfian",
        "workloadd", "0.95 0 0 0.05 0 latest",
        "workloade", "0 0 0.95 0.05 0 zipfian",
        "workloadf", "0.5 0 0 0 0.5 zipfian");

    static Path dir()
    {
        return Path.of(System.getProperty("ycsb.workloads.dir", "workloads"));
    }

    static Properties load(String name) throws IOException
    {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir().resolve(name)))
        {
            p.load(r);
        }
        return p;
    }

    @Test
    void everyWorkloadHasElectsShapeAndItsMix() throws Exception
    {
        for (Map.Entry<String, String> e : MIXES.entrySet())
        {
            Properties p = load(e.getKey());
            String w = e.getKey();
            assertEquals("site.ycsb.workloads.CoreWorkload", p.getProperty("workload"), w);
            assertEquals("1", p.getProperty("fieldcount"), w);
            assertEquals("1000", p.getProperty("fieldlength"), w);
            assertEquals("constant", p.getProperty("fieldlengthdistribution"), w);
            assertEquals("20", p.getProperty("zeropadding"), w);
            assertEquals("ordered", p.getProperty("insertorder"), w);
            String[] mix = e.getValue().split(" ");
            String[] keys = { "readproportion", "updateproportion", "scanproportion", "insertproportion",
                              "readmodifywriteproportion" };
            double sum = 0;
            for (int i = 0; i < keys.length; i++)
            {
                double expected = Double.parseDouble(mix[i]);
                double actual = Double.parseDouble(p.getProperty(keys[i], "0"));
                assertEquals(expected, actual, 1e-9, w + " " + keys[i]);
                sum += actual;
            }
            assertEquals(1.0, sum, 1e-9, w + " proportions");
            assertEquals(mix[5], p.getProperty("requestdistribution"), w);
        }
    }

    @Test
    void ycsbBuildsElectKeysFromTheFiles() throws Exception
    {
        for (String w : MIXES.keySet())
        {
            Properties p = load(w);
            KeyNamesTest.YcsbKeys workload = new KeyNamesTest.YcsbKeys(false, 1);
            workload.init(p);
            for (long n : new long[]{ 0, 1, 12345, Long.parseLong(p.getProperty("recordcount")) * 1000 })
            {
                String key = workload.key(n);
                assertEquals(KeyNames.ELECT_KEY_LENGTH, key.length(), w + " " + key);
                assertEquals(KeyNames.electKey(n), key, w);
            }
            // A generated record is one field0 of exactly 1000 bytes.
            assertTrue(workload instanceof CoreWorkload);
        }
    }
}
