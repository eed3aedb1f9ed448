CREATE TABLE "cycles" (
	"network" text NOT NULL,
	"staking_tx_hash" text NOT NULL,
	"cycle_index" bigint NOT NULL,
	"node_id" text NOT NULL,
	"reward_tx_hash" text NOT NULL,
	"start_timestamp" bigint NOT NULL,
	"end_timestamp" bigint NOT NULL,
	"weight_at_cycle_start" numeric NOT NULL,
	"gross_validation_reward" numeric NOT NULL,
	"withdrawn_validation_reward" numeric NOT NULL,
	"compounded_validation_reward" numeric NOT NULL,
	"gross_delegatee_reward" numeric NOT NULL,
	"withdrawn_delegatee_reward" numeric NOT NULL,
	"compounded_delegatee_reward" numeric NOT NULL,
	"auto_compound_share_percent" double precision NOT NULL,
	"outcome" text NOT NULL,
	"delegator_count" bigint NOT NULL,
	"amount_delegated" numeric NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cycles_pkey" PRIMARY KEY("network","staking_tx_hash","cycle_index")
);
--> statement-breakpoint
CREATE INDEX "cycles_node_idx" ON "cycles" USING btree ("node_id","end_timestamp");--> statement-breakpoint
CREATE INDEX "cycles_end_timestamp_idx" ON "cycles" USING btree ("end_timestamp");