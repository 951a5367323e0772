// One agent, in sections with an address each (/agents/:id/<section>), so no part is a long scroll away:
// «Основное» — its own settings (name, prompt, model picked from the catalogue with prices; the type is
// fixed) and deletion; «ВКонтакте» and «Telegram» for all, «YCLIENTS» for Service agents; «Магазин» —
// payments, catalog, orders for E-commerce agents; «Инструменты» — the tools its model gets, in
// Russian; «База знаний»; «Рассылки» to the VK clients who allow messages; «Итоги».
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC } from '../app/trpc';
import { useEffect, useState, type FormEvent } from 'react';
import { agentPatchInput } from '@server/agents/fields';
import type { Outputs } from '../app/api';
import { Button, ConfirmDialog, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { AgentBroadcasts } from './AgentBroadcasts';
import { AgentTools } from './AgentTools';
import { ModelPicker } from '../shared/ModelPicker';
import { useBillingConfig } from '../shared/billing-config';
import { formatDateTime } from '../shared/format';
import { AgentResults } from '../dialogues/Results';
import { BookingSettings } from '../integrations/Booking';
import { KnowledgeBase } from '../knowledge/Knowledge';
import { MessengerSettings } from '../integrations/Messenger';
import { Shop } from '../integrations/Shop';
import { SocialSettings } from '../integrations/Social';
import { Link, navigate } from '../app/router';
import { agentTypeLabels, agentUnavailableLabels } from '../shared/texts';
import { check, type FieldErrors, withServerErrors } from '../shared/validate';
import { optional } from './Agents';
import { setupHints } from './setup-hints';

type Agent = Outputs['agents']['get'];

const WEEKDAYS = ['Пн', 'Вт', 'Ср', 'Чт', 'Пт', 'Сб', 'Вс'];

/** Russia's time zones by a city people know, the value the zone's id the server stores. */
const TIME_ZONES = [
  { id: 'Europe/Kaliningrad', label: 'Калининград (МСК−1)' },
  { id: 'Europe/Moscow', label: 'Москва (МСК)' },
  { id: 'Europe/Samara', label: 'Самара (МСК+1)' },
  { id: 'Asia/Yekaterinburg', label: 'Екатеринбург (МСК+2)' },
  { id: 'Asia/Omsk', label: 'Омск (МСК+3)' },
  { id: 'Asia/Novosibirsk', label: 'Новосибирск (МСК+4)' },
  { id: 'Asia/Krasnoyarsk', label: 'Красноярск (МСК+4)' },
  { id: 'Asia/Irkutsk', label: 'Иркутск (МСК+5)' },
  { id: 'Asia/Yakutsk', label: 'Якутск (МСК+6)' },
  { id: 'Asia/Vladivostok', label: 'Владивосток (МСК+7)' },
  { id: 'Asia/Magadan', label: 'Магадан (МСК+8)' },
  { id: 'Asia/Kamchatka', label: 'Камчатка (МСК+9)' },
] as const;

/**
 * When a person answers the agent's clients: the assistant tells a handed-over client when that is. Off: no
 * time is promised. Days 1 (Monday) … 7, one span a day, the zone optional (the server's default when empty).
 */
function WorkingHoursFields({ value, onChange, error }: { value: Agent['workingHours']; onChange(value: Agent['workingHours']): void; error?: string | undefined }) {
  const hours = value ?? { days: [1, 2, 3, 4, 5], from: '10:00', to: '19:00' };
  const set = (patch: Partial<NonNullable<Agent['workingHours']>>) => onChange({ ...hours, ...patch });
  return (
    <fieldset className="working-hours" data-testid="working-hours">
      <legend>Рабочее время</legend>
      <label className="checkbox">
        <input type="checkbox" name="workingHoursOn" checked={value !== null} onChange={(e) => onChange(e.target.checked ? hours : null)} />
        Задать рабочее время: клиенту, переданному сотруднику, ассистент скажет, когда ему ответят
      </label>
      <p className="hint" data-testid="working-hours-effect">
        В нерабочее время клиент узнаёт, когда ему ответят, а вас не будят: уведомление в Telegram приходит без звука, письмо не отправляется, а к началу рабочего дня
        приходит одно сообщение со списком всех, кто ждёт ответа. Напоминания клиентам (о визите, о неоплаченном заказе) ночью не отправляются.
      </p>
      {value !== null ? (
        <>
          <div className="checkbox-row">
            {WEEKDAYS.map((label, i) => (
              <label className="checkbox" key={label}>
                <input
                  type="checkbox"
                  checked={hours.days.includes(i + 1)}
                  onChange={(e) => set({ days: e.target.checked ? [...hours.days, i + 1].sort((a, b) => a - b) : hours.days.filter((d) => d !== i + 1) })}
                />
                {label}
              </label>
            ))}
          </div>
          <Field label="С">{(props) => <input {...props} type="time" name="workingFrom" value={hours.from} onChange={(e) => set({ from: e.target.value })} />}</Field>
          <Field label="До">{(props) => <input {...props} type="time" name="workingTo" value={hours.to} onChange={(e) => set({ to: e.target.value })} />}</Field>
          <Field label="Часовой пояс" hint="Время, в котором указаны часы работы">
            {(props) => (
              <select
                {...props}
                name="workingTimeZone"
                value={hours.timeZone ?? ''}
                onChange={(e) => set({ timeZone: e.target.value === '' ? undefined : e.target.value })}
              >
                <option value="">Как у сервиса</option>
                {hours.timeZone && !TIME_ZONES.some((z) => z.id === hours.timeZone) ? <option value={hours.timeZone}>{hours.timeZone}</option> : null}
                {TIME_ZONES.map((z) => (
                  <option key={z.id} value={z.id}>
                    {z.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </>
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function AgentForm({ agent, onSaved }: { agent: Agent; onSaved(agent: Agent): void }) {
  const [name, setName] = useState(agent.name);
  const [systemPrompt, setSystemPrompt] = useState(agent.systemPrompt);
  const [model, setModel] = useState(agent.model);
  const [acceptsImages, setAcceptsImages] = useState(agent.acceptsImages);
  const [transcribeVoice, setTranscribeVoice] = useState(agent.transcribeVoice);
  const [transcriptionModel, setTranscriptionModel] = useState(agent.transcriptionModel ?? '');
  const [workingHours, setWorkingHours] = useState(agent.workingHours);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const trpc = useTRPC();
  const currency = useBillingConfig().data?.currency;
  const save = useMutation(trpc.agents.update.mutationOptions());
  const shown = withServerErrors(errors, apiError(save.error));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const checked = check(agentPatchInput, {
      name,
      systemPrompt,
      model: optional(model),
      acceptsImages,
      transcribeVoice,
      transcriptionModel: transcriptionModel.trim() === '' ? null : transcriptionModel.trim(),
      workingHours,
    });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    const updated = await answerOf(save.mutateAsync({ id: agent.id, ...checked.data }));
    if (!updated) return;
    setSaved(true);
    onSaved(updated);
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Field label="Имя" error={shown.name}>
        {(props) => <input {...props} name="agentName" value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Тип" hint="Тип не меняется после создания">
        {(props) => <input {...props} value={agentTypeLabels[agent.type]} readOnly />}
      </Field>
      <Field label="Системный промпт" hint={setupHints.systemPrompt} error={shown.systemPrompt}>
        {(props) => <textarea {...props} name="systemPrompt" rows={5} value={systemPrompt} onChange={(e) => setSystemPrompt(e.target.value)} />}
      </Field>
      <Field label="Модель" hint={setupHints.model} error={shown.model}>
        {(props) => <ModelPicker {...props} name="model" value={model} onChange={setModel} currency={currency} />}
      </Field>
      <label className="checkbox">
        <input type="checkbox" name="acceptsImages" checked={acceptsImages} onChange={(e) => setAcceptsImages(e.target.checked)} />
        Показывать модели фото клиентов (модель должна принимать изображения); иначе клиенту ответят, что фото ассистент не смотрит
      </label>
      <label className="checkbox">
        <input type="checkbox" name="transcribeVoice" checked={transcribeVoice} onChange={(e) => setTranscribeVoice(e.target.checked)} />
        Расшифровывать голосовые сообщения, которые ВКонтакте прислал без текста (за ваш счёт, по цене модели распознавания речи); иначе клиента попросят написать
        текстом
      </label>
      {transcribeVoice ? (
        <Field label="Модель распознавания речи" hint="Пусто — модель по умолчанию сервиса, например openai/whisper-1" error={shown.transcriptionModel}>
          {(props) => (
            <input
              {...props}
              name="transcriptionModel"
              value={transcriptionModel}
              placeholder="openai/whisper-1"
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => setTranscriptionModel(e.target.value)}
            />
          )}
        </Field>
      ) : null}
      <WorkingHoursFields value={workingHours} onChange={setWorkingHours} error={shown.workingHours} />
      <SubmitRow label="Сохранить агента" pending={save.isPending} done={saved} error={apiError(save.error)} />
    </form>
  );
}

type SectionId = 'main' | 'vk' | 'telegram' | 'yclients' | 'shop' | 'tools' | 'knowledge' | 'broadcasts' | 'results';

/** The page's sections in order, those the agent's type has; the first is the page's own address. */
function sectionsOf(type: Agent['type']): { id: SectionId; label: string }[] {
  return [
    { id: 'main', label: 'Основное' },
    // The connections one each: together they were over three screens tall.
    { id: 'vk', label: 'ВКонтакте' },
    { id: 'telegram', label: 'Telegram' },
    ...(type === 'service' ? [{ id: 'yclients' as const, label: 'YCLIENTS' }] : []),
    ...(type === 'ecommerce' ? [{ id: 'shop' as const, label: 'Магазин' }] : []),
    { id: 'tools', label: 'Инструменты' },
    { id: 'knowledge', label: 'База знаний' },
    { id: 'broadcasts', label: 'Рассылки' },
    { id: 'results', label: 'Итоги' },
  ];
}

const sectionPath = (agentId: string, id: SectionId) => `/agents/${encodeURIComponent(agentId)}${id === 'main' ? '' : `/${id}`}`;

/** The sections as tabs with an address each: a reload or a shared link opens the same one. */
function AgentSectionNav({ agent, current }: { agent: Agent; current: SectionId }) {
  return (
    <nav className="subnav section-nav" aria-label="Разделы агента" data-testid="agent-section-nav">
      <ul>
        {sectionsOf(agent.type).map((s) => (
          <li key={s.id}>
            <Link to={sectionPath(agent.id, s.id)} aria-current={s.id === current ? 'page' : undefined}>
              {s.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function AgentPage({ id, section }: { id: string; section?: string | undefined }) {
  const trpc = useTRPC();
  const loaded = useQuery(trpc.agents.get.queryOptions({ id }));
  const [agent, setAgent] = useState<Agent | undefined>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const remove = useMutation(trpc.agents.remove.mutationOptions());
  useEffect(() => setAgent(loaded.data), [loaded.data]);

  if (!agent) {
    return (
      <>
        <p>
          <Link to="/agents">← Все агенты</Link>
        </p>
        {loaded.isFetching ? <Loading /> : null}
        <ErrorText error={apiError(loaded.error)} />
      </>
    );
  }

  // An unknown or foreign section (a shop's address on a Service agent) opens «Основное».
  const current = sectionsOf(agent.type).find((s) => s.id === section)?.id ?? 'main';
  return (
    <>
      <p>
        <Link to="/agents">← Все агенты</Link>
      </p>
      <div className="page-head">
        <h1>{agent.name}</h1>
        <span className="badge">{agentTypeLabels[agent.type]}</span>
      </div>
      {agent.unavailableReason ? (
        <p className="warning" role="alert" data-testid="agent-unavailable">
          {agentUnavailableLabels[agent.unavailableReason]}
        </p>
      ) : null}
      <AgentSectionNav agent={agent} current={current} />

      {current === 'main' ? (
        <>
          <section className="card" aria-labelledby="agent-title">
            <h2 id="agent-title">Настройки агента</h2>
            <p className="muted">Изменён {formatDateTime(agent.updatedAt)}</p>
            <AgentForm key={agent.id} agent={agent} onSaved={setAgent} />
          </section>
          <section className="card danger-zone" aria-labelledby="delete-title">
            <h2 id="delete-title">Удаление</h2>
            <p className="muted">Агент удаляется вместе с настройками всех интеграций.</p>
            <Button variant="danger" onClick={() => setConfirmDelete(true)}>
              Удалить агента
            </Button>
          </section>
        </>
      ) : null}
      {current === 'vk' ? <SocialSettings agentId={agent.id} /> : null}
      {current === 'telegram' ? <MessengerSettings agentId={agent.id} /> : null}
      {current === 'yclients' ? <BookingSettings agentId={agent.id} /> : null}
      {current === 'shop' ? <Shop agentId={agent.id} /> : null}
      {current === 'tools' ? <AgentTools agentId={agent.id} /> : null}
      {current === 'knowledge' ? <KnowledgeBase agentId={agent.id} /> : null}
      {current === 'broadcasts' ? <AgentBroadcasts agentId={agent.id} /> : null}
      {current === 'results' ? <AgentResults agentId={agent.id} /> : null}

      <ConfirmDialog
        open={confirmDelete}
        title="Удалить агента?"
        confirmText="Удалить"
        pending={remove.isPending}
        error={apiError(remove.error)}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={async () => {
          if (await answerOf(remove.mutateAsync({ id }))) navigate('/agents', true);
        }}
      >
        <p>Агент «{agent.name}» и настройки его интеграций будут удалены без возможности восстановления.</p>
      </ConfirmDialog>
    </>
  );
}
