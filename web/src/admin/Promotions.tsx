// «Промокоды» (/app/admin/promotions): the operator creates a campaign — unique codes or one shared code —
// sees the campaigns with their activations, opens one to see who activated it (addresses half hidden), downloads
// its codes as CSV (again at any time: the server keeps them sealed) and stops it. Creating and stopping are
// audited by the server.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Outputs } from '../app/api';
import { Link } from '../app/router';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { FileDownload } from '../shared/FileDownload';
import { formatDateTime, formatInt, formatMoney, fromLocalInput } from '../shared/format';
import { Button, ConfirmDialog, Field, Loading } from '../shared/ui';
import { AdminError } from './AdminError';

type Campaign = Outputs['adminPromotions']['list']['campaigns'][number];

const STATUS_TEXT: Record<Campaign['status'], string> = { active: 'Действует', stopped: 'Остановлена', expired: 'Срок истёк' };
const KIND_TEXT: Record<Campaign['kind'], string> = { unique: 'Уникальные коды', shared: 'Общий код' };

const plural = new Intl.PluralRules('ru-RU');
const CODE_WORDS: Record<string, string> = { one: 'код', few: 'кода', many: 'кодов', other: 'кода' };
/** «1 код», «3 кода», «100 кодов». */
const codesText = (count: number) => `${formatInt(count)} ${CODE_WORDS[plural.select(count)]}`;

const exportUrl = (id: string) => `/api/admin/promotions/${encodeURIComponent(id)}/codes/export`;

