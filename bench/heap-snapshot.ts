// Summaries of V8 heap snapshots (`.heapsnapshot`, as bench workers write them): self size and count per object
// kind (type and constructor or name), so two snapshots can be diffed to see what a set of runs added.
import { readFileSync } from 'node:fs';

interface RawSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Self bytes and object count of one kind of heap object. */
export interface HeapKind {
  kind: string;
  bytes: number;
  count: number;
}

/** Self size and count per kind (`type:name`; strings and code are grouped by type only). */
export function heapKinds(file: string): Map<string, HeapKind> {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as RawSnapshot;
  const fields = raw.snapshot.meta.node_fields;
  const types = raw.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const kinds = new Map<string, HeapKind>();
  for (let i = 0; i < raw.nodes.length; i += width) {
    const type = types[raw.nodes[i + typeAt]!]!;
    const name = raw.strings[raw.nodes[i + nameAt]!]!;
    // Strings, code and numbers are named by their content: group them by type.
    const grouped = ['string', 'concatenated string', 'sliced string', 'code', 'number', 'hidden', 'array'];
    const kind = grouped.includes(type) ? type : `${type}:${name.length > 60 ? `${name.slice(0, 60)}…` : name}`;
    let entry = kinds.get(kind);
    if (!entry) kinds.set(kind, (entry = { kind, bytes: 0, count: 0 }));
    entry.bytes += raw.nodes[i + sizeAt]!;
    entry.count++;
  }
  return kinds;
}

/** What `after` holds beyond `before`, per kind, largest first. */
export function heapDiff(before: Map<string, HeapKind>, after: Map<string, HeapKind>): HeapKind[] {
  const diff: HeapKind[] = [];
  for (const [kind, entry] of after) {
    const base = before.get(kind);
    diff.push({ kind, bytes: entry.bytes - (base?.bytes ?? 0), count: entry.count - (base?.count ?? 0) });
  }
  return diff.sort((a, b) => b.bytes - a.bytes);
}
