// Summaries of V8 CPU profiles (`.cpuprofile`, as bench/profile.ts writes them): where the samples' self time went,
// by function and by package or source folder.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/** A profile as V8 writes it. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Self and inclusive milliseconds of one function or group. */
export interface ProfileEntry {
  name: string;
  selfMs: number;
  totalMs: number;
}

/** What a profile spent its time on. */
export interface ProfileSummary {
  /** Profile duration (wall time, ms). */
  wallMs: number;
  /** Sampled time not idle (ms). */
  busyMs: number;
  functions: ProfileEntry[];
  groups: ProfileEntry[];
}

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);

/** Where a source URL belongs: a package (`pkg` or `@scope/pkg`), a folder of this repository, or the URL itself. */
export function groupOf(url: string, functionName: string): string {
  if (IDLE.has(functionName)) return functionName;
  if (!url) return functionName.startsWith('(') ? functionName : '(native or vm)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return 'node:internal';
  const repo = url.match(/\/(src\/[^/]+|workflows|activities|bench|test)\//);
  if (repo) return repo[1]!;
  return url.includes('workflow-bundle') || url.endsWith('.js') ? `bundle:${url.split('/').pop()}` : url;
}

/** Self time per function and per group, and inclusive time per function (recursion counted once per stack). */
export function summarize(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the delta to the next one.
    const ms = (deltas[i + 1] ?? 0) / 1000;
    self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + ms);
  }
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const fnKey = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || '(anonymous)'} ${url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : ''}`.trim();
  };
  const functions = new Map<string, ProfileEntry>();
  const groups = new Map<string, ProfileEntry>();
  const entry = (map: Map<string, ProfileEntry>, name: string) => {
    let found = map.get(name);
    if (!found) map.set(name, (found = { name, selfMs: 0, totalMs: 0 }));
    return found;
  };
  let busy = 0;
  for (const [id, ms] of self) {
    const node = byId.get(id)!;
    if (!IDLE.has(node.callFrame.functionName)) busy += ms;
    entry(functions, fnKey(node)).selfMs += ms;
    entry(groups, groupOf(node.callFrame.url, node.callFrame.functionName)).selfMs += ms;
    // Inclusive time: every distinct function and group on the stack gets the sample once.
    const seenFns = new Set<string>();
    const seenGroups = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      const key = fnKey(frame);
      const group = groupOf(frame.callFrame.url, frame.callFrame.functionName);
      if (!seenFns.has(key)) {
        seenFns.add(key);
        entry(functions, key).totalMs += ms;
      }
      if (!seenGroups.has(group)) {
        seenGroups.add(group);
        entry(groups, group).totalMs += ms;
      }
    }
  }
  const sorted = (map: Map<string, ProfileEntry>) => [...map.values()].sort((a, b) => b.selfMs - a.selfMs);
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000,
    busyMs: busy,
    functions: sorted(functions),
    groups: sorted(groups),
  };
}
