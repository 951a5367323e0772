// The 1C statement parser (src/bank-statements/parser.ts) and the счёт numbers a purpose names (purpose.ts),
// pure: the committed Windows-1251 fixture with CRLF, the same statement as UTF-8 (with and without a BOM) and
// with LF, DOS-866, every document kind, split purposes, exact amounts, incoming/outgoing sorting, and errors
// that name their line.
import { describe, expect, test } from 'bun:test';
import { amountToNano, parseStatement, readStatement, StatementError } from '../../src/bank-statements/parser';
import { invoiceNumbersIn } from '../../src/bank-statements/purpose';
import { encode1251, fixtureStatement, fixtureTemplate } from '../helpers/bank';

const ACCOUNT = '40702810400000012345';
const VALUES = {
  OPERATOR_ACCOUNT: ACCOUNT,
  TOTAL_IN: '27300.50',
  CLOSING: '276100.50',
  MATCH_AMOUNT: '15000.00',
  MATCH_INN: '7712345678',
  MATCH_INVOICE: '42',
  SHORT_AMOUNT: '4999.00',
  SHORT_INN: '500100732259',
  SHORT_INVOICE: '43',
};

const text = () => new TextDecoder('windows-1251').decode(fixtureStatement(VALUES));

function expectError(run: () => unknown, line: number, fragment: string) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StatementError);
    expect((error as StatementError).line).toBe(line);
    expect((error as Error).message).toBe(`Выписка, строка ${line}: ${(error as StatementError).reason}`);
    expect((error as Error).message).toContain(fragment);
    return;
  }
  throw new Error('no error');
}

