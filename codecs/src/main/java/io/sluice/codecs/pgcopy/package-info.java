/**
 * PostgreSQL's binary COPY format ({@code COPY ... FROM STDIN (FORMAT binary)}): the stream framing
 * ({@link io.sluice.codecs.pgcopy.PgCopy}) and one encoder per column type that writes a JSON value as the field
 * PostgreSQL's binary receive function of that type reads ({@link io.sluice.codecs.pgcopy.PgColumnEncoder}), without
 * allocating per value. The conversion rules are in {@code docs/postgres.md}, "Types".
 */
package io.sluice.codecs.pgcopy;
