// The assistant's model tools and the shop in the dialogue, shared by the dialogue's buttons and the tools.
import { commerceSlot } from '../commerce';
import { bookingSlot } from '../integrations/booking';
import { knowledgeSlot } from '../knowledge';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createShopFlow } from './shop-flow';
import { createBookingTools } from './tools/booking';
import { createChoiceTools } from './tools/choices';
import { createKnowledgeTools } from './tools/knowledge';
import { createShopTools } from './tools/shop';
import type { ToolProvider } from './tools/types';

export function createAssistantApi({ db, outbox, logger, config }: Base, use: Use) {
  const { commerce } = use(commerceSlot);
  const { booking } = use(bookingSlot);
  const shopFlow = createShopFlow({
    flowDb: db,
    catalog: commerce.catalog,
    orders: commerce.orders,
    settings: commerce.settings,
    orderPayments: commerce.orderPayments,
    outbox,
    logger,
  });
  const knowledgeTools = createKnowledgeTools({ knowledge: use(knowledgeSlot).knowledge });
  /** Every tool family the assistant's model may be offered; the agent page lists them from here. */
  const toolProviders: ToolProvider[] = [
    createBookingTools({ db, booking: booking.service, settings: booking.settings, maxBookingsPerClient: config.assistantMaxBookingsPerClient }),
    createShopTools({
      db,
      catalog: commerce.catalog,
      orders: commerce.orders,
      settings: commerce.settings,
      shopFlow,
      maxOpenOrdersPerClient: config.assistantMaxOpenOrdersPerClient,
    }),
    knowledgeTools.provider,
    // Every agent may answer with buttons; a salon's times and services, a shop's products, are checked as its own.
    createChoiceTools({ booking: booking.service, bookingSettings: booking.settings, catalog: commerce.catalog }),
  ];
  return { shopFlow, knowledgeTools, toolProviders };
}

export type AssistantApi = ReturnType<typeof createAssistantApi>;
export const assistantSlot = defineSlot<AssistantApi>('assistant');
