// Draws a sample счёт на оплату, акт and УПД with the service's own renderers (src/statement/invoice-pdf.ts,
// act-pdf.ts, upd-pdf.ts) and turns their first pages into the pictures the README shows: docs/screens/invoice.png,
// docs/screens/act.png and docs/screens/upd.png. Needs pdftoppm (`apt-get install -y poppler-utils`). Not run by the tests; run it
// when the documents' layout changed:
//
//   bun scripts/invoice-screen.ts
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderAct } from '../src/statement/act-pdf';
import { type ClosingFacts, vatIncluded } from '../src/statement/closing-documents';
import { renderInvoice } from '../src/statement/invoice-pdf';
import { renderUpd } from '../src/statement/upd-pdf';
import { validUntilOf } from '../src/statement/invoices';

const root = fileURLToPath(new URL('..', import.meta.url));
const supplier = {
  companyName: 'ООО «Кондуит»',
  inn: '7701234567',
  kpp: '770101001',
  ogrn: '1027700132195',
  address: '123112, г. Москва, Пресненская наб., д. 10',
  bankName: 'АО «Тестбанк», г. Москва',
  bik: '044525225',
  account: '40702810400000012345',
  correspondentAccount: '30101810400000000225',
  vatNote: 'Без НДС (УСН)',
  vatRate: null,
  closingDocuments: 'act_and_upd' as const,
  updStatus: null,
  directorName: 'Петров П. П.',
  accountantName: 'Сидорова А. В.',
};
const customer = {
  companyName: 'ООО «Ромашка»',
  inn: '7712345678',
  kpp: '771201001',
  address: '125009, г. Москва, ул. Тверская, д. 1',
  email: 'anna@romashka.example',
};

const invoice = await renderInvoice({
  id: '00000000-0000-4000-8000-000000000017',
  number: 17,
  amountNano: 1_234_560_000_000n,
  currency: 'RUB',
  supplier,
  customer: { ...customer, ogrn: '1157746123456' },
  userId: '00000000-0000-4000-8000-000000000001',
  status: 'pending',
  validUntil: validUntilOf(new Date('2026-11-28T09:30:00Z'), 10),
  paidAt: null,
  paidOn: null,
  paidBy: null,
  paidByAdmin: null,
  ledgerReference: null,
  cancelledAt: null,
  createdAt: new Date('2026-11-28T09:30:00Z'),
});
// An issued акт and УПД of October: their facts as closing-documents.ts freezes them (НДС 20% on the УПД).
const facts: ClosingFacts = {
  kind: 'act',
  number: 12,
  date: '2026-10-31',
  month: '2026-10',
  from: '2026-10-01',
  to: '2026-10-31',
  currency: 'RUB',
  lines: [
    { name: 'Запросы к моделям через API, октябрь 2026 (18 432 запроса)', requests: 18_432, amountNano: '987650000000', vatNano: '0' },
    { name: 'Ответы ассистентов, октябрь 2026 (1 204 запроса)', requests: 1_204, amountNano: '146910000000', vatNano: '0' },
  ],
  amountNano: '1134560000000',
  vatRate: null,
  vatNano: '0',
  supplier,
  customer: {
    ...customer,
    ogrn: '1157746000000',
    bankName: 'ПАО «Банк»',
    bik: '044525000',
    account: '40702810000000000001',
    correspondentAccount: '30101810000000000000',
  },
  updStatus: null,
  corrects: null,
};
const act = await renderAct(facts);
const vatLines = facts.lines.map((l) => ({ ...l, vatNano: String(vatIncluded(BigInt(l.amountNano), 20)) }));
const upd = await renderUpd({
  ...facts,
  kind: 'upd',
  number: 13,
  vatRate: 20,
  lines: vatLines,
  vatNano: String(vatLines.reduce((sum, l) => sum + BigInt(l.vatNano), 0n)),
  supplier: { ...supplier, vatRate: 20 },
  updStatus: 1,
});

const work = mkdtempSync(join(tmpdir(), 'conduit-documents-'));
try {
  for (const [name, pdf] of [
    ['invoice', invoice],
    ['act', act],
    ['upd', upd],
  ] as const) {
    const file = join(work, `${name}.pdf`);
    writeFileSync(file, pdf);
    const out = join(root, 'docs', 'screens', name);
    const run = spawnSync('pdftoppm', ['-png', '-r', '80', '-singlefile', file, out], { stdio: 'inherit' });
    if (run.error || run.status !== 0) {
      process.stderr.write('pdftoppm не запустился: установите poppler-utils (apt-get install -y poppler-utils)\n');
      process.exit(1);
    }
    process.stdout.write(`docs/screens/${name}.png\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
