// Small building blocks every screen uses: a field with its error, an error line next to an action,
// a button that shows its request is running, a copy button, and a confirmation dialog.
import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ReactNode } from 'react';
import type { ApiError } from '../app/api';

export function ErrorText({ error, id }: { error: ApiError | string | undefined; id?: string }) {
  if (!error) return null;
  const message = typeof error === 'string' ? error : error.message;
  return (
    <p className="error" role="alert" id={id} data-error-type={typeof error === 'string' ? 'validation' : error.type}>
      {message}
    </p>
  );
}

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { pending?: boolean; pendingText?: string; variant?: 'primary' | 'secondary' | 'danger' };

export function Button({ pending = false, pendingText, variant = 'primary', children, disabled, className, ...rest }: ButtonProps) {
  return (
    <button type="button" className={`btn btn-${variant}${className ? ` ${className}` : ''}`} disabled={disabled || pending} aria-busy={pending} {...rest}>
      {pending ? (
        <>
          <span className="spinner" aria-hidden="true" />
          {pendingText ?? 'Подождите…'}
        </>
      ) : (
        children
      )}
    </button>
  );
}

/**
 * The foot of a form: its submit button (busy while the request runs), a success line once it went
 * through, and the API's error under it.
 */
export function SubmitRow({
  label,
  pending,
  pendingText = 'Сохраняем…',
  done,
  doneText = 'Сохранено',
  error,
}: {
  label: string;
  pending: boolean;
  pendingText?: string;
  done: boolean;
  doneText?: ReactNode;
  error: ApiError | string | undefined;
}) {
  return (
    <>
      <div className="actions">
        <Button type="submit" pending={pending} pendingText={pendingText}>
          {label}
        </Button>
        {done ? (
          <span className="success" role="status">
            {doneText}
          </span>
        ) : null}
      </div>
      {/* A refusal of particular fields is shown under them (withServerErrors); here only a pointer to them. */}
      <ErrorText error={error && typeof error !== 'string' && error.fields ? { ...error, message: FIELDS_REFUSED } : error} />
    </>
  );
}

const FIELDS_REFUSED = 'Не сохранено: исправьте поля, отмеченные выше';

export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => ReactNode;
}) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function Loading({ text = 'Загрузка…' }: { text?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {text}
    </p>
  );
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (an embedded or insecure page): fall back to a selected textarea.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

export function CopyButton({ text, label = 'Копировать' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <span className="copy">
      <Button variant="secondary" onClick={async () => setState((await copyText(text)) ? 'copied' : 'failed')}>
        {label}
      </Button>
      <span className="copy-status" role="status" aria-live="polite">
        {state === 'copied' ? 'Скопировано' : state === 'failed' ? 'Не удалось скопировать: выделите текст и скопируйте вручную' : ''}
      </span>
    </span>
  );
}

/** A value to copy: shown in full, selectable, with its copy button. */
export function CopyValue({ value, label, testId }: { value: string; label: string; testId?: string }) {
  return (
    <div className="copy-value">
      <code aria-label={label} data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} />
    </div>
  );
}

/**
 * A modal confirmation on the native <dialog>: focus moves into it, Escape cancels, and focus returns
 * to the button that opened it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmText,
  pending,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmText: string;
  pending?: boolean;
  error?: ApiError | undefined;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      // showModal() focuses the first button, the destructive one; a stray Enter must not confirm.
      dialog.querySelector<HTMLButtonElement>('.dialog-cancel')?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!pending) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <ErrorText error={error} />
      <div className="actions">
        <Button variant="danger" pending={pending ?? false} pendingText="Выполняется…" onClick={onConfirm}>
          {confirmText}
        </Button>
        <Button variant="secondary" className="dialog-cancel" onClick={onCancel} disabled={pending ?? false}>
          Отмена
        </Button>
      </div>
    </dialog>
  );
}

/**
 * A modal with a form or other content on the native <dialog>: focus moves into it, Escape closes it,
 * and focus returns to the button that opened it. Its content exists only while it is open, so the
 * fields of a closed dialog never answer a label search or a screen reader.
 */
export function Dialog({
  open,
  title,
  children,
  onClose,
  closable = true,
  cutTitle = false,
  testId,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  onClose(): void;
  /** False while a request runs: Escape then waits for it. */
  closable?: boolean;
  /** A title with a user's long text in it: one line cut with «…», the whole in its tooltip. */
  cutTitle?: boolean;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog dialog-form"
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        if (closable) onClose();
      }}
    >
      {open ? (
        <>
          <h2 id={titleId} className={cutTitle ? 'one-line' : undefined} title={cutTitle ? title : undefined}>
            {title}
          </h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}
