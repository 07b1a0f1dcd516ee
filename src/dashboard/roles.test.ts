import { describe, expect, it } from 'vitest';
import { ROLES } from '../users/index.js';
import { areaOfRoute, forbiddenArea, landingPage, mayOpen } from './roles.js';

describe('dashboard sections by declared route', () => {
  it('takes the section from the path a route declares, parameters and all', () => {
    expect(areaOfRoute('/dashboard/keys/:id/:action')).toBe('keys');
    expect(areaOfRoute('/dashboard/team')).toBe('team');
    expect(areaOfRoute('/dashboard/billing/invoices/:id/pdf')).toBe('billing');
    expect(areaOfRoute('/dashboard')).toBeNull();
    expect(areaOfRoute('/dashboard/')).toBeNull();
    expect(areaOfRoute('/dashboard/account/password')).toBeNull();
  });

  it('refuses to place a route in no known section, so none is open to every role by omission', () => {
    expect(() => areaOfRoute('/dashboard/keys-export')).toThrow(/in no section/);
    expect(() => areaOfRoute('/dashboard/%6beys')).toThrow(/in no section/);
    expect(() => areaOfRoute('/api/v1/account')).toThrow(/not a dashboard path/);
  });

  it('says what a role may not see, and shows only the links it may open', () => {
    expect(forbiddenArea('keys', 'billing')).toBe('API keys');
    expect(forbiddenArea('keys', 'developer')).toBeNull();
    expect(forbiddenArea('team', 'developer')).toBe('the team');
    expect(forbiddenArea(null, 'billing')).toBeNull();
    expect(forbiddenArea(undefined, 'billing')).toBeNull();
    expect(mayOpen('/dashboard/billing', 'developer')).toBe(false);
    expect(mayOpen('/dashboard/billing', 'billing')).toBe(true);
    expect(mayOpen('/dashboard', 'billing')).toBe(true);
  });

  it('lands each role on a page it may open when it joins', () => {
    expect(Object.fromEntries(ROLES.map((role) => [role, landingPage(role)]))).toEqual({
      owner: '/dashboard/keys?welcome=1',
      developer: '/dashboard/keys?welcome=1',
      billing: '/dashboard/billing',
    });
    for (const role of ROLES) expect(mayOpen(landingPage(role).split('?')[0]!, role), role).toBe(true);
  });
});
