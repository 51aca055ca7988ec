// make screenshots: the lobby, a game, a scoring moment, the end-of-game scoring, the end screen
// and the replay, the account's dialog and menu, and the flow of flow_ux.mjs (the question before leaving, Resume my game, out
// of time, the end screen, Results, the Play again invitation), at 1366x850 and 390x844, into
// $CARC_BUILD/screenshots/ (NAME-desktop.png, NAME-phone.png). It plays the two-size e2e games
// (sizes.mjs) and the board's (board_ux.mjs) and fails as they would.
import fs from "node:fs";
import path from "node:path";
import { BUILD, DESKTOP, PHONE, launch, startServer } from "./harness.mjs";
import { sizeSuite } from "./sizes.mjs";
import { flowSuite } from "./flow_ux.mjs";
import { panelSuite } from "./panel.mjs";
import { boardSuite } from "./board_ux.mjs";
import { accountShots } from "./accounts.mjs";

const OUT = path.join(BUILD, "screenshots");
fs.mkdirSync(OUT, { recursive: true });
let failed = 0;
const errors = [];

async function test(name, fn) {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 3).join("\n     ") : e}`);
  }
}

// A shot named NAME-desktop or NAME-phone is also taken at the other size (the viewport is
// switched for it and back, the page given 400 ms to lay out each time), unless that file is
// already there; a suite's own shot at the other size, taken later, replaces it.
async function bothSizes(name, page) {
  await page.screenshot({ path: path.join(OUT, name + ".png") });
  const m = /^(.*)-(desktop|phone)$/.exec(name);
  if (!m) return;
  const other = path.join(OUT, `${m[1]}-${m[2] === "desktop" ? "phone" : "desktop"}.png`);
  if (fs.existsSync(other)) return;
  const was = page.viewportSize();
  await page.setViewportSize(m[2] === "desktop" ? PHONE : DESKTOP);
  await page.waitForTimeout(400);
  await page.screenshot({ path: other });
  await page.setViewportSize(was);
  await page.waitForTimeout(400);
}

// every run starts from an empty folder (a file left from an earlier run would stop bothSizes)
for (const f of fs.readdirSync(OUT)) if (f.endsWith(".png")) fs.rmSync(path.join(OUT, f));

const srv = await startServer();
const browser = await launch();
try {
  for (const [size, tag] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
    const shot = (name, page) => page.screenshot({ path: path.join(OUT, `${name}-${tag}.png`) });
    await sizeSuite({ browser, url: srv.url, test, errors, size, tag, shot });
  }
  // leaving, out of time, the end screen and Play again (issue 26): NAME-desktop, NAME-phone
  await flowSuite({ browser, url: srv.url, test, errors, shot: (name, page) => page.screenshot({ path: path.join(OUT, name + ".png") }) });
  // the side panel, the lobby, the log, "+N", six players, help.html, the replay's start (issue 26)
  await panelSuite({ browser, url: srv.url, test, errors, shot: bothSizes });
  // the board's fixed items (issue 26): board-NAME-desktop.png, board-NAME-phone.png
  await boardSuite({ browser, url: srv.url, test, errors, shot: bothSizes });
  // the account's dialog (sign up, an error) and menu (issue 27): account-NAME-desktop, -phone
  await test("the account dialog and menu", () => accountShots(browser, srv.url, (name, page) => page.screenshot({ path: path.join(OUT, name + ".png") })));
} finally {
  await browser.close();
  await srv.stop();
}
if (errors.length) console.log("console errors:\n" + errors.join("\n"));
for (const f of fs.readdirSync(OUT).sort()) console.log(path.join(OUT, f));
process.exitCode = failed || errors.length ? 1 : 0;
