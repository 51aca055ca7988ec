// fair_check.mjs: the browser client's check of the fair draw (clients/web/js/fair.js), run by
// Node on what the replay page fetches, for tests/integration/test_fair.py.
//   stdin: {"record": <GET /api/games/ID>, "replay": <GET /api/games/ID/replay>,
//           "tiles": <GET /api/tiles>.tiles}
//   stdout: the verdict, {"status": "verified" | "failed" | "none", "text": ...}
if (!globalThis.crypto) globalThis.crypto = (await import("node:crypto")).webcrypto;
const { verifyDraw } = await import("../../clients/web/js/fair.js");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { record, replay, tiles } = JSON.parse(input);
const v = await verifyDraw(record, replay, tiles, null);
// The verdict in words is a function (the page says it again in a new language): English here.
process.stdout.write(JSON.stringify({ status: v.status, text: v.say(), mine: v.mine }) + "\n");
