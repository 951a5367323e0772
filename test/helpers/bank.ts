// Bank statements for the tests: the Windows-1251 fixture (test/fakes/bank/statement-1251.txt) filled in with
// the счета and ИНН a test made, an encoder to Windows-1251 (the reverse of Bun's own TextDecoder table), and the
// operator's upload over HTTP.
import { readFileSync } from 'node:fs';
import { call, type TestApp } from './app';

const FIXTURE = new URL('../fakes/bank/statement-1251.txt', import.meta.url);

/** Text → Windows-1251 bytes, by the table TextDecoder('windows-1251') decodes with; throws on a character it lacks. */
export function encode1251(text: string): Uint8Array {
  const decoder = new TextDecoder('windows-1251');
  const table = new Map<string, number>();
  for (let b = 0; b < 256; b++) table.set(decoder.decode(new Uint8Array([b])), b);
  const out: number[] = [];
  for (const ch of text) {
    const b = table.get(ch);
    if (b === undefined) throw new Error(`no Windows-1251 byte for ${JSON.stringify(ch)}`);
    out.push(b);
  }
  return new Uint8Array(out);
}

/** The fixture's raw bytes (Windows-1251, CRLF), placeholders and all. */
export const fixtureTemplate = () => new Uint8Array(readFileSync(FIXTURE));

/**
 * The fixture with its placeholders ({{NAME}}, ASCII) replaced by ASCII values, byte for byte: the file stays
 * Windows-1251 with CRLF, as the bank wrote it.
 */
export function fixtureStatement(values: Record<string, string>): Uint8Array {
  let text = Buffer.from(fixtureTemplate()).toString('latin1');
  for (const [name, value] of Object.entries(values)) text = text.replaceAll(`{{${name}}}`, value);
  if (/\{\{[A-Z0-9_]+\}\}/.test(text)) throw new Error(`placeholder left: ${/\{\{[A-Z0-9_]+\}\}/.exec(text)![0]}`);
  return new Uint8Array(Buffer.from(text, 'latin1'));
}

/** POST /api/admin/bank-statements: as a form's `file` (the console) or, with `raw`, the body itself. */
export async function uploadStatement(app: TestApp, token: string, bytes: Uint8Array, options: { raw?: boolean; name?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: BodyInit;
  if (options.raw) {
    headers['content-type'] = 'application/octet-stream';
    body = bytes as Uint8Array<ArrayBuffer>;
  } else {
    const form = new FormData();
    form.append('file', new File([bytes as Uint8Array<ArrayBuffer>], options.name ?? 'kl_to_1c.txt', { type: 'text/plain' }));
    body = form;
  }
  const res = await fetch(`${app.url}/api/admin/bank-statements`, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the assertion shows the text.
  }
  return { status: res.status, body: parsed };
}

export { call };
