/**
 * The entity side of `columns.reference` (migrations): a many-to-one property to `entity`,
 * indexed, whose key updates cascade and whose deletion cascades too (the default) or, with
 * `onDelete: 'set null'` on a nullable reference, empties it, so entity mappings and
 * migrations agree (the schema-diff test checks it).
 */
export function cascadingReference(
  entity: string,
  options: { nullable?: boolean; onDelete?: 'cascade' | 'set null' } = {},
) {
  if (options.onDelete === 'set null' && !options.nullable) {
    throw new Error(`a reference to ${entity} that becomes null on delete must be nullable`)
  }
  return {
    kind: 'm:1',
    entity,
    deleteRule: options.onDelete ?? 'cascade',
    updateRule: 'cascade',
    index: true,
    ...(options.nullable ? { nullable: true } : {}),
  } as const
}
