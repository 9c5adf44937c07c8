package io.sluice.core.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 25 item 2: every name Kafka reserves is refused, found from the name alone; the names that become one only
 * after sanitising are refused too (the test reads the sanitised name); case makes an ordinary name.
 */
class ReservedTopicsTest
{
    @Test
    void shouldListEveryNameKafkaReservesFromKafkasOwnConstants()
    {
        assertEquals(List.of("__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata",
            "__remote_log_metadata"), List.copyOf(ReservedTopics.NAMES.keySet()));
        // the list holds Kafka's constants, and everything Topic.isInternal knows is on it
        for (final String n : List.of(Topic.GROUP_METADATA_TOPIC_NAME, Topic.TRANSACTION_STATE_TOPIC_NAME,
            Topic.SHARE_GROUP_STATE_TOPIC_NAME, Topic.CLUSTER_METADATA_TOPIC_NAME))
        {
            assertTrue(ReservedTopics.NAMES.containsKey(n), n);
        }
        // __cluster_metadata is the one Topic.isInternal misses (the case)
        assertTrue(!Topic.isInternal(Topic.CLUSTER_METADATA_TOPIC_NAME));
    }

    @ParameterizedTest
    @ValueSource(strings = {"__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata",
        "__remote_log_metadata"})
    void shouldRefuseEachReservedNameSayingWhatKafkaKeepsThere(final String name)
    {
        final String why = ReservedTopics.refusal(name);
        assertNotNull(why, name);
        assertTrue(why.startsWith("topic " + name + " is internal to Kafka (Kafka reserves it for "), why);
        assertTrue(why.contains(ReservedTopics.NAMES.get(name)), why);
        assertTrue(why.contains("never created"), why);
    }

    @ParameterizedTest
    @ValueSource(strings = {"__consumer.offsets", "__transaction.state", "__share.group.state", "__share_group.state",
        "__cluster.metadata", "__remote.log.metadata", "._cluster_metadata", "_.cluster.metadata"})
    void shouldRefuseANameThatDiffersFromAReservedOneOnlyInDotVersusUnderscore(final String name)
    {
        final String why = ReservedTopics.refusal(name);
        assertNotNull(why, name);
        if (!ReservedTopics.NAMES.containsKey(name))
        {
            assertTrue(why.startsWith("topic " + name + " collides with Kafka's internal topic __"), why);
            assertTrue(why.contains(Topic.unifyCollisionChars(name)), why);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"__CLUSTER_METADATA", "__Consumer_Offsets", "__TRANSACTION_STATE", "__Share_Group_State",
        "__REMOTE_LOG_METADATA", "_consumer_offsets", "consumer_offsets", "__consumer_offsets2",
        "__consumer_offsets.eu",
        "x__cluster_metadata", "..__cluster_metadata", "___cluster_metadata", "__cluster_metadata_",
        "__cluster-metadata",
        "__mine", "orders.eu"})
    void shouldLeaveOrdinaryNamesAloneWhateverTheirCaseOrPrefix(final String name)
    {
        // Kafka topic names are case-sensitive (Topic.validate compares bytes): these are ordinary topics
        assertNull(ReservedTopics.refusal(name), name);
    }

    @Test
    void shouldRefuseWhatTheBrokerListsAsInternalAndItsDotVariants()
    {
        final Set<String> broker = Set.of("__future_state", "__consumer_offsets");
        assertNull(ReservedTopics.refusal("__future_state"));
        assertTrue(ReservedTopics.refusal("__future_state", broker).contains("the broker lists it as internal"));
        assertTrue(ReservedTopics.refusal("__future.state", broker)
            .startsWith("topic __future.state collides with Kafka's internal topic __future_state"));
        assertNull(ReservedTopics.refusal("__Future_State", broker));
    }

    @ParameterizedTest
    @ValueSource(strings = {" __cluster_metadata ", "\t__cluster_metadata\n", "\u3000__cluster_metadata\u00a0",
        "__cluster metadata", "__cluster\u00e9metadata", "__cluster\ud83d\ude00metadata", "__cluster/metadata",
        "__cluster:metadata", "__consumer offsets", "\u00e9_consumer_offsets", "__transaction\u2028state",
        "__cluster.metadata", "__remote log.metadata"})
    void shouldRefuseAValueThatSanitisingTurnsIntoAReservedName(final String value)
    {
        // the route stage, the dry run and the config check all test the sanitised name
        final String topic = TopicNameSanitizer.sanitize(value);
        assertNotNull(ReservedTopics.refusal(topic), value + " -> " + topic);
    }

    @ParameterizedTest
    @ValueSource(strings = {"..__cluster_metadata", "__cluster_metadata\u200b", "\ufeff__cluster_metadata",
        "__CLUSTER METADATA", "__cluster__metadata"})
    void shouldLeaveAValueThatSanitisesToAnOrdinaryNameAlone(final String value)
    {
        final String topic = TopicNameSanitizer.sanitize(value);
        assertNull(ReservedTopics.refusal(topic), value + " -> " + topic);
    }
}
