// A stand-in for AeroDataBox answering in 0 ms, as its own process (so the load generator does not
// starve it): `node bench/adb-fixture.mjs DATE COUNT` serves KB 1000… KB (1000+COUNT-1), MAD → WAW on
// DATE, arrived within five minutes of schedule, in AeroDataBox's schema; anything else is 204. It
// prints its URL on stdout once it listens.
import { createServer } from 'node:net';

const [date, count] = [process.argv[2], Number(process.argv[3] ?? 500)];
const time = (iso, offset = 60) => {
  const ms = Date.parse(iso);
  const local = new Date(ms + offset * 60_000).toISOString();
  return {
    utc: `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`,
    local: `${local.slice(0, 10)} ${local.slice(11, 16)}+01:00`,
  };
};
const bodies = new Map();
for (let i = 0; i < count; i++) {
  const n = 1000 + i;
  const minute = String(i % 60).padStart(2, '0');
  const hour = String(6 + (Math.floor(i / 60) % 12)).padStart(2, '0');
  const arrHour = String(Number(hour) + 3).padStart(2, '0');
  bodies.set(
    `KB${n}`,
    JSON.stringify([
      {
        departure: {
          airport: { icao: 'LEMD', iata: 'MAD', name: 'Madrid', timeZone: 'Europe/Madrid' },
          scheduledTime: time(`${date}T${hour}:${minute}:00Z`),
          revisedTime: time(`${date}T${hour}:${minute}:00Z`),
          quality: ['Basic', 'Live'],
        },
        arrival: {
          airport: { icao: 'EPWA', iata: 'WAW', name: 'Warsaw', timeZone: 'Europe/Warsaw' },
          scheduledTime: time(`${date}T${arrHour}:${minute}:00Z`),
          revisedTime: time(`${date}T${arrHour}:${minute}:00Z`),
          quality: ['Basic', 'Live'],
        },
        lastUpdatedUtc: `${date} 23:00Z`,
        number: `KB ${n}`,
        callSign: `KBB${n}`,
        status: 'Arrived',
        codeshareStatus: 'IsOperator',
        isCargo: false,
        aircraft: { reg: 'EC-ABC', modeS: '3451D1', model: 'Airbus A320' },
        airline: { name: 'Bench Air', iata: 'KB', icao: 'KBB' },
      },
    ]),
  );
}
// Raw HTTP/1.1 over TCP rather than node:http: the stand-in should cost the machine as little as
// possible, so the bench measures the adapter, not the fixture. Requests are GETs without bodies;
// each ends at its blank line, and keep-alive connections carry many.
const reply = (body) =>
  body === undefined
    ? 'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n'
    : `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`;
const server = createServer((socket) => {
  let pending = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    pending += chunk;
    let end;
    while ((end = pending.indexOf('\r\n\r\n')) !== -1) {
      const head = pending.slice(0, end);
      pending = pending.slice(end + 4);
      const m = /^GET \/flights\/number\/([A-Z0-9]+)\/(\d{4}-\d{2}-\d{2})[ ?]/.exec(head);
      socket.write(reply(m && m[2] === date ? bodies.get(m[1]) : undefined));
    }
  });
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
