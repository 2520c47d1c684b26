/** Sessions to a page of `keen sessions` (a constant of its own: commands.ts loads it eagerly). */
export const SESSIONS_PAGE_SIZE = 50;
