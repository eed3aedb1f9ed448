CREATE TABLE `export_files` (
	`operation_id` text PRIMARY KEY NOT NULL,
	`path` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`downloaded_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `export_operations` (
	`operation_id` text PRIMARY KEY NOT NULL,
	`export_name` text NOT NULL,
	`first_date` text NOT NULL,
	`last_date` text NOT NULL,
	`operation_type` text NOT NULL,
	`request` text NOT NULL,
	`status` text NOT NULL,
	`code` text,
	`message` text,
	`download_url` text,
	`next_date` text,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`status_history` text NOT NULL,
	`follow_up_of` text,
	`recorded_at` text NOT NULL,
	`polled_at` text
);
--> statement-breakpoint
CREATE INDEX `export_operations_window_idx` ON `export_operations` (`export_name`,`first_date`,`last_date`);--> statement-breakpoint
CREATE TABLE `job_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job` text NOT NULL,
	`scope` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`status` text NOT NULL,
	`rows_written` integer DEFAULT 0 NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`compute_units` integer DEFAULT 0 NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `job_runs_job_started_idx` ON `job_runs` (`job`,`started_at`);--> statement-breakpoint
CREATE TABLE `reward_addresses` (
	`network` text NOT NULL,
	`utxo_id` text NOT NULL,
	`address` text NOT NULL,
	PRIMARY KEY(`network`, `utxo_id`, `address`)
);
--> statement-breakpoint
CREATE INDEX `reward_addresses_address_idx` ON `reward_addresses` (`address`);--> statement-breakpoint
CREATE TABLE `rewards` (
	`network` text NOT NULL,
	`utxo_id` text NOT NULL,
	`tx_hash` text NOT NULL,
	`reward_tx_hash` text NOT NULL,
	`output_index` integer NOT NULL,
	`node_id` text NOT NULL,
	`reward_type` text NOT NULL,
	`amount_staked` text NOT NULL,
	`start_timestamp` integer NOT NULL,
	`end_timestamp` integer NOT NULL,
	`asset_id` text NOT NULL,
	`asset_name` text NOT NULL,
	`asset_symbol` text NOT NULL,
	`asset_denomination` integer NOT NULL,
	`asset_type` text NOT NULL,
	`amount` text NOT NULL,
	`price_currency` text,
	`price_value` text,
	`addresses` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	PRIMARY KEY(`network`, `utxo_id`)
);
--> statement-breakpoint
CREATE INDEX `rewards_node_id_idx` ON `rewards` (`node_id`);--> statement-breakpoint
CREATE INDEX `rewards_end_timestamp_idx` ON `rewards` (`end_timestamp`);--> statement-breakpoint
CREATE TABLE `signatures` (
	`network` text NOT NULL,
	`tx_hash` text NOT NULL,
	`signed_message` text NOT NULL,
	`fetched_at` text NOT NULL,
	PRIMARY KEY(`network`, `tx_hash`)
);
--> statement-breakpoint
CREATE TABLE `supply_snapshots` (
	`last_updated` text PRIMARY KEY NOT NULL,
	`circulating_supply` text NOT NULL,
	`total_supply` text NOT NULL,
	`total_p_burned` text NOT NULL,
	`total_c_burned` text NOT NULL,
	`total_x_burned` text NOT NULL,
	`total_staked` text NOT NULL,
	`total_locked` text NOT NULL,
	`total_rewards` text NOT NULL,
	`genesis_unlock` text NOT NULL,
	`l1_validator_fees` text NOT NULL,
	`fetched_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sync_state` (
	`job` text NOT NULL,
	`scope` text NOT NULL,
	`cursor` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`job`, `scope`)
);
--> statement-breakpoint
CREATE TABLE `transactions` (
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
	`to_address` text NOT NULL,
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
CREATE INDEX `transactions_block_timestamp_idx` ON `transactions` (`block_timestamp`);--> statement-breakpoint
CREATE INDEX `transactions_from_idx` ON `transactions` (`from_address`);--> statement-breakpoint
CREATE INDEX `transactions_to_idx` ON `transactions` (`to_address`);--> statement-breakpoint
CREATE TABLE `usage_metrics` (
	`source` text NOT NULL,
	`scope` text NOT NULL,
	`time_interval` text NOT NULL,
	`group_by` text NOT NULL,
	`bucket_timestamp` integer NOT NULL,
	`group_value` text NOT NULL,
	`aggregate_duration` text NOT NULL,
	`total_requests` real NOT NULL,
	`api_credits_used` real NOT NULL,
	`requests_per_second` real NOT NULL,
	`success_rate_percent` real NOT NULL,
	`median_response_time_msecs` real NOT NULL,
	`invalid_requests` real NOT NULL,
	`api_credits_wasted` real NOT NULL,
	`fetched_at` text NOT NULL,
	PRIMARY KEY(`source`, `scope`, `time_interval`, `group_by`, `bucket_timestamp`, `group_value`)
);
