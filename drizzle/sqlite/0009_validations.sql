CREATE TABLE `pending_rewards` (
	`network` text NOT NULL,
	`tx_hash` text NOT NULL,
	`reward_type` text NOT NULL,
	`node_id` text NOT NULL,
	`addresses` text NOT NULL,
	`amount_staked` text NOT NULL,
	`start_timestamp` integer NOT NULL,
	`end_timestamp` integer NOT NULL,
	`progress` real NOT NULL,
	`estimated_amount` text NOT NULL,
	`asset_id` text NOT NULL,
	`staking_type` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	PRIMARY KEY(`network`, `tx_hash`, `reward_type`)
);
--> statement-breakpoint
CREATE INDEX `pending_rewards_node_idx` ON `pending_rewards` (`node_id`);--> statement-breakpoint
CREATE TABLE `validation_observations` (
	`network` text NOT NULL,
	`node_id` text NOT NULL,
	`tx_hash` text NOT NULL,
	`observed_at` text NOT NULL,
	`uptime_performance` real NOT NULL,
	`reachability_percent` real,
	`delegator_count` integer,
	`amount_delegated` text,
	`delegation_capacity` text,
	`potential_validation_reward` text,
	`potential_delegation_reward` text,
	PRIMARY KEY(`network`, `node_id`, `tx_hash`, `observed_at`)
);
--> statement-breakpoint
CREATE INDEX `validation_observations_observed_idx` ON `validation_observations` (`observed_at`);--> statement-breakpoint
CREATE TABLE `validations` (
	`network` text NOT NULL,
	`node_id` text NOT NULL,
	`tx_hash` text NOT NULL,
	`subnet_id` text NOT NULL,
	`primary_network` integer NOT NULL,
	`status` text NOT NULL,
	`staking_type` text NOT NULL,
	`auto_renew` text,
	`auto_renew_state` text,
	`start_timestamp` integer NOT NULL,
	`end_timestamp` integer NOT NULL,
	`amount_staked` text NOT NULL,
	`delegation_fee` text,
	`delegator_count` integer,
	`amount_delegated` text,
	`delegation_capacity` text,
	`uptime_performance` real,
	`reachability_percent` real,
	`potential_validation_reward` text,
	`potential_delegation_reward` text,
	`validation_reward` text,
	`delegation_reward` text,
	`reward_tx_hash` text,
	`remove_tx_hash` text,
	`remove_timestamp` integer,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	PRIMARY KEY(`network`, `node_id`, `tx_hash`)
);
--> statement-breakpoint
CREATE INDEX `validations_node_status_idx` ON `validations` (`node_id`,`status`);--> statement-breakpoint
CREATE TABLE `validator_summaries` (
	`network` text NOT NULL,
	`node_id` text NOT NULL,
	`known` integer NOT NULL,
	`active` integer NOT NULL,
	`auto_renewing` integer NOT NULL,
	`end_timestamp` integer,
	`period_seconds` integer,
	`uptime_ratio` real,
	`reachability_ratio` real,
	`potential_validation_reward` text,
	`potential_delegation_reward` text,
	`delegators` integer,
	`amount_delegated` text,
	`delegation_capacity` text,
	`unrewarded` integer NOT NULL,
	`newest_unrewarded_end` integer,
	`pending_reward` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`network`, `node_id`)
);
