import type { QueryRunner } from 'typeorm';

/** The quoted schema a migration runs in: the one its service's DataSource owns. */
export function schemaOf(queryRunner: QueryRunner): string {
  const schema = (queryRunner.connection.options as { schema?: string }).schema;
  if (!schema) throw new Error('service DataSource has no schema');
  return `"${schema}"`;
}
