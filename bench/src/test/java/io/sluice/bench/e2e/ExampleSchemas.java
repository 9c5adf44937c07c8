package io.sluice.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The example's files, read for tests: examples/github-events.{toml,sql} and the sample data. */
final class ExampleSchemas
{
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path TOML = ROOT.resolve("examples/github-events.toml");
    static final Path SQL = ROOT.resolve("examples/github-events.sql");
    static final Path DATA = ROOT.resolve("examples/data/github-events.jsonl.gz");

    private static final Pattern CREATE = Pattern.compile("CREATE TABLE IF NOT EXISTS github\\.(\\w+) \\(");

    private ExampleSchemas()
    {
    }

    /** @return per table of examples/github-events.sql, its columns as {name, type}, in order */
    static Map<String, List<String[]>> schemas() throws IOException
    {
        final String sql = Files.readString(SQL).replaceAll("--[^\n]*", "");
        final Map<String, List<String[]>> out = new LinkedHashMap<>();
        final Matcher m = CREATE.matcher(sql);
        while (m.find())
        {
            int depth = 1;
            int i = m.end();
            final StringBuilder col = new StringBuilder();
            final List<String[]> cols = new ArrayList<>();
            for (; depth > 0; i++)
            {
                final char c = sql.charAt(i);
                if (c == '(')
                {
                    depth++;
                }
                else if (c == ')')
                {
                    depth--;
                }
                if (depth == 0 || depth == 1 && c == ',')
                {
                    final String[] f = col.toString().strip().split("\\s+", 2);
                    cols.add(new String[]{f[0], f[1]});
                    col.setLength(0);
                }
                else
                {
                    col.append(c);
                }
            }
            out.put(m.group(1), cols);
        }
        return out;
    }
}
