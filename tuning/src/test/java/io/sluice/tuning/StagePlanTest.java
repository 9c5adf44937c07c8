package io.sluice.tuning;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StagePlanTest
{
    private static final int[] TWO_CPUS = {0, 1};
    private static final int[] EIGHT_CPUS = {0, 1, 2, 3, 4, 5, 6, 7};

    private static StageThread source()
    {
        return StageThread.of(StagePlan.SOURCE);
    }

    private static StageThread route()
    {
        return StageThread.of(StagePlan.ROUTE);
    }

    private static StageThread sink()
    {
        return StageThread.of(StagePlan.SINK);
    }

    private static StagePlan validate(
        final List<Integer> cpus, final WaitKind wait, final int[] machine, final StageThread... threads)
    {
        return StagePlan.validate(cpus, wait, Arrays.asList(threads), machine, machine.length);
    }

    private static String problems(
        final List<Integer> cpus, final WaitKind wait, final int[] machine, final StageThread... threads)
    {
        return assertThrows(IllegalArgumentException.class, () -> validate(cpus, wait, machine, threads)).getMessage();
    }

    private static void assertContains(final String text, final String part)
    {
        assertTrue(text.contains(part), () -> "expected <" + part + "> in:\n" + text);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldNotSpinByDefaultOnTwoCpusOrFewer(final int cpus)
    {
        assertFalse(StagePlan.defaultWaitKind(cpus).spins());

        final int[] machine = cpus == 1 ? new int[]{0} : TWO_CPUS;
        final StagePlan plan = StagePlan.validate(
            List.of(), null, Layout.SPLIT.stageThreads(), machine, machine.length);
        assertEquals(0, plan.spinningThreads());
        assertTrue(plan.threads().stream().noneMatch(StageThread::spins));
        assertEquals(StagePlan.defaultWaitKind(cpus), plan.defaultWait());
        assertTrue(plan.warnings().isEmpty(), plan.warnings().toString());
    }

    @Test
    void shouldNotSpinByDefaultOnBigMachinesEither()
    {
        assertFalse(StagePlan.defaultWaitKind(64).spins());
    }

    @Test
    void shouldResolveTheDefaultWaitAndTheConfiguredOne()
    {
        final StagePlan plan = validate(
            null, WaitKind.BLOCKING, TWO_CPUS, source(), route().withWait(WaitKind.SLEEPING), sink());
        assertEquals(WaitKind.BLOCKING, plan.threadOf(StagePlan.SOURCE).waitKind());
        assertEquals(WaitKind.SLEEPING, plan.threadOf(StagePlan.ROUTE).waitKind());
        assertEquals(WaitKind.BLOCKING, plan.threadOf(StagePlan.SINK).waitKind());
        assertEquals(WaitKind.BLOCKING, plan.defaultWait());
    }

    @Test
    void shouldRejectMoreSpinningThreadsThanCpusNamingTheStagesAndCounts()
    {
        final String message = problems(
            List.of(0, 1), null, TWO_CPUS,
            source().withWait(WaitKind.BUSY_SPIN), route().withWait(WaitKind.YIELDING),
            sink().withWait(WaitKind.BUSY_SPIN));

        assertContains(message, "invalid [tuning] configuration");
        assertContains(message,
            "tuning.stages.source.wait, tuning.stages.route.wait, tuning.stages.sink.wait: 3 spinning threads " +
                "(source: busy-spin, route: yielding, sink: busy-spin) but only 2 cpus given to the engine " +
                "(tuning.cpus = [0, 1])");
    }

    @Test
    void shouldNameTuningWaitWhenTheSpinnersInheritIt()
    {
        final String message = problems(null, WaitKind.YIELDING, TWO_CPUS, Layout.SPLIT.stageThreads()
            .toArray(new StageThread[0]));
        assertContains(message, "tuning.wait: 3 spinning threads (source: yielding, route: yielding, sink: yielding)");
        assertContains(message, "only 2 cpus given to the engine (all this process may use; tuning.cpus is not set)");
    }

    @Test
    void shouldCountEveryThreadOfAStage()
    {
        final String message = problems(
            null, null, EIGHT_CPUS, sink().withThreads(9).withWait(WaitKind.BUSY_SPIN));
        assertContains(message,
            "tuning.stages.sink.wait: 9 spinning threads (sink \u00d79: busy-spin) but only 8 cpus");

        assertEquals(8, validate(null, null, EIGHT_CPUS, sink().withThreads(8).withWait(WaitKind.BUSY_SPIN))
            .spinningThreads());
    }

    @Test
    void shouldCountOnlyTheCpusGivenNotTheMachine()
    {
        final String message = problems(
            List.of(3), null, EIGHT_CPUS, source().withWait(WaitKind.BUSY_SPIN), route().withWait(WaitKind.BUSY_SPIN));
        assertContains(message, "2 spinning threads (source: busy-spin, route: busy-spin) but only 1 cpu given");
    }

    @Test
    void shouldCountACpuQuotaWhenCpusAreNotSet()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StagePlan.validate(
            null, WaitKind.BUSY_SPIN, List.of(source(), route(), sink()), EIGHT_CPUS, 2));
        assertContains(e.getMessage(), "3 spinning threads");
        assertContains(e.getMessage(), "only 2 cpus given");
    }

    @Test
    void shouldAllowExplicitSpinningWithinTheCpusGiven()
    {
        final StagePlan plan = validate(
            List.of(0, 1), WaitKind.BLOCKING, TWO_CPUS, source().withWait(WaitKind.BUSY_SPIN).withCpu(1), route(),
            sink());
        assertEquals(1, plan.spinningThreads());
        assertEquals(1, plan.threadOf(StagePlan.SOURCE).cpu());
        assertTrue(plan.warnings().isEmpty(), plan.warnings().toString());
    }

    @Test
    void shouldWarnWhenSpinnersTakeEveryCpuOrRunUnpinned()
    {
        final StagePlan plan = validate(
            List.of(0, 1), WaitKind.BLOCKING, TWO_CPUS,
            source().withWait(WaitKind.BUSY_SPIN).withCpu(0), route().withWait(WaitKind.YIELDING), sink());
        assertEquals(2, plan.spinningThreads());
        assertEquals(2, plan.warnings().size(), plan.warnings().toString());
        assertContains(plan.warnings().get(0), "tuning.stages.route.cpu: route spins (yielding) but is not pinned");
        assertContains(plan.warnings().get(1), "tuning.cpus: spinning threads take all 2 cpus given to the engine");
    }

    @Test
    void shouldRejectAStageCpuOutsideTheCpusGiven()
    {
        final String message = problems(List.of(2, 3), null, EIGHT_CPUS, source().withCpu(5), route().withCpu(3));
        assertContains(message,
            "tuning.stages.source.cpu: cpu 5 is not among the cpus given to the engine (tuning.cpus = [2, 3])");
        assertFalse(message.contains("tuning.stages.route.cpu"), message);
    }

    @Test
    void shouldRejectAStageCpuTheProcessMayNotUse()
    {
        final String message = problems(null, null, TWO_CPUS, route().withCpu(2));
        assertContains(message,
            "tuning.stages.route.cpu: cpu 2 is not among the cpus given to the engine (this process may run on 0-1)");
    }

    @Test
    void shouldRejectNegativeCpusOtherThanUnpinned()
    {
        assertContains(problems(null, null, TWO_CPUS, route().withCpu(-2)),
            "tuning.stages.route.cpu: -2 is not a cpu number");
        assertEquals(CpuAffinity.UNPINNED, validate(null, null, TWO_CPUS, route()).threadOf("route").cpu());
    }

    @Test
    void shouldRejectTwoSpinningThreadsOnOneCpu()
    {
        final String message = problems(
            List.of(0, 1), null, TWO_CPUS,
            source().withWait(WaitKind.BUSY_SPIN).withCpu(1), route().withWait(WaitKind.YIELDING).withCpu(1));
        assertContains(message, "tuning.stages.route.cpu: spinning thread route (yielding) would share cpu 1 with " +
            "spinning thread source (tuning.stages.source.cpu)");
    }

    @Test
    void shouldRejectSeveralSpinningThreadsOfOneStageOnOneCpu()
    {
        final String message = problems(
            null, null, EIGHT_CPUS, sink().withThreads(2).withWait(WaitKind.BUSY_SPIN).withCpu(4));
        assertContains(message,
            "tuning.stages.sink.cpu: the 2 sink threads spin (busy-spin) and would all run on cpu 4");
    }

    @Test
    void shouldAllowNonSpinningThreadsToShareACpu()
    {
        final StagePlan plan = validate(
            List.of(0), WaitKind.BLOCKING, TWO_CPUS,
            source().withCpu(0), route().withWait(WaitKind.PHASED).withCpu(0), sink().withThreads(4).withCpu(0));
        assertEquals(0, plan.spinningThreads());
        assertEquals(List.of(0), plan.cpus());
    }

    @Test
    void shouldRejectBadCpuLists()
    {
        final String message = problems(Arrays.asList(0, 0, 9, -1, null), null, TWO_CPUS, source());
        assertContains(message, "tuning.cpus: cpu 0 is listed twice");
        assertContains(message, "tuning.cpus: cpu 9 is not one this process may run on (allowed: 0-1)");
        assertContains(message, "tuning.cpus: -1 is not a cpu number");
        assertContains(message, "tuning.cpus: null is not a cpu number");
    }

    @Test
    void shouldReportEveryProblemAtOnce()
    {
        final String message = problems(
            List.of(0, 7), null, TWO_CPUS,
            source().withWait(WaitKind.BUSY_SPIN).withCpu(0), route().withWait(WaitKind.BUSY_SPIN).withCpu(0),
            sink().withCpu(5));
        final long lines = message.lines().filter(l -> l.startsWith("  - ")).count();
        assertEquals(4, lines, message);
        assertContains(message, "tuning.cpus: cpu 7");
        assertContains(message, "tuning.stages.route.cpu: spinning thread route");
        assertContains(message, "tuning.stages.sink.cpu: cpu 5");
        assertContains(message, "2 spinning threads (source: busy-spin, route: busy-spin) but only 1 cpu given");
    }

    @Test
    void shouldRejectAStageOnTwoThreadsAndDuplicateNames()
    {
        final String message = problems(
            null, null, TWO_CPUS, Layout.FUSED.stageThreads().get(0), route(), sink(), sink());
        assertContains(message, "tuning.stages.route: stage route is on two threads (source, route)");
        assertContains(message, "tuning.stages.sink: two stage threads are named sink");
    }

    @Test
    void shouldRejectMalformedStageThreads()
    {
        assertThrows(IllegalArgumentException.class, () -> StageThread.of(""));
        assertThrows(IllegalArgumentException.class, () -> StageThread.of("a.b"));
        assertThrows(IllegalArgumentException.class, () -> StageThread.of("a b"));
        assertThrows(IllegalArgumentException.class, () -> sink().withThreads(0));
        assertThrows(IllegalArgumentException.class, () -> new StageThread("x", List.of(), 1, null, -1));
        assertThrows(NullPointerException.class, () -> StageThread.of(null));
    }

    @Test
    void shouldMapTheLayoutsToThreads()
    {
        assertEquals(List.of("source", "route", "sink"), Layout.SPLIT.threadNames());
        assertEquals(List.of("source", "sink"), Layout.FUSED.threadNames());

        final StagePlan fused = validate(null, null, TWO_CPUS, Layout.FUSED.stageThreads().toArray(new StageThread[0]));
        assertEquals(2, fused.threads().size());
        assertEquals("source", fused.threadOf(StagePlan.ROUTE).name());
        assertEquals(List.of("source", "route"), fused.threadOf(StagePlan.SOURCE).stages());
        assertEquals("sink", fused.threadOf(StagePlan.SINK).name());
        assertThrows(IllegalArgumentException.class, () -> fused.threadOf("produce"));

        final StagePlan split = validate(null, null, TWO_CPUS, Layout.SPLIT.stageThreads().toArray(new StageThread[0]));
        assertNotEquals(split.threadOf(StagePlan.SOURCE), split.threadOf(StagePlan.ROUTE));
    }

    @Test
    void shouldParseLayouts()
    {
        assertEquals(Layout.FUSED, Layout.parse("fused"));
        assertEquals(Layout.SPLIT, Layout.parse(Layout.SPLIT.configName()));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Layout.parse("merged"));
        assertContains(e.getMessage(), "unknown layout \"merged\"; valid values: \"split\", \"fused\"");
        assertThrows(IllegalArgumentException.class, () -> Layout.parse(null));
    }

    @Test
    void shouldRejectStageTablesTheLayoutHasNoThreadFor()
    {
        Layout.SPLIT.checkStageTables(List.of("sink", "route", "source"));
        Layout.FUSED.checkStageTables(List.of("source", "sink"));
        Layout.FUSED.checkStageTables(List.of());

        final String message = assertThrows(IllegalArgumentException.class,
            () -> Layout.FUSED.checkStageTables(List.of("source", "route", "produce"))).getMessage();
        assertContains(message, "tuning.stages.route: layout \"fused\" runs route on the source thread; " +
            "configure it under [tuning.stages.source]");
        assertContains(message,
            "tuning.stages.produce: no such stage thread in layout \"fused\" (stages: source, sink)");
    }

    @Test
    void shouldFuseByDefaultOnTwoCpus()
    {
        assertEquals(Layout.FUSED, Layout.defaultFor(2));
        assertEquals(Layout.FUSED, Layout.defaultFor(1));
        assertEquals(Layout.SPLIT, Layout.defaultFor(4));
    }

    @Test
    void shouldDescribeThePlanOnOneLine()
    {
        final StagePlan plan = validate(
            List.of(0, 1), WaitKind.BLOCKING, TWO_CPUS,
            Layout.FUSED.stageThreads().get(0).withWait(WaitKind.BUSY_SPIN).withCpu(0), sink().withThreads(2));
        assertEquals(
            "stage threads: source [source+route] (busy-spin, cpu 0), sink \u00d72 (blocking, unpinned); " +
                "spinning 1 of 2 cpus (0-1)",
            plan.describe());
    }

    @Test
    void shouldValidateAgainstThisMachine()
    {
        final StagePlan plan = StagePlan.validate(null, null, Layout.defaultFor(CpuAffinity.availableCpus())
            .stageThreads());
        assertEquals(CpuAffinity.availableCpus(), plan.cpusGiven());
        assertEquals(0, plan.spinningThreads());
    }
}
