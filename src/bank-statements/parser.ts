// The bank statement in the 1C exchange format (`1CClientBankExchange`, «Формат обмена данными 1С:Предприятия с
// системой «Клиент банка»»), read into documents. Pure: bytes in, documents out, no I/O.
//
// The file: a first line `1CClientBankExchange`, header lines `Ключ=Значение` (ВерсияФормата, Кодировка,
// ДатаНачала, ДатаКонца, РасчСчет…), account sections `СекцияРасчСчет` … `КонецРасчСчет`, one section per
// document `СекцияДокумент=<kind>` … `КонецДокумента` (any kind: Платежное поручение, Банковский ордер,
// Платежное требование…), and `КонецФайла`. Lines end CRLF (LF accepted). Encoding: Windows-1251
// (`Кодировка=Windows`), DOS/866 (`Кодировка=DOS`), or UTF-8 (a BOM, or bytes that are valid UTF-8).
import { parserMessages as M } from './texts';

export type StatementEncoding = 'utf-8' | 'windows-1251' | 'ibm866';

/** One document section: its kind, its keys as written (the last value of a repeated key), and where it began. */
export interface StatementDocument {
  kind: string;
  line: number;
  fields: Record<string, string>;
}

export interface ParsedStatement {
  encoding: StatementEncoding;
  /** The header's keys (ВерсияФормата, ДатаНачала, ДатаКонца, РасчСчет…). */
  header: Record<string, string>;
  documents: StatementDocument[];
}

/** A payment as Conduit keeps it: every amount in exact nano-units, every date as YYYY-MM-DD. */
export interface StatementPayment {
  kind: string;
  line: number;
  number: string;
  /** Дата of the document. */
  date: string;
  amountNano: bigint;
  payerName: string;
  payerInn: string;
  payerKpp: string;
  payerAccount: string;
  payerBank: string;
  payerBik: string;
  recipientAccount: string;
  recipientInn: string;
  /** НазначениеПлатежа, or its parts НазначениеПлатежа1…6 joined. */
  purpose: string;
  /** ДатаПоступило: set on money that came in. */
  receivedOn: string | null;
  /** ДатаСписано: set on money that went out. */
  writtenOffOn: string | null;
  fields: Record<string, string>;
}

/** A statement's line is wrong: `line` is 1-based, the message Russian. */
export class StatementError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(M.atLine(line, reason));
  }
}

const BOM = [0xef, 0xbb, 0xbf];
const SIGNATURE = '1CClientBankExchange';

/** The text of the file and the encoding it was in. */
export function decodeStatement(bytes: Uint8Array): { text: string; encoding: StatementEncoding } {
  if (bytes.length >= 3 && BOM.every((b, i) => bytes[i] === b)) {
    return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  }
  try {
    // Cyrillic in Windows-1251 or 866 is almost never valid UTF-8: bytes that are, are UTF-8.
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    // Not UTF-8: the header says which of the two single-byte encodings. Its key «Кодировка» is Cyrillic too,
    // so read the file both ways and take the one in which the key says its own encoding.
    const dos = new TextDecoder('ibm866').decode(bytes);
    if (/^Кодировка=DOS\s*$/m.test(dos)) return { text: dos, encoding: 'ibm866' };
    return { text: new TextDecoder('windows-1251').decode(bytes), encoding: 'windows-1251' };
  }
}

/** Reads a statement file; throws StatementError naming the line of the first thing wrong. */
export function parseStatement(bytes: Uint8Array): ParsedStatement {
  const { text, encoding } = decodeStatement(bytes);
  const lines = text.split(/\r?\n|\r/);
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first === -1 || lines[first]!.trim() !== SIGNATURE) throw new StatementError(first === -1 ? 1 : first + 1, M.notAStatement);

  const header: Record<string, string> = {};
  const documents: StatementDocument[] = [];
  let document: StatementDocument | null = null;
  let inAccount = false;
  let ended = false;
  for (let i = first + 1; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const at = i + 1;
    if (line === '') continue;
    if (ended) throw new StatementError(at, M.afterEnd);
    if (line.includes('\u0000')) throw new StatementError(at, M.badCharacter);
    const eq = line.indexOf('=');
    const key = (eq === -1 ? line : line.slice(0, eq)).trim();
    const value = eq === -1 ? '' : line.slice(eq + 1).trim();
    switch (key) {
      case 'СекцияДокумент':
        if (document) throw new StatementError(at, M.documentNotClosed(document.line));
        if (inAccount) throw new StatementError(at, M.accountNotClosed);
        document = { kind: value || M.unnamedDocument, line: at, fields: {} };
        continue;
      case 'КонецДокумента':
        if (!document) throw new StatementError(at, M.endWithoutDocument);
        documents.push(document);
        document = null;
        continue;
      case 'СекцияРасчСчет':
        if (document) throw new StatementError(at, M.documentNotClosed(document.line));
        inAccount = true;
        continue;
      case 'КонецРасчСчет':
        inAccount = false;
        continue;
      case 'КонецФайла':
        if (document) throw new StatementError(at, M.documentNotClosed(document.line));
        ended = true;
        continue;
    }
    if (eq === -1) throw new StatementError(at, M.notKeyValue);
    if (document) document.fields[key] = value;
    else if (!inAccount) header[key] = value;
  }
  if (document) throw new StatementError(lines.length, M.documentNotClosed(document.line));
  if (!ended) throw new StatementError(lines.length, M.noEnd);
  return { encoding, header, documents };
}

