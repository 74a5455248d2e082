/**
 * The README and docs/ point only at things that exist.
 *
 * Every relative link and image in README.md, docs/**.md and each package's README must name a file of the repository, and an anchor
 * on a Markdown page must name one of its headings (GitHub's slugs), so moving or renaming a page fails the tests
 * instead of leaving a dead link. Every decision file must be listed in docs/decisions/README.md, the index
 * a reader starts from.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Fenced code blocks and inline code are text, not links. */
function withoutCode(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Link and image targets of a Markdown text: `[text](target)` and `![alt](target)`, titles left out. */
export function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const match of withoutCode(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(match[1]!);
  }
  return targets;
}

/** GitHub's heading anchors: lower case, punctuation gone, spaces to hyphens, repeats numbered. */
export function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of text.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

const packageReadmes = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name, 'README.md'))
  .filter((path) => existsSync(path));
const pages = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs')), ...packageReadmes];

describe('README and docs links', () => {
  it('finds the pages it checks', () => {
    expect(pages.length).toBeGreaterThan(10);
  });

  it.each(pages.map((page) => [relative(root, page), page]))('every relative link in %s resolves', (_name, page) => {
    const text = readFileSync(page, 'utf8');
    const broken: string[] = [];
    for (const target of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      const file = pathPart === '' ? page : resolve(dirname(page), decodeURIComponent(pathPart));
      if (!existsSync(file)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !headingSlugs(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('lists every decision file in the decisions index', () => {
    const dir = join(root, 'docs/decisions');
    const index = readFileSync(join(dir, 'README.md'), 'utf8');
    const linked = new Set(linkTargets(index).map((target) => target.split('#')[0]));
    const missing = readdirSync(dir).filter((name) => name.endsWith('.md') && name !== 'README.md' && !linked.has(name));
    expect(missing).toEqual([]);
  });

  it('has each decision say its context, decision, consequences and test', () => {
    const dir = join(root, 'docs/decisions');
    const incomplete = readdirSync(dir)
      .filter((name) => name.endsWith('.md') && name !== 'README.md')
      .filter((name) => {
        const text = readFileSync(join(dir, name), 'utf8');
        return !['Context', 'Decision', 'Consequences', 'Test'].every((section) =>
          new RegExp(`^#{1,4}\\s*${section}\\b`, 'im').test(text),
        );
      });
    expect(incomplete).toEqual([]);
  });

  it('catches a broken link and a wrong anchor (the checker itself)', () => {
    expect(linkTargets('see [a](docs/a.md#x) and ![b](img.png "t") but not `[c](d.md)`')).toEqual([
      'docs/a.md#x',
      'img.png',
    ]);
    expect(headingSlugs('# The `npm` way: fast!\n## Notes\n## Notes')).toEqual(
      new Set(['the-npm-way-fast', 'notes', 'notes-1']),
    );
  });
});
