-- Tables for examples/orders-exactly-once.toml, in schema public of database "analytics" (scripts/services.sh makes
-- the database). The positions table "public"."sluice_offsets" is created by the engine at its first run. Run with
--   psql -h 127.0.0.1 -p 15432 -U sluice -d analytics -f examples/orders-exactly-once.sql

CREATE TABLE IF NOT EXISTS "public"."orders_eu" (
    "id" bigint NOT NULL, "region" text NOT NULL, "amount" numeric(12, 2), "created_at" timestamptz
);

CREATE TABLE IF NOT EXISTS "public"."orders_us" (
    "id" bigint NOT NULL, "region" text NOT NULL, "amount" numeric(12, 2), "created_at" timestamptz
);

CREATE TABLE IF NOT EXISTS "public"."orders_other" (
    "id" bigint NOT NULL, "region" text, "amount" numeric(12, 2), "created_at" timestamptz
);
