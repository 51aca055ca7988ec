// replay.mjs: the replay page against GET /api/games/{id}/replay. replayChecks(page, url,
// gameId, assert) opens url + "/#replay=" + gameId in page (a page of the client), fetches the
// replay document itself and, at several positions reached with the page's own controls (the
// first move, a middle one, one after a scoring event, the last move, the end), checks that the
// scores shown (#replay-scores li[data-seat] .replay-score) are that position's scores in the
// API; at the end, that the final scoring breakdown and the score chart are shown. And that the
// page's own check of the fair draw says "draw verified", with its link to fair.html.
// assert(cond, message) throws on failure.

async function shownScores(page) {
  return page.$$eval("#replay-scores li[data-seat]", (lis) =>
    lis.map((li) => [Number(li.dataset.seat), li.querySelector(".replay-score").textContent.trim()]));
}

async function expectScores(page, want, where, assert) {
  // the page redraws synchronously on input, but give a slow machine a moment
  let got = [];
  for (let t = 0; t < 20; t++) {
    got = await shownScores(page);
    if (got.length === want.length && got.every(([seat, s]) => s === String(want[seat]))) return;
    await page.waitForTimeout(50);
  }
  assert(false, `${where}: the page shows scores ${JSON.stringify(got)}, the API says ${JSON.stringify(want)}`);
}

async function slider(page) {
  return Number(await page.$eval("#replay-slider", (s) => s.value));
}

// Move the slider to position n as a user would (keyboard on the range input).
async function slideTo(page, n) {
  await page.focus("#replay-slider");
  await page.keyboard.press("Home");
  for (let i = 0; i < n; i++) await page.keyboard.press("ArrowRight");
}

export async function replayChecks(page, url, gameId, assert) {
  await page.goto(url + "/#replay=" + encodeURIComponent(gameId));
  await page.waitForSelector("#replay-view:not([hidden]) #replay-scores li[data-seat] .replay-score", { timeout: 10000 });
  const rp = await page.evaluate(async (id) => {
    const res = await fetch("/api/games/" + encodeURIComponent(id) + "/replay");
    return res.ok ? res.json() : { status: res.status };
  }, gameId);
  assert(rp.format === "carcd-replay/1", "GET /api/games/{id}/replay: " + JSON.stringify(rp).slice(0, 200));
  const moves = rp.moves;
  assert(moves.length >= 3, `only ${moves.length} moves`);
  const np = rp.players.length;
  assert((await shownScores(page)).length === np, "one score per player");

  // The fair draw, checked by the page itself (js/fair.js): "draw verified", with the link.
  await page.waitForSelector('#replay-fair:is([data-status="verified"], [data-status="failed"], [data-status="none"])', { timeout: 10000 });
  const fair = await page.$eval("#replay-fair", (p) => ({ status: p.dataset.status, text: p.textContent, href: p.querySelector("a").getAttribute("href") }));
  assert(fair.status === "verified" && fair.text.includes("draw verified"), "the replay's draw check: " + JSON.stringify(fair));
  assert(fair.href === "fair.html", "the draw check links to fair.html: " + fair.href);

  // The first move: from the start with #replay-first, then #replay-next.
  await page.click("#replay-first");
  assert((await slider(page)) === 0, "#replay-first goes to the start");
  await expectScores(page, rp.players.map(() => 0), "the start", assert);
  await page.click("#replay-next");
  assert((await slider(page)) === 1, "#replay-next goes to move 1");
  await expectScores(page, moves[0].scores, "move 1", assert);
  const text = await page.textContent("#replay-events");
  assert(text.includes(rp.players[moves[0].player]), "move 1's events name its player: " + text);

  // A middle move, and the first one after which somebody scored, with the slider.
  const mid = Math.floor(moves.length / 2);
  const scored = moves.findIndex((m) => m.events.some((e) => e.type === "score" && e.delta.some((d) => d > 0)));
  for (const k of [mid, scored].filter((k) => k >= 0)) {
    await slideTo(page, k + 1);
    assert((await slider(page)) === k + 1, `the slider is at ${k + 1}`);
    await expectScores(page, moves[k].scores, `move ${k + 1}`, assert);
    const mp = await page.$$eval("#replay-world [data-meeple]", (g) => g.length);
    assert(mp === moves[k].meeples.length, `move ${k + 1}: ${mp} meeples drawn, the API lists ${moves[k].meeples.length}`);
    if (k === scored) {
      const ev = await page.$$eval("#replay-events li", (lis) => lis.map((li) => li.className));
      assert(ev.includes("ev-score"), `move ${k + 1} shows its score event: ${ev}`);
    }
  }

  // The last move (the slider one step back from the end), then the end with #replay-last.
  const end = moves.length + (rp.final.over ? 1 : 0);
  await slideTo(page, moves.length);
  await expectScores(page, moves[moves.length - 1].scores, "the last move", assert);
  assert(await page.isHidden("#replay-final"), "the final scoring waits for the end");
  await page.click("#replay-last");
  assert((await slider(page)) === end, "#replay-last goes to the end");
  await expectScores(page, rp.final.scores, "the end", assert);
  if (rp.final.over) {
    assert(await page.isVisible("#replay-final"), "the final scoring is shown at the end");
    const ranks = await page.$$eval("#replay-ranking .final-score", (b) => b.map((x) => Number(x.textContent)));
    assert(JSON.stringify(ranks) === JSON.stringify(rp.final.scores.slice().sort((a, b) => b - a)),
      `ranking ${ranks} vs final scores ${rp.final.scores}`);
    const groups = await page.$$eval("#replay-breakdown h4", (h) => h.length);
    assert(groups > 0 || rp.final.events.length === 0, "the breakdown groups the end-of-game scoring");
    const items = await page.$$eval("#replay-breakdown li", (l) => l.length);
    assert(items === rp.final.events.length, `${items} breakdown lines for ${rp.final.events.length} events`);
  }
  assert(await page.isVisible("#replay-chart svg.chart"), "the score chart is shown");
  const lines = await page.$$eval("#replay-chart polyline.line", (l) => l.length);
  assert(lines === np, `${lines} chart lines for ${np} players`);
}
