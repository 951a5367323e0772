// «Аккаунт»: the account's security settings, one section per concern (each in its own file).
import { EmailChangeSection } from './EmailChange';
import { TwoFactorSection } from './TwoFactor';

export function AccountScreen() {
  return (
    <>
      <div className="page-head">
        <h1>Аккаунт</h1>
      </div>
      <TwoFactorSection />
      <EmailChangeSection />
    </>
  );
}
