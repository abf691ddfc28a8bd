// POST /marketview/search (either key; legacy v1 controller `marketview`): voice and SMS market
// rates as JSON, or with format=csv the rate deck as a CSV download (the spec's one exception to
// JSON answers; errors are still JSON).
import { MarketviewSearch } from "../../services/exchange/market/schemas.ts";
import { rateDeck, searchRates } from "../../services/exchange/market/search.ts";
import { operation, type ExchangeRouter } from "../operation.ts";
import { success } from "../respond.ts";
import { rateDeckCsv } from "./csv.ts";

export const marketview = operation({
  role: "any",
  input: MarketviewSearch,
  run: async (c, input) => searchRates(c.var.services, input),
  respond: async (c, input) => {
    const deps = c.var.services;
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
