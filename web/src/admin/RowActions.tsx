// A console table row's «Изменить» and «Удалить», and a delete that asks first (ConfirmDialog): shared by the
// price list and the price groups.
import { useState } from 'react';
import { answerOf, apiError } from '../app/trpc';
import { Button } from '../shared/ui';

/** «Изменить» (without `onEdit`, none) and «Удалить»; `subject` ends their labels: «Удалить цену openai/*». */
export function RowActions({
  subject,
  onEdit,
  onDelete,
  deletePending,
  deleteDisabled,
  deleteTitle,
}: {
  subject: string;
  onEdit?: () => void;
  onDelete(): void;
  deletePending?: boolean;
  deleteDisabled?: boolean;
  /** Why «Удалить» is disabled. */
  deleteTitle?: string | undefined;
}) {
  return (
    <div className="row-actions">
      {onEdit ? (
        <Button variant="secondary" aria-label={`Изменить ${subject}`} onClick={onEdit}>
          Изменить
        </Button>
      ) : null}
      <Button variant="danger" aria-label={`Удалить ${subject}`} pending={deletePending} disabled={deleteDisabled} title={deleteTitle} onClick={onDelete}>
        Удалить
      </Button>
    </div>
  );
}

/** The delete mutation as the hook needs it: what tRPC's useMutation gives. */
interface DeleteMutation<Input> {
  mutateAsync(input: Input): Promise<{ message: string }>;
  reset(): void;
  isPending: boolean;
  error: unknown;
}

/**
 * A row deleted once the operator confirms: `ask(row)` opens the dialog (spread `dialog` into ConfirmDialog,
 * with its title and text); on success the dialog closes and `onDeleted` gets the row and the server's message.
 */
export function useConfirmedDelete<Row, Input>(remove: DeleteMutation<Input>, inputOf: (row: Row) => Input, onDeleted: (row: Row, message: string) => void) {
  const [asking, setAsking] = useState<Row | null>(null);
  const onConfirm = async () => {
    if (asking === null) return;
    const done = await answerOf(remove.mutateAsync(inputOf(asking)));
    if (!done) return;
    onDeleted(asking, done.message);
    setAsking(null);
  };
  return {
    asking,
    ask(row: Row) {
      remove.reset();
      setAsking(row);
    },
    dialog: {
      open: asking !== null,
      confirmText: 'Удалить',
      pending: remove.isPending,
      error: apiError(remove.error),
      onConfirm,
      onCancel: () => setAsking(null),
    },
  };
}
