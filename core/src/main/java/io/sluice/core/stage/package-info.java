/**
 * The plumbing every stage needs: a pipeline's run state ({@link io.sluice.core.stage.PipelineControl}), its
 * counters and histograms ({@link io.sluice.core.stage.PipelineStats}, padded against false sharing), topic ids
 * ({@link io.sluice.core.stage.TopicRegistry}), the thread layout ({@link io.sluice.core.stage.StageLayouts}), the
 * {@link io.sluice.core.stage.Downstream} contract a source calls, stage threads as Agrona agents
 * ({@link io.sluice.core.stage.StageAgents}) and the one error path of every stage
 * ({@link io.sluice.core.stage.StageErrorHandler}). Knows no direction: gather and scatter both build on it.
 */
package io.sluice.core.stage;
