import { defineConfig } from 'drizzle-kit';

// Generates drizzle/postgres/ from the PostgreSQL tables (built from src/store/description.ts); needs no database.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/schema.pg.ts',
  out: './drizzle/postgres',
});
