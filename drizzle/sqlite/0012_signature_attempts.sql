CREATE TABLE `signature_attempts` (
	`network` text NOT NULL,
	`tx_hash` text NOT NULL,
	`outcome` text NOT NULL,
	`status` integer NOT NULL,
	`message` text NOT NULL,
	`failures` integer NOT NULL,
	`first_failed_at` text NOT NULL,
	`last_attempt_at` text NOT NULL,
	`next_attempt_at` text NOT NULL,
	`config_digest` text NOT NULL,
	PRIMARY KEY(`network`, `tx_hash`)
);
