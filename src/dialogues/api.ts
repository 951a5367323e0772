// The owner's inbox: dialogues, their transcripts, operator replies, and the agent's results.
import { messengerSlot } from '../integrations/messenger';
import { socialSlot } from '../integrations/social';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createQuickReplies } from './quick-replies';
import { createFunnel } from './funnel';
import { createResults } from './results';
import { createDialogues } from './service';

export function createDialoguesApi({ db, outbox, config }: Base, use: Use) {
  const dialogues = createDialogues({
    db,
    escalations: use(messengerSlot).messenger.escalations,
    socialSettings: use(socialSlot).social.settings,
    outbox,
    currency: config.balanceCurrency,
  });
  return {
    dialogues,
    quickReplies: createQuickReplies({ db }),
    dialogueResults: createResults({ db, currency: config.balanceCurrency }),
    funnel: createFunnel({ db, defaultTimeZone: config.yclientsTimeZone }),
  };
}

export type DialoguesApi = ReturnType<typeof createDialoguesApi>;
export const dialoguesSlot = defineSlot<DialoguesApi>('dialogues');
