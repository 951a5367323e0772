// YCLIENTS settings of a Service agent: credentials (never shown back, only whether they are set), the
// company, synchronisation, the slot cache, the specialists/services mappings, and the visit reminders
// (hours before the visit, the salon's quiet night hours).
import { useMutation, useQuery } from '@tanstack/react-query';
import { answerOf, apiError, useTRPC, useTRPCClient } from '../app/trpc';
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { bookingSettingsInput, MIN_SLOT_CACHE_TTL_MINUTES } from '@server/integrations/booking/settings-input';
import type { Outputs } from '../app/api';
import { Button, ErrorText, Field, Loading, SubmitRow } from '../shared/ui';
import { formatDateTime } from '../shared/format';
import { check, type FieldErrors, withServerErrors } from '../shared/validate';
import { MappingEditor, mappingFrom, newRow, rowsFrom, type MappingRow } from './MappingEditor';
import { AfterVisitFields, afterVisitFrom, afterVisitInput, type AfterVisitState } from './AfterVisitFields';

type View = Outputs['booking']['getSettings'];

/** A secret field's state: saved on the server, typed here but not saved yet, or neither. */
/** «24, 2» → [1440, 120]; null when a part is not a number of hours. */
function offsetsFrom(text: string): number[] | null {
  const parts = text.split(/[,;\s]+/).filter((p) => p !== '');
  const minutes = parts.map((p) => Math.round(Number(p.replace(/ч$/i, '')) * 60));
  return minutes.every((m) => Number.isFinite(m)) ? minutes : null;
}

/** [1440, 120] → «24, 2». */
const hoursOf = (minutes: number[]) => minutes.map((m) => String(Math.round((m / 60) * 100) / 100)).join(', ');

const setHint = (isSet: boolean | undefined, typed: string) => {
  if (typed !== '') return isSet ? 'Не сохранено: после сохранения заменит прежнее значение' : 'Не сохранено: нажмите «Сохранить настройки YCLIENTS»';
  return isSet ? 'Сохранено. Оставьте поле пустым, чтобы не менять' : 'Не задано';
};

