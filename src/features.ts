// Every feature, in the order they are built and started: each may use those above it. Adding a feature is
// a folder exporting its definition and one line here.
import { accountsFeature } from './accounts/feature';
import { adminFeature } from './admin/feature';
import { bankStatementsFeature } from './bank-statements/feature';
import { agentsFeature } from './agents/feature';
import { alertsFeature } from './alerts/feature';
import { assistantFeature } from './assistant/feature';
import { authFeature } from './auth/feature';
import { topupsFeature } from './billing/feature';
import { commerceFeature } from './commerce/feature';
import { dialoguesFeature } from './dialogues/feature';
import { gatewayFeature } from './gateway/feature';
import { bookingFeature } from './integrations/booking/feature';
import { messengerFeature } from './integrations/messenger/feature';
import { socialFeature } from './integrations/social/feature';
import { keysFeature } from './keys/feature';
import { knowledgeFeature } from './knowledge/feature';
import { organizationsFeature } from './organizations/feature';
import { pricingFeature } from './pricing/feature';
import { referralsFeature } from './referrals/feature';
import { promotionsFeature } from './promotions/feature';
import { statementFeature } from './statement/feature';

export const features = [
  accountsFeature,
  keysFeature,
  authFeature,
  pricingFeature,
  alertsFeature,
  gatewayFeature,
  referralsFeature,
  adminFeature,
  agentsFeature,
  messengerFeature,
  bookingFeature,
  commerceFeature,
  topupsFeature,
  knowledgeFeature,
  assistantFeature,
  socialFeature,
  dialoguesFeature,
  statementFeature,
  bankStatementsFeature,
  organizationsFeature,
  promotionsFeature,
] as const;
