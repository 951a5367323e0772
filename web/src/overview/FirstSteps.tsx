// The first hour on the overview: three steps from a new account to the first answer — confirm the e-mail
// (the registration bonus waits for it), create a key, try it — with the base URL and snippets to paste.
// The new key is shown once: the snippets carry it while it is on screen, a placeholder otherwise.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import type { Outputs } from '../app/api';
import { Link } from '../app/router';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { Money } from '../shared/Money';
import { Button, CopyButton, CopyValue, ErrorText } from '../shared/ui';
import { curlSnippet, nodeSnippet, pythonSnippet } from '../shared/snippets';

type CreatedKey = Outputs['keys']['create'];

const KEY_PLACEHOLDER = 'ВАШ_КЛЮЧ';
const FIRST_KEY_NAME = 'Первый ключ';

/** The OpenAI-compatible base URL as GET / gives it to API clients (the operator's public address + /v1). */
function useBaseUrl(): string {
  const info = useQuery({
    queryKey: ['information-document'],
    queryFn: async () => {
      const res = await fetch('/', { headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(String(res.status));
      return (await res.json()) as { config?: { upstreamProxy?: string } };
    },
    staleTime: Infinity,
  });
  return info.data?.config?.upstreamProxy ?? `${window.location.origin}/v1`;
}

function snippets(baseUrl: string, apiKey: string) {
  return [
    { title: 'curl', code: curlSnippet(baseUrl, apiKey) },
    { title: 'Python', code: pythonSnippet(baseUrl, apiKey) },
    { title: 'Node.js', code: nodeSnippet(baseUrl, apiKey) },
  ];
}

function Step({ number, title, done, testId, children }: { number: number; title: string; done: boolean; testId: string; children: ReactNode }) {
  return (
    <li className={`start-step${done ? ' start-step-done' : ''}`} data-testid={testId} data-done={done}>
      <h3>
        <span className="start-step-number" aria-hidden="true">
          {done ? '✓' : number}
        </span>{' '}
        {title}
        {done ? <span className="visually-hidden"> — готово</span> : null}
      </h3>
      {children}
    </li>
  );
}

/**
 * Shown until every step is done: the e-mail confirmed (or no bonus waits for it), an active key, a first
 * request. `balance` and `currency` come from the overview's own queries.
 */
export function FirstSteps({ balance, currency }: { balance: number | undefined; currency: string | undefined }) {
  const trpc = useTRPC();
  const firstRequest = useQuery(trpc.account.usage.queryOptions({ limit: 1 }));
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const keys = useQuery(trpc.keys.list.queryOptions());
  const create = useMutation(trpc.keys.create.mutationOptions());
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const baseUrl = useBaseUrl();

  if (!me.data || !keys.data || !firstRequest.data) return null;
  const hasRequests = firstRequest.data.data.length > 0;
  const pendingBonus = me.data.pendingBonus;
  const emailDone = me.data.user.emailVerified || pendingBonus === 0;
  const keyDone = created !== null || keys.data.keys.some((k) => k.isActive);
  if (emailDone && keyDone && hasRequests && !created) return null;

  const onCreate = async () => {
    const result = await answerOf(create.mutateAsync({ name: FIRST_KEY_NAME }));
    if (!result) return;
    setCreated(result);
    void queryClient.invalidateQueries({ queryKey: trpc.keys.pathKey() });
  };

  return (
    <section className="card first-steps" aria-labelledby="first-steps-title" data-testid="first-steps">
      <h2 id="first-steps-title">Начало работы</h2>
      <ol className="start-steps">
        <Step number={1} title="Подтвердите e-mail" done={emailDone} testId="step-email">
          {emailDone ? (
            <p className="muted">Готово.</p>
          ) : (
            <p>
              Откройте ссылку из письма, которое пришло на {me.data.user.email}: после этого на баланс придёт стартовый бонус{' '}
              <Money value={pendingBonus} currency={currency} kind="amount" />. Письма нет — отправьте его ещё раз в разделе <Link to="/account">«Аккаунт»</Link>.
            </p>
          )}
        </Step>
        <Step number={2} title="Создайте ключ" done={keyDone} testId="step-key">
          {created ? (
            <div className="created-key" role="region" aria-label="Новый ключ" data-testid="first-key">
              <p className="warning" role="alert">
                {created.warning}
              </p>
              <CopyValue value={created.key} label="Полный ключ" testId="first-key-value" />
              {balance !== undefined && balance <= 0 ? (
                <p className="notice" data-testid="first-key-zero-balance">
                  Ключ создан, но баланс сейчас нулевой: запросы с ним будут отклонены, пока баланс не пополнится
                  {emailDone ? '.' : ' — например, стартовым бонусом после подтверждения e-mail.'}
                </p>
              ) : null}
            </div>
          ) : keyDone ? (
            <p className="muted">
              Готово. Новые ключи, лимиты и отзыв — в разделе <Link to="/keys">«API-ключи»</Link>.
            </p>
          ) : (
            <>
              <p>Ключ подписывает запросы к API. Его покажем один раз — сохраните его сразу.</p>
              <div className="actions">
                <Button onClick={onCreate} pending={create.isPending} pendingText="Создаём…" data-testid="first-key-create">
                  Создать ключ
                </Button>
                <Link to="/keys">Ключ с лимитом или сроком</Link>
              </div>
              <ErrorText error={apiError(create.error)} />
            </>
          )}
        </Step>
        <Step number={3} title="Отправьте первый запрос" done={hasRequests} testId="step-try">
          <p>
            Базовый адрес (совместим с API OpenAI): <code data-testid="first-base-url">{baseUrl}</code> <CopyButton text={baseUrl} label="Копировать адрес" />
          </p>
          <p className="hint">
            {created
              ? 'В примерах — ваш новый ключ; после того как вы скроете его или уйдёте со страницы, его здесь не будет.'
              : `Вместо ${KEY_PLACEHOLDER} подставьте свой ключ.`}
          </p>
          <div className="key-snippets" data-testid="first-snippets">
            {snippets(baseUrl, created?.key ?? KEY_PLACEHOLDER).map((s) => (
              <figure key={s.title} className="snippet">
                <figcaption>
                  {s.title} <CopyButton text={s.code} label={`Копировать пример ${s.title}`} />
                </figcaption>
                <pre tabIndex={0}>
                  <code>{s.code}</code>
                </pre>
              </figure>
            ))}
          </div>
          {created ? (
            <Button variant="secondary" onClick={() => setCreated(null)}>
              Ключ сохранён, скрыть
            </Button>
          ) : null}
        </Step>
      </ol>
    </section>
  );
}
