// The funnel on the agent's results: per week of the client's first message, dialogues → bookings → visits →
// reviews with the week's average score (Service) or dialogues → orders → payments (E-commerce), each step with its share of the one before; the
// newest week first and the period's total at the foot. At 390 px each week is a card (stack-table).
import { useQuery } from '@tanstack/react-query';
import type { Outputs } from '../app/api';
import { apiError, useTRPC } from '../app/trpc';
import { formatInt } from '../shared/format';
import { ErrorText, Loading } from '../shared/ui';
import { funnelTexts as t } from './texts';

type Step = Outputs['dialogues']['funnel']['total'][number];
const percent = new Intl.NumberFormat('ru-RU', { style: 'percent', maximumFractionDigits: 1 });

function StepCell({ step }: { step: Step }) {
  return (
    <td data-label={t.steps[step.key] ?? step.key} className="num" data-step={step.key}>
      <span>
        {formatInt(step.count)}
        {step.conversion !== null ? (
          <span className="hint funnel-conversion" title={t.conversion(percent.format(step.conversion))}>
            {' '}
            {percent.format(step.conversion)}
          </span>
        ) : null}
      </span>
    </td>
  );
}

export function AgentFunnel({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const funnel = useQuery(trpc.dialogues.funnel.queryOptions({ agentId }));
  const f = funnel.data;
  const scored = f?.steps.includes('reviews') ?? false;
  return (
    <div className="funnel" data-testid="agent-funnel">
      <h3>{t.title}</h3>
      <p className="hint">{t.hint}</p>
      {f?.steps.includes('visits') ? <p className="hint">{t.visitsHint}</p> : null}
      {funnel.isPending ? <Loading /> : null}
      <ErrorText error={apiError(funnel.error)} />
      {f ? (
        <table className="stack-table funnel-table">
          <thead>
            <tr>
              <th>{t.week}</th>
              {f.steps.map((key) => (
                <th key={key} className="num">
                  {t.steps[key] ?? key}
                </th>
              ))}
              {scored ? <th className="num">{t.averageScore}</th> : null}
            </tr>
          </thead>
          <tbody>
            {[...f.weeks].reverse().map((w) => (
              <tr key={w.weekStart} data-testid="funnel-week" data-week={w.weekStart}>
                <td data-label={t.week}>{t.weekOf(w.weekStart)}</td>
                {w.steps.map((s) => (
                  <StepCell key={s.key} step={s} />
                ))}
                {scored ? (
                  <td data-label={t.averageScore} className="num" data-step="averageScore">
                    {t.scoreOf(w.averageScore)}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-testid="funnel-total">
              <td data-label={t.week}>{t.total}</td>
              {f.total.map((s) => (
                <StepCell key={s.key} step={s} />
              ))}
              {scored ? (
                <td data-label={t.averageScore} className="num" data-step="averageScore">
                  {t.scoreOf(f.averageScore)}
                </td>
              ) : null}
            </tr>
          </tfoot>
        </table>
      ) : null}
    </div>
  );
}
