-- Tables for examples/github-events.toml: one table per GitHub event type, plus a catch-all that the other types
-- are routed to on purpose. Written for ClickHouse 18.16 and later (no Bool/LowCardinality/DateTime64 needed).
CREATE DATABASE IF NOT EXISTS github;

CREATE TABLE IF NOT EXISTS github.push_events (
    id UInt64, created_at DateTime, actor_login String, repo_name String,
    push_id UInt64, size UInt32, distinct_size UInt32, ref String, head String
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (repo_name, created_at, id);

CREATE TABLE IF NOT EXISTS github.watch_events (
    id UInt64, created_at DateTime, actor_login String, repo_name String, action String
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (repo_name, created_at, id);

CREATE TABLE IF NOT EXISTS github.create_events (
    id UInt64, created_at DateTime, actor_login String, repo_name String,
    ref Nullable(String), ref_type String, master_branch String, description Nullable(String)
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (repo_name, created_at, id);

CREATE TABLE IF NOT EXISTS github.issues_events (
    id UInt64, created_at DateTime, actor_login String, repo_name String,
    action String, issue_number UInt32, issue_title String, issue_state String
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (repo_name, issue_number, created_at, id);

CREATE TABLE IF NOT EXISTS github.pull_request_events (
    id UInt64, created_at DateTime, actor_login String, repo_name String,
    action String, pr_number UInt32, pr_title String, pr_state String, merged UInt8,
    additions UInt32, deletions UInt32, commits UInt32
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (repo_name, pr_number, created_at, id);

CREATE TABLE IF NOT EXISTS github.issue_comment_events (
    id UInt64, created_at DateTime, actor_login String, repo_name String,
    action String, issue_number UInt32, comment_id UInt64, comment_body String
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (repo_name, issue_number, created_at, id);

CREATE TABLE IF NOT EXISTS github.fork_events (
    id UInt64, created_at DateTime, actor_login String, repo_name String,
    forkee_id UInt64, forkee_full_name String
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (repo_name, created_at, id);

CREATE TABLE IF NOT EXISTS github.other_events (
    id UInt64, type String, created_at DateTime, actor_login String, repo_name String, payload String
) ENGINE = MergeTree() PARTITION BY toYYYYMM(created_at) ORDER BY (type, created_at, id);
