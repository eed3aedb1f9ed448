import type { AnyColumn, ColumnBuilderBase, HasDefault, IsPrimaryKey, NotNull, SQL } from 'drizzle-orm';

/*
 * The words description.ts describes the tables in, the same for both databases, and how a
 * database's schema (schema.ts, schema.pg.ts) turns a description into Drizzle columns.
 */

/**
 * What a column holds. Each database maps a kind to its own type:
 * - `text`: SQLite TEXT, PostgreSQL `text`.
 * - `decimal`: an exact decimal as the API sent it (amounts in wei, nAVAX or AVAX, gas, nonce,
 *   value, block numbers, prices). SQLite TEXT, cast in SQL (`CAST(amount AS REAL)`) only where a
 *   float is acceptable; PostgreSQL `numeric`, never a float.
 * - `integer`: counts, sizes, ids and the API's own times, which keep the API's unit (block and
 *   reward times in Unix seconds, operation times in milliseconds). SQLite INTEGER; PostgreSQL
 *   `bigint` (all fit in 2^53, and read back as numbers).
 * - `int32`: a small enumeration or denomination (`tx_type`, `*_decimals`, `asset_denomination`).
 *   SQLite INTEGER; PostgreSQL `integer`.
 * - `timestamp`: the collector's own times (`*_at`), ISO-8601 UTC. SQLite TEXT; PostgreSQL
 *   `timestamptz`. Times from the API are `integer` in their unit, or `text` as sent
 *   (supply_snapshots.last_updated: the key, at the API's precision), and dates (YYYY-MM-DD) `text`.
 * - `json`: raw JSON kept as sent, or the collector's own. SQLite TEXT; PostgreSQL `jsonb`, which
 *   reads back as equivalent JSON, not the same text (keys reordered, whitespace normalized), so
 *   compare it parsed.
 * - `real`: a float. SQLite REAL; PostgreSQL `double precision`.
 * - `decimalSum`: an exact sum of amounts in smallest units. SQLite INTEGER (an int64 holds 9.2
 *   billion AVAX in nAVAX); PostgreSQL `numeric` (no int64 bound there).
 * - `identity`: a run's id. SQLite INTEGER PRIMARY KEY AUTOINCREMENT; PostgreSQL a `bigint`
 *   identity (BY DEFAULT, so a copy from SQLite can keep its ids; set the sequence past them after
 *   such a copy).
 * The PostgreSQL pool parses bigint as a number, timestamptz as ISO text, jsonb as its text and
 * numeric as a string (postgres.ts), so rows come back as SQLite's do.
 */
export type Kind =
  | 'text'
  | 'decimal'
  | 'integer'
  | 'int32'
  | 'timestamp'
  | 'json'
  | 'real'
  | 'decimalSum'
  | 'identity';

/** The value a column of kind K holds in a row (its default is one). */
type Value<K extends Kind> = K extends 'text' | 'decimal' | 'timestamp' | 'json' ? string : number;

/** A column, written as Drizzle's builders write one (`text('name').notNull()`), for both databases. */
export class Column<
  K extends Kind = Kind,
  IsNotNull extends boolean = boolean,
  IsDefaulted extends boolean = boolean,
  IsKey extends boolean = boolean,
> {
  /** Type only: what the Drizzle column built from it infers for a row. */
  declare readonly _: { notNull: IsNotNull; hasDefault: IsDefaulted; primaryKey: IsKey };
  constructor(
    readonly kind: K,
    readonly name: string,
    readonly options: {
      notNull?: boolean;
      default?: string | number;
      primaryKey?: boolean;
      unique?: boolean;
    } = {},
  ) {}
  notNull(): Column<K, true, IsDefaulted, IsKey> {
    return new Column(this.kind, this.name, { ...this.options, notNull: true });
  }
  default(value: Value<K>): Column<K, IsNotNull, true, IsKey> {
    return new Column(this.kind, this.name, { ...this.options, default: value });
  }
  primaryKey(): Column<K, true, IsDefaulted, true> {
    return new Column(this.kind, this.name, { ...this.options, primaryKey: true });
  }
  unique(): Column<K, IsNotNull, IsDefaulted, IsKey> {
    return new Column(this.kind, this.name, { ...this.options, unique: true });
  }
}

