package io.sluice.core.source;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

/** The coordinator's unexplained JoinGroup/SyncGroup failure gets its likely cause; anything else is left alone. */
class GroupCoordinatorErrorsTest
{
    @Test
    void shouldNameTheOffsetsTopicsRecordLimitOnAnUnexpectedSyncGroupError()
    {
        // the client's text when the broker could not store the group's assignment (Kafka 4.1, 10,000 topics)
        final KafkaException e = new KafkaException("Unexpected error from SyncGroup: The server experienced an "
            + "unexpected error when processing the request.");
        final KafkaException x = GroupCoordinatorErrors.explain(e, "sluice-users", 2500);
        final String m = x.getMessage();
        assertTrue(m.startsWith(e.getMessage()), m);
        assertTrue(m.contains("group sluice-users, 2500 partitions"), m);
        assertTrue(m.contains("max.message.bytes of __consumer_offsets"), m);
        assertSame(e, x.getCause());
    }

    @Test
    void shouldLeaveOtherFailuresAsTheyAre()
    {
        final KafkaException e = new KafkaException("Unexpected error in fetch response");
        assertSame(e, GroupCoordinatorErrors.explain(e, "g", 1));
    }
}
