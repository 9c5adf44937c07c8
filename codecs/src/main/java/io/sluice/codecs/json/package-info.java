/**
 * Zero-allocation JSON path extraction: compile paths once ({@link io.sluice.codecs.json.JsonPathSet}), find them
 * in one validating pass per record ({@link io.sluice.codecs.json.JsonScanner}), look at values through flyweights
 * ({@link io.sluice.codecs.json.JsonValueView}, {@link io.sluice.codecs.json.JsonCursor}), decode strings
 * ({@link io.sluice.codecs.json.JsonStrings}) and derive routing values
 * ({@link io.sluice.codecs.json.RoutingValues}). Errors are {@code int} codes of
 * {@link io.sluice.codecs.json.JsonError}; kinds are {@link io.sluice.codecs.json.JsonKind} constants.
 */
package io.sluice.codecs.json;
