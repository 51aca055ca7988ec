// Move-making helpers of the e2e suite: play turns through the UI (clicks or the keyboard) and
// play a whole game until the end screen.

function assert(cond, msg) {
  if (!cond) throw new Error(msg || "assertion failed");
}

function logLength(page) {
  return page.evaluate(() => document.getElementById("log").children.length);
}

async function waitLogGrows(page, before) {
  await page.waitForFunction((n) => document.getElementById("log").children.length > n, before);
}

// The n-th legal square in view that fits the tile as turned (else any in view): the board pans
// rather than shrink under readable tiles, so a square may be out of view.
export async function legalInView(page, n) {
  const inView = (sel) => page.$$eval(sel, (ns) => ns.map((g, i) => {
    const r = g.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit && g.contains(hit) ? i : -1;
  }).filter((i) => i >= 0));
  let sel = "#world .legal.fits";
  let idx = await inView(sel);
  if (!idx.length) [sel, idx] = ["#world .legal", await inView("#world .legal")];
  assert(idx.length, "no legal square in view");
  return (await page.$$(sel))[idx[n % idx.length]];
}

// One turn by clicking: the n-th highlighted position that fits the current rotation, a meeple
// spot every third turn, then Confirm. With undo, the tile is taken back once and placed again.
export async function clickMove(page, n, { undo = false } = {}) {
  const before = await logLength(page);
  await (await legalInView(page, n)).click();
  await page.waitForSelector("#world .pending");
  if (n % 3 === 0) {
    const spots = await page.$$("#world .spot");
    if (spots.length) {
      await spots[n % spots.length].click();
      await page.waitForSelector("#world .spot.selected");
    }
  }
  if (undo) {
    await page.click("#undo-btn");
    await page.waitForSelector("#world .legal");
    await (await page.$$("#world .legal"))[0].click();
    await page.waitForSelector("#world .pending");
  }
  await page.click("#confirm-btn");
  await waitLogGrows(page, before);
}

// One turn with the keyboard alone: R rotates, Tab reaches a legal position, Enter places, Space
// on the focused meeple spot takes it (Enter there would take it and confirm), Enter on the
// board confirms.
export async function keyboardMove(page) {
  const before = await logLength(page);
  await page.focus("#board");
  await page.keyboard.press("r");
  await page.keyboard.press("Tab");
  const focused = await page.evaluate(() => document.activeElement.getAttribute("class"));
  assert(/legal/.test(focused || ""), "Tab focused " + focused);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#world .pending");
  if (await page.$("#world .spot")) {
    await page.keyboard.press(" ");
    await page.waitForSelector("#world .spot.selected");
  }
  await page.focus("#board");
  await page.keyboard.press("Enter");
  await waitLogGrows(page, before);
}

// Plays until `watcher` shows the end screen: whichever of `pages` shows legal positions moves.
// turn(page, n) makes move n (default clickMove) and may do more around it. Returns the number
// of moves made through the UI.
export async function playUntilOver(pages, watcher, { timeoutMs = 150000, turn } = {}) {
  const deadline = Date.now() + timeoutMs;
  let moves = 0;
  for (;;) {
    assert(Date.now() < deadline, `game took too long (${moves} moves through the UI)`);
    if (await watcher.evaluate(() => !document.getElementById("end").hidden)) return moves;
    let mover = null;
    for (const p of pages) {
      if ((await p.$$("#world .legal")).length) {
        mover = p;
        break;
      }
    }
    if (!mover) {
      await watcher.waitForTimeout(30);
      continue;
    }
    if (turn) await turn(mover, moves);
    else await clickMove(mover, moves);
    moves++;
  }
}

// The end screen's ranking: [[seat, score], ...].
export function endScores(page) {
  return page.$$eval("#ranking li", (lis) => lis.map((li) => [Number(li.dataset.seat), Number(li.querySelector(".final-score").textContent)]));
}
