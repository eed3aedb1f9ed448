-- Metrics summaries (src/store/schema.ts, docs/metrics.md): kept current in the same transaction as
-- the rows they count (by these triggers; transactions by their writer), so a scrape reads a few
-- rows whatever the size of the tables.
-- Hand-written (drizzle-kit does not model triggers): keep this file as it is when migrations are
-- regenerated. A reward's contribution: 1 reward and CAST(amount AS INTEGER) smallest units, and
-- per price of reward_prices, amount / 10^denomination * price in that currency.
-- Subtractions never lower a newest_* time: rows are not deleted in normal operation.

-- Transactions are counted by the writer, per page (src/store/summaries.ts, withTransactionSummary):
-- a trigger on this hot path would cost a statement journal per row. Deletions (pruning by hand)
-- still keep the count right.
CREATE TRIGGER `transactions_summary_delete` AFTER DELETE ON `transactions` BEGIN
  UPDATE `transaction_summaries` SET `transactions` = `transactions` - 1
  WHERE `network` = OLD.`network` AND `chain_id` = OLD.`chain_id`;
END;
--> statement-breakpoint
-- A reward counts for its node id and for each of its linked addresses; each of its prices
-- (reward_prices, one per currency) adds amount x price to the value summary of that currency.
-- The triggers below insert signed contributions into this view (+1 for a row as it is now, -1
-- for a row as it was; currency NULL for the count and amount, a currency for a value), and its
-- one INSTEAD OF trigger applies them. Rows can be written in any order.
CREATE VIEW `reward_summary_changes` AS
SELECT '' AS `network`, '' AS `subject_kind`, '' AS `subject`, '' AS `reward_type`, '0' AS `amount`,
  0 AS `asset_denomination`, 0 AS `end_timestamp`, NULL AS `currency`, NULL AS `price`, 0 AS `sign`
WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `reward_summary_changes_apply` INSTEAD OF INSERT ON `reward_summary_changes` BEGIN
  INSERT INTO `reward_summaries` (`network`, `subject_kind`, `subject`, `reward_type`, `rewards`, `amount`, `newest_end_timestamp`)
  SELECT NEW.`network`, NEW.`subject_kind`, NEW.`subject`, NEW.`reward_type`, NEW.`sign`,
    NEW.`sign` * CAST(NEW.`amount` AS INTEGER), NEW.`end_timestamp`
  WHERE NEW.`currency` IS NULL
  ON CONFLICT (`network`, `subject_kind`, `subject`, `reward_type`) DO UPDATE SET
    `rewards` = `rewards` + excluded.`rewards`,
    `amount` = `amount` + excluded.`amount`,
    `newest_end_timestamp` = max(`newest_end_timestamp`, excluded.`newest_end_timestamp`);
  INSERT INTO `reward_value_summaries` (`network`, `subject_kind`, `subject`, `reward_type`, `currency`, `priced`, `value`)
  SELECT NEW.`network`, NEW.`subject_kind`, NEW.`subject`, NEW.`reward_type`, NEW.`currency`, NEW.`sign`,
    NEW.`sign` * CAST(NEW.`amount` AS REAL) / power(10, NEW.`asset_denomination`) * CAST(NEW.`price` AS REAL)
  WHERE NEW.`currency` IS NOT NULL
  ON CONFLICT (`network`, `subject_kind`, `subject`, `reward_type`, `currency`) DO UPDATE SET
    `priced` = `priced` + excluded.`priced`,
    `value` = `value` + excluded.`value`;
