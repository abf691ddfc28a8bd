// eSIM purchase (ARCHITECTURE flow 4): package lookup, debit through the buyer's AccountLedger
// (atomic: two purchases cannot both spend the last dollar), then the eSIM and its order row in
// one D1 batch. A purchase the ledger refuses stores nothing; one whose write fails is refunded.
import { esims } from "../../../../schema/exchange.ts";
import { isUniqueViolation } from "../../../lib/db.ts";
import { newId } from "../../../lib/ids.ts";
import { toUsd } from "../../../lib/money.ts";
import { addDays, nowIso } from "../../../lib/time.ts";
import { requireOwnAccount } from "../accounts.ts";
import type { ExchangePrincipal, ExchangeServices } from "../context.ts";
import { debit, refund } from "../ledger.ts";
import { unknown } from "../errors.ts";
import { bytesOfGb } from "./allowance.ts";
import { datetimeOf } from "../fields.ts";
import { lpaOf, newIccid, newMatchingId } from "./iccid.ts";
import { insertCompleteOrder } from "./orders.ts";
import { purchasablePackage } from "./market.ts";
import { qrPngBase64 } from "./qr.ts";
import type { PurchaseInput } from "./schemas.ts";

const ISSUE_ATTEMPTS = 3;

export async function purchaseEsim(s: ExchangeServices, principal: ExchangePrincipal, input: PurchaseInput) {
  requireOwnAccount(principal, input.i_account);
  const pkg = await purchasablePackage(s.db, input.i_esim_package);
  if (!pkg) throw unknown("i_esim_package", "package");
  const amount = pkg.priceMicros + pkg.feeMicros;
  const orderUuid = newId();
  const createTs = nowIso();
  const entryId = `esim:${orderUuid}`;
  const description = `eSIM ${pkg.name} (order ${orderUuid})`;
  await debit(s, input.i_account, { entryId, type: "esim_purchase", amountMicros: amount, description, createdAt: createTs });

  const { smDpAddress, issuerPrefix, iccidLength } = s.settings;
  for (let attempt = 1; ; attempt++) {
    const iccid = newIccid(issuerPrefix, iccidLength);
    const matchingId = newMatchingId();
    const lpa = lpaOf(smDpAddress, matchingId);
    try {
      const [, [order]] = await s.db.batch([
        s.db.insert(esims).values({
          iccid,
          iAccount: input.i_account,
          iEsimPackage: pkg.iEsimPackage,
          smDpAddress,
          matchingId,
          activationCode: matchingId,
          lpa,
          status: "RELEASED",
          dataAllowanceBytes: bytesOfGb(pkg.dataGb),
          dataUsedBytes: 0,
          expiresAt: addDays(createTs, pkg.validityDays),
          createdAt: createTs,
          updatedAt: createTs,
        }),
        insertCompleteOrder(s.db, {
          orderUuid,
          iAccount: input.i_account,
          orderType: "purchase",
          iccid,
          iEsimPackage: pkg.iEsimPackage,
          packageName: pkg.name,
          amountChargedMicros: amount,
          createTs,
        }),
      ]);
      return {
        iccid,
        i_esim_order: order!.iEsimOrder,
        order_uuid: orderUuid,
        lpa,
        qr_base64: qrPngBase64(lpa),
        sm_dp_address: smDpAddress,
        activation_code: matchingId,
        esim_status: "RELEASED",
        i_esim_package: pkg.iEsimPackage,
        package_name: pkg.name,
        amount_charged: toUsd(amount),
        create_ts: datetimeOf(createTs),
      };
    } catch (err) {
      // A random ICCID or matching id already taken: draw again (the batch wrote nothing).
      if (isUniqueViolation(err) && attempt < ISSUE_ATTEMPTS) continue;
      await refund(s, input.i_account, entryId, amount, `eSIM order ${orderUuid} not issued`);
      throw err;
    }
  }
}
