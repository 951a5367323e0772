// POST /api/admin/bank-statements: the operator uploads the bank's statement (1C exchange format) — as the field
// `file` of a multipart form (the console's upload) or as the raw body (curl --data-binary). A raw route: the body
// is a file in Windows-1251, DOS-866 or UTF-8, read under its own size limit. Answers the import's summary: each
// incoming payment with the счёт proposed for it or why none; nothing is credited until confirmed.
import type { Authenticator } from '../auth';
import { readBodyBytes } from '../http/body';
import { AppError } from '../http/errors';
import { defineRawRoute } from '../http/raw-route';
import { isStorableText } from '../http/text';
import { dashboardErrors } from '../openapi/errors';
import type { BankApi } from './api';
import { bankMessages } from './texts';
import { importView } from './views';

/** A year of a busy account's statement is a few megabytes; more is not a statement. */
export const STATEMENT_MAX_BYTES = 5 * 1024 * 1024;
/** What a multipart form adds around the file: boundaries, headers. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

const invalid = (message: string) => new AppError('invalid_request_error', message, { param: 'file' });

/** The file's bytes and name, from a form's `file` or the body itself. */
async function statementFile(request: Request, bodyLimitBytes: number): Promise<{ bytes: Uint8Array; name: string }> {
  const contentType = request.headers.get('content-type') ?? '';
  let body: Uint8Array;
  try {
    // BODY_LIMIT_BYTES holds here too: an operator who lowered it below a statement's size meant it.
    body = await readBodyBytes(request, Math.min(bodyLimitBytes, STATEMENT_MAX_BYTES + FORM_OVERHEAD_BYTES));
  } catch (error) {
    if (error instanceof AppError && error.type === 'payload_too_large') {
      throw new AppError('payload_too_large', bankMessages.fileTooLarge(STATEMENT_MAX_BYTES / (1024 * 1024)), { param: 'file' });
    }
    throw error;
  }
  let bytes = body;
  let name = '';
  if (/^multipart\/form-data/i.test(contentType)) {
    let form: FormData;
    try {
      form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
    } catch {
      throw invalid(bankMessages.fileMissing);
    }
    const file = form.get('file');
    if (file === null || typeof file === 'string') throw invalid(bankMessages.fileMissing);
    bytes = new Uint8Array(await file.arrayBuffer());
    name = file instanceof File ? file.name : '';
  }
  if (bytes.byteLength === 0) throw invalid(bankMessages.fileEmpty);
  if (bytes.byteLength > STATEMENT_MAX_BYTES) {
    throw new AppError('payload_too_large', bankMessages.fileTooLarge(STATEMENT_MAX_BYTES / (1024 * 1024)), { param: 'file' });
  }
  if (!isStorableText(name)) throw invalid(bankMessages.fileMissing);
  return { bytes, name };
}

/** The start of a statement file as a bank exports it (in Windows-1251 on the wire). */
const FILE_EXAMPLE =
  '1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\nДатаНачала=01.12.2026\r\nДатаКонца=03.12.2026\r\nРасчСчет=40702810400000012345\r\n' +
  'СекцияДокумент=Платежное поручение\r\nНомер=512\r\nДата=01.12.2026\r\nСумма=15000.00\r\n…\r\nКонецДокумента\r\nКонецФайла\r\n';

const EXAMPLE = {
  importId: '6f1c2a9e-1d52-4d8a-9f43-0b7f6f0f2d11',
  encoding: 'windows-1251',
  periodFrom: '01.12.2026',
  periodTo: '03.12.2026',
  counts: { documents: 3, incoming: 2, new: 2, duplicates: 0, outgoing: 1, foreign: 0 },
  payments: [
    {
      id: 'c3a1f0f4-6a43-4f4e-8a55-3d2b1f0e9a77',
      importId: '6f1c2a9e-1d52-4d8a-9f43-0b7f6f0f2d11',
      status: 'matched',
      duplicate: false,
      documentKind: 'Платежное поручение',
      documentNumber: '512',
      documentDate: '2026-12-01',
      receivedOn: '2026-12-02',
      amount: 15000,
      currency: 'RUB',
      payerName: 'ООО «Ромашка»',
      payerInn: '7712345678',
      payerKpp: '771201001',
      payerAccount: '40702810900000000001',
      payerBank: 'ПАО Сбербанк',
      purpose: 'Оплата по счету №42 от 29.11.2026 за доступ к API. Без НДС',
      invoiceNumber: 42,
      problem: null,
      problemText: null,
      creditedUserId: null,
      ignoredReason: null,
      createdAt: '2026-12-03T09:00:00.000Z',
    },
  ],
};

export const bankStatementUploadRoute = defineRawRoute<{
  authenticator: Pick<Authenticator, 'admin'>;
  bank: BankApi['bank'];
  config: { balanceCurrency: string; bodyLimitBytes: number };
}>({
  method: 'POST',
  path: '/api/admin/bank-statements',
  auth: 'admin',
  parse: 'none',
  info: 'admin.bankStatements',
  openapi: {
    operation: {
      operationId: 'admin-bankStatementUpload',
      tags: ['admin'],
      summary: 'Загрузить банковскую выписку в формате 1С (1CClientBankExchange) и получить предложенные совпадения со счетами',
      description:
        'Файл — полем file формы multipart/form-data или телом запроса целиком; Windows-1251, DOS-866 или UTF-8, строки CRLF или LF, ' +
        `не больше ${STATEMENT_MAX_BYTES / (1024 * 1024)} МБ (и BODY_LIMIT_BYTES). Входящие платежи — документы, где ПолучательСчет — расчётный счёт оператора и есть ` +
        'ДатаПоступило; исходящие и чужие пропускаются (counts). Каждому новому платежу предлагается счёт: ждущий оплаты, чей номер назван в ' +
        'назначении платежа, с ИНН покупателя, равным ПлательщикИНН, и той же суммой (status matched); иначе status unmatched и problem — ' +
        'почему. Платёж, уже загруженный раньше (тот же Номер, Дата, Сумма, ПлательщикИНН, ПлательщикСчет), показывается как duplicate ' +
        'в его нынешнем состоянии. Ничего не зачисляется: зачисление — POST /api/admin/bank-statements/{importId}/confirm. Ошибка в файле — ' +
        '400 с номером строки. Пишется в журнал действий.',
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'Файл выписки' } } },
            example: { file: FILE_EXAMPLE },
          },
          'application/octet-stream': { schema: { type: 'string', format: 'binary', description: 'Файл выписки целиком' }, example: FILE_EXAMPLE },
        },
      },
      responses: {
        '201': { description: 'Выписка загружена: платежи и предложенные совпадения', content: { 'application/json': { example: EXAMPLE } } },
        ...dashboardErrors({
          400: 'Файла нет, он пуст или это не выписка в формате 1С (сообщение называет строку)',
          401: undefined,
          403: undefined,
          409: 'Реквизиты оператора (расчётный счёт) ещё не заданы',
          413: 'Файл больше предела',
          429: undefined,
          500: undefined,
          503: undefined,
        }),
      },
    },
  },
  async handle({ request }, { authenticator, bank, config }) {
    const admin = await authenticator.admin(request.headers);
    const file = await statementFile(request, config.bodyLimitBytes);
    const summary = await bank.payments.importStatement(admin, file);
    return new Response(JSON.stringify(importView(summary, config.balanceCurrency)), {
      status: 201,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
  },
});