describe('the 1C statement file', () => {
  test('the committed fixture is Windows-1251 with CRLF line ends (not UTF-8, no bare LF)', () => {
    const bytes = fixtureTemplate();
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    const raw = Buffer.from(bytes).toString('latin1');
    expect(raw.split('\r\n').length).toBeGreaterThan(100);
    expect(/[^\r]\n/.test(raw)).toBe(false);
    expect(new TextDecoder('windows-1251').decode(bytes)).toContain('Кодировка=Windows\r\n');
  });

  test('read from Windows-1251: incoming payments with exact amounts, split purposes joined, the ИП without КПП, the outgoing one counted', () => {
    const s = readStatement(fixtureStatement(VALUES), ACCOUNT);
    expect(s.encoding).toBe('windows-1251');
    expect(s.header.ВерсияФормата).toBe('1.03');
    expect(s.header.ДатаНачала).toBe('01.12.2026');
    expect({ documents: s.documents, outgoing: s.outgoing, foreign: s.foreign, incoming: s.incoming.length }).toEqual({
      documents: 4,
      outgoing: 1,
      foreign: 0,
      incoming: 3,
    });
    const [match, short, unknown] = s.incoming;
    expect(match).toMatchObject({
      kind: 'Платежное поручение',
      number: '512',
      date: '2026-12-01',
      receivedOn: '2026-12-02',
      amountNano: 15_000_000_000_000n,
      payerName: 'ООО "Ромашка"',
      payerInn: '7712345678',
      payerKpp: '771201001',
      payerAccount: '40702810938000011111',
      payerBank: 'ПАО СБЕРБАНК',
      payerBik: '044525225',
      purpose: 'Оплата по счету №42 от 29.11.2026 за доступ к API. Без НДС',
    });
    expect(short).toMatchObject({
      payerKpp: '',
      payerInn: '500100732259',
      amountNano: 4_999_000_000_000n,
      payerName: 'Индивидуальный предприниматель Соколова Ирина Петровна',
    });
    expect(unknown!.amountNano).toBe(7_300_500_000_000n);
    expect(unknown!.purpose).toBe('Оплата по договору 15/2026 от 01.11.2026. В т.ч. НДС 22% - 1316.48');
  });

  test('the same statement as UTF-8 (with and without a BOM) and with LF line ends reads the same', () => {
    const reference = readStatement(fixtureStatement(VALUES), ACCOUNT);
    const utf8 = new TextEncoder().encode(text());
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8]);
    const lf = encode1251(text().replace(/\r\n/g, '\n'));
    for (const [bytes, encoding] of [
      [utf8, 'utf-8'],
      [bom, 'utf-8'],
      [lf, 'windows-1251'],
    ] as const) {
      const s = readStatement(bytes, ACCOUNT);
      expect(s.encoding).toBe(encoding);
      expect(s.incoming.map(({ fields: _f, ...p }) => p)).toEqual(reference.incoming.map(({ fields: _f, ...p }) => p));
      expect(s.outgoing).toBe(1);
    }
  });

  test('DOS-866 (Кодировка=DOS) is read as such', () => {
    const source = text().replace('Кодировка=Windows', 'Кодировка=DOS');
    // Encode to 866 by the decoder's own table.
    const decoder = new TextDecoder('ibm866');
    const table = new Map<string, number>();
    for (let b = 0; b < 256; b++) table.set(decoder.decode(new Uint8Array([b])), b);
    const bytes = new Uint8Array([...source].map((ch) => table.get(ch)!));
    const s = readStatement(bytes, ACCOUNT);
    expect(s.encoding).toBe('ibm866');
    expect(s.incoming[0]!.purpose).toBe('Оплата по счету №42 от 29.11.2026 за доступ к API. Без НДС');
  });

  test('every document section kind is read; a purpose given whole wins over its parts', () => {
    const file = [
      '1CClientBankExchange',
      'ВерсияФормата=1.03',
      'Кодировка=Windows',
      'СекцияДокумент=Банковский ордер',
      'Номер=1',
      'Дата=05.12.2026',
      'Сумма=10',
      `ПолучательСчет=${ACCOUNT}`,
      'ДатаПоступило=05.12.2026',
      'НазначениеПлатежа=Целиком',
      'НазначениеПлатежа1=Часть',
      'КонецДокумента',
      'СекцияДокумент=Платежное требование',
      'Номер=2',
      'Дата=05.12.2026',
      'Сумма=0.5',
      `ПолучательСчет=${ACCOUNT}`,
      'ДатаПоступило=05.12.2026',
      'НазначениеПлатежа2=вторая',
      'НазначениеПлатежа1=первая',
      'КонецДокумента',
      'СекцияДокумент=Мемориальный ордер',
      'Номер=3',
      'Дата=05.12.2026',
      'Сумма=1.00',
      'ПолучательСчет=40702810000000000000',
      'КонецДокумента',
      'КонецФайла',
    ].join('\r\n');
    const parsed = parseStatement(encode1251(file));
    expect(parsed.documents.map((d) => d.kind)).toEqual(['Банковский ордер', 'Платежное требование', 'Мемориальный ордер']);
    const s = readStatement(encode1251(file), ACCOUNT);
    expect(s.incoming.map((p) => [p.kind, p.purpose, p.amountNano])).toEqual([
      ['Банковский ордер', 'Целиком', 10_000_000_000n],
      ['Платежное требование', 'первая вторая', 500_000_000n],
    ]);
    expect(s.foreign).toBe(1);
  });

  test('amounts are exact nano-units, never floats', () => {
    expect(amountToNano('0.01')).toBe(10_000_000n);
    expect(amountToNano('1500.00')).toBe(1_500_000_000_000n);
    expect(amountToNano('1500,5')).toBe(1_500_500_000_000n);
    expect(amountToNano('999999999999999.99')).toBe(999_999_999_999_999_990_000_000n);
    for (const bad of ['', '1.234', '-5', '1e3', '12 000.00', 'abc']) expect(amountToNano(bad)).toBeNull();
  });

  test('errors are Russian and name the line', () => {
    const lines = text().split('\r\n');
    expectError(() => parseStatement(encode1251('Привет\r\n')), 1, 'это не выписка в формате 1С');
    const at = lines.findIndex((l) => l.startsWith('Сумма=15000.00'));
    const badAmount = [...lines];
    badAmount[at] = 'Сумма=15 000';
    const documentLine = lines.lastIndexOf('СекцияДокумент=Платежное поручение', at) + 1;
    expectError(() => readStatement(encode1251(badAmount.join('\r\n')), ACCOUNT), documentLine, 'поле Сумма: ожидается сумма вида 1500.00, а не «15 000»');
    const unclosed = lines.filter((l) => l !== 'КонецДокумента' || lines.indexOf(l) !== lines.indexOf('КонецДокумента'));
    const second = unclosed.indexOf('СекцияДокумент=Платежное поручение', documentLine) + 1;
    expectError(() => parseStatement(encode1251(unclosed.join('\r\n'))), second, `документ, начатый в строке ${documentLine}, не закрыт`);
    const noEnd = lines.filter((l) => l !== 'КонецФайла');
    expectError(() => parseStatement(encode1251(noEnd.join('\r\n'))), noEnd.length, 'нет строки КонецФайла');
    const junk = [...lines];
    junk.splice(3, 0, 'просто строка');
    expectError(() => parseStatement(encode1251(junk.join('\r\n'))), 4, 'ожидается строка вида Ключ=Значение');
    const badDate = text().replace('ДатаПоступило=02.12.2026', 'ДатаПоступило=31.02.2026');
    expectError(() => readStatement(encode1251(badDate), ACCOUNT), documentLine, 'поле ДатаПоступило: ожидается дата ДД.ММ.ГГГГ');
  });
});

describe('the счёт number in a payment purpose', () => {
  test('read in the spellings accountants type, and not from accounts, other documents or dates', () => {
    const cases: [string, number[]][] = [
      ['Оплата по счёту № 42 от 29.11.2026 за доступ к API Conduit. Без НДС', [42]],
      ['Оплата по счету №42', [42]],
      ['Оплата по сч. 42', [42]],
      ['оплата сч.42 НДС не облагается', [42]],
      ['По счёту N 42 от 29.11.2026', [42]],
      ['Счет No. 42', [42]],
      ['по счёту на оплату № 0042', [42]],
      ['СЧЕТ #42, 43', [42]],
      ['Оплата по р/сч 40702810400000012345', []],
      ['Оплата по счет-фактуре 12', []],
      ['Оплата по договору 15 от 01.01.2026', []],
      ['по счету 2026-11/0042', []],
      ['Оплата по счету № 7 и по счету № 8', [7, 8]],
    ];
    for (const [purpose, numbers] of cases) expect({ purpose, numbers: invoiceNumbersIn(purpose) }).toEqual({ purpose, numbers });
  });
});
