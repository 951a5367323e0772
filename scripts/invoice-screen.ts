// Draws a sample счёт на оплату and акт with the service's own renderers (src/statement/invoice-pdf.ts,
// act-pdf.ts) and turns their first pages into the pictures the README shows: docs/screens/invoice.png and
// docs/screens/act.png. Needs pdftoppm (`apt-get install -y poppler-utils`). Not run by the tests; run it
// when the documents' layout changed:
//
//   bun scripts/invoice-screen.ts
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderAct } from '../src/statement/act-pdf';
import { renderInvoice } from '../src/statement/invoice-pdf';
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
const act = await renderAct({
  number: '2026-10/3F2A9C41',
  facts: {
    month: '2026-10',
    current: false,
    from: '2026-10-01',
    to: '2026-10-31',
    services: [
      { kind: 'usage', requests: 18_432, amountNano: 987_654_321_000n },
      { kind: 'assistant_usage', requests: 1_204, amountNano: 146_910_000_000n },
    ],
  },
  supplier,
  customer,
  currency: 'RUB',
});

const work = mkdtempSync(join(tmpdir(), 'conduit-documents-'));
try {
  for (const [name, pdf] of [
    ['invoice', invoice],
    ['act', act],
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
