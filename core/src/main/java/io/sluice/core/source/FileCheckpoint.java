package io.sluice.core.source;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The position of a {@code file} source ({@code [[sources]] checkpoint_file}): how many lines of the input Kafka has
 * acknowledged, and what the input looked like, so that a new run resumes after them and never skips lines of
 * another file.
 *
 * <p>Format: UTF-8 text, one {@code key=value} per line, {@code #} starts a comment:
 * <pre>
 * # Sluice file-source checkpoint: lines before `line` (counted from 0, blank lines included) are in Kafka
 * source=github-by-type
 * input=/data/events.jsonl.gz
 * line=8502
 * prefix_bytes=65536
 * prefix_sha256=9f86d0...
 * </pre>
 * {@code prefix_sha256} is the SHA-256 of the input's first {@code prefix_bytes} bytes as stored (compressed, for a
 * gzip file), at most {@link #PREFIX_BYTES}: a file that was only appended to keeps it, a replaced or rewritten one
 * almost surely does not. Written to a temporary file in the same directory and renamed over the old one (atomically
 * where the file system can), so a crash leaves the old or the new checkpoint, never half of one.
 *
 * <p>Immutable; the static methods are thread-safe.
 *
 * @param line         lines before this one are acknowledged (0-based count, blank lines included)
 * @param prefixBytes  how many leading bytes of the input {@code prefixSha256} covers
 * @param prefixSha256 SHA-256 of them, lower-case hex
 */
public record FileCheckpoint(long line, int prefixBytes, String prefixSha256)
{
    /** Bytes of the input's start that identify it: 64 KiB. */
    public static final int PREFIX_BYTES = 1 << 16;

    /**
     * Reads a checkpoint.
     *
     * @param file the checkpoint file
     * @return the checkpoint, or null when the file does not exist
     * @throws IOException              when it cannot be read
     * @throws IllegalArgumentException when it is not a checkpoint (the message names the file and what is wrong)
     */
    public static FileCheckpoint read(final Path file) throws IOException
    {
        final String text;
        try
        {
            text = Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (final NoSuchFileException e)
        {
            return null;
        }
        long line = -1;
        int prefixBytes = -1;
        String sha = null;
        int n = 0;
        for (final String raw : text.split("\n", -1))
        {
            n++;
            final String l = raw.strip();
            if (l.isEmpty() || l.startsWith("#"))
            {
                continue;
            }
            final int eq = l.indexOf('=');
            if (eq < 0)
            {
                throw new IllegalArgumentException(file + " line " + n + ": not key=value: " + abbreviate(l));
            }
            final String key = l.substring(0, eq);
            final String value = l.substring(eq + 1);
            try
            {
                switch (key)
                {
                    case "line" -> line = Long.parseLong(value);
                    case "prefix_bytes" -> prefixBytes = Integer.parseInt(value);
                    case "prefix_sha256" -> sha = value;
                    default -> {
                        // source and input are for people; unknown keys are kept for later versions
                    }
                }
            }
            catch (final NumberFormatException e)
            {
                throw new IllegalArgumentException(file + " line " + n + ": " + key + " is not a number: "
                    + abbreviate(value));
            }
        }
        if (line < 0 || prefixBytes < 0 || prefixBytes > PREFIX_BYTES || sha == null || !sha.matches("[0-9a-f]{64}"))
        {
            throw new IllegalArgumentException(file + " is not a Sluice file-source checkpoint (it needs line >= 0, "
                + "prefix_bytes 0.." + PREFIX_BYTES + " and a 64-digit prefix_sha256)");
        }
        return new FileCheckpoint(line, prefixBytes, sha);
    }

    /**
     * Writes {@code this} to {@code file} atomically (a temporary file in the same directory, then a rename).
     *
     * @param file   the checkpoint file
     * @param source the source's name (recorded for people)
     * @param input  the input's path (recorded for people)
     * @throws IOException when it cannot be written
     */
    public void write(final Path file, final String source, final String input) throws IOException
    {
        final String text = "# Sluice file-source checkpoint: lines before `line` (counted from 0, blank lines "
            + "included) are in Kafka\nsource=" + oneLine(source) + "\ninput=" + oneLine(input) + "\nline=" + line
            + "\nprefix_bytes=" + prefixBytes + "\nprefix_sha256=" + prefixSha256 + "\n";
        final Path dir = file.toAbsolutePath().getParent();
        if (dir == null || file.getFileName() == null)
        {
            throw new IOException("checkpoint path " + file + " names no file in a directory");
        }
        final Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        try
        {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final AtomicMoveNotSupportedException e)
        {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * @param newLine the line number the new checkpoint stands at
     * @return this checkpoint at another line, same input identity
     */
    public FileCheckpoint at(final long newLine)
    {
        return new FileCheckpoint(newLine, prefixBytes, prefixSha256);
    }

    /**
     * Hashes the first {@code limit} bytes of a stream (fewer when it ends first).
     *
     * @param in    the raw input, read from its start; not closed
     * @param limit at most this many bytes, {@code <=} {@link #PREFIX_BYTES}
     * @return a checkpoint at line 0 identifying the input
     * @throws IOException when the stream fails
     */
    public static FileCheckpoint identify(final InputStream in, final int limit) throws IOException
    {
        final byte[] prefix = in.readNBytes(Math.min(limit, PREFIX_BYTES));
        return new FileCheckpoint(0, prefix.length, sha256(prefix));
    }

    private static String sha256(final byte[] bytes)
    {
        try
        {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    private static String oneLine(final String s)
    {
        return s.replace('\n', ' ').replace('\r', ' ');
    }

    private static String abbreviate(final String s)
    {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
