// Minimum turnaround by ICAO aircraft type, minutes: the shortest time from on-block to off-block an
// operator plans (low-cost narrowbodies 25, other narrowbodies 30–35, regional jets 25–30,
// turboprops 20–25, widebodies 60–90). Sources: Simple Flying and AeroNewsTV turnaround articles;
// EUROCONTROL PRU turnaround definition. A prediction adds it to the inbound's projected arrival.
const MINUTES: Record<string, number> = {
  A319: 30,
  A320: 30,
  A20N: 30,
  A321: 35,
  A21N: 35,
  BCS1: 30,
  BCS3: 30,
  B737: 30,
  B738: 25,
  B739: 35,
  B38M: 25,
  B39M: 35,
  B752: 45,
  E170: 25,
  E175: 25,
  E190: 30,
  E195: 30,
  E290: 30,
  E295: 30,
  CRJ7: 25,
  CRJ9: 25,
  CRJX: 25,
  AT45: 20,
  AT72: 20,
  AT76: 20,
  DH8D: 25,
  SF34: 20,
  D328: 20,
  A332: 60,
  A333: 60,
  A339: 60,
  A359: 70,
  A35K: 75,
  A388: 90,
  B763: 60,
  B772: 70,
  B77W: 75,
  B788: 60,
  B789: 65,
  B78X: 70,
};
/** For a type not in the table: a narrowbody's. */
export const DEFAULT_TURNAROUND_MINUTES = 30;

export function minTurnaroundMinutes(typeIcao: string | null): number {
  return (typeIcao && MINUTES[typeIcao.toUpperCase()]) || DEFAULT_TURNAROUND_MINUTES;
}
