package io.elect.core.node;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stub downloads left by a crash mid STUB_INSTALL are removed at start; nothing else in the state directory is. */
class StubDownloadsTest
{
    @Test
    void interruptedDownloadsAreRemovedAtStart(@TempDir Path state) throws Exception
    {
        assertEquals(0, LocalTransitionOps.clearInterruptedStubDownloads(state), "no download directory yet");
        Path downloads = state.resolve(LocalTransitionOps.STUB_DOWNLOADS);
        Path a = Files.createDirectories(downloads.resolve("5046ef29fa4eef24c8b1d165017dc07e-1"));
        Files.write(a.resolve("oa-3h5u_0j7l_46w3k2lihm47da05vp-big-Summary.db"), new byte[] { 1, 2, 3 });
        Files.createDirectories(downloads.resolve("aaaa-0"));
        Path other = Files.write(state.resolve("redirects"), new byte[] { 9 });

        assertEquals(2, LocalTransitionOps.clearInterruptedStubDownloads(state));
        assertFalse(Files.exists(a));
        assertTrue(Files.isDirectory(downloads), "the download directory itself stays");
        assertEquals(0, Files.list(downloads).count());
        assertTrue(Files.exists(other), "other state files are untouched");
        assertEquals(0, LocalTransitionOps.clearInterruptedStubDownloads(state));
    }
}
