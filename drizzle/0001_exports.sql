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
ALTER TABLE `export_files` ADD `rows_loaded` integer;--> statement-breakpoint
ALTER TABLE `export_files` ADD `loaded_at` text;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `request_hash` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `attempt` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `status_reads` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `export_operations` ADD `gave_up_at` text;