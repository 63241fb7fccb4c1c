package io.elect.tsue.engine;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.coding.ErasureCoders;
import io.elect.tsue.fs.MemFileLayer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigTest
{
    @Test
    void badArgumentsAreNamed() throws Exception
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> TsueConfig.builder().chunkSize(5000).build());
        assertTrue(e.getMessage().contains("chunkSize"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TsueConfig.builder().dpuRatio(2));
        assertTrue(e.getMessage().contains("dpuRatio"), e.getMessage());
        TsueConfig cfg = Fixture.small(UpdatePolicy.TSUE, 0);
        Fixture f = new Fixture(cfg, 1);
        try (UpdateEngine eng = f.engine(false))
        {
            f.create(eng, new java.util.Random(1));
            e = assertThrows(IllegalArgumentException.class, () -> eng.update(0, 4, 0, new byte[1]));
            assertTrue(e.getMessage().contains("chunk"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> eng.read(0, 0, cfg.chunkSize - 1, 2));
            assertTrue(e.getMessage().contains("range"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class,
                     () -> new Cluster(cfg, ErasureCoders.create(6, 3, ErasureCoders.JAVA), List.of(new MemFileLayer())));
    }

    @Test
    void replaceChunkSendsOnlyChangedPages() throws Exception
    {
        for (UpdatePolicy p : UpdatePolicy.values())
        {
            Fixture f = new Fixture(Fixture.small(p, 0), 1);
            try (UpdateEngine e = f.engine(false))
            {
                f.create(e, new java.util.Random(3));
                byte[] next = f.model[0][1].clone();
                next[5] ^= 1;
                next[4096 * 7 + 100] ^= 1;
                next[4096 * 8] ^= 1;
                assertEquals(3, e.replaceChunk(0, 1, next), p + ": changed pages");
                f.model[0][1] = next;
                f.assertReads(e, p + " after replaceChunk");
                e.drain();
                assertTrue(e.parityConsistent(0), p + " parity after replaceChunk");
            }
        }
    }
}