END;
--> statement-breakpoint
CREATE TRIGGER `rewards_summary_insert` AFTER INSERT ON `rewards` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT NEW.`network`, 'node_id', NEW.`node_id`, NEW.`reward_type`, NEW.`amount`, NEW.`asset_denomination`,
    NEW.`end_timestamp`, p.`currency`, p.`value`, 1
  FROM (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = NEW.`network` AND `utxo_id` = NEW.`utxo_id`) p
  UNION ALL
  SELECT NEW.`network`, 'address', a.`address`, NEW.`reward_type`, NEW.`amount`, NEW.`asset_denomination`,
    NEW.`end_timestamp`, p.`currency`, p.`value`, 1
  FROM `reward_addresses` a CROSS JOIN (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = NEW.`network` AND `utxo_id` = NEW.`utxo_id`) p
  WHERE a.`network` = NEW.`network` AND a.`utxo_id` = NEW.`utxo_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `rewards_summary_delete` AFTER DELETE ON `rewards` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT OLD.`network`, 'node_id', OLD.`node_id`, OLD.`reward_type`, OLD.`amount`, OLD.`asset_denomination`,
    OLD.`end_timestamp`, p.`currency`, p.`value`, -1
  FROM (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = OLD.`network` AND `utxo_id` = OLD.`utxo_id`) p
  UNION ALL
  SELECT OLD.`network`, 'address', a.`address`, OLD.`reward_type`, OLD.`amount`, OLD.`asset_denomination`,
    OLD.`end_timestamp`, p.`currency`, p.`value`, -1
  FROM `reward_addresses` a CROSS JOIN (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = OLD.`network` AND `utxo_id` = OLD.`utxo_id`) p
  WHERE a.`network` = OLD.`network` AND a.`utxo_id` = OLD.`utxo_id`;
END;
--> statement-breakpoint
-- Only when a counted column changed: touching `last_seen_at` (every re-read) costs nothing here.
CREATE TRIGGER `rewards_summary_update` AFTER UPDATE OF `amount`, `reward_type`, `node_id`, `end_timestamp`, `asset_denomination` ON `rewards`
WHEN OLD.`amount` IS NOT NEW.`amount` OR OLD.`reward_type` IS NOT NEW.`reward_type`
  OR OLD.`node_id` IS NOT NEW.`node_id` OR OLD.`end_timestamp` IS NOT NEW.`end_timestamp`
  OR OLD.`asset_denomination` IS NOT NEW.`asset_denomination` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT OLD.`network`, 'node_id', OLD.`node_id`, OLD.`reward_type`, OLD.`amount`, OLD.`asset_denomination`,
    OLD.`end_timestamp`, p.`currency`, p.`value`, -1
  FROM (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = OLD.`network` AND `utxo_id` = OLD.`utxo_id`) p
  UNION ALL
  SELECT OLD.`network`, 'address', a.`address`, OLD.`reward_type`, OLD.`amount`, OLD.`asset_denomination`,
    OLD.`end_timestamp`, p.`currency`, p.`value`, -1
  FROM `reward_addresses` a CROSS JOIN (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = OLD.`network` AND `utxo_id` = OLD.`utxo_id`) p
  WHERE a.`network` = OLD.`network` AND a.`utxo_id` = OLD.`utxo_id`;
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT NEW.`network`, 'node_id', NEW.`node_id`, NEW.`reward_type`, NEW.`amount`, NEW.`asset_denomination`,
    NEW.`end_timestamp`, p.`currency`, p.`value`, 1
  FROM (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = NEW.`network` AND `utxo_id` = NEW.`utxo_id`) p
  UNION ALL
  SELECT NEW.`network`, 'address', a.`address`, NEW.`reward_type`, NEW.`amount`, NEW.`asset_denomination`,
    NEW.`end_timestamp`, p.`currency`, p.`value`, 1
  FROM `reward_addresses` a CROSS JOIN (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = NEW.`network` AND `utxo_id` = NEW.`utxo_id`) p
  WHERE a.`network` = NEW.`network` AND a.`utxo_id` = NEW.`utxo_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `reward_addresses_summary_insert` AFTER INSERT ON `reward_addresses` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT r.`network`, 'address', NEW.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, p.`currency`, p.`value`, 1
  FROM `rewards` r CROSS JOIN (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = NEW.`network` AND `utxo_id` = NEW.`utxo_id`) p
  WHERE r.`network` = NEW.`network` AND r.`utxo_id` = NEW.`utxo_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `reward_addresses_summary_delete` AFTER DELETE ON `reward_addresses` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT r.`network`, 'address', OLD.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, p.`currency`, p.`value`, -1
  FROM `rewards` r CROSS JOIN (SELECT NULL AS `currency`, NULL AS `value` UNION ALL
    SELECT `currency`, `value` FROM `reward_prices` WHERE `network` = OLD.`network` AND `utxo_id` = OLD.`utxo_id`) p
  WHERE r.`network` = OLD.`network` AND r.`utxo_id` = OLD.`utxo_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `reward_prices_summary_insert` AFTER INSERT ON `reward_prices` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT r.`network`, 'node_id', r.`node_id`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, NEW.`currency`, NEW.`value`, 1
  FROM `rewards` r WHERE r.`network` = NEW.`network` AND r.`utxo_id` = NEW.`utxo_id`
  UNION ALL
  SELECT r.`network`, 'address', a.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, NEW.`currency`, NEW.`value`, 1
  FROM `rewards` r JOIN `reward_addresses` a ON a.`network` = r.`network` AND a.`utxo_id` = r.`utxo_id`
  WHERE r.`network` = NEW.`network` AND r.`utxo_id` = NEW.`utxo_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `reward_prices_summary_delete` AFTER DELETE ON `reward_prices` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT r.`network`, 'node_id', r.`node_id`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, OLD.`currency`, OLD.`value`, -1
  FROM `rewards` r WHERE r.`network` = OLD.`network` AND r.`utxo_id` = OLD.`utxo_id`
  UNION ALL
  SELECT r.`network`, 'address', a.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, OLD.`currency`, OLD.`value`, -1
  FROM `rewards` r JOIN `reward_addresses` a ON a.`network` = r.`network` AND a.`utxo_id` = r.`utxo_id`
  WHERE r.`network` = OLD.`network` AND r.`utxo_id` = OLD.`utxo_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `reward_prices_summary_update` AFTER UPDATE OF `currency`, `value` ON `reward_prices`
