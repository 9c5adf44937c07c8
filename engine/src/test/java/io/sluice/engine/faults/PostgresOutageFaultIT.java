package io.sluice.engine.faults;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22: {@link ClickHouseOutageFaultIT}'s scenario with a PostgreSQL sink on a PostgreSQL of the test's own
 * ({@link FaultPostgres.Server}: {@code scripts/services.sh start postgres} with its own {@code SLUICE_HOME} and a
 * free port; the shared server is never stopped). A quarter of the way through the input the server is taken down
 * with PostgreSQL's immediate shutdown (SIGQUIT to the postmaster, found by its lock file postmaster.pid: every backend
 * ends at once, no checkpoint) and started again by services.sh 20 s later (crash recovery). The engine keeps running, its
 * committed offsets stop moving, it resumes by itself and exits 0 caught up, and nothing is lost.
 */
@ExtendWith(FaultTopic.Resolver.class)
class PostgresOutageFaultIT
{
    @Test
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void shouldStallThroughAPostgresOutageResumeAndLoseNothing(final FaultTopic topic) throws Exception
    {
        final String sfx = Faults.suffix();
        final Path dir = Faults.workDir("b-pg-outage-" + sfx);
        final FaultPostgres.Server pg = new FaultPostgres.Server(dir, Faults.freePort());
        ClickHouseOutageFaultIT.outage(topic, dir, sfx, new ClickHouseOutageFaultIT.OwnServer()
        {
            private FaultPostgres store;

            @Override
            public String describe()
            {
                return "immediate shutdown (SIGQUIT to the postmaster), own instance :" + pg.port;
            }

            @Override
            public Faults.Store start() throws Exception
            {
                pg.run("start");
                store = pg.store();
                return store;
            }

            @Override
            public void down() throws Exception
            {
                pg.immediateShutdown();
            }

            @Override
            public boolean answers()
            {
                return store.answers();
            }

            @Override
            public void stop(final boolean passed) throws Exception
            {
                pg.run("stop");
                if (passed)
                {
                    pg.run("wipe");
                }
            }
        }, "b-pg", "faults_outage_");
    }
}
