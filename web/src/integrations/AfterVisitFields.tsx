// «После визита» in the YCLIENTS settings (issue 42 point 2): whether and when the client is asked to score
// the visit, the salon's public review page offered after a high score, «записаться снова» per service, and
// «мы вас ждали» for a client who did not come. The form's state lives in Booking.tsx; this is its fieldset.
import { Field } from '../shared/ui';
import type { FieldErrors } from '../shared/validate';

export interface AfterVisitState {
  /** Hours after the visit's end, as typed; '' asks nothing. */
  reviewHours: string;
  reviewUrl: string;
  /** «haircut: 30, color: 60». */
  rebook: string;
  noShowMessage: boolean;
}

type View = { reviewDelayMinutes: number | null; reviewUrl: string | null; rebookDays: Record<string, number>; noShowMessage: boolean };

export function afterVisitFrom(v: View): AfterVisitState {
  return {
    reviewHours: v.reviewDelayMinutes === null ? '' : String(Math.round((v.reviewDelayMinutes / 60) * 100) / 100),
    reviewUrl: v.reviewUrl ?? '',
    rebook: Object.entries(v.rebookDays)
      .map(([service, days]) => `${service}: ${days}`)
      .join(', '),
    noShowMessage: v.noShowMessage,
  };
}

/** The fields as the API takes them, and the form's own errors (what zod cannot say about the typed text). */
export function afterVisitInput(s: AfterVisitState): {
  input: { reviewDelayMinutes: number | null; reviewUrl: string | null; rebookDays: Record<string, number>; noShowMessage: boolean };
  errors: FieldErrors;
} {
  const errors: FieldErrors = {};
  const hours = s.reviewHours.trim().replace(',', '.');
  const reviewDelayMinutes = hours === '' ? null : Math.round(Number(hours) * 60);
  if (reviewDelayMinutes !== null && !Number.isFinite(reviewDelayMinutes)) errors.reviewDelayMinutes = 'Укажите число часов, например 2';
  const rebookDays: Record<string, number> = {};
  for (const part of s.rebook.split(/[,;\n]+/).map((p) => p.trim())) {
    if (part === '') continue;
    const m = /^(.+?)\s*[:=—-]\s*(\d+)$/.exec(part);
    if (!m) {
      errors.rebookDays = 'Пишите так: услуга: дней, например haircut: 30';
      continue;
    }
    rebookDays[m[1]!.trim()] = Number(m[2]);
  }
  return {
    input: {
      reviewDelayMinutes: Number.isFinite(reviewDelayMinutes) ? reviewDelayMinutes : null,
      reviewUrl: s.reviewUrl.trim() || null,
      rebookDays,
      noShowMessage: s.noShowMessage,
    },
    errors,
  };
}

export function AfterVisitFields({ state, onChange, errors }: { state: AfterVisitState; onChange: (next: AfterVisitState) => void; errors: FieldErrors }) {
  const set = (patch: Partial<AfterVisitState>) => onChange({ ...state, ...patch });
  return (
    <fieldset className="visit-reminders" data-testid="after-visit">
      <legend>После визита</legend>
      <p className="hint">
        Когда администратор отметит в YCLIENTS, что клиент пришёл, ассистент спросит во ВКонтакте «Как прошёл визит?» с оценками от 1 до 5. О низкой оценке вы узнаете
        сразу, а клиент получит извинение и ответ человека.
      </p>
      <div className="grid">
        <Field label="Просить оценку через, часов после визита" hint="Пусто — не просить" error={errors.reviewDelayMinutes}>
          {(props) => <input {...props} name="reviewHours" inputMode="decimal" value={state.reviewHours} onChange={(e) => set({ reviewHours: e.target.value })} />}
        </Field>
        <Field label="Ссылка на отзывы о салоне" hint="Её предложат клиенту после высокой оценки" error={errors.reviewUrl}>
          {(props) => (
            <input {...props} name="reviewUrl" type="url" placeholder="https://" value={state.reviewUrl} onChange={(e) => set({ reviewUrl: e.target.value })} />
          )}
        </Field>
        <Field label="Предложить записаться снова" hint="Услуга и через сколько дней, например: haircut: 30" error={errors.rebookDays}>
          {(props) => <input {...props} name="rebookDays" value={state.rebook} onChange={(e) => set({ rebook: e.target.value })} />}
        </Field>
      </div>
      <label className="checkbox">
        <input type="checkbox" name="noShowMessage" checked={state.noShowMessage} onChange={(e) => set({ noShowMessage: e.target.checked })} />
        Написать клиенту, который не пришёл: «Мы вас ждали… перенести?»
      </label>
    </fieldset>
  );
}
