package io.sluice.sinks.clickhouse;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.sluice.core.config.ConfigKey;
import io.sluice.core.config.PluginConfigReader;
import io.sluice.core.config.Printable;
import io.sluice.core.config.Secrets;

/**
 * Checks the endpoints and the TLS keys of a ClickHouse sink's plugin_config. An endpoint may carry the credentials
 * ({@code https://user:password@host:8443}): they are taken off the URL (percent-decoded) and become the sink's
 * username and password, so the URL that Sluice keeps, logs and labels metrics with holds none. Stateless; used by
 * {@link ClickHouseProvider}.
 */
final class ClickHouseEndpoints
{
    private ClickHouseEndpoints()
    {
    }

    /**
     * @param shards   the endpoints without user info, per shard
     * @param username the user named by the endpoints, or null
     * @param password the password named by the endpoints, or null
     */
    record Parsed(List<List<String>> shards, String username, String password)
    {
    }

    /**
     * @param pc     reader of plugin_config
     * @param key    the key the endpoints were given in (endpoint or shards), for messages
     * @param shards the configured endpoints per shard
     * @return the endpoints without user info, and the credentials they carried
     */
    static Parsed parse(final PluginConfigReader pc, final ConfigKey key, final List<List<String>> shards)
    {
        final List<List<String>> out = new ArrayList<>(shards.size());
        String user = null;
        String password = null;
        boolean credentials = false;
        boolean differ = false;
        for (final List<String> shard : shards)
        {
            final List<String> endpoints = new ArrayList<>(shard.size());
            for (final String e : shard)
            {
                final String shown = Printable.escape(Secrets.redactUrl(e));
                final URI u;
                try
                {
                    u = new URI(e);
                }
                catch (final URISyntaxException ex)
                {
                    pc.problem(key.name(), "\"" + shown + "\" is not a URL: " + Secrets.redact(ex.getReason()));
                    continue;
                }
                if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null)
                {
                    pc.problem(key.name(), "\"" + shown + "\" is not an http(s)://host:port URL");
                    continue;
                }
                if (u.getRawQuery() != null && Secrets.hasCredentials(e))
                {
                    pc.problem(key.name(), "\"" + shown + "\" carries credentials in its query: give username and "
                        + "password (or https://user:password@host) instead");
                }
                final String info = u.getRawUserInfo();
                String clean = e;
                if (info != null)
                {
                    final int colon = info.indexOf(':');
                    final String eu = decode(colon < 0 ? info : info.substring(0, colon));
                    final String ep = colon < 0 ? "" : decode(info.substring(colon + 1));
                    Secrets.register(ep);
                    if (credentials && (!eu.equals(user) || !ep.equals(password)))
                    {
                        differ = true;
                    }
                    credentials = true;
                    user = eu;
                    password = ep;
                    clean = withoutUserInfo(e);
                }
                else if (credentials)
                {
                    differ = true;
                }
                endpoints.add(clean);
            }
            out.add(List.copyOf(endpoints));
        }
        if (differ)
        {
            pc.problem(key.name(), "the endpoints carry different credentials (or only some carry them): one sink "
                + "has one ClickHouse user; give username and password once");
        }
        if (credentials && (pc.has(ClickHouseKeys.USERNAME) || pc.has(ClickHouseKeys.PASSWORD)))
        {
            pc.problem(key.name(), "the endpoints carry user:password@ and plugin_config also gives "
                + (pc.has(ClickHouseKeys.USERNAME) ? "username" : "password") + "; give the credentials once");
        }
        return new Parsed(List.copyOf(out), credentials ? user : null, credentials ? password : null);
    }

    /** @return the URL with the user info of its authority removed ({@code scheme://user:pw@host} → {@code scheme://host}) */
    static String withoutUserInfo(final String url)
    {
        final int start = url.indexOf("://") + 3;
        int end = url.length();
        for (final char c : new char[]{'/', '?', '#'})
        {
            final int i = url.indexOf(c, start);
            if (i >= 0 && i < end)
            {
                end = i;
            }
        }
        final int at = url.lastIndexOf('@', end - 1);
        return at < start ? url : url.substring(0, start) + url.substring(at + 1);
    }

    private static String decode(final String s)
    {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /**
     * TLS keys need https:// endpoints, files that exist, and a certificate with its key.
     *
     * @param pc     reader of plugin_config
     * @param plugin the parsed settings
     */
    static void checkTls(final PluginConfigReader pc, final ClickHouseConfig plugin)
    {
        final boolean https = plugin.shards().stream().flatMap(List::stream).anyMatch(e -> e.startsWith("https:"));
        final boolean http = plugin.shards().stream().flatMap(List::stream).anyMatch(e -> e.startsWith("http:"));
        for (final ConfigKey k : List.of(ClickHouseKeys.SSL_CA_FILE, ClickHouseKeys.SSL_CERTIFICATE_FILE,
            ClickHouseKeys.SSL_KEY_FILE,
            ClickHouseKeys.SSL_VERIFY_HOSTNAME))
        {
            if (pc.has(k) && !https && !plugin.shards().isEmpty())
            {
                pc.problem(k.name(), "applies to https:// endpoints; these are http://");
            }
        }
        if (https && http && (plugin.sslCaFile() != null || plugin.sslCertificateFile() != null))
        {
            pc.problem(ClickHouseKeys.ENDPOINT.name(),
                "mixes http:// and https:// endpoints while ssl_* keys are given: "
                    + "give https:// for every endpoint");
        }
        if ((plugin.sslCertificateFile() == null) != (plugin.sslKeyFile() == null))
        {
            pc.problem(
                plugin.sslCertificateFile() == null
                    ? ClickHouseKeys.SSL_KEY_FILE.name()
                    : ClickHouseKeys.SSL_CERTIFICATE_FILE.name(),
                "ssl_certificate_file and ssl_key_file go together (the certificate and its private key)");
        }
        file(pc, ClickHouseKeys.SSL_CA_FILE, plugin.sslCaFile(), "-----BEGIN CERTIFICATE-----");
        file(pc, ClickHouseKeys.SSL_CERTIFICATE_FILE, plugin.sslCertificateFile(), "-----BEGIN CERTIFICATE-----");
        file(pc, ClickHouseKeys.SSL_KEY_FILE, plugin.sslKeyFile(), "PRIVATE KEY-----");
    }

    private static void file(final PluginConfigReader pc, final ConfigKey key, final String file, final String marker)
    {
        if (file == null)
        {
            return;
        }
        final Path p = Path.of(file);
        if (!Files.isRegularFile(p))
        {
            pc.problem(key.name(), Printable.escape(file) + ": no such file");
            return;
        }
        try
        {
            if (!Files.readString(p, StandardCharsets.ISO_8859_1).contains(marker))
            {
                pc.problem(key.name(), Printable.escape(file) + " is not a PEM file (no " + marker.replace("-", "")
                    .trim() + " block)");
            }
        }
        catch (final IOException e)
        {
            pc.problem(key.name(), "cannot read " + Printable.escape(file) + ": " + e.getMessage());
        }
    }
}
