/**
 * No module of electron/, shared/, renderer/src or packages/sandbox/src imports itself back through
 * others (type-only imports count). The checker itself is checked on a made-up circle.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles } from '../../scripts/import-circles';
import { makeTempDir } from '../temp-dir';

describe('import circles', () => {
  it('finds a circle, type-only imports included', () => {
    const root = makeTempDir('paydesk-circles-');
    mkdirSync(join(root, 'shared'), { recursive: true });
    writeFileSync(join(root, 'shared', 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
    writeFileSync(join(root, 'shared', 'b.ts'), "import { c } from './c';\nexport type B = typeof c;\n");
    writeFileSync(join(root, 'shared', 'c.ts'), "export { a } from './a';\nexport const c = 1;\n");
    writeFileSync(join(root, 'shared', 'd.ts'), "import { c } from './c';\nexport const d = c;\n");
    expect(importCircles(root)).toEqual([['shared/a.ts', 'shared/b.ts', 'shared/c.ts']]);
  });

  it('the project has none', () => {
    expect(importCircles()).toEqual([]);
  });
});
