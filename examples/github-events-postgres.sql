-- Tables for examples/github-events-postgres.toml: the eight tables of examples/github-events.sql in PostgreSQL
-- types, in schema public of database "analytics". Names are quoted as Sluice quotes them (never folded, never split).
-- GitHub event ids are JSON strings of digits: bigint takes them. Run with
--   createdb analytics && psql -d analytics -f examples/github-events-postgres.sql

CREATE TABLE IF NOT EXISTS "public"."push_events" (
    "id" bigint PRIMARY KEY, "created_at" timestamptz NOT NULL, "actor_login" text, "repo_name" text,
    "push_id" bigint, "size" integer, "distinct_size" integer, "ref" text, "head" text
);

CREATE TABLE IF NOT EXISTS "public"."watch_events" (
    "id" bigint PRIMARY KEY, "created_at" timestamptz NOT NULL, "actor_login" text, "repo_name" text, "action" text
);

CREATE TABLE IF NOT EXISTS "public"."create_events" (
    "id" bigint PRIMARY KEY, "created_at" timestamptz NOT NULL, "actor_login" text, "repo_name" text,
    "ref" text, "ref_type" text, "master_branch" text, "description" text
);

CREATE TABLE IF NOT EXISTS "public"."issues_events" (
    "id" bigint PRIMARY KEY, "created_at" timestamptz NOT NULL, "actor_login" text, "repo_name" text,
    "action" text, "issue_number" integer, "issue_title" text, "issue_state" text
);

CREATE TABLE IF NOT EXISTS "public"."pull_request_events" (
    "id" bigint PRIMARY KEY, "created_at" timestamptz NOT NULL, "actor_login" text, "repo_name" text,
    "action" text, "pr_number" integer, "pr_title" text, "pr_state" text, "merged" boolean,
    "additions" integer, "deletions" integer, "commits" integer
);

CREATE TABLE IF NOT EXISTS "public"."issue_comment_events" (
    "id" bigint PRIMARY KEY, "created_at" timestamptz NOT NULL, "actor_login" text, "repo_name" text,
    "action" text, "issue_number" integer, "comment_id" bigint, "comment_body" text
);

CREATE TABLE IF NOT EXISTS "public"."fork_events" (
    "id" bigint PRIMARY KEY, "created_at" timestamptz NOT NULL, "actor_login" text, "repo_name" text,
    "forkee_id" bigint, "forkee_full_name" text
);

-- The catch-all: every other event type, its payload kept as a JSON document (its original text, as jsonb stores it).
CREATE TABLE IF NOT EXISTS "public"."other_events" (
    "id" bigint PRIMARY KEY, "type" text NOT NULL, "created_at" timestamptz NOT NULL, "actor_login" text,
    "repo_name" text, "payload" jsonb
);
