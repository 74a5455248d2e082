/**
 * The script the first screen runs has no zod (issue 28): `shared/api`'s and `shared/contract`'s
 * indexes build every schema at import (~90 kB of zod evaluated before the first request can
 * leave). Follows the static value imports (not `import type`, not `import()`) from the entry and
 * from the opening screen, as the bundler does, and says which module brought zod in.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The modules a file imports for their values, as written (a specifier per import). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      // Elided by the bundler: `import type`, and imports whose every name is `type` (not verbatim).
      if (clause?.isTypeOnly) continue;
      const names = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
      if (clause && !clause.name && names && names.length > 0 && names.every((name) => name.isTypeOnly)) continue;
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

function resolveRelative(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (/\.tsx?$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  return null; // a stylesheet, or a file the bundler resolves otherwise
}

/** Every package a start module reaches, with the chain of modules that brought it in. */
function packagesReached(starts: string[]): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const queue = starts.map((file) => ({ file: resolve(ROOT, file), chain: [file] }));
  while (queue.length > 0) {
    const { file, chain } = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith('.')) {
        const next = resolveRelative(file, specifier);
        if (next) queue.push({ file: next, chain: [...chain, relative(ROOT, next)] });
      } else {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        if (!packages.has(name)) packages.set(name, chain);
      }
    }
  }
  return packages;
}

describe('the first screen’s script', () => {
  it('does not import zod (the entry and the Overview, the opening screen)', () => {
    const reached = packagesReached(['renderer/src/boot.ts', 'renderer/src/main.tsx', 'renderer/src/screens/OverviewScreen.tsx']);
    expect(reached.has('react-dom')).toBe(true); // the walk follows the entry's imports at all
    expect(reached.get('zod') ?? 'not imported').toBe('not imported');
  });

  it('the first frame (boot.ts, drawn before the app runs) reaches no framework: no React, i18next, zod or recharts', () => {
    const reached = packagesReached(['renderer/src/boot.ts']);
    expect(reached.has('zustand')).toBe(true); // the walk follows boot.ts's imports at all
    for (const name of ['react', 'react-dom', 'react-i18next', 'i18next', 'zod', 'recharts']) expect(`${name}: ${reached.get(name)?.join(' -> ') ?? 'not imported'}`).toBe(`${name}: not imported`);
  });
});
