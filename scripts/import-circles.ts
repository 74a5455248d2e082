/**
 * Finds import circles among the project's own TypeScript modules (type-only imports included: a
 * circle of types still ties two modules together). Prints each circle; exit code 1 when any.
 * Used by test/shared/import-circles.test.ts; run by hand with `npx tsx scripts/import-circles.ts`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['electron', 'shared', 'renderer/src', 'packages/sandbox/src'];
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every circle (as a list of files relative to the root), found with Tarjan's strongly connected components. */
export function importCircles(root = ROOT): string[][] {
  const files = FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)));
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(IMPORT)) {
      const target = resolveImport(file, match[1] as string);
      if (target) targets.add(target);
    }
    edges.set(file, [...targets]);
  }
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  function visit(node: string): void {
    indexOf.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, indexOf.get(next) as number));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(relative(root, member));
      } while (member !== node);
      if (component.length > 1) circles.push(component.sort());
    }
  }
  for (const file of files) if (!indexOf.has(file)) visit(file);
  return circles;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const circles = importCircles();
  for (const circle of circles) console.log(`circle: ${circle.join(' <-> ')}`);
  console.log(circles.length === 0 ? 'no import circles' : `${circles.length} import circle(s)`);
  process.exitCode = circles.length === 0 ? 0 : 1;
}
