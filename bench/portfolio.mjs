// The portfolios the batch benches send (bench/batches.mjs, bench/batches-observed.mjs): 1,000 rows,
// 900 flights of a pool and 100 of them again, in a deterministic order, so every run measures the
// same portfolio.

/** A deterministic shuffle (mulberry32). */
export function shuffled(items, seed) {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** 900 flights of `pool` and 100 of them again, shuffled, as batch rows (with their origin or not). */
export function portfolio(pool, seed, withOrigin = true) {
  const distinct = shuffled(pool, seed).slice(0, 900);
  const rows = [...distinct, ...shuffled(distinct, seed + 1).slice(0, 100)];
  return shuffled(rows, seed + 2).map((f, i) => ({
    flightNumber: f.flightNumber,
    flightDate: f.flightDate,
    ...(withOrigin ? { origin: f.origin } : {}),
    reference: `r${i + 1}`,
  }));
}
