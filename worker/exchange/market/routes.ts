// POST /marketview/search (either key; legacy v1 controller `marketview`): voice and SMS market
// rates as JSON, or with format=csv the rate deck as a CSV download (the spec's one exception to
// JSON answers; errors are still JSON).
import { exchangeDeps } from "../context.ts";
import { withSettings } from "../esim/settings.ts";
import { operation, type ExchangeRouter } from "../operation.ts";
import { success } from "../respond.ts";
import { rateDeckCsv } from "./csv.ts";
import { MarketviewSearch } from "./schemas.ts";
import { rateDeck, searchRates } from "./search.ts";

export const marketview = operation({
  role: "any",
  input: MarketviewSearch,
  run: async (c, input) => searchRates(withSettings(exchangeDeps(c)), input),
  respond: async (c, input) => {
    const deps = withSettings(exchangeDeps(c));
    if (input.format === "json") return success(c, await searchRates(deps, input));
    const day = new Date().toISOString().slice(0, 10);
    return c.body(rateDeckCsv(await rateDeck(deps, input)), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="rate-deck-${day}.csv"`,
    });
  },
});

export function registerMarket(router: ExchangeRouter): void {
  router.expose("POST", "/marketview/search", marketview, "marketview");
}
