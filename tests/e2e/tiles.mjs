// Checks of the tile art (clients/web/tiles.html, the gallery of every tile): for every tile of
// /api/tiles, the drawn tile shows as many pennant shields as the catalogue's pennants, and a
// cathedral, an inn, a cloister, a tithe barn, a siege mark and an apothecary exactly when the
// catalogue says so; each shield is at least 7 px tall at the default 80 px tile; and the
// gallery drew standing, lying and large meeples.

export async function tileArtChecks(page, url, assert) {
  const errors = [];
  const onError = (m) => m.type() === "error" && errors.push(m.text());
  page.on("console", onError);
  try {
    await page.goto(url + "/tiles.html");
    await page.waitForSelector("#gallery[data-ready='1']", { timeout: 10000 });
    const cat = await page.evaluate(async () => (await fetch("/api/tiles")).json());
    const ids = Object.keys(cat.tiles);
    assert(ids.length > 0, "the catalogue has no tiles");
    const drawn = await page.evaluate(() => {
      const out = {};
      for (const fig of document.querySelectorAll("figure.gallery-tile")) {
        const g = fig.querySelector("g.tile");
        if (!g) continue;
        const count = (c) => g.querySelectorAll("." + c).length;
        const shields = [...g.querySelectorAll(".pennant")].map((p) => p.getBoundingClientRect().height);
        const svg = fig.querySelector("svg").getBoundingClientRect();
        out[fig.dataset.tile] = {
          pennant: count("pennant"), cathedral: count("cathedral"), inn: count("inn"), cloister: count("cloister"),
          barn: count("barn"), siege: count("siege"), apothecary: count("apothecary"), shields, width: svg.width,
        };
      }
      return out;
    });
    const bad = [];
    for (const id of ids) {
      const t = cat.tiles[id];
      const d = drawn[id];
      if (!d) {
        bad.push(`${id}: not drawn`);
        continue;
      }
      const segs = t.segments || [];
      const has = (kind, flag) => segs.some((s) => (!kind || s.kind === kind) && (s.flags || []).includes(flag));
      const pennants = segs.filter((s) => s.kind === "city").reduce((n, s) => n + (s.pennants || 0), 0);
      if (d.pennant !== pennants) bad.push(`${id}: ${d.pennant} pennants drawn, ${pennants} in the catalogue`);
      const want = {
        cathedral: has("city", "cathedral"), inn: has("road", "inn"), cloister: !!t.cloister,
        barn: !!t.barn || has(null, "barn"), siege: has(null, "siege"), apothecary: has(null, "apothecary"),
      };
      for (const k in want) {
        if ((d[k] > 0) !== want[k]) bad.push(`${id}: ${k} drawn ${d[k]}, wanted ${want[k] ? "one" : "none"}`);
      }
      if (Math.abs(d.width - 80) > 0.5) bad.push(`${id}: tile ${d.width} px wide, not 80`);
      d.shields.forEach((h, i) => h < 7 && bad.push(`${id}: pennant ${i} only ${h.toFixed(1)} px tall`));
    }
    assert(bad.length === 0, `tile art: ${bad.length} problems: ${bad.slice(0, 8).join("; ")}`);
    const kinds = await page.evaluate(() => ({
      standing: document.querySelectorAll("#gallery .meeple:not(.lying):not(.large)").length,
      lying: document.querySelectorAll("#gallery .meeple.lying").length,
      large: document.querySelectorAll("#gallery .meeple.large").length,
      marked: document.querySelectorAll("#gallery .meeple .meeple-mark").length,
      all: document.querySelectorAll("#gallery .meeple").length,
    }));
    assert(kinds.standing > 0 && kinds.lying > 0 && kinds.large > 0, "meeples drawn: " + JSON.stringify(kinds));
    assert(kinds.marked === kinds.all, "every meeple has its seat's shape mark: " + JSON.stringify(kinds));
    assert(errors.length === 0, "console errors on tiles.html: " + errors.join(" | "));
  } finally {
    page.off("console", onError);
  }
}
