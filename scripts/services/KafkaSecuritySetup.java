import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Run by scripts/services.sh (java KafkaSecuritySetup.java, with the broker's jars on the class path) once the local
 * broker answers: creates the SCRAM-SHA-512 users of the secured tests and their ACLs, over the plaintext listener
 * (whose ANONYMOUS principal is the broker's super user). Idempotent. Passwords come from the environment, never
 * from the command line, and are printed nowhere.
 *
 * <p>Users (names from SLUICE_TEST_KAFKA_*_USER, passwords from SLUICE_TEST_KAFKA_*_PASSWORD):
 * <ul>
 *   <li>the full user: every operation on topics prefixed {@code secure.} and groups prefixed {@code secure-};</li>
 *   <li>the read-only user: Read and Describe on the same topics and groups, no Write (a scatter's producer is
 *       refused);</li>
 *   <li>the user without ACLs: authenticates, may do nothing (a consumer is refused its group and topics).</li>
 * </ul>
 */
public final class KafkaSecuritySetup
{
    public static void main(final String[] args) throws Exception
    {
        final String bootstrap = env("SLUICE_SETUP_BOOTSTRAP");
        final String user = env("SLUICE_TEST_KAFKA_USER");
        final String readOnly = env("SLUICE_TEST_KAFKA_READONLY_USER");
        final String noAcl = env("SLUICE_TEST_KAFKA_NOACL_USER");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000)))
        {
            final List<UserScramCredentialAlteration> users = new ArrayList<>();
            for (final String[] u : new String[][]{{user, "SLUICE_TEST_KAFKA_PASSWORD"},
                {readOnly, "SLUICE_TEST_KAFKA_READONLY_PASSWORD"}, {noAcl, "SLUICE_TEST_KAFKA_NOACL_PASSWORD"}})
            {
                users.add(new UserScramCredentialUpsertion(u[0],
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), env(u[1])));
            }
            admin.alterUserScramCredentials(users).all().get(60, TimeUnit.SECONDS);

            final List<AclBinding> acls = new ArrayList<>();
            final ResourcePattern topics = new ResourcePattern(ResourceType.TOPIC, "secure.", PatternType.PREFIXED);
            final ResourcePattern groups = new ResourcePattern(ResourceType.GROUP, "secure-", PatternType.PREFIXED);
            for (final ResourcePattern r : List.of(topics, groups))
            {
                acls.add(allow(r, user, AclOperation.ALL));
                acls.add(allow(r, readOnly, AclOperation.READ));
                acls.add(allow(r, readOnly, AclOperation.DESCRIBE));
            }
            admin.createAcls(acls).all().get(60, TimeUnit.SECONDS);
        }
        System.out.println("SCRAM-SHA-512 users " + user + ", " + readOnly + ", " + noAcl + " and their ACLs are set");
    }

    private static AclBinding allow(final ResourcePattern resource, final String user, final AclOperation op)
    {
        return new AclBinding(resource, new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    private static String env(final String name)
    {
        final String v = System.getenv(name);
        if (v == null || v.isEmpty())
        {
            throw new IllegalStateException(name + " is not set");
        }
        return v;
    }
}
