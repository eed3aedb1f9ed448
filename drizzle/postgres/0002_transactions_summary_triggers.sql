-- transaction_summaries kept by triggers on PostgreSQL, as the other summaries are (0001): the
-- writer no longer looks up which rows of a page are stored yet, nor takes a lock per network to
-- make that lookup exact. An INSERT … ON CONFLICT counts exactly the rows it inserted, however many
-- hosts write the same transactions at once. SQLite keeps counting in the writer
-- (src/store/summaries.ts, withTransactionSummary), where a trigger costs a statement journal per row.
-- Hand-written (drizzle-kit does not model triggers): keep this file as it is when migrations are
-- regenerated.
-- Upgrading: stop every collector of the previous version first. One still running would count its
-- pages twice (by itself and by these triggers).

-- Inserts: once per statement (a page), per (network, chain), in key order (two hosts writing pages
-- of the same chains wait for each other instead of deadlocking).
CREATE FUNCTION transactions_summary_insert() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO transaction_summaries AS s (network, chain_id, transactions, newest_block_timestamp)
  SELECT network, chain_id, count(*), max(block_timestamp) FROM inserted_transactions
  GROUP BY network, chain_id
  ORDER BY network, chain_id
  ON CONFLICT (network, chain_id) DO UPDATE SET
    transactions = s.transactions + excluded.transactions,
    newest_block_timestamp = greatest(s.newest_block_timestamp, excluded.newest_block_timestamp);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER transactions_summary_insert AFTER INSERT ON transactions
REFERENCING NEW TABLE AS inserted_transactions
FOR EACH STATEMENT EXECUTE FUNCTION transactions_summary_insert();
--> statement-breakpoint
-- Updates, rare (a re-org moves a transaction to another block; an edit by hand): row by row, only
-- when a counted column changed. A statement-level trigger with transition tables cannot name the
-- columns it watches, and would run on every `last_seen_at` touch.
CREATE FUNCTION transactions_summary_update() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
  IF (OLD.network, OLD.chain_id) IS DISTINCT FROM (NEW.network, NEW.chain_id) THEN
    UPDATE transaction_summaries SET transactions = transactions - 1
    WHERE network = OLD.network AND chain_id = OLD.chain_id;
    INSERT INTO transaction_summaries AS s (network, chain_id, transactions, newest_block_timestamp)
    VALUES (NEW.network, NEW.chain_id, 1, NEW.block_timestamp)
    ON CONFLICT (network, chain_id) DO UPDATE SET
      transactions = s.transactions + 1,
      newest_block_timestamp = greatest(s.newest_block_timestamp, excluded.newest_block_timestamp);
  ELSE
    UPDATE transaction_summaries
    SET newest_block_timestamp = greatest(newest_block_timestamp, NEW.block_timestamp)
    WHERE network = NEW.network AND chain_id = NEW.chain_id;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER transactions_summary_update AFTER UPDATE OF network, chain_id, block_timestamp ON transactions
FOR EACH ROW WHEN ((OLD.network, OLD.chain_id, OLD.block_timestamp) IS DISTINCT FROM (NEW.network, NEW.chain_id, NEW.block_timestamp))
EXECUTE FUNCTION transactions_summary_update();
