// Where the requisites printed on the счета and акты are kept: the person's «Аккаунт», or in an organisation
// its «Организация» screen (the account page is the person's own and is not shown there).
import { useActiveOrganization } from '../app/organization';
import { Link } from '../app/router';

export function RequisitesLink() {
  return useActiveOrganization() ? <Link to="/organization">карточке организации</Link> : <Link to="/account">аккаунте</Link>;
}
