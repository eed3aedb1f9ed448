CREATE TABLE `export_claims` (
	`export_name` text NOT NULL,
	`first_date` text NOT NULL,
	`last_date` text NOT NULL,
	`request_hash` text NOT NULL,
	`attempt` integer NOT NULL,
	`follow_up_of` text,
	`claimed_at` text NOT NULL,
	`operation_id` text,
	`error` text,
	PRIMARY KEY(`export_name`, `first_date`, `last_date`, `request_hash`, `attempt`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `export_claims_operation_id_unique` ON `export_claims` (`operation_id`);--> statement-breakpoint
CREATE TABLE `exported_transactions` (
	`export_name` text NOT NULL,
	`chain_id` text NOT NULL,
	`tx_hash` text NOT NULL,
	`operation_id` text NOT NULL,
	`block_timestamp` integer NOT NULL,
	`tx_type` text NOT NULL,
	`block_number` text,
	`block_hash` text,
	`block_index` integer,
	`tx_status` text,
	`from_address` text,
	`to_address` text,
	`value` text,
	`gas_limit` text,
	`gas_used` text,
	`gas_price` text,
	`nonce` text,
	`method_call_type` text,
	`method_hash` text,
	`method_name` text,
	`addresses` text,
	`amount` text,
	`asset_id` text,
	PRIMARY KEY(`export_name`, `chain_id`, `tx_hash`)
);
--> statement-breakpoint
CREATE INDEX `exported_transactions_time_idx` ON `exported_transactions` (`export_name`,`block_timestamp`);--> statement-breakpoint
CREATE TABLE `reward_prices` (
	`network` text NOT NULL,
	`utxo_id` text NOT NULL,
	`currency` text NOT NULL,
	`value` text NOT NULL,
	`fetched_at` text NOT NULL,
	PRIMARY KEY(`network`, `utxo_id`, `currency`)
);
--> statement-breakpoint
DROP INDEX `reward_addresses_address_idx`;--> statement-breakpoint
CREATE INDEX `reward_addresses_address_idx` ON `reward_addresses` (`address`,`network`,`utxo_id`);--> statement-breakpoint
DROP INDEX `rewards_node_id_idx`;--> statement-breakpoint
CREATE INDEX `rewards_node_id_idx` ON `rewards` (`node_id`,`end_timestamp`);--> statement-breakpoint
-- Prices move to reward_prices, one row per currency (hand-written: keep it when regenerating).
INSERT INTO `reward_prices` (`network`, `utxo_id`, `currency`, `value`, `fetched_at`)
SELECT `network`, `utxo_id`, `price_currency`, `price_value`, `last_seen_at` FROM `rewards`
WHERE `price_currency` IS NOT NULL AND `price_value` IS NOT NULL;--> statement-breakpoint
-- Rewards cursors now name their currency (<network>/<kind>/<currency>/<digest>): the old ones are unreachable.
DELETE FROM `sync_state` WHERE `job` = 'rewards' AND `scope` NOT LIKE '%/%/%/%';--> statement-breakpoint
ALTER TABLE `rewards` DROP COLUMN `price_currency`;--> statement-breakpoint
ALTER TABLE `rewards` DROP COLUMN `price_value`;--> statement-breakpoint
ALTER TABLE `export_files` ADD `rows_loaded` integer;--> statement-breakpoint
ALTER TABLE `export_files` ADD `loaded_at` text;--> statement-breakpoint
CREATE INDEX `export_files_unloaded_idx` ON `export_files` (`operation_id`) WHERE "export_files"."loaded_at" IS NULL;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `request_hash` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `attempt` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `status_reads` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `gave_up_at` text;--> statement-breakpoint
CREATE INDEX `export_operations_status_idx` ON `export_operations` (`status`);--> statement-breakpoint
CREATE INDEX `export_operations_gave_up_idx` ON `export_operations` (`gave_up_at`) WHERE "export_operations"."gave_up_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `job_runs_status_idx` ON `job_runs` (`status`,`job`,`finished_at`);--> statement-breakpoint
CREATE INDEX `transactions_chain_time_idx` ON `transactions` (`chain_id`,`block_timestamp`);