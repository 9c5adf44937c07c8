package io.sluice.core.stage;

/**
 * What a pipeline's Kafka client last learnt about its authentication: {@code /ready} answers 503 while a failure is
 * recorded. The client code sets it when the broker refuses the credentials (a SASL or TLS handshake failure:
 * Kafka's {@code AuthenticationException}) and clears it when a request succeeds again.
 *
 * <p>Thread-safety: any thread; the last write wins.
 */
public final class ClientHealth
{
    private volatile String authenticationFailure;

    /**
     * Records that the broker refused to authenticate the client.
     *
     * @param reason what the client reported (Kafka's exception message), naming the broker where it can
     */
    public void onAuthenticationFailure(final String reason)
    {
        authenticationFailure = reason == null || reason.isEmpty() ? "authentication failed" : reason;
    }

    /** Records that the client authenticated (a poll, a commit or a send succeeded after a failure). */
    public void onAuthenticated()
    {
        if (authenticationFailure != null)
        {
            authenticationFailure = null;
        }
    }

    /** @return the last authentication failure, or {@code null} when none is recorded */
    public String authenticationFailure()
    {
        return authenticationFailure;
    }
}
