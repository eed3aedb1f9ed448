/**
 * Records set aside (`rejected_records`) and the drift seen (`upstream_drift`): written in the
 * transaction of the page they came with, so a page, its cursor and what was set aside from it
 * commit together. A record seen again updates its row and counts in `times_seen`: each record is
 * new once (one count of `glacier_records_rejected_total`). A record without a readable key is named
 * by the hash of its known fields (its unknown ones left out), so it is one row however often it is
 * seen. A run keeps at most `setAside.maxRecordsPerRun` new records and `maxBytesPerRun` bytes of
 * their JSON (its `SetAsideRoom`); beyond, a new record is counted as dropped, not kept.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'lossless-json';
import type { DriftName, Findings, RejectReason } from '../upstream/index.js';
import type { Sql } from './sql.js';

/** The most of a record's JSON kept; longer records are cut there (`raw_cut`), and cannot be checked again. */
export const MAX_RAW_BYTES = 16 * 1024;
/** A natural key longer than this is kept as its hash (it is part of the primary key). */
const MAX_KEY_LENGTH = 512;
/** Drift names kept per endpoint; the rest count under `(more)`. */
export const MAX_DRIFT_NAMES = 50;
export const MORE_DRIFT = '(more)';

/** Where findings came from, and what storing their records needs. */
export interface FindingsSource {
  job: string;
  scope: string;
  /** Put before each natural key in `record_id` (`mainnet:` for rewards: the key is the UTXO alone). */
  keyPrefix?: string;
  /** Stored as `context`: what storing the record needs beside it (its network, its series...). */
  context: Record<string, unknown>;
  at: string;
  /** Applied to the raw record and its problems before they are stored (the API key out). */
  scrub?: (text: string) => string;
}

/** A record set aside for the first time: what its log line and counter say. */
export interface SetAsideRecord {
  job: string;
  scope: string;
  endpoint: string;
  recordId: string;
  reason: RejectReason;
  fields: string;
  problems: string;
}

export interface RecordedFindings {
  /** Records set aside for the first time (not those seen again). */
  newRecords: SetAsideRecord[];
  /** Their bytes of raw JSON kept. */
  newBytes: number;
  /** Records new to the table that the run's room could not take: counted, not kept. */
  dropped: number;
  /** Drift names seen for the first time, per endpoint. */
  newDrift: (DriftName & { endpoint: string })[];
}

export const NOTHING_RECORDED: RecordedFindings = { newRecords: [], newBytes: 0, dropped: 0, newDrift: [] };

/** What a run may still set aside: new records, and bytes of their raw JSON. */
export interface SetAsideRoom {
  records: number;
  bytes: number;
}

/** The default cap of a run (`setAside` in the config file), for callers without a config. */
export const DEFAULT_SET_ASIDE_ROOM: Readonly<SetAsideRoom> = { records: 100, bytes: 1024 * 1024 };

