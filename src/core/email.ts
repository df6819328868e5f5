// The e-mail rule of every form and call that takes one (invoice, payer details, the card SDK screens): one place.

/** Something@something.tld, no spaces (the provider or mail server has the last word). */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
