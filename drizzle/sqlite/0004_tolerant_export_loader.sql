CREATE TABLE `export_file_counts` (
	`export_name` text NOT NULL,
	`load_status` text NOT NULL,
	`files` integer NOT NULL,
	PRIMARY KEY(`export_name`, `load_status`)
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_exported_transactions` (
	`export_name` text NOT NULL,
	`chain_id` text NOT NULL,
	`tx_hash` text NOT NULL,
	`operation_id` text NOT NULL,
	`block_timestamp` integer,
	`tx_type` text,
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
	`extra` text,
	PRIMARY KEY(`export_name`, `chain_id`, `tx_hash`)
);
--> statement-breakpoint
INSERT INTO `__new_exported_transactions`("export_name", "chain_id", "tx_hash", "operation_id", "block_timestamp", "tx_type", "block_number", "block_hash", "block_index", "tx_status", "from_address", "to_address", "value", "gas_limit", "gas_used", "gas_price", "nonce", "method_call_type", "method_hash", "method_name", "addresses", "amount", "asset_id") SELECT "export_name", "chain_id", "tx_hash", "operation_id", "block_timestamp", "tx_type", "block_number", "block_hash", "block_index", "tx_status", "from_address", "to_address", "value", "gas_limit", "gas_used", "gas_price", "nonce", "method_call_type", "method_hash", "method_name", "addresses", "amount", "asset_id" FROM `exported_transactions`;--> statement-breakpoint
DROP TABLE `exported_transactions`;--> statement-breakpoint
ALTER TABLE `__new_exported_transactions` RENAME TO `exported_transactions`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `exported_transactions_time_idx` ON `exported_transactions` (`export_name`,`block_timestamp`);--> statement-breakpoint
ALTER TABLE `export_files` ADD `load_status` text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE `export_files` ADD `load_error` text;--> statement-breakpoint
ALTER TABLE `export_files` ADD `broken_copies` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Files loaded before load statuses existed.
UPDATE `export_files` SET `load_status` = 'loaded' WHERE `loaded_at` IS NOT NULL;
