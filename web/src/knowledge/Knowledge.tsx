// «База знаний» on the agent's page: the entries its assistant answers from — a paged list with add, edit
// and delete, an import of CSV or plain text, and a search box that shows what the assistant would find
// for a client's question.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiError, useTRPC, useTRPCClient, useRefusal, answerOf } from '../app/trpc';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { knowledgeInput } from '@server/knowledge/input';
import type { ApiError, Outputs } from '../app/api';
import { Pager, useCursorPages } from '../shared/Pager';
import { Button, ConfirmDialog, ErrorText, Field, Loading } from '../shared/ui';
import { formatInt } from '../shared/format';
import { check, type FieldErrors } from '../shared/validate';

type Entry = Outputs['knowledge']['get'];
type Report = Outputs['knowledge']['import'];
const PAGE_SIZE = 20;
const SHOWN_ERRORS = 50;
const MAX_FILE_BYTES = 2_000_000;

function EntryForm({
  entry,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  entry?: Entry | undefined;
  pending: boolean;
  error: ApiError | undefined;
  onSubmit(values: { title: string; content: string }): Promise<boolean>;
  onCancel(): void;
}) {
  const [title, setTitle] = useState(entry?.title ?? '');
  const [content, setContent] = useState(entry?.content ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});
  const heading = useRef<HTMLHeadingElement>(null);
  const headingId = useId();
  // Opening the form moves the keyboard user to it; another entry opens a new form (the list keys it by id).
  useEffect(() => heading.current?.focus(), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(knowledgeInput, { title, content });
    setErrors(checked.ok ? {} : checked.errors);
    if (!checked.ok) return;
    if ((await onSubmit(checked.data)) && !entry) {
      setTitle('');
      setContent('');
    }
  };

  return (
    <form className="product-form" onSubmit={submit} noValidate aria-labelledby={headingId} data-testid="knowledge-form">
      <h4 id={headingId} ref={heading} tabIndex={-1}>
        {entry ? `Изменить запись «${entry.title}»` : 'Новая запись'}
      </h4>
      <Field label="Заголовок" hint="О чём запись: «Доставка», «Стоимость стрижки»" error={errors.title}>
        {(props) => <input {...props} name="knowledgeTitle" maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />}
      </Field>
      <Field label="Текст записи" hint="Что ассистент должен знать и отвечать клиентам" error={errors.content}>
        {(props) => <textarea {...props} name="knowledgeContent" rows={5} maxLength={10_000} value={content} onChange={(e) => setContent(e.target.value)} />}
      </Field>
      <div className="actions">
        <Button type="submit" pending={pending} pendingText="Сохраняем…">
          {entry ? 'Сохранить запись' : 'Добавить запись'}
        </Button>
        <Button variant="secondary" onClick={onCancel} disabled={pending}>
          Отмена
        </Button>
      </div>
      <ErrorText error={error} />
    </form>
  );
}

