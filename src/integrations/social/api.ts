// The VK community: its settings, the callback webhook, and the assistant that answers in it.
import { agentsSlot } from '../../agents';
import { assistantSlot } from '../../assistant';
import { gatewaySlot } from '../../gateway';
import { type Base, defineSlot, type Use } from '../../platform/feature';
import { bookingSlot } from '../booking';
import { messengerSlot } from '../messenger';
import { orderPaid, orderStatusChanged, orderUnpaid } from '../../commerce';
import { createSocial } from './module';
import { tellClientOrderPaid } from './order-paid';
import { remindClientOrderUnpaid, tellClientOrderStatus } from './order-status';

export function createSocialApi({ db, secretBox, logger, outbox, config, metrics, events }: Base, use: Use) {
  const { shopFlow, toolProviders, knowledgeTools } = use(assistantSlot);
  const { messenger } = use(messengerSlot);
  const { agents } = use(agentsSlot);
  const social = createSocial({
    shopFlow,
    toolProviders,
    knowledgeForPrompt: knowledgeTools.knowledgeForPrompt,
    observeEvent: (outcome) => metrics.webhookEvent('social', outcome),
    db,
    box: secretBox,
    logger,
    outbox,
    chat: use(gatewaySlot).chat,
    transcriptions: use(gatewaySlot).transcriptions,
    agents,
    escalations: messenger.escalations,
    messengerSettings: messenger.settings,
    notifier: messenger.notifier,
    ownerMail: messenger.ownerMail,
    booking: use(bookingSlot).booking,
    config,
  });
  events.on(orderPaid, tellClientOrderPaid);
  events.on(orderStatusChanged, tellClientOrderStatus);
  events.on(orderUnpaid, remindClientOrderUnpaid);
  return { social, agents };
}

export type SocialApi = ReturnType<typeof createSocialApi>;
export const socialSlot = defineSlot<SocialApi>('social');
