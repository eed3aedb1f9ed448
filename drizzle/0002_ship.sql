CREATE TABLE `reward_prices` (
	`network` text NOT NULL,
	`utxo_id` text NOT NULL,
	`currency` text NOT NULL,
	`value` text NOT NULL,
	`fetched_at` text NOT NULL,
	PRIMARY KEY(`network`, `utxo_id`, `currency`)
);
--> statement-breakpoint
-- Prices move to reward_prices, one row per currency (hand-added: keep it in the combined migration).
INSERT INTO `reward_prices` (`network`, `utxo_id`, `currency`, `value`, `fetched_at`)
SELECT `network`, `utxo_id`, `price_currency`, `price_value`, `last_seen_at` FROM `rewards`
WHERE `price_currency` IS NOT NULL AND `price_value` IS NOT NULL;--> statement-breakpoint
-- Rewards cursors now name their currency (<network>/<kind>/<currency>/<digest>): the old ones are unreachable.
DELETE FROM `sync_state` WHERE `job` = 'rewards' AND `scope` NOT LIKE '%/%/%/%';--> statement-breakpoint
ALTER TABLE `rewards` DROP COLUMN `price_currency`;--> statement-breakpoint
ALTER TABLE `rewards` DROP COLUMN `price_value`;