// A caller known without a key, acting for an account: a dashboard user, or a batch running for the
// key or user that submitted it. Metering admits it as it admits a key (gate.admitPrincipal).
import type { Principal } from '../auth/index.js';
import type { AccountView } from './view.js';

export function principalFor(account: AccountView, caller: { id: string; name: string; prefix: string }): Principal {
  return {
    keyId: caller.id,
    keyName: caller.name,
    keyPrefix: caller.prefix,
    keyDisabled: false,
    account: {
      id: account.id,
      slug: account.slug,
      disabled: account.disabled,
      unlimited: account.unlimited,
      billingStatus: account.subscription.status,
      planIncluded: account.subscription.plan?.included ?? null,
      planOverage: account.subscription.plan?.overage ?? false,
      // The view's plan is already the current window's (a pending change is decided there).
      planId: account.subscription.planId,
      nextPlan: null,
      windowAnchor: Date.parse(account.subscription.windowAnchor),
    },
  };
}
