/**
 * `npx tsx bench/long-frames.ts <trace.json> [min ms]`: what the page's long tasks were made of, from
 * a Chromium performance trace (`BENCH_TRACE=<file> npx tsx bench/batch-ui.ts`). For each task of the
 * page's main thread over `min` ms (default 40): its wall time and thread (CPU) time, so a task long
 * only because the page waited for a core says so; the trace events inside it by self time (script,
 * style, layout, paint, GC); and the JavaScript samples inside it by the nearest function of ours
 * on the stack (through the build's source maps). A diagnostic: prints, asserts nothing.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SourceMapConsumer } from 'source-map-js';

const DIST = join(resolve(import.meta.dirname, '..'), 'dist/renderer');
interface TraceEvent { name: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number; id?: string; args?: Record<string, unknown> }
interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; parent?: number; callFrame: CallFrame }

const file = process.argv[2];
if (!file) throw new Error('usage: npx tsx bench/long-frames.ts <trace.json> [min ms]');
const minMs = Number(process.argv[3] ?? 40);
/** `cpu` as the third argument: the tasks over `min` ms of CPU (thread time), not of wall time. */
const byCpu = process.argv[4] === 'cpu';
const raw = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
const events = Array.isArray(raw) ? raw : raw.traceEvents;

// The page's main thread: the CrRendererMain with the most tasks.
const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && (e.args?.name as string) === 'CrRendererMain');
const tasksOf = (pid: number, tid: number) => events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.name === 'RunTask');
const main = mains.map((m) => ({ pid: m.pid, tid: m.tid, tasks: tasksOf(m.pid, m.tid) })).sort((a, b) => b.tasks.length - a.tasks.length)[0];
if (!main) throw new Error('no renderer main thread in this trace');
const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);

// The JavaScript samples of the page (the profile of the main thread's isolate: the one with the most samples).
const nodes = new Map<string, Map<number, ProfileNode>>();
const samples = new Map<string, { ts: number; node: number }[]>();
const clock = new Map<string, number>();
for (const e of events) {
  if (e.pid !== main.pid) continue;
  const data = e.args?.data as { startTime?: number; cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] }; timeDeltas?: number[] } | undefined;
  if (e.name === 'Profile' && data?.startTime !== undefined) clock.set(e.id!, data.startTime);
  if (e.name !== 'ProfileChunk' || !data?.cpuProfile) continue;
  const id = e.id!;
  if (!nodes.has(id)) nodes.set(id, new Map());
  for (const node of data.cpuProfile.nodes ?? []) nodes.get(id)!.set(node.id, node);
  const list = samples.get(id) ?? [];
  let at = clock.get(id) ?? 0;
  (data.cpuProfile.samples ?? []).forEach((node, i) => {
    at += data.timeDeltas?.[i] ?? 0;
    list.push({ ts: at, node });
  });
  clock.set(id, at);
  samples.set(id, list);
}
const profileId = [...samples].sort((a, b) => b[1].length - a[1].length)[0]?.[0];
const profileSamples = profileId ? samples.get(profileId)! : [];
const profileNodes = profileId ? nodes.get(profileId)! : new Map<number, ProfileNode>();