WHEN OLD.`currency` IS NOT NEW.`currency` OR OLD.`value` IS NOT NEW.`value` BEGIN
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT r.`network`, 'node_id', r.`node_id`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, OLD.`currency`, OLD.`value`, -1
  FROM `rewards` r WHERE r.`network` = OLD.`network` AND r.`utxo_id` = OLD.`utxo_id`
  UNION ALL
  SELECT r.`network`, 'address', a.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, OLD.`currency`, OLD.`value`, -1
  FROM `rewards` r JOIN `reward_addresses` a ON a.`network` = r.`network` AND a.`utxo_id` = r.`utxo_id`
  WHERE r.`network` = OLD.`network` AND r.`utxo_id` = OLD.`utxo_id`;
  INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
  SELECT r.`network`, 'node_id', r.`node_id`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, NEW.`currency`, NEW.`value`, 1
  FROM `rewards` r WHERE r.`network` = NEW.`network` AND r.`utxo_id` = NEW.`utxo_id`
  UNION ALL
  SELECT r.`network`, 'address', a.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`,
    r.`end_timestamp`, NEW.`currency`, NEW.`value`, 1
  FROM `rewards` r JOIN `reward_addresses` a ON a.`network` = r.`network` AND a.`utxo_id` = r.`utxo_id`
  WHERE r.`network` = NEW.`network` AND r.`utxo_id` = NEW.`utxo_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `usage_metrics_summary_insert` AFTER INSERT ON `usage_metrics` BEGIN
  INSERT INTO `usage_summaries` (`source`, `scope`, `time_interval`, `group_by`, `latest_bucket_timestamp`)
  VALUES (NEW.`source`, NEW.`scope`, NEW.`time_interval`, NEW.`group_by`, NEW.`bucket_timestamp`)
  ON CONFLICT (`source`, `scope`, `time_interval`, `group_by`) DO UPDATE SET
    `latest_bucket_timestamp` = max(`latest_bucket_timestamp`, excluded.`latest_bucket_timestamp`);
