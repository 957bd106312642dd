// `durable-agent init <dir>`: writes the project, then prints the three commands that run it.
import { relative } from 'node:path';
import { initProject } from './init-project.js';

/** Writes the project and prints what to do next; returns the exit status. */
export function initCommand(dir: string, force: boolean, out: (text: string) => void): number {
  const result = initProject(dir, { force });
  const where = relative(process.cwd(), result.dir) || '.';
  out(`Wrote ${result.written.length} files to ${result.dir}:`);
  for (const file of result.written) out(`  ${file}`);
  if (result.kept.length > 0) out(`Kept ${result.kept.length} existing files: ${result.kept.join(', ')}`);
  out('');
  out('Next:');
  out(`  cd ${where.includes(' ') ? JSON.stringify(where) : where}`);
  out('  npm install');
  out('  npm start     # offline: an embedded Temporal dev server, your agent, a run with an approval');
  out('  npm test      # three tests: two with a scripted model, one offline end to end');
  out('  npm run dev   # host your agents for the CLI, restarted when you edit them');
  return 0;
}