const kind =
  <K extends Kind>(k: K) =>
  (name: string) =>
    new Column<K, false, false, false>(k, name);
export const text = kind('text');
export const decimal = kind('decimal');
export const integer = kind('integer');
export const int32 = kind('int32');
export const timestamp = kind('timestamp');
export const json = kind('json');
export const real = kind('real');
export const decimalSum = kind('decimalSum');
export const identity = kind('identity');

/**
 * A composite primary key (PostgreSQL names it `<table>_pkey`, as it names a single-column one:
 * drizzle's default names pass its 63-character limit), or an index, with its `WHERE` when partial.
 */
export type Constraint =
  | { type: 'primaryKey'; columns: AnyColumn[] }
  | { type: 'index'; name: string; columns: AnyColumn[]; condition?: SQL };

export const primaryKey = (...columns: AnyColumn[]): Constraint => ({ type: 'primaryKey', columns });

export const index = (name: string) => ({
  on: (...columns: AnyColumn[]) => ({
    type: 'index' as const,
    name,
    columns,
    where: (condition: SQL): Constraint => ({ type: 'index', name, columns, condition }),
  }),
});

export type Columns = Record<string, Column>;

export interface Table<Name extends string = string, C extends Columns = Columns> {
  name: Name;
  columns: C;
  /** Given the columns as one database's schema built them (a partial index's `WHERE` names them). */
  constraints(t: { [P in keyof C]: AnyColumn }): Constraint[];
}

export const table = <Name extends string, C extends Columns>(
  name: Name,
  columns: C,
  constraints: (t: { [P in keyof C]: AnyColumn }) => Constraint[] = () => [],
): Table<Name, C> => ({ name, columns, constraints });

/** A database's builder of each kind's column (schema.ts's, schema.pg.ts's). */
export type KindBuilders = Record<Kind, (name: string) => ColumnBuilderBase>;

type Modified<B extends ColumnBuilderBase, IsNotNull, IsDefaulted, IsKey> = Defaulted<
  IsKey extends true ? IsPrimaryKey<NotNull<B>> : IsNotNull extends true ? NotNull<B> : B,
  IsDefaulted
>;
type Defaulted<B extends ColumnBuilderBase, IsDefaulted> = IsDefaulted extends true ? HasDefault<B> : B;

/** The Drizzle builders `buildColumns` returns, typed as if written by hand: rows infer the same. */
export type BuiltColumns<B extends KindBuilders, C extends Columns> = {
  [P in keyof C]: C[P] extends Column<infer K, infer IsNotNull, infer IsDefaulted, infer IsKey>
    ? Modified<ReturnType<B[K]>, IsNotNull, IsDefaulted, IsKey>
    : never;
};

/** What the builders of both databases have in common. */
interface Builder {
  notNull(): Builder;
  default(value: string | number): Builder;
  primaryKey(): Builder;
  unique(): Builder;
}

/** A table's columns as one database's Drizzle builders: its builder of each kind, then the options. */
export function buildColumns<B extends KindBuilders, C extends Columns>(
  builders: B,
  columns: C,
): BuiltColumns<B, C> {
  const built = Object.entries(columns).map(([prop, column]) => {
    const { notNull, default: value, primaryKey, unique } = column.options;
    let builder = builders[column.kind](column.name) as unknown as Builder;
    if (primaryKey) builder = builder.primaryKey();
    else if (notNull) builder = builder.notNull();
    if (value !== undefined) builder = builder.default(value);
    if (unique) builder = builder.unique();
    return [prop, builder];
  });
  return Object.fromEntries(built) as BuiltColumns<B, C>;
}