function CreateCampaign({ onCreated }: { onCreated(): void }) {
  const trpc = useTRPC();
  const create = useMutation(trpc.adminPromotions.create.mutationOptions());
  const [name, setName] = useState('');
  const [amount, setAmount] = useState('');
  const [kind, setKind] = useState<'unique' | 'shared'>('unique');
  const [count, setCount] = useState('100');
  const [code, setCode] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [registeredAfter, setRegisteredAfter] = useState('');
  const fields = create.error ? (apiError(create.error)?.fields ?? {}) : {};

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const amountNumber = Number(amount.replace(',', '.'));
    const number = Number(count);
    const answer = await answerOf(
      create.mutateAsync({
        name,
        amount: amount.trim() === '' ? Number.NaN : amountNumber,
        kind,
        ...(kind === 'unique' ? { codeCount: number } : { uses: number, ...(code.trim() ? { code: code.trim() } : {}) }),
        expiresAt: fromLocalInput(expiresAt) ?? '',
        registeredAfter: fromLocalInput(registeredAfter) ?? null,
      }),
    );
    if (answer) onCreated();
  };

  return (
    <section className="card" aria-labelledby="promo-create-title" data-testid="promo-create">
      <h2 id="promo-create-title">Новая акция</h2>
      <p className="hint">
        Уникальные коды — по одной активации каждый, их раздают по одному. Общий код — один на всех, активируется заданное число раз. Одна учётная запись активирует
        промокод одной акции только один раз; сумма зачисляется на баланс и видна в выписке как «Промокод».
      </p>
      <form onSubmit={onSubmit} noValidate aria-label="Новая акция">
        <Field label="Название акции" error={fields.name}>
          {(props) => <input {...props} name="name" maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Сумма за активацию, ₽" error={fields.amount}>
          {(props) => <input {...props} name="amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />}
        </Field>
        <Field label="Вид промокодов">
          {(props) => (
            <select {...props} name="kind" value={kind} onChange={(e) => setKind(e.target.value === 'shared' ? 'shared' : 'unique')}>
              <option value="unique">Уникальные коды</option>
              <option value="shared">Один общий код</option>
            </select>
          )}
        </Field>
        <Field label={kind === 'unique' ? 'Число кодов (до 10 000)' : 'Число активаций'} error={kind === 'unique' ? fields.codeCount : fields.uses}>
          {(props) => <input {...props} name="count" inputMode="numeric" value={count} onChange={(e) => setCount(e.target.value)} />}
        </Field>
        {kind === 'shared' ? (
          <Field label="Общий код" hint="4–32 латинских буквы, цифры и дефисы; пусто — случайный" error={fields.code}>
            {(props) => <input {...props} name="code" autoComplete="off" value={code} onChange={(e) => setCode(e.target.value)} />}
          </Field>
        ) : null}
        <Field label="Действует до" error={fields.expiresAt}>
          {(props) => <input {...props} type="datetime-local" name="expiresAt" value={expiresAt} onChange={(e) => setExpiresAt(e.target.value)} />}
        </Field>
        <Field label="Только для зарегистрированных после" hint="Пусто — для всех учётных записей" error={fields.registeredAfter}>
          {(props) => <input {...props} type="datetime-local" name="registeredAfter" value={registeredAfter} onChange={(e) => setRegisteredAfter(e.target.value)} />}
        </Field>
        <div className="actions">
          <Button type="submit" pending={create.isPending} pendingText="Создаём…">
            Создать акцию
          </Button>
        </div>
      </form>
      <AdminError error={create.error && !apiError(create.error)?.fields ? apiError(create.error) : undefined} />
      {create.data ? (
        <div role="status" aria-live="polite" data-testid="promo-created">
          <p className="success">
            Акция «{create.data.name}» создана:{' '}
            {create.data.kind === 'shared' ? `общий код, активаций — ${formatInt(create.data.usesPerCode)}` : codesText(create.data.codes.length)}.
          </p>
          {create.data.kind === 'shared' ? (
            <p>
              Код: <code data-testid="promo-shared-code">{create.data.codes[0]}</code>
            </p>
          ) : null}
          <FileDownload url={exportUrl(create.data.id)} label="Скачать коды (CSV)" testId="promo-created-export" excel />
        </div>
      ) : null}
    </section>
  );
}

function CampaignList() {
  const trpc = useTRPC();
  const list = useQuery(trpc.adminPromotions.list.queryOptions({}));
  return (
    <section className="card" aria-labelledby="promo-list-title" data-testid="promo-list">
      <h2 id="promo-list-title">Акции</h2>
      <AdminError error={apiError(list.error)} />
      {list.isPending ? <Loading /> : null}
      {list.data && list.data.campaigns.length === 0 ? <p className="muted">Акций пока не было.</p> : null}
      {list.data && list.data.campaigns.length > 0 ? (
        <div className="table-wrap">
          <table className="stack-table">
            <thead>
              <tr>
                <th scope="col">Акция</th>
                <th scope="col">Вид</th>
                <th scope="col" className="num">
                  Сумма
                </th>
                <th scope="col" className="num">
                  Активаций
                </th>
                <th scope="col">Состояние</th>
                <th scope="col">Действует до</th>
              </tr>
            </thead>
            <tbody>
              {list.data.campaigns.map((c) => (
                <tr key={c.id} data-campaign={c.name}>
                  <th scope="row">
                    <Link to={`/admin/promotions/${encodeURIComponent(c.id)}`}>{c.name}</Link>
                  </th>
                  <td data-label="Вид">{KIND_TEXT[c.kind]}</td>
                  <td data-label="Сумма" className="num">
                    {formatMoney(c.amount, c.currency, 'amount')}
                  </td>
                  <td data-label="Активаций" className="num">
                    {formatInt(c.redemptions)} из {formatInt(c.codeCount * c.usesPerCode)}
                  </td>
                  <td data-label="Состояние">{STATUS_TEXT[c.status]}</td>
                  <td data-label="Действует до">{formatDateTime(c.expiresAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

export function PromotionsScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (
    <>
      <CreateCampaign onCreated={() => void queryClient.invalidateQueries({ queryKey: trpc.adminPromotions.list.pathKey() })} />
      <CampaignList />
    </>
  );
}

export function PromotionScreen({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const detail = useQuery(trpc.adminPromotions.get.queryOptions({ id }));
  const stop = useMutation(trpc.adminPromotions.stop.mutationOptions());
  const [confirming, setConfirming] = useState(false);
  const onStop = async () => {
    if (await answerOf(stop.mutateAsync({ id }))) {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: trpc.adminPromotions.get.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.adminPromotions.list.pathKey() });
    }
  };
  const c = detail.data;
  return (
    <section className="card" aria-labelledby="promo-detail-title" data-testid="promo-detail">
      <p>
        <Link to="/admin/promotions">← Все акции</Link>
      </p>
      <AdminError error={apiError(detail.error)} />
      {detail.isPending ? <Loading /> : null}
      {c ? (
        <>
          <h2 id="promo-detail-title">{c.name}</h2>
          <dl className="facts">
            <dt>Вид</dt>
            <dd>{KIND_TEXT[c.kind]}</dd>
            <dt>Сумма за активацию</dt>
            <dd>{formatMoney(c.amount, c.currency, 'amount')}</dd>
            <dt>Активаций</dt>
            <dd data-testid="promo-redemptions">
              {formatInt(c.redemptions)} из {formatInt(c.codeCount * c.usesPerCode)}
            </dd>
            <dt>Зачислено</dt>
            <dd>{formatMoney(c.credited, c.currency, 'amount')}</dd>
            <dt>Состояние</dt>
            <dd data-testid="promo-status">{STATUS_TEXT[c.status]}</dd>
            <dt>Действует до</dt>
            <dd>{formatDateTime(c.expiresAt)}</dd>
            {c.registeredAfter ? (
              <>
                <dt>Только для зарегистрированных после</dt>
                <dd>{formatDateTime(c.registeredAfter)}</dd>
              </>
            ) : null}
          </dl>
          <div className="actions">
            <FileDownload url={exportUrl(c.id)} label="Скачать коды (CSV)" testId="promo-export" excel />
            {c.status === 'active' ? (
              <Button type="button" variant="secondary" onClick={() => setConfirming(true)} pending={stop.isPending} pendingText="Останавливаем…">
                Остановить акцию
              </Button>
            ) : null}
          </div>
          <ConfirmDialog
            open={confirming}
            title="Остановить акцию?"
            confirmText="Остановить"
            pending={stop.isPending}
            error={apiError(stop.error)}
            onConfirm={onStop}
            onCancel={() => setConfirming(false)}
          >
            <p>Коды акции перестанут действовать сразу. Уже зачисленное останется на балансах.</p>
          </ConfirmDialog>
          <h3>Кто активировал</h3>
          {c.redemptionList.length === 0 ? <p className="muted">Активаций пока нет.</p> : null}
          {c.redemptionList.length > 0 ? (
            <div className="table-wrap">
              <table className="stack-table" data-testid="promo-redemption-list">
                <thead>
                  <tr>
                    <th scope="col">Когда</th>
                    <th scope="col">Учётная запись</th>
                    <th scope="col" className="num">
                      Сумма
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {c.redemptionList.map((r) => (
                    <tr key={r.id}>
                      <td data-label="Когда">{formatDateTime(r.createdAt)}</td>
                      <td data-label="Учётная запись">
                        <Link to={`/admin/users/${encodeURIComponent(r.userId)}`}>{r.email}</Link>
                      </td>
                      <td data-label="Сумма" className="num">
                        {formatMoney(r.amount, c.currency, 'amount')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
