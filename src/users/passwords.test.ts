import { describe, expect, it } from 'vitest';
import { hashPassword, PASSWORD_COST, verifyPassword } from './passwords.js';

describe('passwords', () => {
  it("hashes with OWASP's scrypt parameters by default, salted, in PHC form", async () => {
    expect(PASSWORD_COST).toBe(17);
    const a = await hashPassword('correct horse battery', 12);
    const b = await hashPassword('correct horse battery', 12);
    expect(a).toMatch(/^\$scrypt\$ln=12,r=8,p=1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
  });

  it('verifies with the parameters stored in each hash, and never matches a wrong or malformed one', async () => {
    const cheap = await hashPassword('correct horse battery', 11);
    expect(await verifyPassword('correct horse battery', cheap)).toBe(true);
    expect(await verifyPassword('correct horse batterY', cheap)).toBe(false);
    expect(await verifyPassword('correct horse battery', cheap.replace('ln=11', 'ln=12'))).toBe(false);
    for (const bad of [
      '',
      'plaintext',
      '$scrypt$ln=30,r=8,p=1$c2FsdA==$a2V5',
      '$scrypt$ln=11,r=0,p=1$c2FsdA==$a2V5',
      '$bcrypt$x',
    ]) {
      expect(await verifyPassword('x', bad), bad).toBe(false);
    }
  });

  it('treats the same text in another Unicode form as the same password', async () => {
    const stored = await hashPassword('caf\u00e9 au lait!', 11);
    expect(await verifyPassword('cafe\u0301 au lait!', stored)).toBe(true);
  });
});
