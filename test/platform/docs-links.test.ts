// The README is a front door and the guides live in docs/ (issue 40 point 7); bench/RESULTS.md leads to
// bench/history/. Texts moved between files leave links and cross-references behind, and nothing renders them
// in CI, so a moved section or a renamed heading would break them silently: every relative link must name a file
// that exists and, when it names a heading of a Markdown file, a heading that exists there.
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(import.meta.dir, '..', '..');
const mdIn = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(dir, name));
const DOCUMENTS = ['README.md', ...mdIn('docs'), 'bench/README.md', 'bench/RESULTS.md', ...mdIn('bench/history')];

/** The text outside fenced code blocks and inline code, where a `](…)` is a link and a `#` line a heading. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').flatMap((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line.replace(/`[^`]*`/g, (code) => code.replace(/[[\]()#]/g, '_'))];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading?.[1]) continue;
    const base = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const line of prose(text)) {
    for (const match of line.matchAll(/\]\(([^)\s]+)\)|src="([^"]+)"/g)) {
      const target = match[1] ?? match[2];
      if (target && !/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

describe('the README and the guides', () => {
  test('the README stays a front door: at most 300 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
  });

  test('the guides the README sends a reader to exist', () => {
    for (const guide of ['operator', 'api-clients', 'assistants', 'development', 'architecture']) {
      expect(DOCUMENTS).toContain(`docs/${guide}.md`);
    }
    expect(mdIn('bench/history').length).toBeGreaterThan(0);
  });

  test('every relative link names a file that exists, and a heading that exists in it', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const document of DOCUMENTS) {
      for (const link of relativeLinks(readFileSync(join(ROOT, document), 'utf8'))) {
        checked++;
        const [path = '', fragment] = link.split('#');
        const file = path === '' ? join(ROOT, document) : join(ROOT, dirname(document), decodeURI(path));
        if (!existsSync(file)) {
          broken.push(`${document}: ${link} (no ${relative(ROOT, file)})`);
          continue;
        }
        if (fragment && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(fragment))) {
          broken.push(`${document}: ${link} (no such heading in ${relative(ROOT, file)})`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  test('every variable src/config.ts reads is in the configuration table of docs/operator.md', () => {
    const config = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');
    const schema = /const envSchema = z\.object\(\{\n([\s\S]*?)\n\}\);/.exec(config)?.[1] ?? '';
    const variables = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1]);
    // A restructured config.ts must fail here, not pass with nothing read.
    expect(variables.length).toBeGreaterThan(80);
    const operator = readFileSync(join(ROOT, 'docs/operator.md'), 'utf8');
    const table = operator.split('\n').filter((line) => line.startsWith('| `'));
    expect(variables.filter((name) => !table.some((row) => row.includes(`\`${name}\``)))).toEqual([]);
  });
});
