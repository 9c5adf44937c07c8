package io.sluice.core.config;

import java.util.List;

/**
 * A configuration that cannot be used; carries every problem found, each named by key (and line where known).
 * The command line maps it to exit code 2.
 */
public final class ConfigException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient List<ConfigProblem> problems;

    /** @param problems every problem found, at least one */
    public ConfigException(final List<ConfigProblem> problems)
    {
        super(render(problems));
        this.problems = List.copyOf(problems);
    }

    /**
     * A single problem.
     *
     * @param key     dotted key
     * @param message what is wrong
     */
    public ConfigException(final String key, final String message)
    {
        this(List.of(new ConfigProblem(key, 0, message)));
    }

    /** @return the problems, in the order found */
    public List<ConfigProblem> problems()
    {
        return problems;
    }

    private static String render(final List<ConfigProblem> problems)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(problems.size()).append(problems.size() == 1 ? " configuration problem" : " configuration problems");
        for (final ConfigProblem p : problems)
        {
            sb.append("\n  ").append(p);
        }
        return sb.toString();
    }
}
