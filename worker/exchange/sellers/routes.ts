// The seller endpoints (seller API key): publish, update, withdraw and list eSIM packages,
// top-up packages and voice/SMS rates. Paths:
//   POST /sellers/esim/packages/{publish,update,withdraw,list}
//   POST /sellers/esim/topups/{publish,update,withdraw,list}
//   POST /sellers/rates/{publish,update,withdraw,list}
// Legacy v1 controllers: seller_<area>_<action>, e.g. seller_packages_publish.
import type { z } from "zod";
import type { ExchangeServices } from "../../services/exchange/context.ts";
import { listSellerPackages, publishPackage, updatePackage, withdrawPackage } from "../../services/exchange/sellers/packages.ts";
import { listSellerRates, publishRate, updateRate, withdrawRate } from "../../services/exchange/sellers/rates.ts";
import {
  PackagePublish,
  PackageRef,
  PackageUpdate,
  RatePublish,
  RateRef,
  RateUpdate,
  SellerList,
  TopupPublish,
  TopupRef,
  TopupUpdate,
} from "../../services/exchange/sellers/schemas.ts";
import { listSellerTopups, publishTopup, updateTopup, withdrawTopup } from "../../services/exchange/sellers/topups.ts";
import type { Seller } from "../../services/exchange/sellers/vendors.ts";
import type { ExchangeContext } from "../context.ts";
import { operation, type ExchangeRouter, type Operation } from "../operation.ts";

const sellerOf = (c: ExchangeContext): Seller => ({ iAccount: c.var.exchange.iAccount, username: c.var.exchange.username });

/** A seller operation: the service gets the deps, the seller and the validated fields. */
function sellerOp<S extends z.ZodType>(
  input: S,
  run: (deps: ExchangeServices, seller: Seller, fields: z.infer<S>) => Promise<Record<string, unknown>>,
) {
  return operation({ role: "seller", input, run: async (c, fields) => run(c.var.services, sellerOf(c), fields) });
}

export const sellerOperations = {
  packages: {
    publish: sellerOp(PackagePublish, async (d, s, f) => ({ package: await publishPackage(d, s, f) })),
    update: sellerOp(PackageUpdate, async (d, s, f) => ({ package: await updatePackage(d, s, f) })),
    withdraw: sellerOp(PackageRef, async (d, s, f) => ({ package: await withdrawPackage(d, s, f.i_esim_package) })),
    list: sellerOp(SellerList, (d, s, f) => listSellerPackages(d, s, f)),
  },
  topups: {
    publish: sellerOp(TopupPublish, async (d, s, f) => ({ topup: await publishTopup(d, s, f) })),
    update: sellerOp(TopupUpdate, async (d, s, f) => ({ topup: await updateTopup(d, s, f) })),
    withdraw: sellerOp(TopupRef, async (d, s, f) => ({ topup: await withdrawTopup(d, s, f.package_type_id) })),
    list: sellerOp(SellerList, (d, s, f) => listSellerTopups(d, s, f)),
  },
  rates: {
    publish: sellerOp(RatePublish, async (d, s, f) => ({ rate: await publishRate(d, s, f) })),
    update: sellerOp(RateUpdate, async (d, s, f) => ({ rate: await updateRate(d, s, f) })),
    withdraw: sellerOp(RateRef, async (d, s, f) => ({ rate: await withdrawRate(d, s, f.i_rate) })),
    list: sellerOp(SellerList, (d, s, f) => listSellerRates(d, s, f)),
  },
};

const PATHS = { packages: "/sellers/esim/packages", topups: "/sellers/esim/topups", rates: "/sellers/rates" } as const;

export function registerSellers(router: ExchangeRouter): void {
  for (const area of ["packages", "topups", "rates"] as const) {
    for (const action of ["publish", "update", "withdraw", "list"] as const) {
      const op = sellerOperations[area][action] as Operation;
      router.expose("POST", `${PATHS[area]}/${action}`, op, `seller_${area}_${action}`);
    }
  }
}
