// The order receipt on the wire (GET cdb/invoice/check): one declaration for the server that builds it and the
// flows that show it.

export interface Receipt {
  orderId: string;
  shopName: string;
  returnShopName: string;
  borrowTime: string;
  returnTime: string | null;
  ended: boolean;
  currency: string;
  /** Charged rent (ended) or the estimate so far (open), major units. */
  amount: number;
  deposit: number;
  useMinutes: number;
  lastEmail: string | null;
}
