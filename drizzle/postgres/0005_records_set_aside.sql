CREATE TABLE "rejected_records" (
	"job" text NOT NULL,
	"record_id" text NOT NULL,
	"scope" text NOT NULL,
	"endpoint" text NOT NULL,
	"natural_key" text,
	"reason" text NOT NULL,
	"fields" text NOT NULL,
	"problems" text NOT NULL,
	"context" jsonb NOT NULL,
	"raw" text NOT NULL,
	"raw_bytes" bigint NOT NULL,
	"raw_cut" bigint DEFAULT 0 NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"times_seen" bigint NOT NULL,
	CONSTRAINT "rejected_records_pkey" PRIMARY KEY("job","record_id")
);
--> statement-breakpoint
CREATE TABLE "upstream_drift" (
	"endpoint" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"times_seen" bigint NOT NULL,
	CONSTRAINT "upstream_drift_pkey" PRIMARY KEY("endpoint","kind","name")
);
--> statement-breakpoint
ALTER TABLE "transactions" ALTER COLUMN "to_address" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "export_files" ADD COLUMN "load_starts" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "export_files" ADD COLUMN "load_run_id" bigint;--> statement-breakpoint
CREATE INDEX "rejected_records_job_seen_idx" ON "rejected_records" USING btree ("job","last_seen_at");--> statement-breakpoint
-- Hand-written below (drizzle-kit does not model functions): keep it when migrations are regenerated.
-- The value summaries of 0001 again, a reward whose denomination is outside 0..30 (stored by an
-- earlier version) counting 0: power(10, 400) is an error here, which failed the write of its
-- price, and a run on every later page. Amounts stay exact sums (numeric).
CREATE OR REPLACE FUNCTION reward_summaries_add_rewards(p_rows rewards[], p_sign integer)
RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO reward_summaries AS s (network, subject_kind, subject, reward_type, rewards, amount, newest_end_timestamp)
  SELECT r.network, k.subject_kind, k.subject, r.reward_type, p_sign * count(*), p_sign * sum(r.amount),
    max(r.end_timestamp)
  FROM unnest(p_rows) r
  CROSS JOIN LATERAL (SELECT 'node_id' AS subject_kind, r.node_id AS subject
    UNION ALL
    SELECT 'address', a.address FROM reward_addresses a WHERE a.network = r.network AND a.utxo_id = r.utxo_id) k
  GROUP BY r.network, k.subject_kind, k.subject, r.reward_type
  ORDER BY r.network, k.subject_kind, k.subject, r.reward_type
  ON CONFLICT (network, subject_kind, subject, reward_type) DO UPDATE SET
    rewards = s.rewards + excluded.rewards,
    amount = s.amount + excluded.amount,
    newest_end_timestamp = greatest(s.newest_end_timestamp, excluded.newest_end_timestamp);
  INSERT INTO reward_value_summaries AS v (network, subject_kind, subject, reward_type, currency, priced, value)
  SELECT r.network, k.subject_kind, k.subject, r.reward_type, p.currency, p_sign * count(*),
    sum(CASE WHEN r.asset_denomination BETWEEN 0 AND 30 THEN
      p_sign * r.amount::double precision / power(10::double precision, r.asset_denomination) * p.value::double precision
    ELSE 0 END)
  FROM unnest(p_rows) r
  CROSS JOIN LATERAL (SELECT 'node_id' AS subject_kind, r.node_id AS subject
    UNION ALL
    SELECT 'address', a.address FROM reward_addresses a WHERE a.network = r.network AND a.utxo_id = r.utxo_id) k
  JOIN reward_prices p ON p.network = r.network AND p.utxo_id = r.utxo_id
  GROUP BY r.network, k.subject_kind, k.subject, r.reward_type, p.currency
  ORDER BY r.network, k.subject_kind, k.subject, r.reward_type, p.currency
  ON CONFLICT (network, subject_kind, subject, reward_type, currency) DO UPDATE SET
    priced = v.priced + excluded.priced,
    value = v.value + excluded.value;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION reward_summaries_add_addresses(p_rows reward_addresses[], p_sign integer)
RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO reward_summaries AS s (network, subject_kind, subject, reward_type, rewards, amount, newest_end_timestamp)
  SELECT r.network, 'address', l.address, r.reward_type, p_sign * count(*), p_sign * sum(r.amount), max(r.end_timestamp)
  FROM unnest(p_rows) l
  JOIN rewards r ON r.network = l.network AND r.utxo_id = l.utxo_id
  GROUP BY r.network, l.address, r.reward_type
  ORDER BY r.network, l.address, r.reward_type
  ON CONFLICT (network, subject_kind, subject, reward_type) DO UPDATE SET
    rewards = s.rewards + excluded.rewards,
    amount = s.amount + excluded.amount,
    newest_end_timestamp = greatest(s.newest_end_timestamp, excluded.newest_end_timestamp);
  INSERT INTO reward_value_summaries AS v (network, subject_kind, subject, reward_type, currency, priced, value)
  SELECT r.network, 'address', l.address, r.reward_type, p.currency, p_sign * count(*),
    sum(CASE WHEN r.asset_denomination BETWEEN 0 AND 30 THEN
      p_sign * r.amount::double precision / power(10::double precision, r.asset_denomination) * p.value::double precision
    ELSE 0 END)
  FROM unnest(p_rows) l
  JOIN rewards r ON r.network = l.network AND r.utxo_id = l.utxo_id
  JOIN reward_prices p ON p.network = r.network AND p.utxo_id = r.utxo_id
  GROUP BY r.network, l.address, r.reward_type, p.currency
  ORDER BY r.network, l.address, r.reward_type, p.currency
  ON CONFLICT (network, subject_kind, subject, reward_type, currency) DO UPDATE SET
    priced = v.priced + excluded.priced,
    value = v.value + excluded.value;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION reward_summaries_add_prices(p_rows reward_prices[], p_sign integer)
RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO reward_value_summaries AS v (network, subject_kind, subject, reward_type, currency, priced, value)
  SELECT r.network, k.subject_kind, k.subject, r.reward_type, p.currency, p_sign * count(*),
    sum(CASE WHEN r.asset_denomination BETWEEN 0 AND 30 THEN
      p_sign * r.amount::double precision / power(10::double precision, r.asset_denomination) * p.value::double precision
    ELSE 0 END)
  FROM unnest(p_rows) p
  JOIN rewards r ON r.network = p.network AND r.utxo_id = p.utxo_id
  CROSS JOIN LATERAL (SELECT 'node_id' AS subject_kind, r.node_id AS subject
    UNION ALL
    SELECT 'address', a.address FROM reward_addresses a WHERE a.network = r.network AND a.utxo_id = r.utxo_id) k
  GROUP BY r.network, k.subject_kind, k.subject, r.reward_type, p.currency
  ORDER BY r.network, k.subject_kind, k.subject, r.reward_type, p.currency
  ON CONFLICT (network, subject_kind, subject, reward_type, currency) DO UPDATE SET
    priced = v.priced + excluded.priced,
    value = v.value + excluded.value;
END;
$$;
