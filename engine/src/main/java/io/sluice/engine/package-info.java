/**
 * The command line and {@code engine.jar}: {@link io.sluice.engine.Main} parses the arguments with picocli and
 * runs a pipeline configuration ({@link io.sluice.engine.RunCommand}) or one of the tools: {@code check},
 * {@code produce}, {@code route}, {@code destination}, {@code explain}, {@code bench}. Exit codes: 0 ok, 1 a runtime
 * failure, 2 bad configuration or usage. Logging goes to standard error in text or JSON
 * ({@link io.sluice.engine.LogFormat}); standard output is kept for a command's own output.
 */
package io.sluice.engine;
