CREATE TABLE `rejected_records` (
	`job` text NOT NULL,
	`record_id` text NOT NULL,
	`scope` text NOT NULL,
	`endpoint` text NOT NULL,
	`natural_key` text,
	`reason` text NOT NULL,
	`fields` text NOT NULL,
	`problems` text NOT NULL,
	`context` text NOT NULL,
	`raw` text NOT NULL,
	`raw_bytes` integer NOT NULL,
	`raw_cut` integer DEFAULT 0 NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`times_seen` integer NOT NULL,
	PRIMARY KEY(`job`, `record_id`)
);
--> statement-breakpoint
CREATE INDEX `rejected_records_job_seen_idx` ON `rejected_records` (`job`,`last_seen_at`);--> statement-breakpoint
CREATE TABLE `upstream_drift` (
	`endpoint` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`times_seen` integer NOT NULL,
	PRIMARY KEY(`endpoint`, `kind`, `name`)
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_transactions` (
	`chain_id` text NOT NULL,
	`tx_hash` text NOT NULL,
	`network` text NOT NULL,
	`block_number` text NOT NULL,
	`block_timestamp` integer NOT NULL,
	`block_timestamp_ms` integer,
	`block_min_delay_excess` integer,
	`block_hash` text NOT NULL,
	`block_index` integer NOT NULL,
	`tx_status` text NOT NULL,
	`tx_type` integer NOT NULL,
	`gas_limit` text NOT NULL,
	`gas_used` text NOT NULL,
	`gas_price` text NOT NULL,
	`nonce` text NOT NULL,
	`value` text NOT NULL,
	`from_address` text NOT NULL,
	`from_name` text,
	`from_symbol` text,
	`from_decimals` integer,
	`from_logo_uri` text,
	`to_address` text,
	`to_name` text,
	`to_symbol` text,
	`to_decimals` integer,
	`to_logo_uri` text,
	`method_call_type` text,
	`method_hash` text,
	`method_name` text,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	PRIMARY KEY(`chain_id`, `tx_hash`)
);
--> statement-breakpoint
INSERT INTO `__new_transactions`("chain_id", "tx_hash", "network", "block_number", "block_timestamp", "block_timestamp_ms", "block_min_delay_excess", "block_hash", "block_index", "tx_status", "tx_type", "gas_limit", "gas_used", "gas_price", "nonce", "value", "from_address", "from_name", "from_symbol", "from_decimals", "from_logo_uri", "to_address", "to_name", "to_symbol", "to_decimals", "to_logo_uri", "method_call_type", "method_hash", "method_name", "first_seen_at", "last_seen_at") SELECT "chain_id", "tx_hash", "network", "block_number", "block_timestamp", "block_timestamp_ms", "block_min_delay_excess", "block_hash", "block_index", "tx_status", "tx_type", "gas_limit", "gas_used", "gas_price", "nonce", "value", "from_address", "from_name", "from_symbol", "from_decimals", "from_logo_uri", "to_address", "to_name", "to_symbol", "to_decimals", "to_logo_uri", "method_call_type", "method_hash", "method_name", "first_seen_at", "last_seen_at" FROM `transactions`;--> statement-breakpoint
DROP TABLE `transactions`;--> statement-breakpoint
ALTER TABLE `__new_transactions` RENAME TO `transactions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `transactions_block_timestamp_idx` ON `transactions` (`block_timestamp`);--> statement-breakpoint
CREATE INDEX `transactions_chain_time_idx` ON `transactions` (`chain_id`,`block_timestamp`);--> statement-breakpoint
CREATE INDEX `transactions_from_idx` ON `transactions` (`from_address`);--> statement-breakpoint
CREATE INDEX `transactions_to_idx` ON `transactions` (`to_address`);--> statement-breakpoint
ALTER TABLE `export_files` ADD `load_starts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `export_files` ADD `load_run_id` integer;--> statement-breakpoint
-- Hand-written below (drizzle-kit does not model triggers): keep it when migrations are regenerated.
-- The rebuild of `transactions` above (to_address may be NULL: a contract creation) dropped its
-- delete trigger (0003); it is created again as it was.
CREATE TRIGGER `transactions_summary_delete` AFTER DELETE ON `transactions` BEGIN
  UPDATE `transaction_summaries` SET `transactions` = `transactions` - 1
  WHERE `network` = OLD.`network` AND `chain_id` = OLD.`chain_id`;
END;
--> statement-breakpoint
-- Reward summaries that never clamp: 0003 added CAST(amount AS INTEGER), which SQLite clamps at
-- 2^63 - 1 (a sum then went REAL, which the rewards collector could not read). CAST(amount AS
-- NUMERIC) is exact up to 2^63 - 1 nAVAX (9.2 billion AVAX) and a float beyond, never clamped; the
-- sum goes on the same way (an INTEGER sum that passes 2^63 - 1 becomes REAL). A value with a
-- denomination outside 0..30 (stored by an earlier version) counts 0, not NULL (which would fail
-- the write of its price).
DROP TRIGGER `reward_summary_changes_apply`;
--> statement-breakpoint
CREATE TRIGGER `reward_summary_changes_apply` INSTEAD OF INSERT ON `reward_summary_changes` BEGIN
  INSERT INTO `reward_summaries` (`network`, `subject_kind`, `subject`, `reward_type`, `rewards`, `amount`, `newest_end_timestamp`)
  SELECT NEW.`network`, NEW.`subject_kind`, NEW.`subject`, NEW.`reward_type`, NEW.`sign`,
    NEW.`sign` * CAST(NEW.`amount` AS NUMERIC), NEW.`end_timestamp`
  WHERE NEW.`currency` IS NULL
  ON CONFLICT (`network`, `subject_kind`, `subject`, `reward_type`) DO UPDATE SET
    `rewards` = `rewards` + excluded.`rewards`,
    `amount` = `amount` + excluded.`amount`,
    `newest_end_timestamp` = max(`newest_end_timestamp`, excluded.`newest_end_timestamp`);
  INSERT INTO `reward_value_summaries` (`network`, `subject_kind`, `subject`, `reward_type`, `currency`, `priced`, `value`)
  SELECT NEW.`network`, NEW.`subject_kind`, NEW.`subject`, NEW.`reward_type`, NEW.`currency`, NEW.`sign`,
    coalesce(CASE WHEN NEW.`asset_denomination` BETWEEN 0 AND 30 THEN
      NEW.`sign` * CAST(NEW.`amount` AS REAL) / power(10, NEW.`asset_denomination`) * CAST(NEW.`price` AS REAL)
    END, 0.0)
  WHERE NEW.`currency` IS NOT NULL
  ON CONFLICT (`network`, `subject_kind`, `subject`, `reward_type`, `currency`) DO UPDATE SET
    `priced` = `priced` + excluded.`priced`,
    `value` = `value` + excluded.`value`;
END;
--> statement-breakpoint
-- The summaries again from the rows stored (a clamped sum is recounted), once, at upgrade.
DELETE FROM `reward_summaries`;
--> statement-breakpoint
DELETE FROM `reward_value_summaries`;
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