/** At most `max` bytes of `text`'s UTF-8, cut on a character boundary. */
function cutUtf8(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  let end = max;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * The raw JSON of a record (lossless: a rewards price keeps its digits), scrubbed and bounded, and
 * the digest of the whole of it (what names a record whose key cannot be read).
 */
export function boundedRaw(
  raw: unknown,
  scrub: (text: string) => string = (t) => t,
): { raw: string; rawBytes: number; rawCut: number; digest: string } {
  const json = scrub(stringify(raw) ?? 'null');
  const rawBytes = Buffer.byteLength(json, 'utf8');
  const digest = createHash('sha256').update(json).digest('hex');
  return rawBytes > MAX_RAW_BYTES
    ? { raw: cutUtf8(json, MAX_RAW_BYTES), rawBytes, rawCut: 1, digest }
    : { raw: json, rawBytes, rawCut: 0, digest };
}

/**
 * The row's id: the natural key (with its prefix) when it was readable (a long one hashed), else the
 * digest of what names the record (`nameDigest`).
 */
export function recordIdOf(key: string | undefined, prefix: string, nameDigest: string): string {
  if (key === undefined) return `sha256:${nameDigest}`;
  const id = `${prefix}${key}`;
  return id.length <= MAX_KEY_LENGTH ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/**
 * The digest naming a record without a key: its known fields (`stable`, unknown ones left out) and
 * the prefix of its source (a signature's network and transaction), scrubbed as its raw JSON is.
 */
function nameDigest(
  r: Findings['rejected'][number],
  prefix: string,
  scrub: (text: string) => string,
  rawDigest: string,
): string {
  if (r.stable === undefined) return rawDigest;
  const json = scrub(stringify(r.stable) ?? 'null');
  return createHash('sha256').update(`${prefix}\n${json}`).digest('hex');
}

/**
 * Writes what a page's checks found, through `sql` (the page's transaction): each record set aside
 * (upserted on its id) while `room` lasts, a record already kept seen again whatever the room, and
 * each drift name (the first 50 of its endpoint; `(more)` for the rest). Returns what is new and
 * what was dropped, for the caller to log, count and take from its room once the transaction
 * committed.
 */
export async function recordFindings(
  sql: Sql,
  findings: Findings | undefined,
  source: FindingsSource,
  room: Readonly<SetAsideRoom> = DEFAULT_SET_ASIDE_ROOM,
): Promise<RecordedFindings> {
  if (!findings) return NOTHING_RECORDED;
  const scrub = source.scrub ?? ((t: string) => t);
  const newRecords: SetAsideRecord[] = [];
  let newBytes = 0;
  let dropped = 0;
  for (const r of findings.rejected) {
    const bounded = boundedRaw(r.raw, scrub);
    const prefix = source.keyPrefix ?? '';
    const recordId = recordIdOf(r.key, prefix, nameDigest(r, prefix, scrub, bounded.digest));
    const keptBytes = Buffer.byteLength(bounded.raw, 'utf8');
    if (newRecords.length >= room.records || newBytes + keptBytes > room.bytes) {
      // No room for a new record: one already kept is seen again, another is counted only.
      const seen = await sql.get<{ timesSeen: number }>(
        `UPDATE rejected_records SET last_seen_at = ?, times_seen = times_seen + 1
         WHERE job = ? AND record_id = ? RETURNING times_seen AS "timesSeen"`,
        [source.at, source.job, recordId],
      );
      if (!seen) dropped++;
      continue;
    }
    // Readable: kept (cut at 512 characters; a longer one's id is its hash).
    const naturalKey =
      r.key === undefined ? null : `${source.keyPrefix ?? ''}${r.key}`.slice(0, MAX_KEY_LENGTH);
    const fields = r.fields.join(', ');
    const problems = scrub(r.problems);
    const row = await sql.get<{ timesSeen: number }>(
      `INSERT INTO rejected_records (job, record_id, scope, endpoint, natural_key, reason, fields, problems,
         context, raw, raw_bytes, raw_cut, first_seen_at, last_seen_at, times_seen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (job, record_id) DO UPDATE SET scope = excluded.scope, endpoint = excluded.endpoint,
         natural_key = excluded.natural_key, reason = excluded.reason, fields = excluded.fields,
         problems = excluded.problems, context = excluded.context, raw = excluded.raw,
         raw_bytes = excluded.raw_bytes, raw_cut = excluded.raw_cut, last_seen_at = excluded.last_seen_at,
         times_seen = rejected_records.times_seen + 1
       RETURNING times_seen AS "timesSeen"`,
      [
        source.job,
        recordId,
        source.scope,
        findings.endpoint,
        naturalKey,
        r.reason,
        fields,
        problems,
        JSON.stringify(source.context),
        bounded.raw,
        bounded.rawBytes,
        bounded.rawCut,
        source.at,
        source.at,
      ],
    );
    if (Number(row?.timesSeen) === 1) {
      newBytes += keptBytes;
      newRecords.push({
        job: source.job,
        scope: source.scope,
        endpoint: findings.endpoint,
        recordId,
        reason: r.reason,
        fields,
        problems,
      });
    }
  }
  const newDrift = await recordDrift(sql, findings.endpoint, findings.drift, source.at);
  return { newRecords, newBytes, dropped, newDrift };
}

/** Upserts drift names of one endpoint; returns those seen for the first time. */
export async function recordDrift(
  sql: Sql,
  endpoint: string,
  names: readonly DriftName[],
  at: string,
): Promise<(DriftName & { endpoint: string })[]> {
  if (names.length === 0) return [];
  const stored = await sql.all<{ kind: string; name: string }>(
    'SELECT kind, name FROM upstream_drift WHERE endpoint = ?',
    [endpoint],
  );
  const known = new Set(stored.map((r) => `${r.kind}\n${r.name}`));
  let kept = stored.filter((r) => r.name !== MORE_DRIFT).length;
  const fresh: (DriftName & { endpoint: string })[] = [];
  for (const d of names) {
    let name = d.name;
    if (!known.has(`${d.kind}\n${name}`)) {
      if (kept < MAX_DRIFT_NAMES) {
        kept++;
        fresh.push({ ...d, endpoint });
      } else name = MORE_DRIFT;
      known.add(`${d.kind}\n${name}`);
    }
    await sql.run(
      `INSERT INTO upstream_drift (endpoint, kind, name, first_seen_at, last_seen_at, times_seen)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (endpoint, kind, name) DO UPDATE SET last_seen_at = excluded.last_seen_at,
         times_seen = upstream_drift.times_seen + excluded.times_seen`,
      [endpoint, d.kind, name, at, at, d.count],
    );
  }
  return fresh;
}

/** A row of rejected_records as read back. */
export interface RejectedRecordRow {
  job: string;
  recordId: string;
  scope: string;
  endpoint: string;
  naturalKey: string | null;
  reason: string;
  fields: string;
  problems: string;
  /** JSON text. */
  context: string;
  raw: string;
  rawBytes: number;
  rawCut: number;
  firstSeenAt: string;
  lastSeenAt: string;
  timesSeen: number;
}

const COLUMNS = `job, record_id AS "recordId", scope, endpoint, natural_key AS "naturalKey", reason, fields,
  problems, CAST(context AS TEXT) AS context, raw, raw_bytes AS "rawBytes", raw_cut AS "rawCut",
  first_seen_at AS "firstSeenAt", last_seen_at AS "lastSeenAt", times_seen AS "timesSeen"`;

/** A job's records set aside, by id, `limit` after `afterId` (keyset paging for `--retry-rejected`). */
export function listRejectedRecords(
  sql: Sql,
  job: string,
  afterId: string,
  limit: number,
): Promise<RejectedRecordRow[]> {
  return sql.all<RejectedRecordRow>(
    `SELECT ${COLUMNS} FROM rejected_records WHERE job = ? AND record_id > ? ORDER BY record_id LIMIT ?`,
    [job, afterId, limit],
  );
}

/** Which of `recordIds` a job has set aside (one primary-key lookup each). */
export async function findRejectedIds(
  sql: Sql,
  job: string,
  recordIds: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const id of new Set(recordIds)) {
    if (await sql.get('SELECT 1 FROM rejected_records WHERE job = ? AND record_id = ?', [job, id]))
      found.add(id);
  }
  return found;
}

/** Removes records set aside that were stored since (`--retry-rejected`). */
export async function deleteRejectedRecords(
  sql: Sql,
  job: string,
  recordIds: readonly string[],
): Promise<void> {
  for (const id of recordIds) {
    await sql.run('DELETE FROM rejected_records WHERE job = ? AND record_id = ?', [job, id]);
  }
}

/** A record checked again and still failing: today's verdict replaces the old one. */
export async function updateRejectedVerdict(
  sql: Sql,
  job: string,
  recordId: string,
  verdict: { reason: string; fields: string; problems: string },
): Promise<void> {
  await sql.run(
    'UPDATE rejected_records SET reason = ?, fields = ?, problems = ? WHERE job = ? AND record_id = ?',
    [verdict.reason, verdict.fields, verdict.problems, job, recordId],
  );
}

/** Per job: records set aside, and the newest one (`status`). */
export interface SetAsideSummary {
  job: string;
  records: number;
  /** By reason. */
  byReason: Record<string, number>;
  newest: RejectedRecordRow;
}

/** Every job's records set aside (job_seen index: a count and one row per job). */
export async function readSetAsideSummaries(sql: Sql): Promise<SetAsideSummary[]> {
  const counts = await sql.all<{ job: string; reason: string; n: number | string }>(
    'SELECT job, reason, count(*) AS n FROM rejected_records GROUP BY job, reason ORDER BY job, reason',
  );
  const byJob = new Map<string, Record<string, number>>();
  for (const c of counts) {
    const reasons = byJob.get(c.job) ?? {};
    reasons[c.reason] = Number(c.n);
    byJob.set(c.job, reasons);
  }
  const out: SetAsideSummary[] = [];
  for (const [job, byReason] of byJob) {
    const newest = await sql.get<RejectedRecordRow>(
      `SELECT ${COLUMNS} FROM rejected_records WHERE job = ? ORDER BY last_seen_at DESC, record_id LIMIT 1`,
      [job],
    );
    if (!newest) continue;
    const records = Object.values(byReason).reduce((a, b) => a + b, 0);
    out.push({ job, records, byReason, newest });
  }
  return out;
}

export interface DriftRow {
  endpoint: string;
  kind: string;
  name: string;
  firstSeenAt: string;
  lastSeenAt: string;
  timesSeen: number;
}

/** Every drift name (at most 51 per endpoint), per endpoint, first seen first. */
export function readDrift(sql: Sql): Promise<DriftRow[]> {
  return sql.all<DriftRow>(
    `SELECT endpoint, kind, name, first_seen_at AS "firstSeenAt", last_seen_at AS "lastSeenAt",
       times_seen AS "timesSeen"
     FROM upstream_drift ORDER BY endpoint, first_seen_at, kind, name`,
  );
}

/** Records set aside per job (a scrape: the index of job and last sight, one count per job). */
export async function countSetAsideRecords(sql: Sql): Promise<{ job: string; records: number }[]> {
  const rows = await sql.all<{ job: string; n: number | string }>(
    'SELECT job, count(*) AS n FROM rejected_records GROUP BY job ORDER BY job',
  );
  return rows.map((r) => ({ job: r.job, records: Number(r.n) }));
}

/** Distinct drift names per endpoint and kind, `(more)` left out (a scrape: at most 51 rows an endpoint). */
export async function countDriftNames(
  sql: Sql,
): Promise<{ endpoint: string; kind: string; names: number }[]> {
  const rows = await sql.all<{ endpoint: string; kind: string; n: number | string }>(
    `SELECT endpoint, kind, count(*) AS n FROM upstream_drift WHERE name <> ? GROUP BY endpoint, kind
     ORDER BY endpoint, kind`,
    [MORE_DRIFT],
  );
  return rows.map((r) => ({ endpoint: r.endpoint, kind: r.kind, names: Number(r.n) }));
}
