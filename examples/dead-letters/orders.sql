-- examples/dead-letters (docs/dead-letters.md): an orders table whose amount column is too narrow on purpose
-- (UInt8: 0..255), so that two of the six sample orders cannot be written and go to the dead-letter topic.
-- The table is keyed on each order's Kafka coordinates (docs/effectively-once.md): a replayed order lands on its
-- original (src_topic, src_partition, src_offset), so re-driving the dead letters twice writes nothing twice.
CREATE DATABASE IF NOT EXISTS shop;

CREATE TABLE IF NOT EXISTS shop.orders (
    id UInt64, customer String, amount UInt8,
    src_topic String, src_partition UInt16, src_offset UInt64
) ENGINE = ReplacingMergeTree() ORDER BY (src_topic, src_partition, src_offset);
