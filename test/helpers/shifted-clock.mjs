// Preloaded with `node --import` into a server process to give it a wrong wall clock, as a machine
// whose clock drifted or stepped would have: Date is CLOCK_SHIFT_MS off, and each SIGUSR2 moves it by
// CLOCK_STEP_MS more. The monotonic timer (performance.now) is left alone, as the kernel would.
const RealDate = Date;
let shift = Number(process.env.CLOCK_SHIFT_MS ?? 0);
process.on('SIGUSR2', () => {
  shift += Number(process.env.CLOCK_STEP_MS ?? 0);
});
class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + shift);
    else super(...args);
  }
  static now() {
    return RealDate.now() + shift;
  }
}
globalThis.Date = ShiftedDate;
