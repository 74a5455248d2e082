/** One numbered workspace migration: applied with its version row in one transaction (./migrate.ts). */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}
