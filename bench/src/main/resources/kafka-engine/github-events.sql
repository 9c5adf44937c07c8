-- The kafka-engine contender of scripts/bench.sh: ClickHouse's own Kafka table engine with one MATERIALIZED VIEW per
-- target table, the branches of examples/github-events.toml, written for ClickHouse 18.16 (docs/benchmarks.md).
-- BenchRun fills in ${db}, ${broker}, ${topic}, ${group}, ${block_size} and ${consumers}; the target tables are
-- those of examples/github-events.sql. Statements end with a line holding only ";".
--
-- The Kafka table reads every message whole, as one String: CSV with the tab as its field delimiter, a server-side
-- setting (format_csv_delimiter in the profile of the server's own context: the engine ignores session settings;
-- see scripts/services/clickhouse-users.d/kafka-engine.xml). Compact JSON holds no raw tab or newline, so a line is
-- one unquoted field, byte for byte.
--
-- 18.16 has no JSON path function (JSONExtract* came in 19.x). visitParamExtract{String,UInt,Bool}(text, key) take
-- the value of the FIRST occurrence of "key": at any depth; visitParamExtractRaw is not used, because it returns ''
-- when a string inside the value holds an unbalanced bracket (commit messages, issue bodies). So each value below is
-- read from a text where its key occurs first: this depends on the key order of GitHub's events, and is correct for
-- the bench data only because every row is verified against the input (docs/benchmarks.md lists what it relies on).
--
-- The order matters. The Kafka engine starts consuming as soon as one view depends on its table, so the table comes
-- last, once every view is in place (BenchRun has committed the new group's offsets to the start of the topic
-- before: a new group of the Kafka engine would start at the end). The route view is therefore made with ATTACH and
-- its full definition, which ClickHouse accepts before the table it selects from exists (it is how the server
-- loads its metadata at start). The Kafka table is dropped last too, after the views, once its consumer is idle:
-- 18.16 with librdkafka 2.0.2 can abort the whole server (rd_kafka_cgrp_destroy_final: assert
-- !rkcg->rkcg_subscription) when the table is dropped or detached while its stream is reading.

-- The route view: what every table needs, extracted once per record, into a Null table (it keeps nothing). The
-- views below select from this view, so each block of the Kafka table fires each of them once. (A view on the Null
-- table itself would not be fired: the rows reach route_sink through the view, not by an INSERT into it.)
CREATE TABLE ${db}.route_sink (id UInt64, type String, actor_login String, repo_name String, payload String,
    created_at DateTime) ENGINE = Null
;
ATTACH MATERIALIZED VIEW ${db}.route TO ${db}.route_sink (id UInt64, type String, actor_login String,
    repo_name String, payload String, created_at DateTime) AS
WITH
    -- the top-level tail: ,"public":...,"created_at":"..."[,"org":{...}]} (payload holds created_at keys of its own)
    extract(raw, ',"public":(?:true|false),"created_at":"[^"]*"(?:,"org":\\{[^{}]*\\})?\\}$') AS tail,
    position(raw, '"payload":') + 10 AS payload_start
SELECT
    visitParamExtractUInt(raw, 'id') AS id,
    visitParamExtractString(raw, 'type') AS type,
    visitParamExtractString(raw, 'login') AS actor_login, -- actor comes first, then repo
    visitParamExtractString(raw, 'name') AS repo_name, -- actor has no "name"
    substring(raw, payload_start, length(raw) - length(tail) - payload_start + 1) AS payload,
    parseDateTimeBestEffort(visitParamExtractString(tail, 'created_at')) AS created_at
FROM ${db}.kafka_events
;
CREATE MATERIALIZED VIEW ${db}.to_push_events TO ${db}.push_events AS
SELECT id, created_at, actor_login, repo_name,
    visitParamExtractUInt(payload, 'push_id') AS push_id,
    toUInt32(visitParamExtractUInt(payload, 'size')) AS size,
    toUInt32(visitParamExtractUInt(payload, 'distinct_size')) AS distinct_size,
    visitParamExtractString(payload, 'ref') AS ref,
    visitParamExtractString(payload, 'head') AS head
FROM ${db}.route WHERE type = 'PushEvent'
;
CREATE MATERIALIZED VIEW ${db}.to_watch_events TO ${db}.watch_events AS
SELECT id, created_at, actor_login, repo_name,
    visitParamExtractString(payload, 'action') AS action
