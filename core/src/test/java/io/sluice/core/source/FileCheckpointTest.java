package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileCheckpointTest
{
    @TempDir
    Path dir;

    private static FileCheckpoint identify(final byte[] input, final int limit) throws IOException
    {
        return FileCheckpoint.identify(new ByteArrayInputStream(input), limit);
    }

    @Test
    void shouldRoundTripThroughItsFileAndLeaveNoTemporaryFile() throws IOException
    {
        final Path f = dir.resolve("users.pos");
        assertNull(FileCheckpoint.read(f), "no file yet");
        final FileCheckpoint cp = identify("{\"a\":1}\n{\"a\":2}\n".getBytes(StandardCharsets.UTF_8),
            FileCheckpoint.PREFIX_BYTES).at(2);
        cp.write(f, "users", "file in.jsonl\nx");
        assertEquals(cp, FileCheckpoint.read(f));
        cp.at(7).write(f, "users", "file in.jsonl");
        assertEquals(7, FileCheckpoint.read(f).line());
        try (var files = Files.list(dir))
        {
            assertEquals(1, files.count(), "only the checkpoint itself");
        }
        final String text = Files.readString(f);
        assertTrue(text.contains("\ninput=file in.jsonl\n"), text);
        // printf '{"a":1}\n{"a":2}\n' | sha256sum
        assertTrue(
            text.contains(
                "prefix_bytes=16\nprefix_sha256=e91bd3062f38c3f1df2165d987872b022fb39a08c642a6fbc3b862dd2a2aaf24\n"),
            text);
    }

    @Test
    void shouldMatchTheKnownSha256OfThePrefix() throws IOException
    {
        // FIPS 180-2 test vector: SHA-256("abc")
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            identify("abc".getBytes(StandardCharsets.US_ASCII), 1 << 16).prefixSha256());
    }

    @Test
    void shouldKeepItsIdentityWhenTheInputIsAppendedToAndLoseItWhenRewritten() throws IOException
    {
        final byte[] big = new byte[200_000];
        Arrays.fill(big, (byte)'x');
        final FileCheckpoint before = identify(big, FileCheckpoint.PREFIX_BYTES);
        assertEquals(FileCheckpoint.PREFIX_BYTES, before.prefixBytes());
        final byte[] appended = Arrays.copyOf(big, 300_000);
        assertEquals(before, identify(appended, before.prefixBytes()));
        final byte[] rewritten = big.clone();
        rewritten[65_535] = 'y';
        assertNotEquals(before.prefixSha256(), identify(rewritten, before.prefixBytes()).prefixSha256());
        rewritten[65_535] = 'x';
        rewritten[65_536] = 'y'; // past the prefix: not seen (documented)
        assertEquals(before, identify(rewritten, before.prefixBytes()));
        // a small file identifies by what it had; after growing, the same bytes are compared
        final FileCheckpoint small = identify(Arrays.copyOf(big, 100), FileCheckpoint.PREFIX_BYTES);
        assertEquals(100, small.prefixBytes());
        assertEquals(small, identify(big, small.prefixBytes()));
        assertEquals(99, identify(Arrays.copyOf(big, 99), small.prefixBytes()).prefixBytes(), "a shorter input shows");
    }

    @Test
    void shouldNameTheFileAndTheLineOfWhatIsWrong() throws IOException
    {
        final Path f = dir.resolve("bad.pos");
        Files.writeString(f, "# c\nline=12x\n");
        final IllegalArgumentException nan = assertThrows(IllegalArgumentException.class, () -> FileCheckpoint.read(f));
        assertEquals(f + " line 2: line is not a number: 12x", nan.getMessage());
        Files.writeString(f, "hello\n");
        assertEquals(f + " line 1: not key=value: hello",
            assertThrows(IllegalArgumentException.class, () -> FileCheckpoint.read(f)).getMessage());
        Files.writeString(f, "line=3\nprefix_bytes=10\nprefix_sha256=abc\n");
        final String partial = assertThrows(IllegalArgumentException.class, () -> FileCheckpoint.read(f)).getMessage();
        assertTrue(partial.startsWith(f + " is not a Sluice file-source checkpoint"), partial);
        Files.writeString(f, "line=-1\nprefix_bytes=10\nprefix_sha256=" + "0".repeat(64) + "\n");
        assertThrows(IllegalArgumentException.class, () -> FileCheckpoint.read(f));
        Files.writeString(f, "line=1\nprefix_bytes=10\nprefix_sha256=" + "0".repeat(64) + "\nfuture=1\n");
        assertEquals(1, FileCheckpoint.read(f).line(), "unknown keys are ignored");
        assertFalse(Files.exists(dir.resolve(".bad.pos.tmp")));
    }
}
