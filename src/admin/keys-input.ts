// What an operator's actions on a user's key accept: zod only, shared with the account page's dialogs.
// Beside the owner's key inputs, whose spend limit and period it takes as they are.
import { z } from 'zod';
import { limitResetInput, spendLimitInput } from '../keys';

/** An operator's revoke of a user's key: the user in the path, then the key. */
export const userKeyInput = z.object({ id: z.string().max(100), keyId: z.string().max(100) });

/** An operator sets a key's budget: its spend limit (null: none) and the period it resets in. */
export const userKeyBudgetInput = userKeyInput.extend({
  spendLimit: spendLimitInput,
  limitReset: limitResetInput,
});