const AMOUNT = /^(\d{1,15})(?:[.,](\d{1,2}))?$/;
const NANO_PER_UNIT = 1_000_000_000n;

/** «1500.00», «1500,5», «1500» → exact nano-units; null when it is not an amount. */
export function amountToNano(text: string): bigint | null {
  const m = AMOUNT.exec(text.trim());
  if (!m) return null;
  const fraction = (m[2] ?? '').padEnd(2, '0');
  return BigInt(m[1]!) * NANO_PER_UNIT + BigInt(fraction) * 10_000_000n;
}

const DAY = /^(\d{2})\.(\d{2})\.(\d{4})$/;

/** «29.11.2026» → «2026-11-29»; null when it is not a calendar day. */
export function dayOf(text: string): string | null {
  const m = DAY.exec(text.trim());
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === iso && m[3] !== '0000' ? iso : null;
}

/** НазначениеПлатежа, or — where a bank gives it only split — НазначениеПлатежа1, 2, … in order, joined by spaces. */
export function purposeOf(fields: Record<string, string>): string {
  const whole = fields.НазначениеПлатежа ?? '';
  const parts = Object.keys(fields)
    .map((k) => /^НазначениеПлатежа(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => fields[m[0]]!)
    .filter(Boolean);
  // A bank that splits the purpose may also give it whole: then the whole one is the purpose.
  return (whole || parts.join(' ')).replace(/\s+/g, ' ').trim();
}

/** A document as a payment; throws StatementError (at the document's line) when Номер, Дата or Сумма is unusable. */
export function paymentOf(document: StatementDocument): StatementPayment {
  const f = document.fields;
  const number = (f.Номер ?? '').trim();
  if (!number) throw new StatementError(document.line, M.fieldMissing('Номер'));
  const date = dayOf(f.Дата ?? '');
  if (!date) throw new StatementError(document.line, M.dateInvalid('Дата', f.Дата ?? ''));
  const amountNano = amountToNano(f.Сумма ?? '');
  if (amountNano === null || amountNano <= 0n) throw new StatementError(document.line, M.amountInvalid(f.Сумма ?? ''));
  const optionalDay = (key: string) => {
    const raw = (f[key] ?? '').trim();
    if (!raw) return null;
    const day = dayOf(raw);
    if (!day) throw new StatementError(document.line, M.dateInvalid(key, raw));
    return day;
  };
  return {
    kind: document.kind,
    line: document.line,
    number,
    date,
    amountNano,
    payerName: (f.Плательщик1 || f.Плательщик || '').trim(),
    payerInn: (f.ПлательщикИНН ?? '').trim(),
    payerKpp: (f.ПлательщикКПП ?? '').trim(),
    payerAccount: (f.ПлательщикСчет || f.ПлательщикРасчСчет || '').trim(),
    payerBank: (f.ПлательщикБанк1 ?? '').trim(),
    payerBik: (f.ПлательщикБИК ?? '').trim(),
    recipientAccount: (f.ПолучательСчет || f.ПолучательРасчСчет || '').trim(),
    recipientInn: (f.ПолучательИНН ?? '').trim(),
    purpose: purposeOf(f),
    receivedOn: optionalDay('ДатаПоступило'),
    writtenOffOn: optionalDay('ДатаСписано'),
    fields: f,
  };
}

export interface ClassifiedStatement {
  encoding: StatementEncoding;
  header: Record<string, string>;
  /** Money that came to `account`. */
  incoming: StatementPayment[];
  /** Money that left `account`: skipped. */
  outgoing: number;
  /** Documents naming `account` on neither side: skipped. */
  foreign: number;
  documents: number;
}

/**
 * Reads a statement and sorts its documents for the operator's settlement `account`: incoming = ПолучательСчет is
 * the account and ДатаПоступило is set; outgoing = ПлательщикСчет is the account (or ДатаСписано is set).
 */
export function readStatement(bytes: Uint8Array, account: string): ClassifiedStatement {
  const parsed = parseStatement(bytes);
  const incoming: StatementPayment[] = [];
  let outgoing = 0;
  let foreign = 0;
  for (const document of parsed.documents) {
    const payment = paymentOf(document);
    if (payment.recipientAccount === account && payment.receivedOn) incoming.push(payment);
    else if (payment.payerAccount === account || payment.writtenOffOn) outgoing++;
    else foreign++;
  }
  return { encoding: parsed.encoding, header: parsed.header, incoming, outgoing, foreign, documents: parsed.documents.length };
}
