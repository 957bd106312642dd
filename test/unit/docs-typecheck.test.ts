// Docs never go stale: every TypeScript block of README.md and docs/*.md is compiled against the package's public
// entries (`durable-agent`, `durable-agent/client`, …, mapped to their sources), so a block that imports a name
// from the wrong entry or calls an API that changed fails here instead of on a reader's copy-paste.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { documents, tsBlocks } from '../support/doc-blocks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside node_modules, so the blocks resolve zod, vitest and the rest as a project that installed them would.
const OUT = join(ROOT, 'node_modules', '.cache', 'docs-typecheck');

/** `durable-agent/<entry>` → its source file, from package.json's exports (types: dist/src/x.d.ts → src/x.ts). */
function entryPaths(): Record<string, string[]> {
  const manifest = JSON.parse(ts.sys.readFile(join(ROOT, 'package.json'))!) as {
    exports: Record<string, string | { types?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [entry, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string' || !target.types) continue;
    const source = target.types.replace(/^\.\/dist\//, './').replace(/\.d\.ts$/, '.ts');
    paths[entry === '.' ? 'durable-agent' : `durable-agent/${entry.slice(2)}`] = [join(ROOT, source)];
  }
  return paths;
}

describe('documentation', () => {
  it('every TypeScript block in README.md and docs/, and the project template, compile against the public entries', () => {
    rmSync(OUT, { recursive: true, force: true });
    const files: string[] = [];
    const origin = new Map<string, string>();
    for (const doc of documents(ROOT)) {
      for (const block of tsBlocks(ROOT, doc)) {
        const path = join(OUT, doc.replace(/\.md$/, ''), block.path);
        mkdirSync(dirname(path), { recursive: true });
        // The context goes on the block's first line, so the block's line numbers stay the document's.
        const head = block.context.replace(/\n/g, ' ');
        const module = /^(import|export) /m.test(block.code) ? '' : '\nexport {};';
        writeFileSync(path, `${head}${head ? ' ' : ''}${block.code}${module}\n`);
        files.push(path);
        origin.set(path, `${doc}:${block.line}`);
      }
    }
    // .ts files named by `file=` are ES modules too, as in a project with "type": "module".
    writeFileSync(join(OUT, 'package.json'), '{ "type": "module" }\n');
    expect(files.length).toBeGreaterThanOrEqual(20);

    // The project `durable-agent init` writes compiles against the same entries (the drill compiles it against the
    // packed package; this catches an API change in seconds).
    const template = join(ROOT, 'templates', 'project');
    const templateFiles = [
      'src/agents.ts',
      'src/client.ts',
      'src/start.ts',
      'src/worker.ts',
      'test/support-agent.test.ts',
    ];
    for (const file of templateFiles) {
      files.push(join(template, file));
      origin.set(join(template, file), `templates/project/${file}:1`);
    }

    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      paths: entryPaths(),
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file && files.includes(diagnostic.file.fileName))
      .map((diagnostic) => {
        const file = diagnostic.file!;
        const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const [doc, first] = origin.get(file.fileName)!.split(':');
        const where = `${doc}:${Number(first) + line}`;
        return `${where} (${relative(OUT, file.fileName)}): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  }, 180_000);
});