FROM ${db}.route WHERE type = 'WatchEvent'
;
CREATE MATERIALIZED VIEW ${db}.to_create_events TO ${db}.create_events AS
SELECT id, created_at, actor_login, repo_name,
    if(visitParamHas(payload, 'ref') AND NOT startsWith(substring(payload, position(payload, '"ref":') + 6, 4), 'null'),
        visitParamExtractString(payload, 'ref'), NULL) AS ref,
    visitParamExtractString(payload, 'ref_type') AS ref_type,
    visitParamExtractString(payload, 'master_branch') AS master_branch,
    if(visitParamHas(payload, 'description')
            AND NOT startsWith(substring(payload, position(payload, '"description":') + 14, 4), 'null'),
        visitParamExtractString(payload, 'description'), NULL) AS description
FROM ${db}.route WHERE type = 'CreateEvent'
;
-- payload: {"action":..,"issue":{.., "number", "title", .., "state", .., "milestone":{.. "title", "state" ..}}}
CREATE MATERIALIZED VIEW ${db}.to_issues_events TO ${db}.issues_events AS
SELECT id, created_at, actor_login, repo_name,
    visitParamExtractString(payload, 'action') AS action,
    toUInt32(visitParamExtractUInt(payload, 'number')) AS issue_number,
    visitParamExtractString(payload, 'title') AS issue_title,
    visitParamExtractString(payload, 'state') AS issue_state
FROM ${db}.route WHERE type = 'IssuesEvent'
;
-- payload: {"action","number","pull_request":{.., "state", "title", .., "_links":{.."commits":{..}}, "merged", ..,
-- "commits", "additions", "deletions", ..}}: the counts are read after "merged"
CREATE MATERIALIZED VIEW ${db}.to_pull_request_events TO ${db}.pull_request_events AS
WITH substring(payload, position(payload, '"merged":')) AS counts
SELECT id, created_at, actor_login, repo_name,
    visitParamExtractString(payload, 'action') AS action,
    toUInt32(visitParamExtractUInt(payload, 'number')) AS pr_number,
    visitParamExtractString(payload, 'title') AS pr_title,
    visitParamExtractString(payload, 'state') AS pr_state,
    visitParamExtractBool(counts, 'merged') AS merged,
    toUInt32(visitParamExtractUInt(counts, 'additions')) AS additions,
    toUInt32(visitParamExtractUInt(counts, 'deletions')) AS deletions,
    toUInt32(visitParamExtractUInt(counts, 'commits')) AS commits
FROM ${db}.route WHERE type = 'PullRequestEvent'
;
-- payload: {"action","issue":{.., "number", .., "comments", ..},"comment":{.., "id", .., "body"}}
CREATE MATERIALIZED VIEW ${db}.to_issue_comment_events TO ${db}.issue_comment_events AS
WITH substring(payload, position(payload, '"comment":')) AS comment
SELECT id, created_at, actor_login, repo_name,
    visitParamExtractString(payload, 'action') AS action,
    toUInt32(visitParamExtractUInt(payload, 'number')) AS issue_number,
    visitParamExtractUInt(comment, 'id') AS comment_id,
    visitParamExtractString(comment, 'body') AS comment_body
FROM ${db}.route WHERE type = 'IssueCommentEvent'
;
CREATE MATERIALIZED VIEW ${db}.to_fork_events TO ${db}.fork_events AS
SELECT id, created_at, actor_login, repo_name,
    visitParamExtractUInt(payload, 'id') AS forkee_id, -- payload: {"forkee":{"id",.., "full_name"}}
    visitParamExtractString(payload, 'full_name') AS forkee_full_name
FROM ${db}.route WHERE type = 'ForkEvent'
;
-- the catch-all: every other type, with the payload as its JSON text (the bytes of the record)
CREATE MATERIALIZED VIEW ${db}.to_other_events TO ${db}.other_events AS
SELECT id, type, created_at, actor_login, repo_name, payload
FROM ${db}.route WHERE type NOT IN ('PushEvent', 'WatchEvent', 'CreateEvent', 'IssuesEvent', 'PullRequestEvent',
    'IssueCommentEvent', 'ForkEvent')
;
-- The Kafka table, last: every message whole, as one String.
CREATE TABLE ${db}.kafka_events (raw String)
ENGINE = Kafka SETTINGS kafka_broker_list = '${broker}', kafka_topic_list = '${topic}', kafka_group_name = '${group}',
    kafka_format = 'CSV', kafka_row_delimiter = '\n', kafka_num_consumers = ${consumers},
    kafka_max_block_size = ${block_size}
;
