import { readFileSync } from 'node:fs';
import { summarize } from '../cpu-profile.js';
for (const f of process.argv.slice(2)) {
  const s = summarize(JSON.parse(readFileSync(f, 'utf8')));
  console.log(f, 'wall', Math.round(s.wallMs), 'busy', Math.round(s.busyMs));
  for (const g of s.groups.slice(0, 12)) console.log('  G', g.name, Math.round(g.selfMs));
  for (const fn of s.functions.slice(0, 25)) console.log('  F', fn.name, Math.round(fn.selfMs), Math.round(fn.totalMs));
}
