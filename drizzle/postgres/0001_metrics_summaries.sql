-- Metrics summaries (src/store/schema.ts, docs/metrics.md): the PostgreSQL twin of
-- drizzle/sqlite/0003_metrics_summaries.sql, with the same semantics. Kept current in the same
-- transaction as the rows they count (by these triggers; transactions by their writer), so a scrape
-- reads a few rows whatever the size of the tables.
-- Hand-written (drizzle-kit does not model triggers): keep this file as it is when migrations are
-- regenerated. A reward's contribution: 1 reward and its exact `amount` in smallest units, and per
-- price of reward_prices, amount / 10^denomination * price in that currency (double precision, by
-- SQLite's formula; the products of a statement's rows are summed before they are added, so the
-- last digits can differ from SQLite's).
-- Subtractions never lower a newest_* time: rows are not deleted in normal operation. TRUNCATE
-- fires none of these triggers: truncate the summaries together with the tables they count.
-- The update triggers name the columns they watch: changing one's type needs them dropped first.
-- Every function runs with the search_path of this migration (SET search_path FROM CURRENT): a
-- session whose search_path names another schema (psql, a report tool) still counts into the
-- summaries of the tables it writes.
-- SQLite's migration also summarized the rows stored before it; here the tables are created empty
-- by the migration before this one, so there is nothing to summarize.

-- Transactions are counted by the writer, per page (src/store/summaries.ts, withTransactionSummary).
-- Deletions (pruning by hand) still keep the count right: once per statement, per (network, chain).
CREATE FUNCTION transactions_summary_delete() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE transaction_summaries s SET transactions = s.transactions - d.deleted
  FROM (SELECT network, chain_id, count(*) AS deleted FROM deleted_transactions GROUP BY network, chain_id) d
  WHERE s.network = d.network AND s.chain_id = d.chain_id;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER transactions_summary_delete AFTER DELETE ON transactions
REFERENCING OLD TABLE AS deleted_transactions
FOR EACH STATEMENT EXECUTE FUNCTION transactions_summary_delete();
--> statement-breakpoint
-- A reward counts for its node id and for each of its linked addresses; each of its prices
-- (reward_prices, one per currency) adds amount x price to the value summary of that currency.
-- The three functions below add the signed contribution (+1 for rows as they are now, -1 for rows
-- as they were) of rewards, of address links, or of prices, given as arrays of their rows; rows
-- can be written in any order. Inserts and deletes are summarized once per statement (a page of
-- rows: one grouped upsert per summary table instead of one per row and subject); updates, rare,
-- row by row, and only when a counted column changed. Summary rows are updated in key order
-- (ORDER BY), so two hosts writing pages that share a node id or an address wait for each other
-- instead of deadlocking.

-- Rewards' contribution, to their node ids and to every address linked to them so far.
CREATE FUNCTION reward_summaries_add_rewards(p_rows rewards[], p_sign integer)
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
    sum(p_sign * r.amount::double precision / power(10::double precision, r.asset_denomination) * p.value::double precision)
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
-- Address links' contribution: the rewards they link (those stored yet) counted for their addresses.
CREATE FUNCTION reward_summaries_add_addresses(p_rows reward_addresses[], p_sign integer)
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
    sum(p_sign * r.amount::double precision / power(10::double precision, r.asset_denomination) * p.value::double precision)
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
-- Prices' contribution: the value of their rewards (those stored yet), for node ids and addresses.
CREATE FUNCTION reward_summaries_add_prices(p_rows reward_prices[], p_sign integer)
RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO reward_value_summaries AS v (network, subject_kind, subject, reward_type, currency, priced, value)
  SELECT r.network, k.subject_kind, k.subject, r.reward_type, p.currency, p_sign * count(*),
    sum(p_sign * r.amount::double precision / power(10::double precision, r.asset_denomination) * p.value::double precision)
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
--> statement-breakpoint
-- One function per table for its triggers: per statement for inserts (new_rows) and deletes
-- (old_rows), per row for updates (OLD out, NEW in).
CREATE FUNCTION rewards_summary() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM reward_summaries_add_rewards(ARRAY(SELECT n::rewards FROM new_rows n), 1);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM reward_summaries_add_rewards(ARRAY(SELECT o::rewards FROM old_rows o), -1);
  ELSE
    PERFORM reward_summaries_add_rewards(ARRAY[OLD], -1);
    PERFORM reward_summaries_add_rewards(ARRAY[NEW], 1);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER rewards_summary_insert AFTER INSERT ON rewards
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rewards_summary();
--> statement-breakpoint
CREATE TRIGGER rewards_summary_delete AFTER DELETE ON rewards
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rewards_summary();
--> statement-breakpoint
-- Only when a counted column changed: touching `last_seen_at` (every re-read) costs nothing here.
CREATE TRIGGER rewards_summary_update AFTER UPDATE OF amount, reward_type, node_id, end_timestamp, asset_denomination ON rewards
FOR EACH ROW WHEN (OLD.amount IS DISTINCT FROM NEW.amount OR OLD.reward_type IS DISTINCT FROM NEW.reward_type
  OR OLD.node_id IS DISTINCT FROM NEW.node_id OR OLD.end_timestamp IS DISTINCT FROM NEW.end_timestamp
  OR OLD.asset_denomination IS DISTINCT FROM NEW.asset_denomination)
EXECUTE FUNCTION rewards_summary();
--> statement-breakpoint
CREATE FUNCTION reward_addresses_summary() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM reward_summaries_add_addresses(ARRAY(SELECT n::reward_addresses FROM new_rows n), 1);
  ELSE
    PERFORM reward_summaries_add_addresses(ARRAY(SELECT o::reward_addresses FROM old_rows o), -1);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER reward_addresses_summary_insert AFTER INSERT ON reward_addresses
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reward_addresses_summary();
--> statement-breakpoint
CREATE TRIGGER reward_addresses_summary_delete AFTER DELETE ON reward_addresses
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reward_addresses_summary();
--> statement-breakpoint
CREATE FUNCTION reward_prices_summary() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM reward_summaries_add_prices(ARRAY(SELECT n::reward_prices FROM new_rows n), 1);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM reward_summaries_add_prices(ARRAY(SELECT o::reward_prices FROM old_rows o), -1);
  ELSE
    PERFORM reward_summaries_add_prices(ARRAY[OLD], -1);
    PERFORM reward_summaries_add_prices(ARRAY[NEW], 1);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER reward_prices_summary_insert AFTER INSERT ON reward_prices
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reward_prices_summary();
--> statement-breakpoint
CREATE TRIGGER reward_prices_summary_delete AFTER DELETE ON reward_prices
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reward_prices_summary();
--> statement-breakpoint
CREATE TRIGGER reward_prices_summary_update AFTER UPDATE OF currency, value ON reward_prices
FOR EACH ROW WHEN (OLD.currency IS DISTINCT FROM NEW.currency OR OLD.value IS DISTINCT FROM NEW.value)
EXECUTE FUNCTION reward_prices_summary();
--> statement-breakpoint
-- The WHERE skips rewriting the row (a dead tuple) when an older bucket is fetched again.
CREATE FUNCTION usage_metrics_summary_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO usage_summaries AS s (source, scope, time_interval, group_by, latest_bucket_timestamp)
  VALUES (NEW.source, NEW.scope, NEW.time_interval, NEW.group_by, NEW.bucket_timestamp)
  ON CONFLICT (source, scope, time_interval, group_by) DO UPDATE SET
    latest_bucket_timestamp = greatest(s.latest_bucket_timestamp, excluded.latest_bucket_timestamp)
  WHERE excluded.latest_bucket_timestamp > s.latest_bucket_timestamp;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER usage_metrics_summary_insert AFTER INSERT ON usage_metrics
FOR EACH ROW EXECUTE FUNCTION usage_metrics_summary_insert();
--> statement-breakpoint
-- Runs finish once (running → succeeded/failed); the newest finish wins when runs overlap.
CREATE FUNCTION job_runs_summary_finish() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO job_summaries AS s (job, last_status, last_started_at, last_finished_at, last_success_at)
  VALUES (NEW.job, NEW.status, NEW.started_at, NEW.finished_at,
    CASE WHEN NEW.status = 'succeeded' THEN NEW.finished_at END)
  ON CONFLICT (job) DO UPDATE SET
    last_status = excluded.last_status,
    last_started_at = excluded.last_started_at,
    last_finished_at = excluded.last_finished_at
  WHERE excluded.last_finished_at >= s.last_finished_at;
  IF NEW.status = 'succeeded' THEN
    UPDATE job_summaries SET last_success_at = greatest(last_success_at, NEW.finished_at)
    WHERE job = NEW.job AND (last_success_at IS NULL OR last_success_at < NEW.finished_at);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER job_runs_summary_finish AFTER UPDATE OF status ON job_runs
FOR EACH ROW WHEN (NEW.status IN ('succeeded', 'failed') AND NEW.finished_at IS NOT NULL)
EXECUTE FUNCTION job_runs_summary_finish();