END;
--> statement-breakpoint
-- Runs finish once (running → succeeded/failed); the newest finish wins when runs overlap.
CREATE TRIGGER `job_runs_summary_finish` AFTER UPDATE OF `status` ON `job_runs`
WHEN NEW.`status` IN ('succeeded', 'failed') AND NEW.`finished_at` IS NOT NULL BEGIN
  INSERT INTO `job_summaries` (`job`, `last_status`, `last_started_at`, `last_finished_at`, `last_success_at`)
  VALUES (NEW.`job`, NEW.`status`, NEW.`started_at`, NEW.`finished_at`,
    CASE WHEN NEW.`status` = 'succeeded' THEN NEW.`finished_at` END)
  ON CONFLICT (`job`) DO UPDATE SET
    `last_status` = excluded.`last_status`,
    `last_started_at` = excluded.`last_started_at`,
    `last_finished_at` = excluded.`last_finished_at`
  WHERE excluded.`last_finished_at` >= `job_summaries`.`last_finished_at`;
  UPDATE `job_summaries` SET `last_success_at` = NEW.`finished_at`
  WHERE `job` = NEW.`job` AND NEW.`status` = 'succeeded'
    AND (`last_success_at` IS NULL OR `last_success_at` < NEW.`finished_at`);
END;
--> statement-breakpoint
-- Summaries of the rows already stored (once, at upgrade).
INSERT INTO `transaction_summaries` (`network`, `chain_id`, `transactions`, `newest_block_timestamp`)
SELECT `network`, `chain_id`, count(*), max(`block_timestamp`) FROM `transactions` GROUP BY `network`, `chain_id`;
--> statement-breakpoint
INSERT INTO `reward_summary_changes` (`network`, `subject_kind`, `subject`, `reward_type`, `amount`, `asset_denomination`, `end_timestamp`, `currency`, `price`, `sign`)
SELECT r.`network`, 'node_id', r.`node_id`, r.`reward_type`, r.`amount`, r.`asset_denomination`, r.`end_timestamp`, NULL, NULL, 1
FROM `rewards` r
UNION ALL
SELECT r.`network`, 'address', a.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`, r.`end_timestamp`, NULL, NULL, 1
FROM `reward_addresses` a JOIN `rewards` r ON r.`network` = a.`network` AND r.`utxo_id` = a.`utxo_id`
UNION ALL
SELECT r.`network`, 'node_id', r.`node_id`, r.`reward_type`, r.`amount`, r.`asset_denomination`, r.`end_timestamp`, p.`currency`, p.`value`, 1
FROM `reward_prices` p JOIN `rewards` r ON r.`network` = p.`network` AND r.`utxo_id` = p.`utxo_id`
UNION ALL
SELECT r.`network`, 'address', a.`address`, r.`reward_type`, r.`amount`, r.`asset_denomination`, r.`end_timestamp`, p.`currency`, p.`value`, 1
FROM `reward_prices` p JOIN `rewards` r ON r.`network` = p.`network` AND r.`utxo_id` = p.`utxo_id`
JOIN `reward_addresses` a ON a.`network` = r.`network` AND a.`utxo_id` = r.`utxo_id`;
--> statement-breakpoint
INSERT INTO `usage_summaries` (`source`, `scope`, `time_interval`, `group_by`, `latest_bucket_timestamp`)
SELECT `source`, `scope`, `time_interval`, `group_by`, max(`bucket_timestamp`) FROM `usage_metrics`
GROUP BY `source`, `scope`, `time_interval`, `group_by`;
--> statement-breakpoint
-- SQLite takes the bare columns from the row holding max(finished_at).
INSERT INTO `job_summaries` (`job`, `last_status`, `last_started_at`, `last_finished_at`, `last_success_at`)
SELECT j.`job`, j.`status`, j.`started_at`, max(j.`finished_at`),
  (SELECT max(s.`finished_at`) FROM `job_runs` s WHERE s.`job` = j.`job` AND s.`status` = 'succeeded')
FROM `job_runs` j WHERE j.`status` IN ('succeeded', 'failed') AND j.`finished_at` IS NOT NULL
GROUP BY j.`job`;
