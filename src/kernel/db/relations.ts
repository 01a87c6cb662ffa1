/**
 * The entity side of `columns.reference` (migrations): a many-to-one property to `entity`,
 * indexed, whose deletion and key updates cascade, so entity mappings and migrations agree
 * (the schema-diff test checks it).
 */
export function cascadingReference(entity: string, options: { nullable?: boolean } = {}) {
  return {
    kind: 'm:1',
    entity,
    deleteRule: 'cascade',
    updateRule: 'cascade',
    index: true,
    ...(options.nullable ? { nullable: true } : {}),
  } as const
}