export function BookingSettings({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.booking.getSettings.queryOptions({ agentId }));
  const [view, setView] = useState<View | undefined>();
  const [partnerToken, setPartnerToken] = useState('');
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [companyId, setCompanyId] = useState('');
  const [syncEnabled, setSyncEnabled] = useState(false);
  const [matchClientRecords, setMatchClientRecords] = useState(false);
  const [ttl, setTtl] = useState('15');
  const [offsets, setOffsets] = useState('24, 2');
  const [quietFrom, setQuietFrom] = useState('21:00');
  const [quietTo, setQuietTo] = useState('09:00');
  const [afterVisit, setAfterVisit] = useState<AfterVisitState>({ reviewHours: '2', reviewUrl: '', rebook: '', noShowMessage: false });
  const [specialists, setSpecialists] = useState<MappingRow[]>([]);
  const [services, setServices] = useState<MappingRow[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const save = useMutation(trpc.booking.putSettings.mutationOptions());
  const shown = withServerErrors(errors, apiError(save.error));
  const client = useTRPCClient();
  const loadDirectory = () => Promise.all([client.booking.specialists.query({ agentId }), client.booking.services.query({ agentId })]);
  const fill = useMutation({ mutationFn: loadDirectory });
  // YCLIENTS' names for the mappings' numbers, from the booking cache (refreshed from YCLIENTS when stale),
  // asked again after every save of the settings.
  const configured = view?.configured === true;
  const directory = useQuery({ queryKey: [...trpc.booking.pathKey(), 'directory', agentId, view?.updatedAt], queryFn: loadDirectory, enabled: configured });
  const [filled, setFilled] = useState<Awaited<ReturnType<typeof loadDirectory>> | undefined>(undefined);
  const names = useMemo(() => {
    const staff = new Map<number, string>();
    const offered = new Map<number, string>();
    for (const lists of [directory.data, filled]) {
      if (!lists) continue;
      for (const s of lists[0].specialists) staff.set(s.staffId, s.name);
      for (const s of lists[1].services) offered.set(s.serviceId, s.title);
    }
    return { staff, offered };
  }, [directory.data, filled]);

  // Sets state only, so made once: a new answer from the server, not a render, fills the form again.
  const show = useCallback((v: View) => {
    setView(v);
    setCompanyId(v.companyId === null ? '' : String(v.companyId));
    setSyncEnabled(v.syncEnabled);
    setMatchClientRecords(v.matchClientRecords);
    setTtl(String(v.slotCacheTtlMinutes));
    setOffsets(hoursOf(v.reminderOffsetsMinutes));
    setQuietFrom(v.quietFrom);
    setQuietTo(v.quietTo);
    setAfterVisit(afterVisitFrom(v));
    setSpecialists(rowsFrom(v.specialistMapping));
    setServices(rowsFrom(v.serviceMapping));
  }, []);
  useEffect(() => {
    if (settings.data) show(settings.data);
  }, [settings.data, show]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const specialistMapping = mappingFrom(specialists, 'специалиста');
    const serviceMapping = mappingFrom(services, 'услуги');
    const reminderOffsetsMinutes = offsetsFrom(offsets);
    const after = afterVisitInput(afterVisit);
    const checked = check(bookingSettingsInput, {
      partnerToken: partnerToken.trim() || undefined,
      login: login.trim() || undefined,
      password: password || undefined,
      companyId,
      syncEnabled,
      slotCacheTtlMinutes: ttl.trim() === '' ? undefined : Number(ttl),
      specialistMapping: specialistMapping.mapping,
      serviceMapping: serviceMapping.mapping,
      reminderOffsetsMinutes: reminderOffsetsMinutes ?? [],
      quietFrom,
      quietTo,
      ...after.input,
      matchClientRecords,
    });
    const found: FieldErrors = checked.ok ? { ...after.errors } : { ...checked.errors, ...after.errors };
    if (!reminderOffsetsMinutes) found.reminderOffsetsMinutes = 'Перечислите часы через запятую, например: 24, 2';
    if (specialistMapping.error) found.specialistMapping = specialistMapping.error;
    if (serviceMapping.error) found.serviceMapping = serviceMapping.error;
    setErrors(found);
    if (!checked.ok || Object.keys(found).length > 0) return;
    const result = await answerOf(save.mutateAsync({ agentId, ...checked.data }));
    if (!result) return;
    setPartnerToken('');
    setLogin('');
    setPassword('');
    show(result);
    setSaved(true);
  };

  const onFill = async () => {
    const result = await answerOf(fill.mutateAsync());
    if (!result) return;
    setFilled(result);
    const [{ specialists: staff }, { services: offered }] = result;
    const mappedStaff = new Set(specialists.map((r) => r.external.trim()));
    const mappedServices = new Set(services.map((r) => r.external.trim()));
    setSpecialists([
      ...specialists.filter((r) => r.internal || r.external),
      ...staff.filter((s) => !mappedStaff.has(String(s.staffId))).map((s) => newRow(s.id, String(s.staffId))),
    ]);
    setServices([
      ...services.filter((r) => r.internal || r.external),
      ...offered.filter((s) => !mappedServices.has(String(s.serviceId))).map((s) => newRow(s.id, String(s.serviceId))),
    ]);
  };

  return (
    <section className="card" aria-labelledby="booking-title" data-testid="booking-settings">
      <h2 id="booking-title">YCLIENTS — онлайн-запись</h2>
      {settings.isPending ? <Loading /> : null}
      <ErrorText error={apiError(settings.error)} />
      {view ? (
        <>
          <p className="status-line" data-testid="booking-status">
            {view.configured ? <span className="badge badge-ok">Подключено</span> : <span className="badge badge-off">Не подключено</span>}
            {view.updatedAt ? <span className="muted">Сохранено {formatDateTime(view.updatedAt)}</span> : null}
            {view.lastSyncAt ? <span className="muted">Синхронизация {formatDateTime(view.lastSyncAt)}</span> : null}
          </p>
          <form onSubmit={onSubmit} noValidate>
            {/* Five narrower columns on a wide screen: the connection's fields in one row. */}
            <div className="grid grid-narrow">
              <Field label="Токен партнёра YCLIENTS" hint={setHint(view.partnerTokenSet, partnerToken)} error={shown.partnerToken}>
                {(props) => (
                  <input {...props} name="partnerToken" type="password" autoComplete="off" value={partnerToken} onChange={(e) => setPartnerToken(e.target.value)} />
                )}
              </Field>
              <Field label="Логин администратора" hint={setHint(view.loginSet, login)} error={shown.login}>
                {(props) => <input {...props} name="login" autoComplete="off" value={login} onChange={(e) => setLogin(e.target.value)} />}
              </Field>
              <Field label="Пароль администратора" hint={setHint(view.passwordSet, password)} error={shown.password}>
                {(props) => (
                  <input {...props} name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
                )}
              </Field>
              <Field label="ID компании в YCLIENTS" error={shown.companyId}>
                {(props) => <input {...props} name="companyId" inputMode="numeric" value={companyId} onChange={(e) => setCompanyId(e.target.value)} />}
              </Field>
              <Field label="Кэш свободного времени, минут" hint={`Не меньше ${MIN_SLOT_CACHE_TTL_MINUTES}`} error={shown.slotCacheTtlMinutes}>
                {(props) => (
                  <input
                    {...props}
                    name="slotCacheTtlMinutes"
                    type="number"
                    min={MIN_SLOT_CACHE_TTL_MINUTES}
                    max={1440}
                    value={ttl}
                    onChange={(e) => setTtl(e.target.value)}
                  />
                )}
              </Field>
            </div>
            <label className="checkbox">
              <input type="checkbox" name="syncEnabled" checked={syncEnabled} onChange={(e) => setSyncEnabled(e.target.checked)} />
              Синхронизировать специалистов и услуги каждые 10 минут
            </label>
            <label className="checkbox">
              <input type="checkbox" name="matchClientRecords" checked={matchClientRecords} onChange={(e) => setMatchClientRecords(e.target.checked)} />
              Узнавать записи клиента в YCLIENTS по телефону и имени
            </label>
            <p className="hint" data-testid="match-client-records-hint">
              Записи, сделанные по телефону или через виджет, появятся у клиента в «Мои записи» и в напоминаниях, если его телефон и имя совпадают с карточкой в
              YCLIENTS. Телефон во ВКонтакте никто не проверяет: назвавший чужие телефон и имя увидит и сможет отменить чужие записи.
            </p>
            <fieldset className="visit-reminders" data-testid="visit-reminders">
              <legend>Напоминания о визите</legend>
              <p className="hint">
                Клиент, записавшийся через диалог, получит во ВКонтакте напоминание с кнопками «Подтвердить», «Перенести» и «Отменить». В тихие часы напоминания не
                отправляются: то, что выпало на ночь, уйдёт утром, если визит ещё впереди.
              </p>
              <div className="grid">
                <Field label="Напоминать за, часов" hint="Через запятую; пусто — не напоминать" error={shown.reminderOffsetsMinutes}>
                  {(props) => <input {...props} name="reminderOffsets" inputMode="decimal" value={offsets} onChange={(e) => setOffsets(e.target.value)} />}
                </Field>
                <Field label="Тихие часы с" error={shown.quietFrom}>
                  {(props) => <input {...props} name="quietFrom" type="time" value={quietFrom} onChange={(e) => setQuietFrom(e.target.value)} />}
                </Field>
                <Field label="Тихие часы до" error={shown.quietTo}>
                  {(props) => <input {...props} name="quietTo" type="time" value={quietTo} onChange={(e) => setQuietTo(e.target.value)} />}
                </Field>
              </div>
            </fieldset>
            <AfterVisitFields state={afterVisit} onChange={setAfterVisit} errors={shown} />
            <ErrorText error={apiError(directory.error)} />

            {/* Side by side on a wide screen, one under the other on a phone: the section stays about two screens tall. */}
            <div className="mapping-pair">
              <MappingEditor
                title="Специалисты"
                internalLabel="Наш идентификатор"
                externalLabel="ID сотрудника в YCLIENTS"
                rows={specialists}
                onChange={setSpecialists}
                error={shown.specialistMapping}
                testId="specialist-mapping"
                names={names.staff}
              />
              <MappingEditor
                title="Услуги"
                internalLabel="Наш идентификатор"
                externalLabel="ID услуги в YCLIENTS"
                rows={services}
                onChange={setServices}
                error={shown.serviceMapping}
                testId="service-mapping"
                names={names.offered}
              />
            </div>
            <div className="actions">
              <Button variant="secondary" onClick={onFill} pending={fill.isPending} pendingText="Загружаем…" disabled={!view.configured}>
                Дополнить из YCLIENTS
              </Button>
              {!view.configured ? <span className="hint">Доступно после сохранения настроек</span> : null}
            </div>
            <ErrorText error={apiError(fill.error)} />

            <SubmitRow
              label="Сохранить настройки YCLIENTS"
              pending={save.isPending}
              pendingText="Проверяем вход в YCLIENTS…"
              done={saved}
              doneText="Настройки сохранены, вход в YCLIENTS проверен"
              error={apiError(save.error)}
            />
          </form>
        </>
      ) : null}
    </section>
  );
}