const maps = new Map<string, SourceMapConsumer | null>();
function sourceOf(frame: CallFrame): string {
  const path = frame.url.replace(/^https?:\/\/[^/]+\//, '');
  if (!path.startsWith('assets/')) return frame.url ? frame.url : frame.functionName;
  if (!maps.has(path)) {
    try {
      maps.set(path, new SourceMapConsumer(JSON.parse(readFileSync(join(DIST, `${path}.map`), 'utf8'))));
    } catch {
      maps.set(path, null);
    }
  }
  const position = maps.get(path)?.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber });
  if (!position?.source) return path;
  return `${position.source.replace(/^(\.\.\/)+/, '').replace(/.*node_modules\/((@[^/]+\/)?[^/]+)\/.*/, '$1')}:${position.line}${position.name ? ` ${position.name}` : ''}`;
}
/** A sample's self frame (package or file) and the nearest function of ours on its stack. */
function attribute(nodeId: number): { self: string; ours: string } {
  let node = profileNodes.get(nodeId);
  const self = node ? (node.callFrame.url ? sourceOf(node.callFrame).replace(/:\d+.*$/, '') : node.callFrame.functionName) : '?';
  while (node) {
    const where = node.callFrame.url ? sourceOf(node.callFrame) : '';
    if (/^(renderer|shared)\//.test(where)) return { self, ours: where };
    node = node.parent === undefined ? undefined : profileNodes.get(node.parent);
  }
  return { self, ours: '(none of ours)' };
}

const top = (counts: Map<string, number>, n: number) =>
  [...counts].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${v.toFixed(1)} ${k}`).join(' | ');

const length = (t: TraceEvent) => (byCpu ? (t.tdur ?? 0) : t.dur!);
const long = main.tasks.filter((t) => length(t) / 1000 >= minMs).sort((a, b) => length(b) - length(a));
const cpu = main.tasks.reduce((n, t) => n + (t.tdur ?? 0), 0) / 1000;
const wall = main.tasks.reduce((n, t) => n + t.dur!, 0) / 1000;
console.log(`page main thread: ${main.tasks.length} tasks (${wall.toFixed(0)} ms wall, ${cpu.toFixed(0)} ms CPU), ${long.length} of ≥ ${minMs} ms ${byCpu ? 'CPU' : 'wall'}; ${profileSamples.length} JS samples`);
for (const task of long.slice(0, 25)) {
  const end = task.ts + task.dur!;
  // Self time by event name inside the task (events nest: a child's time is taken from its parent).
  const inside = onMain.filter((e) => e.ts >= task.ts && e.ts + e.dur! <= end && e !== task);
  const self = new Map<string, number>();
  const stack: TraceEvent[] = [];
  for (const e of inside) {
    while (stack.length && stack.at(-1)!.ts + stack.at(-1)!.dur! <= e.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) self.set(parent.name, (self.get(parent.name) ?? 0) - e.dur! / 1000);
    self.set(e.name, (self.get(e.name) ?? 0) + e.dur! / 1000);
    stack.push(e);
  }
  const js = new Map<string, number>();
  const pkg = new Map<string, number>();
  let previous = task.ts;
  for (const s of profileSamples) {
    if (s.ts < task.ts) {
      previous = s.ts;
      continue;
    }
    if (s.ts > end) break;
    const node = profileNodes.get(s.node);
    const weight = (s.ts - previous) / 1000;
    previous = s.ts;
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const { self: where, ours } = attribute(s.node);
    js.set(ours, (js.get(ours) ?? 0) + weight);
    pkg.set(where, (pkg.get(where) ?? 0) + weight);
  }
  console.log(`\n${(task.dur! / 1000).toFixed(0)} ms wall, ${((task.tdur ?? 0) / 1000).toFixed(0)} ms CPU at +${((task.ts - main.tasks[0]!.ts) / 1e6).toFixed(2)} s`);
  console.log(`  events (self ms): ${top(self, 8)}`);
  if (js.size) console.log(`  JS by our caller (ms): ${top(js, 6)}`);
  if (pkg.size) console.log(`  JS by self source (ms): ${top(pkg, 6)}`);
}

// The whole trace: the page's JavaScript by the nearest function of ours, and by self source.
const allOurs = new Map<string, number>();
const allSelf = new Map<string, number>();
let before = profileSamples[0]?.ts ?? 0;
for (const s of profileSamples) {
  const weight = (s.ts - before) / 1000;
  before = s.ts;
  const node = profileNodes.get(s.node);
  if (!node || node.callFrame.functionName === '(idle)') continue;
  const { self: where, ours } = attribute(s.node);
  allOurs.set(ours, (allOurs.get(ours) ?? 0) + weight);
  allSelf.set(where, (allSelf.get(where) ?? 0) + weight);
}
console.log(`\nwhole trace, JS samples by our caller (ms):\n  ${top(allOurs, 25).split(' | ').join('\n  ')}`);
console.log(`whole trace, JS samples by self source (ms):\n  ${top(allSelf, 20).split(' | ').join('\n  ')}`);

// The whole trace: the main thread's CPU (thread time) by trace event, self (a child's time taken from its parent).
const cpuByEvent = new Map<string, { cpu: number; n: number }>();
const open: TraceEvent[] = [];
const eventKey = (e: TraceEvent) => {
  const data = e.args?.data as { type?: string; functionName?: string } | undefined;
  return ['FunctionCall', 'EventDispatch', 'TimerFire'].includes(e.name) ? `${e.name} ${data?.type ?? data?.functionName ?? ''}`.trim() : e.name;
};
for (const e of onMain) {
  while (open.length && open.at(-1)!.ts + open.at(-1)!.dur! <= e.ts) open.pop();
  const parent = open.at(-1);
  const add = (key: string, cpu: number, n: number) => {
    const entry = cpuByEvent.get(key) ?? { cpu: 0, n: 0 };
    entry.cpu += cpu;
    entry.n += n;
    cpuByEvent.set(key, entry);
  };
  if (parent) add(eventKey(parent), -(e.tdur ?? 0) / 1000, 0);
  add(eventKey(e), (e.tdur ?? 0) / 1000, 1);
  open.push(e);
}
console.log('whole trace, main thread CPU by event, self (ms, count):');
for (const [key, { cpu, n }] of [...cpuByEvent].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, 20)) console.log(`  ${cpu.toFixed(0).padStart(6)} ${String(n).padStart(6)}  ${key}`);
