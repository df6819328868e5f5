// The arithmetic of a rental's revenue share (docs/payments.md "Revenue share"), in integer minor units.
//
//   gross        what the rental's rent credited to platform revenue
//   refunded     what went back to the rider (to the card or the wallet)
//   provider fee fee_bps of the gross (a provider keeps its fee on a charge that is later refunded)
//   tax          the tax included in the price, at the country's rate: of (gross − refunded)
//   net          gross − refunded − provider fee − tax (never below 0)
//   shares       the venue's and the agent's percentage of the net, rounded down
//   platform     what stays: net − shares
//
// So for every rental, platform + shares + refunded + provider fee + tax = gross, to the unit.

export interface ShareRates {
  taxBps: number;
  feeBps: number;
  venueBps: number;
  agentBps: number;
}

export interface ShareAmounts {
  tax: number;
  providerFee: number;
  net: number;
  venueShare: number;
  agentShare: number;
}

const BPS = 10_000;

export function shareOf(gross: number, refunded: number, r: ShareRates): ShareAmounts {
  if (
    !Number.isSafeInteger(gross) ||
    !Number.isSafeInteger(refunded) ||
    gross < 0 ||
    refunded < 0 ||
    refunded > gross
  ) {
    throw new RangeError(`bad rental amounts: gross ${gross}, refunded ${refunded}`);
  }
  const kept = gross - refunded;
  const providerFee = Math.min(kept, Math.round((gross * r.feeBps) / BPS));
  // The tax included in a tax-inclusive price p at rate t is p·t/(1+t).
  const tax = Math.min(kept - providerFee, Math.round((kept * r.taxBps) / (BPS + r.taxBps)));
  const net = kept - providerFee - tax;
  const venueShare = Math.floor((net * r.venueBps) / BPS);
  const agentShare = Math.min(net - venueShare, Math.floor((net * r.agentBps) / BPS));
  return { tax, providerFee, net, venueShare, agentShare };
}
