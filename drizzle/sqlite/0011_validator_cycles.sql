CREATE TABLE `cycles` (
	`network` text NOT NULL,
	`staking_tx_hash` text NOT NULL,
	`cycle_index` integer NOT NULL,
	`node_id` text NOT NULL,
	`reward_tx_hash` text NOT NULL,
	`start_timestamp` integer NOT NULL,
	`end_timestamp` integer NOT NULL,
	`weight_at_cycle_start` text NOT NULL,
	`gross_validation_reward` text NOT NULL,
	`withdrawn_validation_reward` text NOT NULL,
	`compounded_validation_reward` text NOT NULL,
	`gross_delegatee_reward` text NOT NULL,
	`withdrawn_delegatee_reward` text NOT NULL,
	`compounded_delegatee_reward` text NOT NULL,
	`auto_compound_share_percent` real NOT NULL,
	`outcome` text NOT NULL,
	`delegator_count` integer NOT NULL,
	`amount_delegated` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	PRIMARY KEY(`network`, `staking_tx_hash`, `cycle_index`)
);
--> statement-breakpoint
CREATE INDEX `cycles_node_idx` ON `cycles` (`node_id`,`end_timestamp`);--> statement-breakpoint
CREATE INDEX `cycles_end_timestamp_idx` ON `cycles` (`end_timestamp`);