// The README's «What a client receives» and its full version in docs/assistants.md quote the messages a
// client gets from the assistant. They must be the service's own texts: each `Бот:` message there (its text
// and its buttons) and each `Клиент:` tap is compared, in order, with what the real text functions and
// keyboards produce for the example values below, so a text changed in the code fails here until the docs
// follow. Lines that are neither are the docs' own words about the messages. Amounts are compared with plain
// spaces (Intl writes no-break ones, which a reader of the README cannot see).
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { flowTexts } from '../../src/assistant/flow-texts';
import { ACTIONS, confirmKeyboard, mainMenu } from '../../src/assistant/menus';
import { callbackButton, type ReplyButtons } from '../../src/assistant/reply';
import { reminderTexts } from '../../src/assistant/reminder-texts';
import { deliveryLines, price } from '../../src/assistant/shop-flow';
import { assistantTexts, formatSlot } from '../../src/assistant/texts';
import type { OrderDelivery } from '../../src/commerce';
import { orderStatusText } from '../../src/integrations/social/order-status';
import { broadcastTexts } from '../../src/integrations/social/texts';

const ROOT = join(import.meta.dir, '..', '..');

// The example values the docs use.
const CLIENT_NAME = 'Мария';
const SERVICE = 'Стрижка';
const SPECIALIST = 'Анна';
const WHEN = formatSlot('2026-12-03T11:00:00+03:00');
const ORDER = 'ORD-20261203-0007';
const TOTAL = price(180000, 'RUB');
const PAY_LINK = `https://pay.example.ru/checkout?order=${ORDER}&sum=1800.00`;
const DELIVERY: OrderDelivery = { method: 'courier', priceMinor: 30000, address: 'Москва, ул. Ленина, д. 5, кв. 12', recipientName: 'Мария Иванова' };
const TRACKING = 'RA123456789RU';
const BROADCAST = 'Скидка 15% на пледы до воскресенья!';

type Entry = { who: 'Бот'; text: string; buttons: string[] } | { who: 'Клиент'; tap: string };
const bot = (text: string, buttons: ReplyButtons | string[] = []): Entry => ({
  who: 'Бот',
  text: text.replace(/[^\S\n]/g, ' '),
  buttons: buttons.flat().map((b) => (typeof b === 'string' ? b : b.label)),
});
const tap = (label: string): Entry => ({ who: 'Клиент', tap: label });

const visit = { when: WHEN, service: SERVICE, specialist: SPECIALIST };
const reminderButtons = [reminderTexts.buttonConfirm, reminderTexts.buttonReschedule, reminderTexts.buttonCancel];
const booked = bot(assistantTexts.booked({ ...visit, name: CLIENT_NAME }), [
  [callbackButton(flowTexts.buttonReschedule, { action: ACTIONS.reschedule })],
  ...mainMenu('service'),
]);
const reminder = bot(reminderTexts.reminder(visit), reminderButtons);
const orderCreated = bot(assistantTexts.orderCreated(ORDER, TOTAL, PAY_LINK), mainMenu('ecommerce'));
const shopDay = [
  bot(assistantTexts.orderUnpaidReminder(ORDER, TOTAL, PAY_LINK)),
  bot(assistantTexts.orderPaid(ORDER)),
  bot(orderStatusText({ orderNumber: ORDER, status: 'shipped', detail: TRACKING })),
  bot(orderStatusText({ orderNumber: ORDER, status: 'delivered', detail: null })),
];
const broadcast = [bot(BROADCAST, [broadcastTexts.unsubscribeLabel]), tap(broadcastTexts.unsubscribeLabel), bot(broadcastTexts.unsubscribed)];

/** The README's compact transcript. */
const README: Entry[] = [
  booked,
  reminder,
  tap(reminderTexts.buttonConfirm),
  bot(reminderTexts.confirmed(WHEN), mainMenu('service')),
  orderCreated,
  ...shopDay,
  ...broadcast,
];

/** The full version: every answer to the reminder's buttons, the order's summary, the model's order, a cancellation. */
const FULL: Entry[] = [
  booked,
  reminder,
  tap(reminderTexts.buttonConfirm),
  bot(reminderTexts.confirmed(WHEN), mainMenu('service')),
  tap(reminderTexts.buttonCancel),
  bot(reminderTexts.askCancel(visit), [reminderTexts.buttonCancelYes, reminderTexts.buttonKeep]),
  tap(reminderTexts.buttonCancelYes),
  bot(reminderTexts.canceled(WHEN), mainMenu('service')),
  tap(reminderTexts.buttonKeep),
  bot(reminderTexts.kept(WHEN), mainMenu('service')),
  bot(
    flowTexts.orderSummary([assistantTexts.cartLine('Плед', 1, price(150000, 'RUB'), true)], TOTAL, '+7 916 123-45-67', deliveryLines(DELIVERY, 'RUB')),
    confirmKeyboard(),
  ),
  tap(flowTexts.buttonConfirm),
  orderCreated,
  bot(assistantTexts.orderCreated(ORDER, TOTAL, PAY_LINK, deliveryLines(DELIVERY, 'RUB')), [assistantTexts.buttonPay]),
  ...shopDay,
  bot(orderStatusText({ orderNumber: ORDER, status: 'cancelled', detail: 'Товар закончился на складе' })),
  ...broadcast,
  tap(broadcastTexts.unsubscribeLabel),
  bot(broadcastTexts.alreadyUnsubscribed),
];

/** The first ```text block after the heading: its `Бот:` messages (with continuation lines and trailing [buttons]) and `Клиент:` taps. */
function transcript(file: string, heading: string): Entry[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThan(-1);
  const open = text.indexOf('```text\n', start);
  const block = text.slice(open + '```text\n'.length, text.indexOf('\n```', open));
  const entries: Entry[] = [];
  let message: string[] | null = null;
  const finish = () => {
    if (!message) return;
    const last = message.pop()!;
    const buttons = /((?: \[[^\]]+\])+)$/.exec(last);
    message.push(buttons ? last.slice(0, -buttons[1]!.length) : last);
    entries.push({ who: 'Бот', text: message.join('\n'), buttons: buttons ? [...buttons[1]!.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!) : [] });
    message = null;
  };
  for (const line of block.split('\n')) {
    if (message && line.startsWith('     ')) {
      message.push(line.slice(5));
      continue;
    }
    finish();
    if (line.startsWith('Бот: ')) message = [line.slice(5)];
    else if (line.startsWith('Клиент: ')) entries.push({ who: 'Клиент', tap: /^Клиент: \[([^\]]+)\]$/.exec(line)?.[1] ?? line });
  }
  finish();
  return entries;
}

/** Entries as the docs write them: a failure shows the lines to change. */
const render = (entries: Entry[]) =>
  entries
    .map((e) => (e.who === 'Клиент' ? `Клиент: [${e.tap}]` : `Бот: ${e.text.split('\n').join('\n     ')}${e.buttons.map((b) => ` [${b}]`).join('')}`))
    .join('\n');

describe('the client messages the docs quote are the service’s own', () => {
  test('README «What a client receives»: the booking, the reminder and its «Подтвердить», the shop order from link to delivered, a broadcast', () => {
    expect(render(transcript('README.md', '## What a client receives'))).toBe(render(README));
  });

  test('docs/assistants.md «What a client receives»: the full version', () => {
    expect(render(transcript('docs/assistants.md', '### What a client receives'))).toBe(render(FULL));
  });
});
