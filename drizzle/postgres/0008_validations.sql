CREATE TABLE "pending_rewards" (
	"network" text NOT NULL,
	"tx_hash" text NOT NULL,
	"reward_type" text NOT NULL,
	"node_id" text NOT NULL,
	"addresses" jsonb NOT NULL,
	"amount_staked" numeric NOT NULL,
	"start_timestamp" bigint NOT NULL,
	"end_timestamp" bigint NOT NULL,
	"progress" double precision NOT NULL,
	"estimated_amount" numeric NOT NULL,
	"asset_id" text NOT NULL,
	"staking_type" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "pending_rewards_pkey" PRIMARY KEY("network","tx_hash","reward_type")
);
--> statement-breakpoint
CREATE TABLE "validation_observations" (
	"network" text NOT NULL,
	"node_id" text NOT NULL,
	"tx_hash" text NOT NULL,
	"observed_at" timestamp with time zone NOT NULL,
	"uptime_performance" double precision NOT NULL,
	"reachability_percent" double precision,
	"delegator_count" bigint,
	"amount_delegated" numeric,
	"delegation_capacity" numeric,
	"potential_validation_reward" numeric,
	"potential_delegation_reward" numeric,
	CONSTRAINT "validation_observations_pkey" PRIMARY KEY("network","node_id","tx_hash","observed_at")
);
--> statement-breakpoint
CREATE TABLE "validations" (
	"network" text NOT NULL,
	"node_id" text NOT NULL,
	"tx_hash" text NOT NULL,
	"subnet_id" text NOT NULL,
	"primary_network" integer NOT NULL,
	"status" text NOT NULL,
	"staking_type" text NOT NULL,
	"auto_renew" jsonb,
	"auto_renew_state" text,
	"start_timestamp" bigint NOT NULL,
	"end_timestamp" bigint NOT NULL,
	"amount_staked" numeric NOT NULL,
	"delegation_fee" numeric,
	"delegator_count" bigint,
	"amount_delegated" numeric,
	"delegation_capacity" numeric,
	"uptime_performance" double precision,
	"reachability_percent" double precision,
	"potential_validation_reward" numeric,
	"potential_delegation_reward" numeric,
	"validation_reward" numeric,
	"delegation_reward" numeric,
	"reward_tx_hash" text,
	"remove_tx_hash" text,
	"remove_timestamp" bigint,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "validations_pkey" PRIMARY KEY("network","node_id","tx_hash")
);
--> statement-breakpoint
CREATE TABLE "validator_summaries" (
	"network" text NOT NULL,
	"node_id" text NOT NULL,
	"known" integer NOT NULL,
	"active" integer NOT NULL,
	"auto_renewing" integer NOT NULL,
	"end_timestamp" bigint,
	"period_seconds" bigint,
	"uptime_ratio" double precision,
	"reachability_ratio" double precision,
	"potential_validation_reward" numeric,
	"potential_delegation_reward" numeric,
	"delegators" bigint,
	"amount_delegated" numeric,
	"delegation_capacity" numeric,
	"unrewarded" bigint NOT NULL,
	"newest_unrewarded_end" bigint,
	"pending_reward" numeric,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "validator_summaries_pkey" PRIMARY KEY("network","node_id")
);
--> statement-breakpoint
CREATE INDEX "pending_rewards_node_idx" ON "pending_rewards" USING btree ("node_id");--> statement-breakpoint
CREATE INDEX "validation_observations_observed_idx" ON "validation_observations" USING btree ("observed_at");--> statement-breakpoint
CREATE INDEX "validations_node_status_idx" ON "validations" USING btree ("node_id","status");