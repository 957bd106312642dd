// The TypeScript blocks of the documentation, as files a compiler can check: each ```ts block of README.md and
// docs/*.md becomes a module of its own, or the file its info string names (```ts file=src/agents.ts), so a guide's
// blocks can import each other as a project's files do. ```ts nocheck marks a block that is deliberately partial.
// A block that uses the reader's own values (a `run`, a `mailer`) declares them in an HTML comment right above it,
// invisible on the rendered page: <!-- ts-context\ndeclare const mailer: Mailer;\n-->.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One TypeScript block of a document. */
export interface DocBlock {
  /** The document, relative to the repository root. */
  doc: string;
  /** 1-based line of the block's first code line in the document. */
  line: number;
  /** Where the block goes, relative to its document's folder of checked files. */
  path: string;
  code: string;
  /** The hidden declarations above the block (empty when none). */
  context: string;
}

const FENCE = /^```(ts|typescript)\b(.*)$/;

/** The documents whose blocks are checked. */
export function documents(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** Every checked block of `doc` (blocks marked `nocheck` are left out). */
export function tsBlocks(root: string, doc: string): DocBlock[] {
  const lines = readFileSync(join(root, doc), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (!fence) continue;
    const info = fence[2]!.trim().split(/\s+/).filter(Boolean);
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    const file = info.find((word) => word.startsWith('file='))?.slice('file='.length);
    const context = contextAbove(lines, i);
    if (!info.includes('nocheck')) {
      // .mts: an ES module whatever the folder, so top-level await and `import` type-check as they run.
      blocks.push({
        doc,
        line: start + 1,
        path: file ?? `block-${start + 1}.mts`,
        code: lines.slice(start, end).join('\n'),
        context,
      });
    }
    i = end;
  }
  return blocks;
}

/** The body of a `<!-- ts-context … -->` comment that ends just above line `fence` (blank lines between allowed). */
function contextAbove(lines: string[], fence: number): string {
  let end = fence - 1;
  while (end >= 0 && lines[end]!.trim() === '') end--;
  if (end < 0 || lines[end]!.trim() !== '-->') return '';
  let start = end - 1;
  while (start >= 0 && !lines[start]!.trim().startsWith('<!--')) start--;
  if (start < 0 || lines[start]!.trim() !== '<!-- ts-context') return '';
  return lines.slice(start + 1, end).join('\n');
}
