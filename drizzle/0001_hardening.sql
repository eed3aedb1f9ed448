DROP INDEX `reward_addresses_address_idx`;--> statement-breakpoint
CREATE INDEX `reward_addresses_address_idx` ON `reward_addresses` (`address`,`network`,`utxo_id`);--> statement-breakpoint
DROP INDEX `rewards_node_id_idx`;--> statement-breakpoint
CREATE INDEX `rewards_unpriced_idx` ON `rewards` (`end_timestamp`) WHERE "rewards"."price_value" IS NULL;--> statement-breakpoint
CREATE INDEX `rewards_node_id_idx` ON `rewards` (`node_id`,`end_timestamp`);--> statement-breakpoint
CREATE INDEX `job_runs_status_idx` ON `job_runs` (`status`,`job`,`finished_at`);--> statement-breakpoint
CREATE INDEX `transactions_chain_time_idx` ON `transactions` (`chain_id`,`block_timestamp`);