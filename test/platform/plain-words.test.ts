// Plain Russian in what people read (issue 41 point 9): no HTTP codes, error type names, variable names,
// time-zone ids, «UTC» or a competitor's name in the dashboard's texts or in the server's texts shown to
// people (messages, mails, pages), and one name per concept («Лимит расходов», never «Бюджет»; «Стартовый
// бонус», never «Бонус за регистрацию»). Only the texts are read — string literals, template parts and JSX
// text, found by TypeScript's own parser — so comments and the API reference (zod's .describe() and OpenAPI's
// description, summary and example, meant for developers) may still say «UTC» or «402».
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What must not come back, each with the plain words to use instead. */
export const BANNED: readonly { word: string | RegExp; instead: string /** Files where it is the reader's own word. */; except?: RegExp }[] = [
  { word: 'insufficient_balance', instead: '«недостаточно средств на балансе»' },
  { word: 'Europe/Moscow', instead: 'a time zone by its Russian name («Москва»)' },
  { word: 'IANA', instead: 'a time zone by its Russian name' },
  { word: 'TOKEN_PRICE', instead: '«цена по умолчанию»' },
  { word: 'UTC)', instead: '«по московскому времени» or the reader’s own time' },
  { word: /(^|[^A-Za-z_])UTC([^A-Za-z_]|$)/, instead: '«по московскому времени» or the reader’s own time' },
  { word: 'OpenRouter', instead: 'nothing: the reader does not need a competitor’s name' },
  { word: 'Бюджет', instead: '«Лимит расходов»' },
  { word: 'бюджет ключа', instead: '«лимит расходов ключа»' },
  { word: 'Бонус за регистрацию', instead: '«Стартовый бонус»' },
  { word: 'бонус за регистрацию', instead: '«стартовый бонус»' },
  { word: '402 (', instead: 'what happened, in words' },
  { word: /(ошибк[аоуеи]й?|ответ|код)\s+40[0-9]/, instead: 'what happened, in words' },
  { word: /\b40[0-9] \([a-z_]+\)/, instead: 'what happened, in words' },
  { word: 'GET /v1/models', instead: 'the model picker' },
  // The operator's console may name a variable: the operator is the one who sets it.
  { word: /\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/, instead: 'what the setting does, not its variable’s name', except: /(^|\/)admin\// },
];

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

/** The dashboard: every module (its texts live beside the components, inline or in texts*.ts). */
const WEB_FILES = filesUnder(join(ROOT, 'web/src'), (p) => /\.tsx?$/.test(p));
/** The server's texts shown to people: texts/messages modules, mails, the server-rendered pages and the input schemas' messages (the forms show them). */
const SERVER_FILES = filesUnder(join(ROOT, 'src'), (p) =>
  /(^|\/)([a-z-]*texts|messages|[a-z-]*-page|site-root|owner-mail|limits|field-labels|[a-z-]*input|fields)\.ts$/.test(p.slice(join(ROOT, 'src').length)),
);

/** The texts of one module: string literals, template parts and JSX text, with their line numbers. */
export function textsOf(path: string, source = readFileSync(path, 'utf8')): { line: number; text: string }[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { line: number; text: string }[] = [];
  const dashboard = !relative(ROOT, path).startsWith('src/');
  const visit = (node: ts.Node) => {
    // import specifiers and `timeZone: 'UTC'`-like property keys are code, not text.
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    // The server's API reference (zod's .describe(), OpenAPI's description/summary/example) is for developers;
    // in the dashboard a `description` is what a person reads (a tool's line, say).
    if (!dashboard && ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'describe') {
      visit(node.expression.expression);
      return;
    }
    if (!dashboard && ts.isPropertyAssignment(node) && /^(description|summary|example)$/.test(node.name.getText(file))) return;
    const at = () => file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    if (ts.isTemplateExpression(node)) {
      // A template reads as one text: «с ${a} UTC — ${b} по вашему времени».
      const text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('…');
      if (/[А-Яа-яЁё]/.test(text)) found.push({ line: at(), text });
      for (const span of node.templateSpans) visit(span.expression);
      return;
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isJsxText(node)) {
      const text = node.text;
      if (/[А-Яа-яЁё]/.test(text) || ts.isJsxText(node)) found.push({ line: at(), text });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function offences(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of files) {
    for (const { line, text } of textsOf(path)) {
      for (const { word, instead, except } of BANNED) {
        if (except?.test(relative(ROOT, path))) continue;
        const hit = typeof word === 'string' ? text.includes(word) : word.test(text);
        if (hit) out.push(`${relative(ROOT, path)}:${line}: «${text.trim().slice(0, 90)}» has ${String(word)}; say ${instead}`);
      }
    }
  }
  return out;
}

describe('plain words in what people read', () => {
  test('the scan reads the dashboard and the server texts', () => {
    expect(WEB_FILES.length).toBeGreaterThan(50);
    const names = SERVER_FILES.map((p) => relative(ROOT, p));
    for (const expected of ['src/http/messages.ts', 'src/accounts/texts.ts', 'src/accounts/verify-page.ts', 'src/alerts/texts.ts', 'src/keys/limits.ts']) {
      expect(names).toContain(expected);
    }
  });

  test('each banned word is caught in a text and passed over in a comment', () => {
    const sample = [
      '// «Бюджет», 402 (insufficient_balance), Europe/Moscow, OpenRouter, (день UTC), TOKEN_PRICE: only comments',
      "const zone = { timeZone: 'UTC' };",
      "export const a = 'запросы получают ошибку 402 (insufficient_balance)';",
      'export const b = <p>Часовой пояс, например Europe/Moscow</p>;',
      `export const c = \`С (день UTC) \${x} как у OpenRouter\`;`,
      "export const d = 'Бюджет ключа';",
      "export const e = 'Бонус за регистрацию';",
      "export const f = 'по умолчанию (TOKEN_PRICE)';",
      "export const g = 'сутки с 00:00 UTC';",
      `export const h = \`с \${utc} UTC — \${local} по вашему времени\`;`,
    ].join('\n');
    const texts = textsOf('sample.tsx', sample);
    const hits = (text: string) => BANNED.filter(({ word }) => (typeof word === 'string' ? text.includes(word) : word.test(text))).length;
    expect(texts.some((t) => t.text.includes('only comments'))).toBe(false);
    expect(texts.some((t) => t.text === 'UTC')).toBe(false);
    for (const needle of [
      '402 (insufficient_balance)',
      'Europe/Moscow',
      'OpenRouter',
      'Бюджет ключа',
      'Бонус за регистрацию',
      'TOKEN_PRICE',
      '00:00 UTC',
      '… UTC — …',
    ]) {
      const text = texts.find((t) => t.text.includes(needle));
      expect(text && hits(text.text)).toBeGreaterThan(0);
    }
  });

  test('the dashboard says none of them', () => {
    expect(offences(WEB_FILES)).toEqual([]);
  });

  test('the server texts people read say none of them', () => {
    expect(offences(SERVER_FILES)).toEqual([]);
  });
});
