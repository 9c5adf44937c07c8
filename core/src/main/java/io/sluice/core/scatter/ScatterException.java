package io.sluice.core.scatter;

/**
 * A scatter pipeline cannot start: the cluster cannot be reached, or a fixed topic of the rule does not exist and
 * may not be created. The engine maps it to exit code 1.
 */
public final class ScatterException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, naming the source, topic or cluster
     */
    public ScatterException(final String message)
    {
        super(message);
    }

    /**
     * @param message what is wrong
     * @param cause   the client's error
     */
    public ScatterException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
