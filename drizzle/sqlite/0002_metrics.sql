CREATE TABLE `export_status_counts` (
	`export_name` text NOT NULL,
	`status` text NOT NULL,
	`operations` integer NOT NULL,
	PRIMARY KEY(`export_name`, `status`)
);
--> statement-breakpoint
CREATE TABLE `export_summaries` (
	`export_name` text PRIMARY KEY NOT NULL,
	`latest_status` text NOT NULL,
	`bytes_downloaded` integer NOT NULL,
	`files_downloaded` integer NOT NULL,
	`rows_loaded` integer NOT NULL,
	`last_completed_at_ms` integer
);
--> statement-breakpoint
CREATE TABLE `job_summaries` (
	`job` text PRIMARY KEY NOT NULL,
	`last_status` text NOT NULL,
	`last_started_at` text NOT NULL,
	`last_finished_at` text NOT NULL,
	`last_success_at` text
);
--> statement-breakpoint
CREATE TABLE `reward_summaries` (
	`network` text NOT NULL,
	`subject_kind` text NOT NULL,
	`subject` text NOT NULL,
	`reward_type` text NOT NULL,
	`rewards` integer NOT NULL,
	`amount` integer NOT NULL,
	`newest_end_timestamp` integer NOT NULL,
	PRIMARY KEY(`network`, `subject_kind`, `subject`, `reward_type`)
);
--> statement-breakpoint
CREATE TABLE `reward_value_summaries` (
	`network` text NOT NULL,
	`subject_kind` text NOT NULL,
	`subject` text NOT NULL,
	`reward_type` text NOT NULL,
	`currency` text NOT NULL,
	`priced` integer NOT NULL,
	`value` real NOT NULL,
	PRIMARY KEY(`network`, `subject_kind`, `subject`, `reward_type`, `currency`)
);
--> statement-breakpoint
CREATE TABLE `transaction_summaries` (
	`network` text NOT NULL,
	`chain_id` text NOT NULL,
	`transactions` integer NOT NULL,
	`newest_block_timestamp` integer NOT NULL,
	PRIMARY KEY(`network`, `chain_id`)
);
--> statement-breakpoint
CREATE TABLE `usage_summaries` (
	`source` text NOT NULL,
	`scope` text NOT NULL,
	`time_interval` text NOT NULL,
	`group_by` text NOT NULL,
	`latest_bucket_timestamp` integer NOT NULL,
	PRIMARY KEY(`source`, `scope`, `time_interval`, `group_by`)
);