function KnowledgeImport({ agentId, onImported }: { agentId: string; onImported(): void }) {
  const [format, setFormat] = useState<'text' | 'csv'>('text');
  const [source, setSource] = useState('');
  const [fileError, setFileError] = useState<string | undefined>();
  const [report, setReport] = useState<Report | null>(null);
  const trpc = useTRPC();
  const run = useMutation(trpc.knowledge.import.mutationOptions());
  const [runError, refuse] = useRefusal(run);
  const fileId = useId();

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setReport(null);
    if (source.trim() === '') {
      refuse({
        message: format === 'csv' ? 'Вставьте CSV с заголовком title,content или выберите файл' : 'Вставьте текст: разделы через пустую строку',
        type: 'validation',
      });
      return;
    }
    const result = await answerOf(run.mutateAsync({ agentId, ...(format === 'csv' ? { csv: source } : { text: source }) }));
    if (!result) return;
    setReport(result);
    if (result.ok) {
      setSource('');
      onImported();
    }
  };

  return (
    <form className="tool" onSubmit={onSubmit} noValidate data-testid="knowledge-import">
      <h4>Импорт</h4>
      <fieldset className="inline-choice">
        <legend>Формат</legend>
        <label>
          <input type="radio" name="knowledgeFormat" checked={format === 'text'} onChange={() => setFormat('text')} /> Текст
        </label>
        <label>
          <input type="radio" name="knowledgeFormat" checked={format === 'csv'} onChange={() => setFormat('csv')} /> CSV
        </label>
      </fieldset>
      <p className="hint">
        {format === 'text'
          ? 'Разделы разделяются пустой строкой; первая строка раздела — заголовок, остальное — текст записи.'
          : 'Первая строка — заголовок: title;content (или заголовок;текст). Разделитель — точка с запятой или запятая.'}{' '}
        Записи добавляются все сразу или ни одна.
      </p>
      <Field label={format === 'text' ? 'Текст для импорта' : 'Содержимое CSV'}>
        {(props) => <textarea {...props} name="knowledgeSource" rows={6} value={source} onChange={(e) => setSource(e.target.value)} />}
      </Field>
      <div className="field">
        <label htmlFor={fileId}>Или файл</label>
        <input
          id={fileId}
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          onChange={async (event) => {
            setFileError(undefined);
            const file = event.target.files?.[0];
            if (!file) return;
            if (file.size > MAX_FILE_BYTES) return setFileError('Файл слишком большой: не больше 2 МБ за один импорт');
            setFormat(file.name.toLowerCase().endsWith('.csv') ? 'csv' : 'text');
            setSource(await file.text());
            setReport(null);
          }}
        />
        <ErrorText error={fileError} />
      </div>
      <div className="actions">
        <Button type="submit" pending={run.isPending} pendingText="Импортируем…">
          Импортировать
        </Button>
        {report?.ok ? (
          <span className="success" role="status" data-testid="knowledge-import-result">
            Импортировано записей: {formatInt(report.imported)}
          </span>
        ) : null}
      </div>
      <ErrorText error={runError} />
      {report && !report.ok ? (
        <div className="import-errors" role="alert" data-testid="knowledge-import-errors">
          <p className="error">Ничего не импортировано: исправьте записи и повторите.</p>
          <ul>
            {report.errors.slice(0, SHOWN_ERRORS).map((e) => (
              <li key={e.row}>
                Запись {e.row}: {e.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </form>
  );
}

function KnowledgeSearch({ agentId }: { agentId: string }) {
  const [query, setQuery] = useState('');
  const client = useTRPCClient();
  // A search run on request, its answer kept beside the list: run like an action.
  const search = useMutation({ mutationFn: (q: string) => client.knowledge.list.query({ agentId, query: q }) });
  const [found, setFound] = useState<Outputs['knowledge']['list']['entries'] | null>(null);
  return (
    <form
      className="tool"
      noValidate
      data-testid="knowledge-search"
      onSubmit={async (event) => {
        event.preventDefault();
        if (query.trim() === '') return;
        const result = await answerOf(search.mutateAsync(query.trim()));
        if (result) setFound(result.entries);
      }}
    >
      <h4>Проверить поиск</h4>
      <Field label="Вопрос клиента" hint="Что найдёт ассистент: учитываются формы слов («стрижки» найдёт «стрижка»)">
        {(props) => <input {...props} name="knowledgeQuery" value={query} onChange={(e) => setQuery(e.target.value)} />}
      </Field>
      <div className="actions">
        <Button type="submit" variant="secondary" pending={search.isPending} pendingText="Ищем…">
          Найти
        </Button>
      </div>
      <ErrorText error={apiError(search.error)} />
      {found ? (
        found.length === 0 ? (
          <p className="muted" role="status">
            Ничего не найдено
          </p>
        ) : (
          <ol role="status" data-testid="knowledge-search-results">
            {found.map((e) => (
              <li key={e.id}>{e.title}</li>
            ))}
          </ol>
        )
      ) : null}
    </form>
  );
}

export function KnowledgeBase({ agentId }: { agentId: string }) {
  const pages = useCursorPages();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.knowledge.list.queryOptions({ agentId, limit: PAGE_SIZE, cursor: pages.cursor }));
  const [editing, setEditing] = useState<Entry | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Entry | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const addButtonId = useId();
  const create = useMutation(trpc.knowledge.create.mutationOptions());
  const update = useMutation(trpc.knowledge.update.mutationOptions());
  const remove = useMutation(trpc.knowledge.remove.mutationOptions());

  const closeForm = () => {
    setEditing(null);
    create.reset();
    update.reset();
    document.getElementById(addButtonId)?.focus();
  };

  const onSubmit = async (values: { title: string; content: string }) => {
    if (editing === 'new') {
      const created = await answerOf(create.mutateAsync({ agentId, ...values }));
      if (!created) return false;
      setNotice(`Запись «${created.title}» добавлена`);
      void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
      return true;
    }
    if (!editing) return false;
    const updated = await answerOf(update.mutateAsync({ agentId, entryId: editing.id, ...values }));
    if (!updated) return false;
    setNotice(`Запись «${updated.title}» сохранена`);
    closeForm();
    void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
    return true;
  };

  const entries = list.data?.entries ?? [];
  return (
    <section className="card" aria-labelledby="knowledge-title" data-testid="knowledge">
      <div className="section-head">
        <h2 id="knowledge-title">База знаний</h2>
        <Button
          id={addButtonId}
          variant="secondary"
          aria-expanded={editing === 'new'}
          onClick={() => {
            setNotice(null);
            create.reset();
            setEditing('new');
          }}
        >
          Добавить запись
        </Button>
      </div>
      <p className="muted">Цены, часы работы, доставка, частые вопросы: ассистент ищет ответы здесь и не придумывает их.</p>
      {editing ? (
        <EntryForm
          key={editing === 'new' ? 'new' : editing.id}
          entry={editing === 'new' ? undefined : editing}
          pending={editing === 'new' ? create.isPending : update.isPending}
          error={editing === 'new' ? apiError(create.error) : apiError(update.error)}
          onSubmit={onSubmit}
          onCancel={closeForm}
        />
      ) : null}
      {notice ? (
        <p className="success" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorText error={apiError(list.error)} />
      {list.isFetching ? <Loading text="Загружаем записи…" /> : null}
      {list.data && entries.length === 0 ? (
        <p className="muted">{pages.number === 1 ? 'Записей пока нет: добавьте первую или импортируйте текст.' : 'На этой странице записей нет.'}</p>
      ) : null}
      {entries.length > 0 ? (
        <ul className="knowledge-list" data-testid="knowledge-list">
          {entries.map((entry) => (
            <li key={entry.id} data-entry-id={entry.id}>
              <div>
                <strong className="knowledge-title">{entry.title}</strong>
                <span className="hint knowledge-content">{entry.content.length > 300 ? `${entry.content.slice(0, 299)}…` : entry.content}</span>
              </div>
              <div className="row-actions">
                <Button
                  variant="secondary"
                  aria-label={`Изменить запись «${entry.title}»`}
                  onClick={() => {
                    setNotice(null);
                    update.reset();
                    setEditing(entry);
                  }}
                >
                  Изменить
                </Button>
                <Button
                  variant="danger"
                  aria-label={`Удалить запись «${entry.title}»`}
                  onClick={() => {
                    remove.reset();
                    setDeleting(entry);
                  }}
                >
                  Удалить
                </Button>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      <Pager pages={pages} nextCursor={list.data?.nextCursor} loading={list.isFetching} label="Страницы базы знаний" />
      <KnowledgeSearch agentId={agentId} />
      <KnowledgeImport
        agentId={agentId}
        onImported={() => {
          if (pages.number > 1) pages.reset();
          else void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        title="Удалить запись?"
        confirmText="Удалить"
        pending={remove.isPending}
        error={apiError(remove.error)}
        onConfirm={async () => {
          if (!deleting) return;
          if (!(await answerOf(remove.mutateAsync({ agentId, entryId: deleting.id })))) return;
          setNotice(`Запись «${deleting.title}» удалена`);
          setDeleting(null);
          if (editing !== 'new' && editing?.id === deleting.id) setEditing(null);
          if (pages.number > 1 && entries.length === 1) pages.back();
          else void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
        }}
        onCancel={() => setDeleting(null)}
      >
        <p>Запись «{deleting?.title}» будет удалена, ассистент перестанет на неё опираться.</p>
      </ConfirmDialog>
    </section>
  );
}
