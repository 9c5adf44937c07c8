/**
 * The PostgreSQL sink's names and catalog: {@link io.sluice.sinks.postgres.PostgresIdentifiers} (quoted
 * identifiers, the 63-byte limit), {@link io.sluice.sinks.postgres.PostgresCatalog} (existence by bound values,
 * describe, table version, creation that tolerates concurrent creators) and
 * {@link io.sluice.sinks.postgres.PostgresErrors} (the SQLSTATE table). See docs/postgres.md.
 */
package io.sluice.sinks.postgres;
