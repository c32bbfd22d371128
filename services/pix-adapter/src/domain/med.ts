/** BCB rule: a MED can be raised within 80 days of the Pix it claims back. */
export const MED_WINDOW_DAYS = 80;

/** How often the Pix of the MED window are listed again for a MED no callback told (its first callback lost). */
export const MED_SWEEP_EVERY_MS = 15 * 60 * 1000;
