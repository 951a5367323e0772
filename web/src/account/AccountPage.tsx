// «Аккаунт» (/app/account): the signed-in user's own settings, one section per concern (each in its own file).
import { AlertsSection } from './Alerts';
import { ProfileSection } from './Profile';
import { RequisitesSection } from './Requisites';
import { EmailChangeSection } from './EmailChange';
import { SecuritySection } from './Security';
import { TwoFactorSection } from './TwoFactor';

export function AccountPage() {
  return (
    <>
      <div className="page-head">
        <h1>Аккаунт</h1>
      </div>
      <ProfileSection />
      <SecuritySection />
      <TwoFactorSection />
      <EmailChangeSection />
      <AlertsSection />
      <RequisitesSection />
    </>
  );
}
